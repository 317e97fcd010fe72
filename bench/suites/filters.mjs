// Filtered search at multi-tenant scale: a real collection (CRAN + CISI + MED abstracts) copied to 1M documents,
// 10,000 tenants and a `year` field, queries rotating tenants. ragrank's field indexes against the same index with
// them off (`dynamicFields: false`: each candidate's metadata tested, the behaviour before field indexes), with a
// writer (100 adds/s plus removes) and without, and peers that filter: Orama (`where`), LanceDB (scalar BITMAP and
// BTREE indexes, prefiltered FTS and flat vector search), tantivy (Python) and Elasticsearch (when
// `bash scripts/engines.sh start es` runs it; RAGRANK_ES_URL). Each against its own unfiltered search, in one run.
// Vectors: 200k x 384 random unit vectors, the same fields.
//
//   node bench/run.mjs --suite filters            1M documents, 200k vectors (~15 min on 2 cores, ~10 GB)
//   node bench/run.mjs --suite filters --quick    200k documents, 50k vectors
//   RAGRANK_BENCH_FILTER_PEERS=0                  ragrank only
//
// Per query: p50 and p99 of single searches (each case in turn, three rounds; median (min-max) of the rounds'
// values); "vs none": filtered p50 over the same engine's unfiltered p50. Orama indexes 20k documents and runs 10
// queries a case (a search of these queries takes it about 0.7 s at 20k, 5 s at 50k; its row says its size).
// Output: bench/results/filters.md and filters.json (a --quick run writes filters-quick.*).
import fs from 'node:fs'
import path from 'node:path'
import { create as oramaCreate, insertMultiple as oramaInsert, search as oramaSearch } from '@orama/orama'
import { loadCisi, loadCran, loadMed } from '../lib/datasets.mjs'
import {
  fmt,
  gc,
  isaLine,
  lastJsonLine,
  machineInfo,
  mdTable,
  now,
  quantile,
  runCommand,
  summarize,
} from '../lib/harness.mjs'
import { LANCEDB_FTS_OPTIONS, loadLancedb } from '../lib/lancedb.mjs'
import { pyScript, venvPython } from '../lib/paths.mjs'
import { pkgVersion } from '../lib/peers.mjs'
import { unitVectors } from '../lib/vectors.mjs'
import { loadRagrank } from './bm25.mjs'

const TENANTS = 10_000
const ROUNDS = 3
const ORAMA_MAX_DOCS = 20_000
/** Orama's searches of these queries (15-20 terms) take about 0.7 s each at 20k documents here, even exact. */
const ORAMA_QUERIES = 10
const WRITES_PER_SECOND = 100
const CASES = ['none', 'tenant', 'tenant + year', 'year range']
const log = (s) => process.stderr.write(`[filters] ${s}\n`)

/** A document's tenant and year from its position (a multiplicative hash spreads tenants over the copies). */
const tenantOf = (i) => `t${(Math.imul(i, 2654435761) >>> 0) % TENANTS}`
const yearOf = (i) => 1960 + ((i * 7919) % 60)
/** The tenant of query `q`: they rotate, so no two consecutive queries share one. */
const tenantOfQuery = (q) => `t${(q * 7877) % TENANTS}`

/** ragrank's filter of a case (the same grammar for both indexes). */
function ragrankFilter(c, tenant) {
  if (c === 'tenant') return { meta: { tenant } }
  if (c === 'tenant + year') return { meta: { tenant, year: { $gte: 1990 } } }
  if (c === 'year range') return { meta: { year: { $gte: 1980, $lt: 2000 } } }
  return undefined
}

/** The same filters as SQL (LanceDB). */
function sqlFilter(c, tenant) {
  if (c === 'tenant') return `tenant = '${tenant}'`
  if (c === 'tenant + year') return `tenant = '${tenant}' AND year >= 1990`
  if (c === 'year range') return 'year >= 1980 AND year < 2000'
  return undefined
}

