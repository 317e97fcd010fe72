// BM25 benchmark suite: query throughput (single thread and batch on all cores) and index build time of
// ragrank against bm25s (Python) and four JavaScript BM25 libraries, on Cranfield, CISI and synthetic
// Zipfian corpora (10k / 100k / 1M documents).
//
// The suite driver (runBm25Suite, called by bench/run.mjs) runs every (corpus, engine) measurement in a
// fresh Node process (`node bench/suites/bm25.mjs --worker <job>`), so engines don't share heaps, GC pressure or
// RSS, and collects one JSON result per job. Then it writes bench/results/bm25.md and bm25.json.
//
// Fairness rules
//   * ragrank and bm25s index and query the SAME tokens: on the text collections, ragrank's default
//     analyzer (`idx.analyze(text)`) makes the token lists, ragrank indexes `{ id, tokens }` and is queried
//     with token arrays, bm25s gets the same lists pre-tokenized; on the Zipf corpora both get the
//     generated tokens. Same BM25 (Lucene variant, k1=1.5, b=0.75), same top-k. A top-10 overlap check
//     confirms they rank the same.
//   * JS peers get raw text through their normal APIs with their own default tokenization (see the notes
//     in the report); on the Zipf corpora their text is the tokens joined with spaces, which every one of
//     them re-tokenizes to the same tokens.
//   * Throughput: all queries of the set in a loop (passes repeated until a repeat lasts >= 0.3 s), after
//     a warm-up pass, R repeats; reported as median (min–max) queries/s. Index build: a fresh index per
//     repeat, ragrank's build includes the first search (which builds its query-time impacts lazily).

import fs from 'node:fs'
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  isaLine,
  batchThroughput,
  fmt,
  fmtBytes,
  fmtRatio,
  fmtSeconds,
  fmtSpread,
  gc,
  lastJsonLine,
  loopThroughput,
  machineInfo,
  mdTable,
  now,
  peakRssBytes,
  rssBytes,
  runCommand,
  sleep,
  summarize,
  timeRepeats,
} from '../lib/harness.mjs'
import { generateZipf, parseSize } from '../lib/zipf.mjs'
import {
  JS_PEERS,
  bm25sVersions,
  hasPython,
  jsPeer,
  jsPeerVersions,
  pkgVersion,
  runBm25s,
  runStrongPeer,
  strongPeerVersions,
  writeBm25sData,
} from '../lib/peers.mjs'
import { LANCEDB_FTS_NOTE, buildFtsTable, ftsSearch, loadLancedb } from '../lib/lancedb.mjs'
import { cacheDir, distEntry, repoRoot, resultsDir } from '../lib/paths.mjs'

const thisFile = fileURLToPath(import.meta.url)
const TOP_K = 10
const BM25_PARAMS = { method: 'lucene', k1: 1.5, b: 0.75 }
/** The Python peers of bench/py/bm25_peers.py (one job each, so a peer that fails leaves the other). */
const STRONG_PY = ['pisa', 'tantivy']

// ---------------------------------------------------------------------------------------------------------
// ragrank loading

const RAGRANK_ENTRY = distEntry

export async function loadRagrank() {
  if (!fs.existsSync(RAGRANK_ENTRY)) return null
  try {
    return await import(pathToFileURL(RAGRANK_ENTRY).href)
  } catch (e) {
    process.stderr.write(`ragrank could not be loaded from ${RAGRANK_ENTRY}: ${e.message}\n`)
    return null
  }
}

/** Which ragrank build was measured: git HEAD (+ dirty flag) and the native addon's mtime. */
function ragrankProvenance() {
  const out = {}
  try {
    const addon = fs.readdirSync(repoRoot).find((f) => f.endsWith('.node'))
    if (addon) out.addon = { file: addon, mtime: fs.statSync(path.join(repoRoot, addon)).mtime.toISOString() }
  } catch {}
  try {
    out.commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'crates', 'src', 'lib'], {
      cwd: repoRoot,
      encoding: 'utf8',
    }).trim()
    out.dirty = dirty.length > 0
  } catch {}
  return out
}

/** Fallback tokenizer for bm25s / overlap checks when the ragrank build is missing (lowercase words). */
const fallbackTokenize = (text) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []

// ---------------------------------------------------------------------------------------------------------
// Corpora

const TEXT_CORPORA = ['cran', 'cisi', 'korquad', 'ko-sci']
/** The Korean collections (default analyzer: CJK bigrams), with their own targets in the report. */
const KOREAN_CORPORA = ['korquad', 'ko-sci']

/**
 * Load a corpus in a uniform shape:
 *   { name, kind: 'text' | 'zipf', n, nQueries, docId(i), docText(i), docTokens(i)?, queries: [{ id, text, tokens? }] }
 * For text corpora, tokens come later (ragrank's analyzer); for Zipf corpora they are the generated ones.
 */
async function loadCorpus(name) {
  if (TEXT_CORPORA.includes(name)) {
    const ds = await import('../lib/datasets.mjs')
    const loader = { cran: ds.loadCran, cisi: ds.loadCisi, korquad: ds.loadKorquad, 'ko-sci': ds.loadKoSci }[name]
    const d = loader()
    return {
      name,
      kind: 'text',
      n: d.docs.length,
      docId: (i) => d.docs[i].id,
      docText: (i) => d.docs[i].text,
      docTokens: null,
      queries: d.queries.map((q) => ({ id: q.id, text: q.text })),
    }
  }
  const m = /^zipf-(.+)$/.exec(name)
  if (!m) throw new Error(`unknown corpus ${name}`)
  const z = generateZipf({ nDocs: parseSize(m[1]) })
  return {
    name,
    kind: 'zipf',
    n: z.nDocs,
    nTokens: z.nTokens,
    zipf: z,
    docId: (i) => z.docId(i),
    docText: (i) => z.docText(i),
    docTokens: (i) => z.docTokens(i),
    queries: z.queries.map((q) => ({ id: q.id, text: z.queryText(q), tokens: z.queryTokens(q) })),
  }
}

/** Token lists for docs and queries (ragrank's analyzer on text corpora, the generated ones on Zipf). */
function tokenizeCorpus(corpus, analyze) {
  if (corpus.kind === 'zipf') {
    return {
      docTokens: (i) => corpus.docTokens(i),
      queryTokens: corpus.queries.map((q) => q.tokens),
      source: 'generated',
    }
  }
  const docs = new Array(corpus.n)
  for (let i = 0; i < corpus.n; i++) docs[i] = analyze(corpus.docText(i))
  return {
    docTokens: (i) => docs[i],
    queryTokens: corpus.queries.map((q) => analyze(q.text)),
    source: 'ragrank analyze()',
  }
}

// ---------------------------------------------------------------------------------------------------------
// Workers (one process per job)

function log(msg) {
  process.stderr.write(`${msg}\n`)
}

function throughputOptions(job) {
  return { repeats: job.repeats, warmup: 1, minRepeatSeconds: 0.3 }
}

/** Pick repeats so that the query loop of a slow engine stays within `budget` seconds (never below minRepeats). */
function budgetRepeats(passSeconds, job) {
  const fit = Math.floor(job.queryBudgetSeconds / Math.max(passSeconds, 1e-9))
  return Math.max(job.minRepeats, Math.min(job.repeats, fit))
}

