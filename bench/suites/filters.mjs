// Filtered search at multi-tenant scale: a real collection (CRAN + CISI + MED abstracts) copied to 1M documents,
// 10,000 tenants and a `year` field, queries rotating tenants; ragrank's field indexes against the same index with
// them off (`dynamicFields: false`: each candidate's metadata tested, as before field indexes), and each against
// its own unfiltered search, side by side in one run. Vectors: 200k x 384 random unit vectors, the same fields.
//
//   node bench/run.mjs --suite filters            1M documents, 200k vectors (~6 min on 2 cores, ~8 GB)
//   node bench/run.mjs --suite filters --quick    200k documents, 50k vectors
//
// Per query: p50 and p99 of single `search` calls over 600 queries (each engine in turn, three rounds, round
// medians reported as median (min-max) of the rounds); ratio: filtered p50 over the same index's unfiltered p50.
// Output: bench/results/filters.md and filters.json (a --quick run writes filters-quick.*).
import fs from 'node:fs'
import path from 'node:path'
import { loadCisi, loadCran, loadMed } from '../lib/datasets.mjs'
import { fmt, gc, isaLine, machineInfo, mdTable, now, quantile, summarize } from '../lib/harness.mjs'
import { unitVectors } from '../lib/vectors.mjs'
import { loadRagrank } from './bm25.mjs'

const TENANTS = 10_000
const QUERIES = 600
const ROUNDS = 3
const log = (s) => process.stderr.write(`[filters] ${s}\n`)

/** A document's tenant and year from its position (a multiplicative hash: tenants spread over the copies). */
const tenantOf = (i) => `t${(Math.imul(i, 2654435761) >>> 0) % TENANTS}`
const yearOf = (i) => 1960 + ((i * 7919) % 60)

function corpus(n) {
  const sets = [loadCran(), loadCisi(), loadMed()]
  const base = sets.flatMap((s) => s.docs.map((d) => d.text))
  const queries = sets.flatMap((s) => s.queries.map((q) => q.text))
  const docs = new Array(n)
  for (let i = 0; i < n; i++) {
    docs[i] = { id: `d${i}`, text: base[i % base.length], meta: { tenant: tenantOf(i), year: yearOf(i) } }
  }
  return { docs, queries, baseDocs: base.length }
}

/** The filters of one query, by case: rotating tenants. */
function filterCases(q) {
  const tenant = `t${(q * 7877) % TENANTS}`
  return {
    none: undefined,
    tenant: { meta: { tenant } },
    'tenant + year': { meta: { tenant, year: { $gte: 1990 } } },
    'year range': { meta: { year: { $gte: 1980, $lt: 2000 } } },
  }
}

/** p50 and p99 (ms) of `search(q, filter)` over the queries, per case, each case timed in turn per round. */
function timeCases(search, nQueries) {
  const cases = Object.keys(filterCases(0))
  const rounds = Object.fromEntries(cases.map((c) => [c, { p50: [], p99: [] }]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of cases) {
      const ms = []
      for (let q = 0; q < nQueries; q++) {
        const filter = filterCases(q + r * nQueries)[c]
        const t0 = now()
        search(q, filter)
        ms.push((now() - t0) * 1000)
      }
      rounds[c].p50.push(quantile(ms, 0.5))
      rounds[c].p99.push(quantile(ms, 0.99))
    }
  }
  return Object.fromEntries(cases.map((c) => [c, { p50: summarize(rounds[c].p50), p99: summarize(rounds[c].p99) }]))
}

const spread = (s) => `${fmt(s.median)} (${fmt(s.min)}-${fmt(s.max)})`