/** The same filters as Elasticsearch filter clauses (non-scoring, in `bool.filter`). */
function esFilter(c, tenant) {
  if (c === 'tenant') return [{ term: { tenant } }]
  if (c === 'tenant + year') return [{ term: { tenant } }, { range: { year: { gte: 1990 } } }]
  if (c === 'year range') return [{ range: { year: { gte: 1980, lt: 2000 } } }]
  return []
}

/** The same filters as Orama `where` clauses. */
function oramaWhere(c, tenant) {
  if (c === 'tenant') return { tenant: { eq: tenant } }
  if (c === 'tenant + year') return { tenant: { eq: tenant }, year: { gte: 1990 } }
  if (c === 'year range') return { year: { between: [1980, 1999] } }
  return undefined
}

/**
 * p50 and p99 (ms) per case of `search(q, case, tenant)` (sync, or a promise) over `nQueries` queries, each case in
 * turn per round; `between()` runs untimed before each query (the writer).
 */
async function timeCases(search, nQueries, between) {
  const rounds = Object.fromEntries(CASES.map((c) => [c, { p50: [], p99: [] }]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of CASES) {
      const ms = []
      for (let q = 0; q < nQueries; q++) {
        between?.()
        const t0 = now()
        const res = search(q, c, tenantOfQuery(q + r * nQueries))
        if (typeof res?.then === 'function') await res
        ms.push((now() - t0) * 1000)
      }
      rounds[c].p50.push(quantile(ms, 0.5))
      rounds[c].p99.push(quantile(ms, 0.99))
    }
  }
  return Object.fromEntries(CASES.map((c) => [c, { p50: summarize(rounds[c].p50), p99: summarize(rounds[c].p99) }]))
}

/** A writer at WRITES_PER_SECOND of wall time: `add(i)` for each new document, `remove(i)` for every tenth. */
function writer(add, remove, first) {
  const start = now()
  let done = 0
  return () => {
    const due = Math.floor((now() - start) * WRITES_PER_SECOND)
    for (; done < due; done++) {
      add(first + done)
      if (done % 10 === 9) remove(first + done - 5)
    }
  }
}

const spread = (s) => `${fmt(s.median)} (${fmt(s.min)}-${fmt(s.max)})`

function corpus(n) {
  const sets = [loadCran(), loadCisi(), loadMed()]
  const base = sets.flatMap((s) => s.docs.map((d) => d.text))
  const queries = sets.flatMap((s) => s.queries.map((q) => q.text))
  const doc = (i) => ({ id: `d${i}`, text: base[i % base.length], meta: { tenant: tenantOf(i), year: yearOf(i) } })
  return { docs: Array.from({ length: n }, (_, i) => doc(i)), doc, queries, baseDocs: base.length }
}

const ES_URL = process.env.RAGRANK_ES_URL ?? 'http://127.0.0.1:19200'
const ES_INDEX = 'ragrank-bench-filters'