async function workerRagrank(job) {
  const rr = await loadRagrank()
  if (!rr) return { engine: 'ragrank', corpus: job.corpus, skipped: 'ragrank build not found (dist/esm/index.js)' }
  const { Bm25Index } = rr
  const rssStart = rssBytes()
  const corpus = await loadCorpus(job.corpus)
  const analyzer = new Bm25Index()
  const tok = tokenizeCorpus(corpus, (t) => analyzer.analyze(t))
  const qTokens = tok.queryTokens
  const makeDocs = () => {
    const docs = new Array(corpus.n)
    for (let i = 0; i < corpus.n; i++) docs[i] = { id: corpus.docId(i), tokens: tok.docTokens(i) }
    return docs
  }
  let docs = makeDocs()
  gc()
  const rssBefore = rssBytes()
  const heapBefore = process.memoryUsage().heapTotal
  log(`  ragrank ${corpus.name}: ${corpus.n} docs, ${qTokens.length} queries; building`)

  // Build #1 (kept for the query measurements): add() then the first search, which builds the impacts.
  const opts = { ...BM25_OPTIONS }
  let t0 = now()
  let idx = new Bm25Index(opts)
  idx.add(docs)
  const add1 = now() - t0
  t0 = now()
  idx.search(qTokens[0], { topK: TOP_K })
  const first1 = now() - t0
  t0 = now()
  idx.search(qTokens[0], { topK: TOP_K })
  const second1 = now() - t0
  const stats = idx.stats()
  gc()
  const rssAfter = rssBytes()
  const heapAfter = process.memoryUsage().heapTotal
  log(
    `  ragrank ${corpus.name}: add ${fmtSeconds(add1)}, first search ${fmtSeconds(first1)}, rss +${fmtBytes(rssAfter - rssBefore)}`,
  )

  // A snapshot that has stood for 1 s gets its tf parts precomputed by the index's background thread (QUIET in
  // crates/ragrank-core/src/bm25/live.rs), and a serving index runs on them: wait for that, so a short query set
  // (cran's 225 queries) is not measured half on the slower path the first second uses. bm25s's index time includes
  // its precomputed scores; this ~1 ms of work per 100k postings is not in ragrank's build figure.
  await sleep(1500)
  // Sequential search (token queries, exactly what bm25s gets).
  const single = loopThroughput(qTokens, (q) => idx.search(q, { topK: TOP_K }), throughputOptions(job))
  log(`  ragrank ${corpus.name}: search ${fmt(single.summary.median)} q/s`)
  // Batch search (all queries in one call, parallel on all cores).
  const batch = await batchThroughput(
    qTokens.length,
    () => idx.searchBatch(qTokens, { topK: TOP_K }),
    throughputOptions(job),
  )
  // The like-for-like figure for bm25s's single-thread retrieve() (one call over all queries on one thread): one
  // searchBatch capped to one thread (one part, not pipelined, so at most one core works at a time).
  const batch1 = await batchThroughput(
    qTokens.length,
    () => idx.searchBatch(qTokens, { topK: TOP_K, threads: 1 }),
    throughputOptions(job),
  )
  log(`  ragrank ${corpus.name}: searchBatch threads: 1 ${fmt(batch1.summary.median)} q/s`)
  // CPU use of one batch call: process CPU time (all threads, incl. the libuv pool) / wall time.
  // About 2 on 2 cores when the batch really runs in parallel; about 1 when it runs on one thread.
  let cpu0 = process.cpuUsage()
  t0 = now()
  await idx.searchBatch(qTokens, { topK: TOP_K })
  let wall = now() - t0
  let cpu = process.cpuUsage(cpu0)
  const batchCpuRatio = (cpu.user + cpu.system) / 1e6 / wall
  cpu0 = process.cpuUsage()
  t0 = now()
  for (const q of qTokens) idx.search(q, { topK: TOP_K })
  wall = now() - t0
  cpu = process.cpuUsage(cpu0)
  const singleCpuRatio = (cpu.user + cpu.system) / 1e6 / wall
  log(
    `  ragrank ${corpus.name}: searchBatch ${fmt(batch.summary.median)} q/s (CPU/wall ${fmt(batchCpuRatio)}; sequential search ${fmt(singleCpuRatio)})`,
  )
  // Text queries (ragrank analyzes the query string in Rust), sequential.
  const qTexts = corpus.queries.map((q) => q.text)
  const textSingle = loopThroughput(qTexts, (q) => idx.search(q, { topK: TOP_K }), {
    ...throughputOptions(job),
    repeats: Math.min(job.repeats, 3),
  })

  // Per-call overhead: a query whose only token is not in the index (no postings to score).
  const oov = ['~no~such~term~']
  const oovRun = loopThroughput([oov], (q) => idx.search(q, { topK: TOP_K }), {
    repeats: 3,
    warmup: 1000,
    minRepeatSeconds: 0.2,
    maxPasses: 1e7,
  })

  // Work per query: the postings of the query terms (sum of document frequencies), the amount an exhaustive
  // term-at-a-time evaluation (bm25s) touches. Time per query / this = cost per posting.
  const want = new Map()
  for (const q of qTokens) for (const t of q) want.set(t, 0)
  for (let i = 0; i < corpus.n; i++) {
    const seen = new Set(tok.docTokens(i))
    for (const t of seen) if (want.has(t)) want.set(t, want.get(t) + 1)
  }
  let postingsSum = 0
  for (const q of qTokens) for (const t of new Set(q)) postingsSum += want.get(t)
  const postingsPerQuery = postingsSum / qTokens.length

  // Results for the overlap checks (untimed).
  const results = qTokens.map((q) => idx.search(q, { topK: TOP_K }).map((h) => [h.id, h.score]))

  // Latency distribution of single searches (per query, one pass) for the report.
  const lat = []
  for (const q of qTokens) {
    const s = now()
    idx.search(q, { topK: TOP_K })
    lat.push(now() - s)
  }

  // Release the index: what RSS falls back to shows how much of the growth was the index itself.
  idx = null
  // napi finalizers run after the GC that finds the wrapper dead (deferred to a later tick), so: collect,
  // yield, collect again, yield, then measure.
  for (let i = 0; i < 2; i++) {
    gc()
    await sleep(300)
  }
  const rssAfterDrop = rssBytes()
  const heapAfterDrop = process.memoryUsage().heapTotal

  // Build from text (ragrank's analyzer in the loop, text stored) for the text collections: informational.
  let textBuild = null
  if (corpus.kind === 'text') {
    const textDocs = Array.from({ length: corpus.n }, (_, i) => ({ id: corpus.docId(i), text: corpus.docText(i) }))
    textBuild = await timeRepeats(
      () => {
        const x = new Bm25Index(opts)
        x.add(textDocs)
        x.search(qTokens[0], { topK: TOP_K })
      },
      { repeats: job.buildRepeats },
    )
  }

  // Async build (addAsync, off the event loop) once, informational.
  let asyncBuild = null
  if (job.asyncBuild) {
    gc()
    const t = now()
    const x = new Bm25Index(opts)
    await x.addAsync(docs)
    const a = now() - t
    const s0 = now()
    x.search(qTokens[0], { topK: TOP_K })
    asyncBuild = { addSeconds: a, firstSearchSeconds: now() - s0 }
  }

  // Further builds for the build-time spread (fresh index each time, previous one released).
  idx = null
  gc()
  const adds = [add1]
  const firsts = [first1]
  for (let r = 1; r < job.buildRepeats; r++) {
    gc()
    const ta = now()
    const x = new Bm25Index(opts)
    x.add(docs)
    const a = now() - ta
    const tf = now()
    x.search(qTokens[0], { topK: TOP_K })
    adds.push(a)
    firsts.push(now() - tf)
  }
  const buildSeconds = adds.map((a, i) => a + firsts[i])
  docs = null

  return {
    engine: 'ragrank',
    corpus: corpus.name,
    nDocs: corpus.n,
    nQueries: qTokens.length,
    tokenSource: tok.source,
    build: { seconds: buildSeconds, addSeconds: adds, firstSearchSeconds: firsts, summary: summarize(buildSeconds) },
    secondSearchSeconds: second1,
    textBuild: textBuild && { seconds: textBuild, summary: summarize(textBuild) },
    asyncBuild,
    single: pick(single),
    batch: pick(batch),
    batch1: pick(batch1),
    batchCpuRatio,
    singleCpuRatio,
    postingsPerQuery,
    textQueries: pick(textSingle),
    perCallOverheadSeconds: 1 / oovRun.summary.median,
    latency: {
      p50: quantileOf(lat, 0.5),
      p90: quantileOf(lat, 0.9),
      p99: quantileOf(lat, 0.99),
      max: Math.max(...lat),
    },
    stats,
    memory: {
      rssStart,
      rssBefore,
      rssAfter,
      rssAfterDrop,
      heapBefore,
      heapAfter,
      heapAfterDrop,
      rssPeak: peakRssBytes(),
    },
    results,
  }
}

const BM25_OPTIONS = { variant: 'lucene', k1: BM25_PARAMS.k1, b: BM25_PARAMS.b }

