// BM25 benchmark suite: query throughput (single thread and batch on all cores) and index build time of
// ragrank against bm25s (Python) and four JavaScript BM25 libraries, on Cranfield, CISI and synthetic
// Zipfian corpora (10k / 100k / 1M documents).
//
// The suite driver (runBm25Suite, called by bench/run.mjs) runs every (corpus, engine) measurement in a
// fresh Node process (`node bench/suites/bm25.mjs --worker <job>`), so engines don't share heaps, GC pressure or
// RSS, and collects one JSON result per job. Then it writes bench/results/bm25.md (bench/bm25/report.mjs) and
// bm25.json.
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
  batchThroughput,
  fmt,
  fmtBytes,
  fmtSeconds,
  gc,
  lastJsonLine,
  loopThroughput,
  machineInfo,
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
import { buildFtsTable, ftsSearch, loadLancedb } from '../lib/lancedb.mjs'
import { cacheDir, distEntry, repoRoot, resultsDir } from '../lib/paths.mjs'
import { JS_KEYS, KOREAN_CORPORA, bm25Report } from '../bm25/report.mjs'

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
    const { tok } = await ragrankTokens(corpus)
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

/**
 * A corpus tokenized by ragrank's analyzer, for the peers that run on ragrank's tokens (a plain JS tokenizer when the
 * build is missing), and what the results name as the token source.
 */
async function ragrankTokens(corpus) {
  const rr = await loadRagrank()
  const analyzer = rr ? new rr.Bm25Index() : undefined
  const tok = tokenizeCorpus(corpus, analyzer ? (t) => analyzer.analyze(t) : fallbackTokenize)
  return { tok, tokenSource: analyzer ? tok.source : 'fallback JS tokenizer (ragrank build missing)' }
}

/**
 * A Python peer's queries: the list repeated so that a timed run lasts long enough on tiny corpora (queries are
 * scored independently; the first copy's results are the ones compared).
 */
function repeatedQueries(tok, job) {
  const nq = tok.queryTokens.length
  const copies = Math.max(1, Math.ceil(job.pythonMinQueries / nq))
  const queries = []
  for (let c = 0; c < copies; c++) queries.push(...tok.queryTokens)
  return { nq, copies, queries }
}

/** bm25s (numpy, and numba when installed) on the same token lists as ragrank. Returns an array of results. */
async function workerPython(job) {
  const corpus = await loadCorpus(job.corpus)
  const { tok, tokenSource } = await ragrankTokens(corpus)
  const { nq, copies, queries } = repeatedQueries(tok, job)
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
        tokenSource,
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
  const corpus = await loadCorpus(job.corpus)
  const { tok, tokenSource } = await ragrankTokens(corpus)
  const { nq, copies, queries } = repeatedQueries(tok, job)
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
      tokenSource,
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
  const corpus = await loadCorpus(job.corpus)
  const { tok, tokenSource } = await ragrankTokens(corpus)
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
    tokenSource,
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
  const markdown = bm25Report(data)
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