/** One JSON request to Elasticsearch; a non-2xx answer throws with its body. */
async function esRequest(method, pathname, body, ndjson = false) {
  const res = await fetch(`${ES_URL}${pathname}`, {
    method,
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : ndjson ? body : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`Elasticsearch ${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/**
 * Elasticsearch (from `bash scripts/engines.sh start es`) on the same documents: text (standard analyzer),
 * tenant keyword, year integer; bulk-loaded with refresh off, then refreshed; each query a `bool` of the text's
 * `match` and the filter's `term` / `range` clauses in `filter` (cached bitsets, no scoring), timed from Node
 * over HTTP (keep-alive), `track_total_hits: false` so it may skip non-competitive documents as ragrank does.
 */
async function elasticsearchPeer(docs, queries, nQueries) {
  let version
  try {
    // The node's version (this build answers no `GET /`).
    version = Object.values((await esRequest('GET', '/_nodes/_local?filter_path=nodes.*.version')).nodes)[0].version
  } catch (e) {
    return {
      note: `Elasticsearch left out: not reachable at ${ES_URL} (bash scripts/engines.sh start es): ${e.message}`,
    }
  }
  const engine = `Elasticsearch ${version} (bool: match + term / range filter)`
  await fetch(`${ES_URL}/${ES_INDEX}`, { method: 'DELETE' })
  await esRequest('PUT', `/${ES_INDEX}`, {
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 },
    mappings: {
      dynamic: 'strict',
      properties: { text: { type: 'text' }, tenant: { type: 'keyword' }, year: { type: 'integer' } },
    },
  })
  gc()
  const t0 = now()
  const BULK = 5000
  let inFlight = []
  for (let i = 0; i < docs.length; i += BULK) {
    const lines = []
    for (const d of docs.slice(i, i + BULK)) {
      lines.push(JSON.stringify({ index: { _id: d.id } }), JSON.stringify({ text: d.text, ...d.meta }))
    }
    inFlight.push(
      esRequest('POST', `/${ES_INDEX}/_bulk`, `${lines.join('\n')}\n`, true).then((r) => {
        if (r.errors)
          throw new Error(`Elasticsearch bulk refused documents: ${JSON.stringify(r.items.find((x) => x.index.error))}`)
      }),
    )
    if (inFlight.length >= 2) {
      await inFlight.shift()
    }
    if (i % 200_000 === 0) log(`Elasticsearch: ${i} documents sent`)
  }
  await Promise.all(inFlight)
  inFlight = []
  await esRequest('PUT', `/${ES_INDEX}/_settings`, { index: { refresh_interval: '1s' } })
  await esRequest('POST', `/${ES_INDEX}/_refresh`)
  const build = now() - t0
  const { count } = await esRequest('GET', `/${ES_INDEX}/_count`)
  if (count !== docs.length) throw new Error(`Elasticsearch holds ${count} documents, not ${docs.length}`)
  const segments = (await esRequest('GET', `/${ES_INDEX}/_stats/segments`)).indices[ES_INDEX].primaries.segments.count
  const heap = Object.values((await esRequest('GET', '/_nodes/_local/jvm?filter_path=nodes.*.jvm.mem')).nodes)[0].jvm
    .mem.heap_max_in_bytes
  log(`Elasticsearch: built in ${fmt(build)} s, ${segments} segments`)
  const search = (q, c, tenant) =>
    esRequest('POST', `/${ES_INDEX}/_search`, {
      size: 10,
      _source: false,
      track_total_hits: false,
      query: { bool: { must: [{ match: { text: queries[q % queries.length] } }], filter: esFilter(c, tenant) } },
    })
  const timed = await timeCases(search, nQueries)
  await fetch(`${ES_URL}/${ES_INDEX}`, { method: 'DELETE' })
  return {
    engine,
    timed,
    build,
    note: `Elasticsearch: one shard, no replica, mapping text (standard analyzer) / tenant keyword / year integer, bulk-loaded (${BULK} a request, 2 in flight, refresh off) then refreshed (${segments} segments, not force-merged); \`bool: { must: match(text), filter: [term tenant, range year] }\`, size 10, \`track_total_hits: false\`, \`_source: false\`; timed from Node over HTTP with keep-alive (so HTTP and JSON included), JVM heap ${fmt(heap / 2 ** 30)} GiB (RAGRANK_ENGINES_HEAP of \`scripts/engines.sh\`).`,
  }
}

export async function runFiltersSuite({ quick = false, outDir } = {}) {
  const rg = await loadRagrank()
  if (!rg) throw new Error('filters suite: build ragrank first (npm run build)')
  const peers = process.env.RAGRANK_BENCH_FILTER_PEERS !== '0'
  const nDocs = quick ? 200_000 : 1_000_000
  const nVectors = quick ? 50_000 : 200_000
  const nQueries = quick ? 300 : 600
  const { docs, doc, queries, baseDocs } = corpus(nDocs)
  log(`${nDocs} documents (${baseDocs} abstracts copied), ${TENANTS} tenants, ${queries.length} distinct queries`)
  const results = []
  const notes = []
  const record = (index, engine, timed, extra = {}) => {
    results.push({ index, engine, timed, ...extra })
    log(`  ${engine}: ${CASES.map((c) => `${c} ${fmt(timed[c].p50.median)} ms`).join(', ')}`)
  }
  const bm25Label = `BM25, ${nDocs / 1000}k documents`
  let memory = {}
  for (const [engine, options] of [
    ['ragrank, field indexes', {}],
    ['ragrank, scan', { dynamicFields: false }],
  ]) {
    gc()
    const t0 = now()
    const index = new rg.Bm25Index({ ...options, storeText: false })
    for (let i = 0; i < docs.length; i += 100_000) await index.addAsync(docs.slice(i, i + 100_000))
    const build = now() - t0
    const stats = index.stats()
    if (engine === 'ragrank, field indexes') {
      memory = Object.fromEntries(Object.entries(stats.fieldIndexBytes).map(([f, b]) => [f, b / nDocs]))
    }
    log(`BM25 ${engine}: built in ${fmt(build)} s`)
    const search = (q, c, tenant) =>
      index.search(queries[q % queries.length], { topK: 10, filter: ragrankFilter(c, tenant) })
    record(bm25Label, engine, await timeCases(search, nQueries), { build })
    if (engine === 'ragrank, field indexes') {
      const w = writer(
        (i) => index.add([doc(i)]),
        (i) => index.remove([`d${i}`]),
        nDocs,
      )
      record(bm25Label, `${engine}, writer ${WRITES_PER_SECOND} adds/s + removes`, await timeCases(search, nQueries, w))
    }
  }
  if (peers) {
    const n = Math.min(nDocs, ORAMA_MAX_DOCS)
    gc()
    const t0 = now()
    const db = oramaCreate({ schema: { text: 'string', tenant: 'enum', year: 'number' } })
    for (let i = 0; i < n; i += 20_000) {
      await oramaInsert(
        db,
        docs.slice(i, Math.min(n, i + 20_000)).map((d) => ({ id: d.id, text: d.text, ...d.meta })),
      )
    }
    const build = now() - t0
    log(`Orama ${n} documents: built in ${fmt(build)} s`)
    const search = (q, c, tenant) =>
      oramaSearch(db, { term: queries[q % queries.length], limit: 10, exact: true, where: oramaWhere(c, tenant) })
    record(
      `BM25, ${n / 1000}k documents`,
      `Orama ${pkgVersion('@orama/orama')} (where)`,
      await timeCases(search, ORAMA_QUERIES),
      { build },
    )
    notes.push(
      'Orama: schema { text: string, tenant: enum, year: number }, `search({ term, limit: 10, exact: true, where })` (exact: without it every term is prefix-expanded, 7x slower), BM25 k1=1.2 b=0.75; 20k documents and 10 queries a case, as a search of these long queries takes it about 0.7 s.',
    )
  }
  const tantivyPython = venvPython('.venv-bench-peers')
  if (peers && fs.existsSync(tantivyPython)) {
    const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'ragrank-bench-filters-'))
    const corpusFile = path.join(dir, 'corpus.jsonl')
    const fd = fs.openSync(corpusFile, 'w')
    for (let i = 0; i < docs.length; i += 50_000) {
      const lines = docs.slice(i, i + 50_000).map((d) => JSON.stringify({ text: d.text, ...d.meta }))
      fs.writeSync(fd, `${lines.join('\n')}\n`)
    }
    fs.closeSync(fd)
    const config = {
      corpus: corpusFile,
      queries,
      cases: CASES,
      rounds: ROUNDS,
      n_queries: nQueries,
      k: 10,
      tenants: Array.from({ length: ROUNDS }, (_, r) =>
        Array.from({ length: nQueries }, (_, q) => tenantOfQuery(q + r * nQueries)),
      ),
    }
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config))
    log('tantivy: building and timing in its own process')
    const run = await runCommand(tantivyPython, [pyScript('filter_peers.py'), path.join(dir, 'config.json')])
    fs.rmSync(dir, { recursive: true, force: true })
    if (run.code === 0) {
      const out = lastJsonLine(run.stdout)
      const timed = Object.fromEntries(
        CASES.map((c) => [c, { p50: summarize(out.cases[c].p50), p99: summarize(out.cases[c].p99) }]),
      )
      record(bm25Label, `${out.version} (Python; term + range filter clauses)`, timed, {
        build: out.index_seconds,
      })
      notes.push(
        "tantivy: fields body (default tokenizer, freqs), tenant (raw), year (indexed fast integer); the text's OR of terms AND a `const_score_query(term/range, 0)` per filter; timed in Python around `searcher.search` (queries built before), one indexing thread, one segment. `npm run setup:bench-peers` makes its venv.",
      )
    } else notes.push(`tantivy left out: its worker exited ${run.code}: ${run.stderr.trim().split('\n').pop()}`)
  } else if (peers) notes.push('tantivy left out: no .venv-bench-peers (npm run setup:bench-peers)')
  if (peers) {
    const es = await elasticsearchPeer(docs, queries, nQueries)
    if (es.timed) record(bm25Label, es.engine, es.timed, { build: es.build })
    notes.push(es.note)
  }
  const lance = peers ? await loadLancedb() : { error: 'peers off' }
  if (lance.mod) {
    gc()
    const t0 = now()
    const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'ragrank-bench-filters-'))
    const conn = await lance.mod.connect(dir)
    let table = null
    for (let i = 0; i < nDocs; i += 50_000) {
      const rows = docs.slice(i, i + 50_000).map((d) => ({ id: d.id, text: d.text, ...d.meta }))
      if (table) await table.add(rows)
      else table = await conn.createTable('docs', rows)
    }
    await table.createIndex('text', {
      config: lance.mod.Index.fts({ ...LANCEDB_FTS_OPTIONS, baseTokenizer: 'simple', lowercase: true }),
    })
    await table.createIndex('tenant', { config: lance.mod.Index.bitmap() })
    await table.createIndex('year', { config: lance.mod.Index.btree() })
    const build = now() - t0
    log(`LanceDB FTS: built in ${fmt(build)} s`)
    const search = (q, c, tenant) => {
      let query = table
        .search(queries[q % queries.length], 'fts')
        .select(['id'])
        .limit(10)
      const where = sqlFilter(c, tenant)
      if (where) query = query.where(where)
      return query.toArray()
    }
    record(bm25Label, `LanceDB ${lance.version} (FTS + where, scalar indexes)`, await timeCases(search, nQueries), {
      build,
    })
    table.close?.()
    conn.close?.()
    fs.rmSync(dir, { recursive: true, force: true })
    notes.push(
      "LanceDB: FTS index (tokenizer 'simple', lowercase, no stemming), BITMAP index on tenant, BTREE on year; `table.search(text, 'fts').where(sql).limit(10)` (prefilter, its default).",
    )
  } else if (peers) notes.push(`LanceDB left out: ${lance.error}`)
  docs.length = 0
  gc()

  const dim = 384
  const { data } = unitVectors(nVectors, dim, 1)
  const { data: qv } = unitVectors(64, dim, 2)
  const item = (i) => ({
    id: `v${i}`,
    vector: data.subarray((i % nVectors) * dim, ((i % nVectors) + 1) * dim),
    meta: { tenant: tenantOf(i), year: yearOf(i) },
  })
  const query = (q) => qv.subarray((q % 64) * dim, ((q % 64) + 1) * dim)
  const vecLabel = `vectors, ${nVectors / 1000}k x ${dim}`
  const vecQueries = quick ? 200 : 100
  for (const [engine, options] of [
    ['ragrank, field indexes', {}],
    ['ragrank, scan', { dynamicFields: false }],
  ]) {
    gc()
    const index = new rg.VectorIndex({ dim, ...options })
    for (let i = 0; i < nVectors; i += 50_000) {
      index.add(Array.from({ length: Math.min(50_000, nVectors - i) }, (_, j) => item(i + j)))
    }
    const search = (q, c, tenant) => index.search(query(q), { topK: 10, filter: ragrankFilter(c, tenant) })
    record(vecLabel, engine, await timeCases(search, vecQueries))
    if (engine === 'ragrank, field indexes') {
      const w = writer(
        (i) => index.add([item(i)]),
        (i) => index.remove([`v${i}`]),
        nVectors,
      )
      record(
        vecLabel,
        `${engine}, writer ${WRITES_PER_SECOND} adds/s + removes`,
        await timeCases(search, vecQueries, w),
      )
    }
  }
  if (lance.mod) {
    gc()
    const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'ragrank-bench-filters-'))
    const conn = await lance.mod.connect(dir)
    let table = null
    for (let i = 0; i < nVectors; i += 20_000) {
      const rows = Array.from({ length: Math.min(20_000, nVectors - i) }, (_, j) => {
        const it = item(i + j)
        return { id: it.id, vector: Array.from(it.vector), ...it.meta }
      })
      if (table) await table.add(rows)
      else table = await conn.createTable('vectors', rows)
    }
    await table.createIndex('tenant', { config: lance.mod.Index.bitmap() })
    await table.createIndex('year', { config: lance.mod.Index.btree() })
    const search = (q, c, tenant) => {
      let vq = table
        .vectorSearch(Array.from(query(q)))
        .distanceType('dot')
        .select(['id'])
        .limit(10)
      const where = sqlFilter(c, tenant)
      if (where) vq = vq.where(where)
      return vq.toArray()
    }
    record(vecLabel, `LanceDB ${lance.version} (flat + where, scalar indexes)`, await timeCases(search, vecQueries))
    table.close?.()
    conn.close?.()
    fs.rmSync(dir, { recursive: true, force: true })
  }

  const m = machineInfo()
  const rows = results.flatMap((r) =>
    CASES.map((c) => [
      r.index,
      r.engine,
      c,
      spread(r.timed[c].p50),
      spread(r.timed[c].p99),
      fmt(r.timed[c].p50.median / r.timed.none.p50.median),
    ]),
  )
  const builds = results.filter((r) => r.build !== undefined).map((r) => `${r.engine} ${fmt(r.build)} s`)
  const markdown = [
    `# Filtered search: ${nDocs.toLocaleString('en')} documents, ${TENANTS.toLocaleString('en')} tenants${quick ? ' (quick)' : ''}`,
    '',
    `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${new Date().toISOString()}.`,
    `BM25: CRAN + CISI + MED abstracts (${baseDocs}) copied to ${nDocs.toLocaleString('en')} documents, meta { tenant, year }; the collections' queries, top 10, one tenant per query in rotation.`,
    `Vectors: random unit vectors, the same meta. Milliseconds per query: median (min-max) over ${ROUNDS} rounds of each round's p50 and p99; "vs none": p50 over the same engine's unfiltered p50.`,
    '"scan" is ragrank with `dynamicFields: false`: no field index, each candidate\'s metadata tested (the behaviour before field indexes). "writer": the same index while it takes 100 single-document adds a second plus a remove every tenth add, untimed between the queries.',
    ...notes,
    '',
    mdTable(['index', 'engine', 'filter', 'p50 ms', 'p99 ms', 'vs none'], rows, 'lllrrr'),
    '',
    `Field index memory (ragrank BM25): ${Object.entries(memory)
      .map(([f, b]) => `${f} ${fmt(b)} bytes a document`)
      .join(', ')}. Builds: ${builds.join('; ')}.`,
    '',
  ].join('\n')
  fs.mkdirSync(outDir, { recursive: true })
  const suffix = quick ? '-quick' : ''
  fs.writeFileSync(path.join(outDir, `filters${suffix}.md`), markdown)
  fs.writeFileSync(
    path.join(outDir, `filters${suffix}.json`),
    `${JSON.stringify({ machine: m, nDocs, nVectors, tenants: TENANTS, memory, results }, null, 1)}\n`,
  )
  return { markdown, data: results }
}