function quantileOf(v, q) {
  const s = [...v].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

const pick = (t) => ({ rates: t.rates, seconds: t.seconds, passes: t.passes, summary: t.summary })

async function workerJsPeer(job) {
  const peer = jsPeer(job.engine)
  const corpus = await loadCorpus(job.corpus)
  // A peer on ragrank's tokens gets them joined by spaces (it splits them again); the others get the raw text.
  let asText = (i) => corpus.docText(i)
  let queryText = (q) => q.text
  if (peer.tokens) {
    const rr = await loadRagrank()
    const analyze = rr
      ? (
          (a) => (t) =>
            a.analyze(t)
        )(new rr.Bm25Index())
      : fallbackTokenize
    const tok = tokenizeCorpus(corpus, analyze)
    asText = (i) => tok.docTokens(i).join(' ')
    const byId = new Map(corpus.queries.map((q, i) => [q.id, tok.queryTokens[i].join(' ')]))
    queryText = (q) => byId.get(q.id)
  }
  const docs = Array.from({ length: corpus.n }, (_, i) => ({ id: corpus.docId(i), text: asText(i) }))
  let queries = corpus.queries
  if (job.maxQueries && queries.length > job.maxQueries) queries = queries.slice(0, job.maxQueries)
  let qTexts = queries.map(queryText)
  gc()
  const rssBefore = rssBytes()
  log(`  ${peer.key} ${corpus.name}: ${corpus.n} docs, ${qTexts.length} queries; building`)

  let engine = null
  let t0 = now()
  engine = peer.build(docs)
  const build1 = now() - t0
  gc()
  const rssAfter = rssBytes()

  // One warm pass (untimed for the results; it also collects the hits for the overlap check and sizes the
  // measurement): a slow engine stops after `passBudgetSeconds` (but not before `minQueries` queries), and
  // its timed repeats then run that prefix of the query set, which the report says.
  const results = []
  t0 = now()
  for (let i = 0; i < qTexts.length; i++) {
    results.push(peer.search(engine, qTexts[i], TOP_K))
    if (i + 1 >= job.minQueries && now() - t0 > job.passBudgetSeconds) break
  }
  const pass = now() - t0
  for (let i = 0; i < results.length; i++) results[i] = peer.ids(results[i])
  if (results.length < qTexts.length) qTexts = qTexts.slice(0, results.length)
  const repeats = budgetRepeats(pass, job)
  const single = loopThroughput(qTexts, (q) => peer.search(engine, q, TOP_K), {
    repeats,
    minRepeatSeconds: 0.3,
    passSeconds: pass,
  })
  log(
    `  ${peer.key} ${corpus.name}: build ${fmtSeconds(build1)}, search ${fmt(single.summary.median)} q/s (${repeats} repeats)`,
  )

  engine = null
  gc()
  const builds = [build1]
  if (!peer.indexless) {
    const more = await timeRepeats(() => peer.build(docs), { repeats: Math.max(0, job.buildRepeats - 1) })
    builds.push(...more)
  }
  return {
    engine: peer.key,
    corpus: corpus.name,
    nDocs: corpus.n,
    nQueries: qTexts.length,
    queriesLimited:
      qTexts.length < corpus.queries.length
        ? { measured: qTexts.length, of: corpus.queries.length, passSeconds: pass }
        : null,
    build: peer.indexless ? null : { seconds: builds, summary: summarize(builds) },
    single: pick(single),
    memory: { rssBefore, rssAfter, rssPeak: peakRssBytes() },
    results,
  }
}

/** bm25s (numpy, and numba when installed) on the same token lists as ragrank. Returns an array of results. */
async function workerPython(job) {
  const rr = await loadRagrank()
  const corpus = await loadCorpus(job.corpus)
  const analyze = rr
    ? (
        (a) => (t) =>
          a.analyze(t)
      )(new rr.Bm25Index())
    : fallbackTokenize
  const tok = tokenizeCorpus(corpus, analyze)
  const nq = tok.queryTokens.length
  // Replicate the query list so that a timed retrieve lasts long enough on tiny corpora (queries are
  // scored independently; results of the first copy are used for the overlap check).
  const copies = Math.max(1, Math.ceil(job.pythonMinQueries / nq))
  const queries = []
  for (let c = 0; c < copies; c++) queries.push(...tok.queryTokens)
  const dataFile = path.join(cacheDir, `bm25s-${corpus.name}-${process.pid}.json`)
  const t0 = now()
  writeBm25sData(dataFile, { corpus: { n: corpus.n, tokens: tok.docTokens }, queries })
  log(`  bm25s ${corpus.name}: wrote ${fmtBytes(fs.statSync(dataFile).size)} of tokens in ${fmtSeconds(now() - t0)}`)
  const base = { ...BM25_PARAMS, k: TOP_K }
  const out = []
  try {
    for (const backend of job.pythonBackends) {
      const engine = backend === 'numba' ? 'bm25s+numba' : 'bm25s'
      // single thread: numpy's no-pool sequential path (threads 0), numba's serial path (threads 1)
      const singleThreads = backend === 'numba' ? 1 : 0
      log(
        `  ${engine} ${corpus.name}: single thread, ${job.pythonRepeats} repeats x (index + ${queries.length} queries)`,
      )
      const s = await runBm25s(dataFile, {
        ...base,
        backend,
        threads: singleThreads,
        repeats: job.pythonRepeats,
        warmup: backend === 'numba',
        return_results: true,
        drop_zero_scores: true,
      })
      let b = null
      if (job.pythonBatchBackends.includes(backend)) {
        log(`  ${engine} ${corpus.name}: n_threads=2, ${job.pythonBatchRepeats} repeats`)
        b = await runBm25s(dataFile, {
          ...base,
          backend,
          threads: 2,
          repeats: job.pythonBatchRepeats,
          warmup: backend === 'numba',
        })
      }
      const rates = (r) => r.query_seconds.map((x) => r.n_queries / x)
      const res = {
        engine,
        corpus: corpus.name,
        nDocs: corpus.n,
        nQueries: nq,
        queryCopies: copies,
        tokenSource: rr ? tok.source : 'fallback JS tokenizer (ragrank build missing)',
        bm25sVersion: s.bm25s_version,
        build: { seconds: s.index_seconds, summary: summarize(s.index_seconds) },
        single: { rates: rates(s), seconds: s.query_seconds, passes: copies, summary: summarize(rates(s)) },
        batch: b && {
          rates: rates(b),
          seconds: b.query_seconds,
          passes: copies,
          summary: summarize(rates(b)),
          buildSeconds: b.index_seconds,
        },
        wallSeconds: s.wallSeconds + (b?.wallSeconds ?? 0),
      }
      if (s.results) res.results = s.results.slice(0, nq).map((hits) => hits.map((h) => [corpus.docId(h.id), h.score]))
      log(
        `  ${engine} ${corpus.name}: index ${fmtSeconds(res.build.summary.median)}, ${fmt(res.single.summary.median)} q/s${b ? `, n_threads=2 ${fmt(res.batch.summary.median)} q/s` : ''}`,
      )
      out.push(res)
    }
  } finally {
    fs.rmSync(dataFile, { force: true })
  }
  return out
}

/** Number of postings (distinct (document, term) pairs) of a tokenized corpus: the unit of bytes per posting. */
function countPostings(n, docTokens) {
  let total = 0
  for (let i = 0; i < n; i++) total += new Set(docTokens(i)).size
  return total
}

/**
 * tantivy or PISA (bench/py/bm25_peers.py in .venv-bench-peers) on the same token lists as ragrank: one process
 * builds the index, times all queries on one thread and on `batch_threads`, and returns the top-10 lists.
 */
async function workerStrongPeer(job) {
  const rr = await loadRagrank()
  const corpus = await loadCorpus(job.corpus)
  const analyze = rr
    ? (
        (a) => (t) =>
          a.analyze(t)
      )(new rr.Bm25Index())
    : fallbackTokenize
  const tok = tokenizeCorpus(corpus, analyze)
  const nq = tok.queryTokens.length
  const copies = Math.max(1, Math.ceil(job.pythonMinQueries / nq))
  const queries = []
  for (let c = 0; c < copies; c++) queries.push(...tok.queryTokens)
  const dataFile = path.join(cacheDir, `${job.engine}-${corpus.name}-${process.pid}.json`)
  writeBm25sData(dataFile, { corpus: { n: corpus.n, tokens: tok.docTokens }, queries })
  const postings = countPostings(corpus.n, tok.docTokens)
  log(`  ${job.engine} ${corpus.name}: ${corpus.n} docs, ${postings} postings, ${queries.length} queries`)
  try {
    const r = await runStrongPeer(dataFile, {
      engine: job.engine,
      // PISA's English tokenizer drops Hangul: the Korean bigrams go in through its pre-tokenized path
      pisa_input: KOREAN_CORPORA.includes(corpus.name) ? 'toks' : 'text',
      k: TOP_K,
      k1: BM25_PARAMS.k1,
      b: BM25_PARAMS.b,
      repeats: job.pythonRepeats,
      batch_threads: os.cpus().length,
      return_results: true,
      n_result_queries: nq,
    })
    const rates = (secs) => secs.map((x) => queries.length / x)
    const res = {
      engine: job.engine,
      corpus: corpus.name,
      nDocs: corpus.n,
      nQueries: nq,
      queryCopies: copies,
      tokenSource: rr ? tok.source : 'fallback JS tokenizer (ragrank build missing)',
      versions: r.versions,
      algorithm: r.algorithm ?? null,
      pisaInput: r.pisa_input ?? null,
      algorithmSeconds: r.algorithm_seconds ?? null,
      segments: r.n_segments ?? null,
      build: { seconds: [r.index_seconds], summary: summarize([r.index_seconds]) },
      single: {
        rates: rates(r.single_seconds),
        seconds: r.single_seconds,
        summary: summarize(rates(r.single_seconds)),
      },
      batch: { rates: rates(r.batch_seconds), seconds: r.batch_seconds, summary: summarize(rates(r.batch_seconds)) },
      indexBytes: r.index_bytes,
      postings,
      bytesPerPosting: r.index_bytes / postings,
      results: r.results.map((hits) => hits.map(([i, score]) => [corpus.docId(i), score])),
    }
    log(
      `  ${job.engine} ${corpus.name}: index ${fmtSeconds(r.index_seconds)}, ${fmt(res.single.summary.median)} q/s, batch ${fmt(res.batch.summary.median)} q/s${res.algorithm ? ` (${res.algorithm})` : ''}`,
    )
    return res
  } finally {
    fs.rmSync(dataFile, { force: true })
  }
}

/** LanceDB full-text search (bench/lib/lancedb.mjs) on ragrank's tokens joined by spaces. */
async function workerLancedb(job) {
  const lance = await loadLancedb()
  if (lance.error) return { engine: 'lancedb', corpus: job.corpus, skipped: lance.error }
  const rr = await loadRagrank()
  const corpus = await loadCorpus(job.corpus)
  const analyze = rr
    ? (
        (a) => (t) =>
          a.analyze(t)
      )(new rr.Bm25Index())
    : fallbackTokenize
  const tok = tokenizeCorpus(corpus, analyze)
  const rows = Array.from({ length: corpus.n }, (_, i) => ({ id: corpus.docId(i), text: tok.docTokens(i).join(' ') }))
  const qTexts = tok.queryTokens.map((q) => q.join(' '))
  const postings = countPostings(corpus.n, tok.docTokens)
  log(`  lancedb ${corpus.name}: ${corpus.n} docs, ${qTexts.length} queries; building`)
  const builds = []
  let built = null
  for (let r = 0; r < job.buildRepeats; r++) {
    if (built) await built.close()
    gc()
    const t0 = now()
    built = await buildFtsTable(lance.mod, rows)
    builds.push(now() - t0)
  }
  const { table } = built
  const results = []
  const t0 = now()
  for (const q of qTexts) results.push(await ftsSearch(table, q, TOP_K))
  const pass = now() - t0
  const repeats = budgetRepeats(pass, job)
  // Sequential: one awaited query at a time (what a request handler does).
  const single = await batchThroughput(
    qTexts.length,
    async () => {
      for (const q of qTexts) await ftsSearch(table, q, TOP_K)
    },
    { repeats, warmup: 0, minRepeatSeconds: 0.3 },
  )
  // Batch: every query in flight at once; LanceDB runs them on its own thread pool.
  const batch = await batchThroughput(qTexts.length, () => Promise.all(qTexts.map((q) => ftsSearch(table, q, TOP_K))), {
    repeats,
    warmup: 1,
    minRepeatSeconds: 0.3,
  })
  log(
    `  lancedb ${corpus.name}: build ${fmtSeconds(builds[0])}, ${fmt(single.summary.median)} q/s sequential, ${fmt(batch.summary.median)} q/s all in flight`,
  )
  const indexBytes = built.sizeBytes
  await built.close()
  return {
    engine: 'lancedb',
    corpus: corpus.name,
    nDocs: corpus.n,
    nQueries: qTexts.length,
    tokenSource: rr ? tok.source : 'fallback JS tokenizer (ragrank build missing)',
    versions: { '@lancedb/lancedb': lance.version },
    lanceCpuThreads: process.env.LANCE_CPU_THREADS,
    build: { seconds: builds, summary: summarize(builds) },
    single: pick(single),
    batch: pick(batch),
    indexBytes,
    postings,
    bytesPerPosting: indexBytes ? indexBytes / postings : null,
    results,
  }
}

async function workerMain(job) {
  let res
  if (job.engine === 'ragrank') res = await workerRagrank(job)
  else if (job.engine === 'python') res = await workerPython(job)
  else if (STRONG_PY.includes(job.engine)) res = await workerStrongPeer(job)
  else if (job.engine === 'lancedb') res = await workerLancedb(job)
  else res = await workerJsPeer(job)
  process.stdout.write(`${JSON.stringify(res)}\n`)
}

// ---------------------------------------------------------------------------------------------------------
// Suite driver

/**
 * The measurement plan for the full and quick runs. Sized for ~15 minutes on 2 cores (full) and ~2 minutes
 * (quick); the expensive part is bm25s at 1M documents (a 350 MB JSON corpus for Python to parse, then a
 * ~1 min index per run), so bm25s runs there once per backend and without the n_threads=2 run.
 */
export function makePlan({
  quick = false,
  extended = false,
  python = true,
  numba = true,
  strong = STRONG_PY,
  corpora,
  engines,
  repeats,
} = {}) {
  const R = repeats ?? (quick ? 2 : 5)
  const all =
    corpora ?? (quick ? ['cran', 'zipf-10k'] : ['cran', 'cisi', ...KOREAN_CORPORA, 'zipf-10k', 'zipf-100k', 'zipf-1m'])
  const want = (e) => !engines || engines.includes(e)
  const jobs = []
  for (const c of all) {
    const n = c.startsWith('zipf-') ? parseSize(c.slice(5)) : 1500
    const big = n >= 1_000_000
    const mid = n > 20_000 && !big
    const common = {
      corpus: c,
      repeats: R,
      minRepeats: quick ? 1 : 3,
      buildRepeats: quick || big ? 1 : mid ? 2 : 3,
      queryBudgetSeconds: quick ? 3 : 12,
      passBudgetSeconds: quick ? 1 : 3,
      minQueries: quick ? 20 : 50,
    }
    if (want('ragrank')) jobs.push({ ...common, engine: 'ragrank', asyncBuild: !big })
    if (python && want('bm25s')) {
      // At 1M every bm25s run costs ~20 s of JSON parsing plus a ~1 min index (numba's warm-up run doubles
      // that), so the default run has one numpy run there; --extended adds numba and the n_threads=2 runs.
      const backends = numba && (!big || extended) ? ['numpy', 'numba'] : ['numpy']
      jobs.push({
        ...common,
        engine: 'python',
        pythonBackends: backends,
        pythonRepeats: quick || big ? 1 : mid ? 2 : R,
        pythonBatchBackends: big && !extended ? [] : mid ? ['numpy'] : backends,
        pythonBatchRepeats: quick || mid || big ? 1 : 3,
        pythonMinQueries: quick ? 1000 : n <= 2_000 ? 5000 : n <= 10_000 ? 2000 : 1000,
      })
    }
    // The strongest peers run on every corpus, 1M included (they are built for it).
    for (const e of strong) {
      if (!want(e)) continue
      jobs.push({
        ...common,
        engine: e,
        pythonRepeats: big ? 2 : 3,
        pythonMinQueries: quick ? 1000 : n <= 2_000 ? 5000 : n <= 10_000 ? 2000 : 1000,
      })
    }
    // A watchdog: LanceDB's FTS build deadlocked at 100k and 1M documents on this 2-core host (idle, every thread
    // parked) until bench/lib/lancedb.mjs gave Lance's CPU pool two threads (LANCE_CPU_THREADS, lancedb#3568).
    if (want('lancedb'))
      jobs.push({
        ...common,
        engine: 'lancedb',
        buildRepeats: quick || mid || big ? 1 : 2,
        timeoutSeconds: big ? 1200 : 300,
      })
    for (const p of JS_PEERS) {
      if (!want(p.key)) continue
      if (n > 100_000) continue // JS peers: not at 1M (time/memory); measured at 10k and 100k
      if (p.key === 'okapibm25') {
        if (n > 10_000) continue // rescans the corpus per query: O(N·|q|·doclen)
        jobs.push({ ...common, engine: p.key, buildRepeats: 1 })
        continue
      }
      jobs.push({ ...common, engine: p.key, buildRepeats: mid ? 1 : common.buildRepeats })
    }
  }
  return jobs
}

async function runJob(job) {
  const args = ['--expose-gc', '--max-old-space-size=16384', thisFile, '--worker', JSON.stringify(job)]
  const label = `${job.engine}/${job.corpus}`
  const timeoutMs = (job.timeoutSeconds ?? 0) * 1000
  const r = await runCommand(process.execPath, args, { echoStderr: true, prefix: '', timeoutMs })
  if (r.code !== 0) {
    const tail = r.stderr.split('\n').slice(-15).join('\n')
    const timedOut = timeoutMs > 0 && r.signal === 'SIGKILL' && r.seconds * 1000 >= timeoutMs * 0.99
    return {
      engine: job.engine,
      corpus: job.corpus,
      error: `${timedOut ? `timed out after ${job.timeoutSeconds} s; ` : ''}worker exited with ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${tail}`,
      wallSeconds: r.seconds,
    }
  }
  try {
    const res = lastJsonLine(r.stdout)
    for (const x of Array.isArray(res) ? res : [res]) x.wallSeconds = x.wallSeconds ?? r.seconds
    return res
  } catch (e) {
    return { engine: job.engine, corpus: job.corpus, error: `${label}: bad worker output: ${e.message}` }
  }
}

/**
 * Run the suite. Options: quick, python (false = --no-python), corpora, engines, repeats, outDir.
 * Returns { markdown, data } and writes `${outDir}/bm25.md` and `${outDir}/bm25.json`.
 */
export async function runBm25Suite(options = {}) {
  const started = new Date()
  const t0 = now()
  const pyVersions = options.python === false ? null : await bm25sVersions()
  const python = options.python !== false && hasPython() && pyVersions !== null
  const numba = python && pyVersions?.numba != null
  // tantivy and PISA need .venv-bench-peers (npm run setup:bench-peers); --no-python skips them too
  const strongVersions = options.python === false ? { missing: '--no-python' } : await strongPeerVersions()
  const strong = STRONG_PY.filter((e) => strongVersions[e === 'pisa' ? 'pyterrier-pisa' : e])
  const strongSkipped = STRONG_PY.filter((e) => !strong.includes(e)).map(
    (e) =>
      `${e}: ${strongVersions.missing ?? strongVersions[`${e === 'pisa' ? 'pyterrier-pisa' : e}_error`] ?? 'not importable'}`,
  )
  for (const why of strongSkipped) process.stderr.write(`[bm25] skipping ${why}\n`)
  const plan = makePlan({ ...options, python, numba, strong })
  const rr = await loadRagrank()
  const meta = {
    started: started.toISOString(),
    quick: !!options.quick,
    command: `npm run bench${options.argv?.length ? ` -- ${options.argv.join(' ')}` : ''}`,
    extended: !!options.extended,
    machine: machineInfo(),
    versions: {
      ragrank: rr
        ? `${JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version} (local build)`
        : null,
      ...jsPeerVersions(),
      '@lancedb/lancedb': pkgVersion('@lancedb/lancedb'),
      ...(pyVersions
        ? { bm25s: pyVersions.bm25s, numpy: pyVersions.numpy, numba: pyVersions.numba, python: pyVersions.python }
        : {}),
      tantivy: strongVersions.tantivy ?? null,
      'pyterrier-pisa': strongVersions['pyterrier-pisa'] ?? null,
    },
    strongSkipped,
    params: { ...BM25_PARAMS, topK: TOP_K },
    ragrankBuild: rr ? ragrankProvenance() : null,
    pythonSkipped: !python ? (options.python === false ? '--no-python' : 'venv or bm25s not available') : null,
    ragrankMissing: !rr,
  }
  const results = []
  const loads = []
  for (const job of plan) {
    process.stderr.write(`[bm25] ${job.engine} on ${job.corpus}\n`)
    const tj = now()
    loads.push(os.loadavg()[0])
    const r = await runJob(job)
    loads.push(os.loadavg()[0])
    process.stderr.write(`[bm25]   done in ${fmtSeconds(now() - tj)}\n`)
    for (const x of Array.isArray(r) ? r : [r]) {
      if (x.error) process.stderr.write(`[bm25]   ERROR ${x.error}\n`)
      results.push(x)
    }
  }
  meta.totalSeconds = now() - t0
  meta.loadAverage1m = summarize(loads)
  const corpusInfo = describeCorpora(plan.map((j) => j.corpus))
  const jsJob = plan.find((j) => JS_KEYS.includes(j.engine))
  const data = {
    meta,
    corpora: corpusInfo,
    plan: jsJob ? { passBudgetSeconds: jsJob.passBudgetSeconds, minQueries: jsJob.minQueries } : null,
    results,
  }
  const markdown = renderMarkdown(data)
  const outDir = options.outDir ?? resultsDir
  fs.mkdirSync(outDir, { recursive: true })
  const suffix = options.quick ? '-quick' : ''
  fs.writeFileSync(path.join(outDir, `bm25${suffix}.md`), markdown)
  fs.writeFileSync(path.join(outDir, `bm25${suffix}.json`), `${JSON.stringify(stripResults(data), null, 1)}\n`)
  return { markdown, data }
}

/** Drop per-query result lists from the saved JSON (kept only in memory for the overlap figures). */
function stripResults(data) {
  return { ...data, results: data.results.map(({ results, ...rest }) => rest) }
}

function describeCorpora(names) {
  const out = {}
  for (const n of [...new Set(names)]) {
    if (n.startsWith('zipf-')) {
      const size = parseSize(n.slice(5))
      out[n] = {
        kind: 'zipf',
        docs: size,
        note: 'synthetic Zipf(s=1), vocab 150k, doc length 20-80, 1000 queries of 2-6 mid-frequency terms',
      }
    } else out[n] = { kind: 'text' }
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------
// Report

const ENGINE_ORDER = [
  'ragrank',
  'pisa',
  'tantivy',
  'lancedb',
  'bm25s',
  'bm25s+numba',
  'minisearch',
  'minisearch-tokens',
  'orama',
  'wink',
  'okapibm25',
]
const ENGINE_LABEL = {
  ragrank: 'ragrank',
  pisa: 'PISA (pyterrier-pisa)',
  tantivy: 'tantivy (Python)',
  lancedb: 'LanceDB FTS',
  bm25s: 'bm25s (numpy)',
  'bm25s+numba': 'bm25s + numba',
  minisearch: 'MiniSearch',
  'minisearch-tokens': "MiniSearch (ragrank's tokens)",
  orama: 'Orama',
  wink: 'wink-bm25-text-search',
  okapibm25: 'okapibm25 (LangChain / LlamaIndex)',
}
const JS_KEYS = JS_PEERS.map((p) => p.key)
/** The engines of the "strongest peers" section: index bytes, scoring, targets. */
const STRONG_ENGINES = ['pisa', 'tantivy', 'lancedb']

/** How each engine scores (the top-10 agreement depends on it), for the report. */
const SCORING_NOTES = {
  pisa: "PISA 0.4.9 engine via pyterrier-pisa: documents and queries are ragrank's tokens joined by spaces, indexed by PISA's own indexer with `stemmer='none', stops='none'` (its tokenizer then keeps these tokens; default index encoding block_simdbp); on the Korean collections, whose Hangul bigrams PISA's English tokenizer would drop, through pyterrier-pisa's pre-tokenized path instead (`toks_indexer(scale=1)`: term → count per document, so the stored values are the term frequencies and their sum the document length; queries as `query_toks`, weight 1 per distinct term), whose inversion runs in Python, so PISA's build time there is pessimistic; BM25 with k1=1.5, b=0.75 set equal to ragrank's, but PISA's idf is Robertson's ln((N − df + 0.5)/(df + 0.5)) floored at 1e-6 (ragrank: Lucene's ln(1 + (N − df + 0.5)/(df + 0.5))), so terms in more than half the documents score ~0 in PISA. Every query algorithm (block_max_wand, maxscore, block_max_maxscore, wand) is timed single-thread and the fastest is reported (named in the table). Index build = `PisaIndex.index()` + the first retrieval context (score upper bounds and block-max data). Times include pyterrier's DataFrame in and out (one call for all queries)",
  tantivy:
    "tantivy 0.27 (Python package): a text field with the `whitespace` tokenizer (ragrank's tokens joined by spaces, so the same tokens), `index_option='freq'` (no positions), one indexing thread (one segment); queries are a BooleanQuery of SHOULD TermQuery clauses (no query parser). tantivy's BM25 has k1=1.2, b=0.75 built in and Lucene's idf, and it quantizes document lengths to one byte (fieldnorms), so scores differ from ragrank's by k1 and the length rounding. Batch = the queries split over a 2-thread pool (`search` releases the GIL). Index bytes exclude the doc store that only maps hits back to ids",
  lancedb: LANCEDB_FTS_NOTE,
}

function isSmall(corpus, data) {
  const r = data.results.find((x) => x.corpus === corpus && x.nDocs)
  return (r?.nDocs ?? 0) < 1_000_000
}

function renderMarkdown(data) {
  const { meta, results } = data
  const corpora = [...new Set(results.map((r) => r.corpus))]
  const get = (engine, corpus) =>
    results.find((r) => r.engine === engine && r.corpus === corpus && !r.error && !r.skipped)
  const engines = ENGINE_ORDER.filter((e) => results.some((r) => r.engine === e && !r.error && !r.skipped))
  const L = []
  const m = meta.machine
  L.push(`# BM25 benchmark${meta.quick ? ' (quick run)' : ''}`)
  L.push('')
  L.push(
    `Generated by \`${meta.command ?? 'npm run bench'}\` (bench/run.mjs → bench/suites/bm25.mjs) on ${meta.started.slice(0, 10)}; total run time ${fmt(meta.totalSeconds / 60)} min.`,
  )
  L.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}; ${isaLine(m.isa)}. A shared VM: expect run-to-run noise of 10-20%.`,
  )
  if (meta.loadAverage1m?.n) {
    const la = meta.loadAverage1m
    L.push(
      `1-minute load average sampled around the jobs: median ${fmt(la.median)} (min ${fmt(la.min)}, max ${fmt(la.max)}) on ${m.cores} cores; the benchmark itself accounts for up to ${m.cores} (batch threads, bm25s)${la.max > m.cores + 0.5 ? ', so other processes competed for the CPU during part of the run and some cells are pessimistic' : ''}.`,
    )
  }
  L.push('')
  L.push(
    `Versions: ${Object.entries(meta.versions)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  )
  if (meta.ragrankBuild) {
    const b = meta.ragrankBuild
    L.push(
      `ragrank build measured: commit ${b.commit ?? '?'}${b.dirty ? ' + uncommitted changes in crates/ src/ lib/' : ''}${b.addon ? `, addon ${b.addon.file} built ${b.addon.mtime.slice(0, 16).replace('T', ' ')} UTC` : ''}.`,
    )
  }
  L.push(
    `BM25: Lucene variant, k1=${meta.params.k1}, b=${meta.params.b} for ragrank and bm25s (bm25s defaults); top-${meta.params.topK} for every engine.`,
  )
  if (meta.pythonSkipped) L.push(`bm25s skipped: ${meta.pythonSkipped}.`)
  if (meta.ragrankMissing) L.push('**ragrank build not found (dist/esm/index.js): ragrank columns are missing.**')
  L.push('')
  L.push(
    'Cells are **median (min–max)** over the repeats; each repeat runs the whole query set (several passes when it is short) after a warm-up pass.',
  )
  L.push('')

  // Corpora
  L.push('## Corpora')
  L.push('')
  const crow = corpora.map((c) => {
    const rg = get('ragrank', c)
    const any = results.find((r) => r.corpus === c && r.nDocs)
    const st = rg?.stats
    return [
      c,
      fmt(any?.nDocs),
      fmt(any?.nQueries),
      st ? fmt(st.postings) : '–',
      st ? fmt(st.terms) : '–',
      st ? fmt(st.avgDocLength) : '–',
      c.startsWith('zipf-')
        ? 'generated tokens'
        : KOREAN_CORPORA.includes(c)
          ? "ragrank's default analyzer (UAX#29 words, lowercase; Hangul as CJK bigrams)"
          : "ragrank's default analyzer (UAX#29 words, lowercase)",
    ]
  })
  L.push(
    mdTable(
      ['corpus', 'docs', 'queries', 'postings', 'terms', 'avg doc length', 'tokens for ragrank and bm25s'],
      crow,
      'lrrrrrl',
    ),
  )
  L.push('')
  L.push(
    'Zipf corpora (bench/lib/zipf.mjs, fixed seed): vocabulary 150,000 terms with P(rank r) ∝ 1/r, document length uniform 20-80 tokens; 1,000 queries of 2-6 distinct terms drawn from the same law restricted to ranks 10-50,000 (mid-frequency skew: no stopword-like head terms). The 10k corpus is the first 10,000 documents of the 100k and 1M corpora; all share the query set.',
  )
  L.push('')

  // Single-thread throughput
  L.push('## Query throughput, single thread (queries/s, top-10)')
  L.push('')
  L.push(
    "ragrank: sequential synchronous `idx.search(tokens, { topK: 10 })` calls from JS, one call per query. ragrank (one batch call, 1 thread): one `await idx.searchBatch(allQueries, { topK: 10, threads: 1 })` per pass, the same shape as bm25s's figure. bm25s: `retrieve()` of the whole query list on one thread (numpy: `n_threads=0`; numba: serial path). JS peers: sequential `search` calls.",
  )
  L.push('')
  const singleRows = engines.flatMap((e) => {
    const row = [ENGINE_LABEL[e], ...corpora.map((c) => cellRate(get(e, c)))]
    if (e !== 'ragrank' || !corpora.some((c) => get(e, c)?.batch1)) return [row]
    return [row, ['ragrank (one batch call, 1 thread)', ...corpora.map((c) => cellRate(get(e, c), 'batch1'))]]
  })
  L.push(mdTable(['engine', ...corpora], singleRows))
  L.push('')

  // Batch throughput
  L.push(`## Query throughput, batch on ${m.cores} cores (queries/s, top-10)`)
  L.push('')
  L.push(
    'ragrank: one `await idx.searchBatch(allQueries, { topK: 10 })` per pass. bm25s: `retrieve(..., n_threads=2)`. The JS peers have no parallel API.',
  )
  L.push('')
  const bEngines = engines.filter((e) => ['ragrank', ...STRONG_ENGINES, 'bm25s', 'bm25s+numba'].includes(e))
  L.push(
    mdTable(
      ['engine', ...corpora],
      bEngines.map((e) => [ENGINE_LABEL[e], ...corpora.map((c) => cellRate(get(e, c), 'batch'))]),
    ),
  )
  L.push('')

  // Build
  L.push('## Index build (seconds; docs/s below)')
  L.push('')
  L.push(
    'ragrank: `new Bm25Index()` + `add({ id, tokens }[])` + the first search (which builds the query-time impacts). bm25s: `BM25()` + `index(token lists)` (tokenization excluded on both sides). JS peers: their text add/insert APIs, tokenization included; okapibm25 has no index.',
  )
  L.push('')
  L.push(
    mdTable(
      ['engine', ...corpora],
      engines
        .filter((e) => e !== 'okapibm25')
        .map((e) => [ENGINE_LABEL[e], ...corpora.map((c) => cellBuild(get(e, c)))]),
    ),
  )
  L.push('')
  L.push(
    mdTable(
      ['engine (docs/s)', ...corpora],
      engines
        .filter((e) => e !== 'okapibm25')
        .map((e) => [ENGINE_LABEL[e], ...corpora.map((c) => cellDocsPerSec(get(e, c)))]),
    ),
  )
  L.push('')

  // A section: its heading, then each block (a table, a note) followed by an empty line.
  const section = (title, ...blocks) => L.push(`## ${title}`, '', ...blocks.flatMap((b) => [b, '']))
  // One row per corpus that ragrank ran on: row(ragrank's result, corpus), or null to leave the corpus out.
  const ragrankRows = (row) =>
    corpora.flatMap((c) => {
      const rg = get('ragrank', c)
      const r = rg ? row(rg, c) : null
      return r ? [r] : []
    })
  // The sections on ragrank alone: one row per corpus, and the note that explains the columns.
  const ragrankSection = (title, headers, row, note) => section(title, mdTable(headers, ragrankRows(row)), note)

  const rrows = ragrankRows((rg, c) => {
    const bs = get('bm25s', c)
    const nb = get('bm25s+numba', c)
    const small = isSmall(c, data)
    const js = JS_KEYS.map((k) => get(k, c)).filter(Boolean)
    const fastestQ = js.sort((a, b) => b.single.summary.median - a.single.summary.median)[0]
    const jsB = JS_KEYS.map((k) => get(k, c)).filter((x) => x?.build)
    const fastestB = jsB.sort((a, b) => a.build.summary.median - b.build.summary.median)[0]
    const q = rg.single.summary.median
    const qb = rg.batch.summary.median
    return [
      c,
      bs ? fmtRatio(q / bs.single.summary.median, small ? 5 : 10) : '–',
      bs?.batch ? fmtRatio(qb / bs.batch.summary.median) : '–',
      fastestQ
        ? `${fmtRatio(q / fastestQ.single.summary.median, 20)} vs ${ENGINE_LABEL[fastestQ.engine]}`
        : 'not measured',
      bs ? fmtRatio(bs.build.summary.median / rg.build.summary.median, 2) : '–',
      fastestB
        ? `${fmtRatio(fastestB.build.summary.median / rg.build.summary.median)} vs ${ENGINE_LABEL[fastestB.engine]}`
        : '–',
      nb
        ? `${fmtRatio(q / nb.single.summary.median)} / ${fmtRatio(nb.build.summary.median / rg.build.summary.median)}`
        : '–',
      nb && rg.batch1 ? fmtRatio(rg.batch1.summary.median / nb.single.summary.median) : '–',
    ]
  })
  section(
    'Ratios vs targets (median / median)',
    mdTable(
      [
        'corpus',
        'q/s vs bm25s (1 thread)',
        'q/s vs bm25s (batch, 2 cores)',
        'q/s vs fastest JS peer',
        'build vs bm25s',
        'build vs fastest JS peer',
        'vs bm25s+numba: q/s / build',
        'vs bm25s+numba, both one call on 1 thread',
      ],
      rrows,
      'llllllll',
    ),
    'Targets: query throughput ≥ 5× bm25s on small corpora and ≥ 10× at 1M documents, ≥ 20× the fastest JS peer; index build ≥ 2× bm25s. The numba columns have no target here (issue 22 asks ≥ 2× on the small corpora). "vs bm25s+numba: q/s" compares sequential sync calls (one per query) with numba\'s one call; the last column compares one `searchBatch(..., { threads: 1 })` with that same call.',
  )

  ragrankSection(
    'ragrank memory',
    [
      'corpus',
      'postings',
      'bytes/posting',
      'memoryBytes',
      'RSS before build',
      'RSS after build + 1st search',
      'Δ RSS',
      'RSS after dropping the index',
      'V8 heap before → after build',
      'peak RSS (whole worker)',
    ],
    (r) => [
      r.corpus,
      fmt(r.stats.postings),
      fmt(r.stats.bytesPerPosting),
      fmtBytes(r.stats.memoryBytes),
      fmtBytes(r.memory.rssBefore),
      fmtBytes(r.memory.rssAfter),
      fmtBytes(r.memory.rssAfter - r.memory.rssBefore),
      r.memory.rssAfterDrop ? fmtBytes(r.memory.rssAfterDrop) : '–',
      r.memory.heapAfter ? `${fmtBytes(r.memory.heapBefore)} → ${fmtBytes(r.memory.heapAfter)}` : '–',
      fmtBytes(r.memory.rssPeak),
    ],
    '`bytesPerPosting` and `memoryBytes` come from `idx.stats()` (forward index + query-time impacts, excluding stored text: these indexes were built from tokens). RSS is the worker process (Node + corpus in JS + index) measured after a full GC; "before" already holds the corpus and its token lists, so Δ RSS approximates the index plus the JS→native conversion garbage not yet returned to the OS. "after dropping the index" is measured once the index is released and collected, before any further build: the part of Δ RSS that stays is allocator/V8 retention, not the index. Peak RSS includes the later rebuilds for the build-time repeats.',
  )
  ragrankSection(
    'ragrank details',
    [
      'corpus',
      'add()',
      '1st search (impacts)',
      '2nd search',
      'search p50 / p99',
      'per-call overhead (OOV query)',
      'text queries q/s',
      'build from text',
      'addAsync + 1st search',
      'postings / query',
      'time per posting',
      'batch / single',
      'batch CPU/wall',
    ],
    (r) => [
      r.corpus,
      fmtSeconds(summarize(r.build.addSeconds).median),
      fmtSeconds(summarize(r.build.firstSearchSeconds).median),
      fmtSeconds(r.secondSearchSeconds),
      `${fmtSeconds(r.latency.p50)} / ${fmtSeconds(r.latency.p99)}`,
      fmtSeconds(r.perCallOverheadSeconds),
      fmt(r.textQueries.summary.median),
      r.textBuild ? fmtSeconds(r.textBuild.summary.median) : '–',
      r.asyncBuild ? fmtSeconds(r.asyncBuild.addSeconds + r.asyncBuild.firstSearchSeconds) : '–',
      r.postingsPerQuery ? fmt(r.postingsPerQuery) : '–',
      r.postingsPerQuery ? `${fmt(1e9 / r.single.summary.median / r.postingsPerQuery)} ns` : '–',
      `${fmt(r.batch.summary.median / r.single.summary.median)}×`,
      r.batchCpuRatio ? fmt(r.batchCpuRatio) : '–',
    ],
    '"postings / query" is the mean sum of the query terms\' document frequencies (what an exhaustive term-at-a-time scorer such as bm25s touches); "time per posting" = (1 / single-thread q/s) / that, so it falls below an exhaustive scorer\'s cost when pruning (MaxScore) skips postings. "batch CPU/wall" is the process CPU time (all threads) divided by the wall time of one `searchBatch` call: about 2 when the batch keeps both cores busy, but capped by the CPU that other processes leave: with another process busy on one core, the two batch threads share about one core and the batch is no faster than sequential search (the load average at the top tells whether that happened). "per-call overhead" is the time of a `search` whose only token is not in the index (argument checks, JS↔native crossing, empty result). "text queries" passes the query string and lets the Rust analyzer tokenize it. "build from text" indexes `{ id, text }` (analysis in Rust, text stored).',
  )

  const others = engines.filter((e) => e !== 'ragrank')
  section(
    'Result agreement (top-10 overlap with ragrank)',
    'Mean |top-10 ∩ ragrank top-10| / |ragrank top-10| over the queries. bm25s uses the same tokens and formula, so it should be ~1 (ties at the cut can differ); the JS peers tokenize and score differently (BM25+/BM25F variants, k1=1.2, prefix expansion in Orama), so their overlap only shows that they do comparable work.',
    mdTable(
      ['corpus', ...others.map((e) => ENGINE_LABEL[e])],
      ragrankRows((rg, c) => (rg.results ? [c, ...others.map((e) => overlapCell(rg, get(e, c)))] : null)),
    ),
  )

  const korean = corpora.filter((c) => KOREAN_CORPORA.includes(c) && get('ragrank', c))
  if (korean.length) {
    section(
      'Korean collections (default analyzer)',
      mdTable(
        [
          'corpus',
          'ragrank text queries q/s',
          'ragrank token queries q/s',
          'µs / text query',
          'bm25s (same tokens) q/s',
          'vs bm25s',
          "MiniSearch (ragrank's tokens) q/s",
          'vs MiniSearch',
          'bm25s + numba q/s',
        ],
        korean.map((c) => {
          const rg = get('ragrank', c)
          const text = rg.textQueries.summary.median
          const bs = get('bm25s', c)
          const ms = get('minisearch-tokens', c)
          const nb = get('bm25s+numba', c)
          return [
            c,
            fmt(text),
            fmt(rg.single.summary.median),
            fmt(1e6 / text),
            bs ? fmt(bs.single.summary.median) : '–',
            bs ? fmtRatio(text / bs.single.summary.median, 5) : '–',
            ms ? fmt(ms.single.summary.median) : '–',
            ms ? fmtRatio(text / ms.single.summary.median, 20) : '–',
            nb ? fmt(nb.single.summary.median) : '–',
          ]
        }),
      ),
      "ragrank's figure for the targets is the default analyzer path: the query string goes in and ragrank's Rust analyzer makes the bigrams per query (`idx.search(text)`); bm25s and MiniSearch get the bigram tokens already made (so their figures exclude the analysis ragrank pays for). Targets (issue): ≥ 5× bm25s and ≥ 20× MiniSearch with the same bigrams. ko-sci is the Korean science-QA corpus (4,272 passages, the last user message of each of its 220 conversations as the query); korquad is KorQuAD 1.0 dev (961 paragraphs, 5,774 questions).",
    )
  }

  const strongIn = STRONG_ENGINES.filter((e) => engines.includes(e))
  if (strongIn.length) {
    section(
      'Strongest peers: index size and ratios',
      mdTable(
        ['corpus', 'ragrank bytes/posting', ...strongIn.map((e) => `${ENGINE_LABEL[e]} bytes/posting`)],
        ragrankRows((rg, c) => [
          c,
          fmt(rg.stats?.bytesPerPosting),
          ...strongIn.map((e) => {
            const r = get(e, c)
            return r?.bytesPerPosting ? fmt(r.bytesPerPosting) : '–'
          }),
        ]),
      ),
      "Bytes per posting = the engine's on-disk (or, for ragrank, in-memory) index bytes / the postings of the same tokens (distinct (document, term) pairs). ragrank's figure is `idx.stats().bytesPerPosting` (forward index + query-time impacts).",
      mdTable(
        [
          'corpus',
          ...strongIn.flatMap((e) => [
            `q/s vs ${ENGINE_LABEL[e]} (1 thread)`,
            `batch vs ${ENGINE_LABEL[e]}`,
            `build vs ${ENGINE_LABEL[e]}`,
          ]),
        ],
        ragrankRows((rg, c) => [
          c,
          ...strongIn.flatMap((e) => {
            const r = get(e, c)
            if (!r) return ['–', '–', '–']
            return [
              fmtRatio(rg.single.summary.median / r.single.summary.median),
              r.batch ? fmtRatio(rg.batch.summary.median / r.batch.summary.median) : '–',
              fmtRatio(r.build.summary.median / rg.build.summary.median),
            ]
          }),
        ]),
      ),
      "Ratios are ragrank / peer for query throughput and peer / ragrank for build time (above 1 = ragrank faster). Targets (issue): at 1M Zipf ≥ PISA single-thread q/s and ≥ 3× tantivy, build ≤ tantivy's; ≥ 3× LanceDB FTS q/s.",
      mdTable(
        ['corpus', 'PISA algorithm (fastest single-thread)', 'PISA seconds per algorithm'],
        corpora
          .filter((c) => get('pisa', c))
          .map((c) => {
            const r = get('pisa', c)
            return [
              c,
              r.algorithm ?? '–',
              Object.entries(r.algorithmSeconds ?? {})
                .map(([a, t]) => `${a} ${fmtSeconds(t)}`)
                .join(', '),
            ]
          }),
        'lll',
      ),
    )
  }

  // Notes
  L.push('## Notes')
  for (const e of strongIn) L.push(`- **${ENGINE_LABEL[e]}**: ${SCORING_NOTES[e]}.`)
  for (const why of meta.strongSkipped ?? []) L.push(`- skipped ${why}.`)
  L.push('')
  for (const p of JS_PEERS) L.push(`- **${p.label}** (${p.pkg} ${meta.versions[p.pkg]}): ${p.tokenization}.`)
  L.push(
    "- **bm25s** gets pre-tokenized lists (exactly ragrank's tokens), so its own tokenizer, stopwords and stemmer are not involved; its index time is `BM25()` + `index()`. Each bm25s repeat re-indexes and then retrieves the whole query list in one call; on small corpora the query list is replicated so one retrieve lasts long enough to time.",
  )
  const limited = results.filter((r) => r.queriesLimited)
  if (limited.length) {
    L.push(
      `- Slow JS peers are timed on a prefix of the query set: the warm-up pass stops after ${fmt(data.plan?.passBudgetSeconds ?? 3)} s (at least ${data.plan?.minQueries ?? 50} queries) and the timed repeats run that prefix. Cells marked ⁽ⁿq⁾: ${limited
        .map((r) => `${ENGINE_LABEL[r.engine]} on ${r.corpus} ${r.queriesLimited.measured}/${r.queriesLimited.of}`)
        .join(', ')}.`,
    )
  }
  const notAt = corpora.filter((c) => !JS_KEYS.some((k) => get(k, c)))
  if (notAt.length)
    L.push(
      `- JS peers were not run on ${notAt.join(', ')} (minutes per build and GBs of heap for ${notAt.join(', ')}); nothing is extrapolated.`,
    )
  L.push('- okapibm25 only on corpora ≤ 10k documents: with no index, each query costs O(N · |q| · doc length).')
  const bigPy = results.filter((r) => r.engine === 'bm25s' && r.nDocs >= 1_000_000)
  if (bigPy.length && !meta.extended) {
    L.push(
      '- bm25s at 1M documents: one run (one `index()` + one `retrieve()` of the 1,000 queries), numpy backend only, so its cells have no spread; bm25s+numba and `n_threads=2` at 1M are left out to hold the ~15 min budget (each bm25s run there parses a ~350 MB JSON corpus and indexes for about a minute; `npm run bench -- --extended` adds them).',
    )
  }
  const errs = results.filter((r) => r.error || r.skipped)
  for (const r of errs) L.push(`- ${r.engine} on ${r.corpus}: ${r.error ?? r.skipped}`)
  L.push('')
  return L.join('\n')
}

function cellRate(r, which = 'single') {
  if (!r) return '–'
  const t = r[which]
  if (!t) return '–'
  return fmtSpread(t.summary) + (r.queriesLimited && which === 'single' ? ` ⁽${r.queriesLimited.measured}q⁾` : '')
}

function cellBuild(r) {
  if (!r?.build) return '–'
  const s = r.build.summary
  return s.n > 1 ? `${fmtSeconds(s.median)} (${fmtSeconds(s.min)}–${fmtSeconds(s.max)})` : fmtSeconds(s.median)
}

function cellDocsPerSec(r) {
  if (!r?.build) return '–'
  return fmt(r.nDocs / r.build.summary.median)
}

function overlapCell(rg, other) {
  if (!other?.results) return '–'
  let sum = 0
  let n = 0
  const len = Math.min(rg.results.length, other.results.length)
  for (let i = 0; i < len; i++) {
    const a = rg.results[i].map((h) => (Array.isArray(h) ? h[0] : h))
    const b = new Set(other.results[i].map((h) => (Array.isArray(h) ? h[0] : h)))
    if (a.length === 0) continue
    let hit = 0
    for (const id of a) if (b.has(id)) hit++
    sum += hit / a.length
    n++
  }
  return n ? fmt(sum / n) : '–'
}

// ---------------------------------------------------------------------------------------------------------

if (process.argv[1] && path.resolve(process.argv[1]) === thisFile) {
  const i = process.argv.indexOf('--worker')
  if (i < 0) {
    console.error(
      'bench/suites/bm25.mjs is run by bench/run.mjs (npm run bench -- --suite bm25); it takes --worker <job> only.',
    )
    process.exit(2)
  }
  workerMain(JSON.parse(process.argv[i + 1])).catch((e) => {
    console.error(e?.stack ?? e)
    process.exit(1)
  })
}