export async function runFiltersSuite({ quick = false, outDir } = {}) {
  const rg = await loadRagrank()
  if (!rg) throw new Error('filters suite: build ragrank first (npm run build)')
  const nDocs = quick ? 200_000 : 1_000_000
  const nVectors = quick ? 50_000 : 200_000
  const { docs, queries, baseDocs } = corpus(nDocs)
  log(`${nDocs} documents (${baseDocs} abstracts copied), ${TENANTS} tenants, ${queries.length} distinct queries`)
  const rows = []
  const memory = {}
  const results = { bm25: {}, vector: {} }
  for (const [mode, options] of [
    ['field indexes', {}],
    ['scan (no field indexes)', { dynamicFields: false }],
  ]) {
    gc()
    const t0 = now()
    const index = new rg.Bm25Index({ ...options, refreshInterval: 0 })
    for (let i = 0; i < docs.length; i += 100_000) await index.addAsync(docs.slice(i, i + 100_000))
    const build = now() - t0
    const stats = index.stats()
    if (mode === 'field indexes') {
      for (const [f, b] of Object.entries(stats.fieldIndexBytes)) memory[f] = b / nDocs
    }
    log(`BM25 ${mode}: built in ${fmt(build)} s; timing`)
    const search = (q, filter) => index.search(queries[q % queries.length], { topK: 10, filter })
    const timed = timeCases(search, QUERIES)
    results.bm25[mode] = { build, memoryBytes: stats.memoryBytes, timed }
    for (const [c, t] of Object.entries(timed)) {
      rows.push([
        `BM25 ${nDocs / 1000}k`,
        mode,
        c,
        spread(t.p50),
        spread(t.p99),
        fmt(t.p50.median / timed.none.p50.median),
      ])
    }
  }
  docs.length = 0
  gc()
  const dim = 384
  const { data } = unitVectors(nVectors, dim, 1)
  const items = (lo, hi) =>
    Array.from({ length: hi - lo }, (_, j) => ({
      id: `v${lo + j}`,
      vector: data.subarray((lo + j) * dim, (lo + j + 1) * dim),
      meta: { tenant: `t${(lo + j) % TENANTS}`, year: yearOf(lo + j) },
    }))
  const { data: qv } = unitVectors(64, dim, 2)
  for (const [mode, options] of [
    ['field indexes', {}],
    ['scan (no field indexes)', { dynamicFields: false }],
  ]) {
    gc()
    const index = new rg.VectorIndex({ dim, ...options })
    for (let i = 0; i < nVectors; i += 50_000) index.add(items(i, Math.min(nVectors, i + 50_000)))
    log(`vectors ${mode}: timing`)
    const search = (q, filter) => index.search(qv.subarray((q % 64) * dim, ((q % 64) + 1) * dim), { topK: 10, filter })
    const timed = timeCases(search, quick ? 200 : 100)
    results.vector[mode] = { timed }
    for (const [c, t] of Object.entries(timed)) {
      rows.push([
        `vectors ${nVectors / 1000}k x ${dim}`,
        mode,
        c,
        spread(t.p50),
        spread(t.p99),
        fmt(t.p50.median / timed.none.p50.median),
      ])
    }
  }
  const m = machineInfo()
  const markdown = [
    `# Filtered search: ${nDocs.toLocaleString('en')} documents, ${TENANTS.toLocaleString('en')} tenants${quick ? ' (quick)' : ''}`,
    '',
    `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${new Date().toISOString()}.`,
    `BM25: CRAN + CISI + MED abstracts (${baseDocs}) copied to ${nDocs.toLocaleString('en')} documents, meta { tenant, year }; the collections' queries, top 10, one tenant per query in rotation.`,
    `Vectors: random unit vectors, the same meta. Milliseconds per query: median (min-max) over ${ROUNDS} rounds of each round's p50 and p99; "vs none": p50 over the same index's unfiltered p50.`,
    '"scan" is the same index with `dynamicFields: false`: no field index, each candidate\'s metadata tested (the behaviour before field indexes).',
    '',
    mdTable(['index', 'filters', 'filter', 'p50 ms', 'p99 ms', 'vs none'], rows, 'lllrrr'),
    '',
    `Field index memory (BM25): ${Object.entries(memory)
      .map(([f, b]) => `${f} ${fmt(b)} bytes a document`)
      .join(
        ', ',
      )}. Build (addAsync in 100k batches): field indexes ${fmt(results.bm25['field indexes'].build)} s, without ${fmt(results.bm25['scan (no field indexes)'].build)} s.`,
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
