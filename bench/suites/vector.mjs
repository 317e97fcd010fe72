// Vector benchmark suite: exact top-10 over random unit vectors (fixed seeds), ragrank's VectorIndex
// (f32, f16, int8, and the approximate 1-bit `binary`) against usearch exactSearch, hnswlib-node
// BruteforceSearch, a LangChain MemoryVectorStore-style JS loop, numpy and faiss IndexFlatIP, all in one run;
// then recall against exact f32 per shortlist of the int8 and binary storages on real embeddings
// (bench/lib/real-embeddings.mjs: ~57k sentences of the shared collections, all-MiniLM-L6-v2).
//
//   node bench/run.mjs --suite vector              10k/100k/1M x 384, 10k/100k x 768, real (~15 min on 2 cores)
//   node bench/run.mjs --suite vector --full       also 1M x 768 (+ ~4 min, ~14 GB of RAM)
//   node bench/run.mjs --suite vector --quick      10k and 100k x 384, fewer repeats
//   ... --no-python                                skip numpy and faiss (no .venv-py needed)
//   ... --sizes 1m:384,100k:768,real               only these (n, dim) configurations; `real`: the recall table
//   RAGRANK_BENCH_VEC_STORAGES=f32,binary          only these ragrank storages (at 1M all four hold ~6 GB);
//                                                  `binary-int8` = storage binary, rescore int8 (not in the default list)
//   RAGRANK_BENCH_VEC_LANCEDB=0                    leave LanceDB out
//
// Each (size, dim) runs in its own Node process (`node --expose-gc bench/suites/vector.mjs --worker <job>`), the
// Python peers in a subprocess of it on the same files. Memory bandwidth (a STREAM-like native read loop on
// one thread and on all threads) is measured at the start and the end of the run, and at 1M before each
// round of single queries; single-query f32 throughput is reported as a fraction of the probe of its own
// round. Throughput: each worker builds every engine, then times them in turn, round after round (a noisy
// host then slows them alike; the Python peers answer timing requests from a server process); a repeat
// is enough passes over the queries to last >= 0.3 s, after a warm-up pass; median (min-max) over the
// rounds.
// Output: bench/results/vector.md and vector.json (a --quick run writes vector-quick.*).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  isaLine,
  contestant,
  fmt,
  fmtRatio,
  fmtSeconds,
  fmtSpread,
  gc,
  interleavedThroughput,
  jsonLineServer,
  lastJsonLine,
  loopContestant,
  machineInfo,
  mdTable,
  now,
  runCommand,
  summarize,
} from '../lib/harness.mjs'
import { pkgVersion } from '../lib/peers.mjs'
import { pyScript, repoRoot, venvPython } from '../lib/paths.mjs'
import { unitVectors } from '../lib/vectors.mjs'
import { generateZipf } from '../lib/zipf.mjs'
import { buildVectorTable, flatSearch, hybridSearch, loadLancedb } from '../lib/lancedb.mjs'
import { loadRagrank } from './bm25.mjs'
import { recallReport, recallWorker, rowBytes } from './vector-recall.mjs'

const thisFile = fileURLToPath(import.meta.url)
const require = createRequire(import.meta.url)
const TOP_K = 10
const N_QUERIES = 64
const BATCH = 32
const CORPUS_SEED = 42
const QUERY_SEED = 7
/** number[] per vector: the JS peers hold ~8 bytes x dim per vector plus object overhead. */
const JS_PEER_MAX_N = 100_000
const PYTHON = process.env.RAGRANK_BENCH_VEC_PYTHON ?? venvPython('.venv-py')
/** LanceDB's hybrid query (and ragrank's) needs a text per row: Zipf texts, only up to this size. */
const HYBRID_MAX_N = 100_000
/** ragrank storages timed (f32 first: it is the recall reference). */
const STORAGES = (process.env.RAGRANK_BENCH_VEC_STORAGES ?? 'f32,int8,f16,binary').split(',').map((s) => s.trim())
if (STORAGES[0] !== 'f32') throw new Error('RAGRANK_BENCH_VEC_STORAGES must start with f32 (the recall reference)')
/** The VectorIndex options of a STORAGES entry: a storage name, or `binary-int8` (binary rescored from int8). */
const storageOptions = (variant) =>
  variant === 'binary-int8' ? { storage: 'binary', rescore: 'int8' } : { storage: variant }

const log = (m) => process.stderr.write(`${m}\n`)

// ---------------------------------------------------------------------------------------------------------
// Peers

const peers = {
  usearch: {
    label: 'usearch exactSearch',
    pkg: 'usearch',
    load: () => require('usearch'),
  },
  hnswlib: {
    label: 'hnswlib-node BruteforceSearch',
    pkg: 'hnswlib-node',
    load: () => require('hnswlib-node'),
  },
}

function tryLoad(peer) {
  try {
    return { mod: peer.load() }
  } catch (e) {
    return { error: `${peer.pkg} could not be loaded: ${String(e.message).split('\n')[0]}` }
  }
}

/** LangChain MemoryVectorStore's search shape: number[] vectors, cosine per vector, full sort, slice. */
function jsLoopSearch(store, query, k) {
  const qn = Math.sqrt(query.reduce((s, x) => s + x * x, 0))
  const scored = store.map((v, i) => {
    let dot = 0
    let vn = 0
    for (let j = 0; j < v.length; j++) {
      dot += v[j] * query[j]
      vn += v[j] * v[j]
    }
    return { i, score: dot / (Math.sqrt(vn) * qn) }
  })
  scored.sort((a, b) => b.score - a.score)
  return scored.slice(0, k)
}

// ---------------------------------------------------------------------------------------------------------
// Worker: one (n, dim)

function recallAt(ids, truth) {
  let hit = 0
  let total = 0
  ids.forEach((row, q) => {
    const want = new Set(truth[q])
    total += want.size
    for (const id of row) if (want.has(String(id))) hit++
  })
  return total ? hit / total : NaN
}

/** The JS loop times only this many queries per pass: one pass over all 64 at 100k takes ~8 s. */
const JS_LOOP_QUERIES = 16
/** The bandwidth probe runs in every round from this corpus size up (the bandwidth target is at 1M). */
const PROBE_MIN_N = 1_000_000

async function worker(job) {
  if (job.real) {
    const rr = await loadRagrank()
    if (!rr) throw new Error('ragrank build not found (dist/esm/index.js)')
    return { real: true, ...(await recallWorker(rr, log)) }
  }
  const { n, dim, repeats, python } = job
  const out = { n, dim, engines: [] }
  let t0 = now()
  const corpus = unitVectors(n, dim, CORPUS_SEED)
  const queries = unitVectors(N_QUERIES, dim, QUERY_SEED)
  log(`  ${n} x ${dim}: vectors ready in ${fmtSeconds(now() - t0)}`)
  const qviews = Array.from({ length: N_QUERIES }, (_, i) => queries.data.subarray(i * dim, (i + 1) * dim))
  const batchQueries = queries.data.subarray(0, BATCH * dim)
  const ids = Array.from({ length: n }, (_, i) => String(i))
  let truth = null
  // Every engine is built first, then all are timed in turn (interleavedThroughput): entry -> contestants.
  const timings = []
  const time = (entry, single, batch) => timings.push({ entry, single, batch })
  const closers = [] // LanceDB tables: their temporary directories are removed at the end

  const rr = await loadRagrank()
  if (!rr) out.engines.push({ engine: 'ragrank', skipped: 'ragrank build not found (dist/esm/index.js)' })
  let scanF32 = null
  for (const storage of rr ? STORAGES : []) {
    gc()
    t0 = now()
    const index = new rr.VectorIndex({ dim, metric: 'cosine', ...storageOptions(storage) })
    index.add(ids, corpus.data)
    const build = now() - t0
    const hits = qviews.map((q) => index.search(q, { topK: TOP_K }).map((h) => h.id))
    if (storage === 'f32') truth = hits
    const entry = {
      engine: 'ragrank',
      variant: storage,
      build,
      recall: recallAt(hits, truth),
      bytes: rowBytes(storage, dim),
    }
    const single = loopContestant(qviews, (q) => index.search(q, { topK: TOP_K }))
    if (storage === 'f32') scanF32 = single
    time(
      entry,
      single,
      contestant(BATCH, async (passes) => {
        for (let p = 0; p < passes; p++) await index.searchBatch(batchQueries, { topK: TOP_K })
      }),
    )
  }

  // usearch: exact search over the same Float32Array (no copy), all threads.
  {
    const { mod, error } = tryLoad(peers.usearch)
    if (error) out.engines.push({ engine: 'usearch', skipped: error })
    else {
      const threads = os.cpus().length
      // usearch's binding reads a typed array from the start of its buffer (it ignores byteOffset and
      // length of a subarray view), so it gets its own copies.
      const own = qviews.map((q) => q.slice())
      const ownBatch = batchQueries.slice()
      const search = (q) => mod.exactSearch(corpus.data, q, dim, TOP_K, 'ip', threads)
      const hits = own.map((q) => Array.from(search(q).keys, (k) => String(k)))
      const entry = {
        engine: 'usearch',
        variant: `exactSearch, ip, ${threads} threads`,
        version: pkgVersion('usearch'),
        recall: recallAt(hits, truth),
      }
      time(
        entry,
        loopContestant(own, search),
        contestant(BATCH, (passes) => {
          for (let p = 0; p < passes; p++) search(ownBatch)
        }),
      )
    }
  }

  // LanceDB: a table with no vector index, so `vectorSearch` is its flat (exhaustive) scan; up to HYBRID_MAX_N the
  // table also gets Zipf texts and an FTS index for its hybrid query, next to ragrank's own hybrid.
  if (job.lancedb !== false && process.env.RAGRANK_BENCH_VEC_LANCEDB !== '0') {
    const lance = await loadLancedb()
    if (lance.error) out.engines.push({ engine: 'lancedb', skipped: lance.error })
    else {
      const zipf = n <= HYBRID_MAX_N ? generateZipf({ nDocs: n }) : null
      const qTexts = zipf ? zipf.queries.slice(0, N_QUERIES).map((q) => zipf.queryText(q)) : null
      t0 = now()
      const built = await buildVectorTable(lance.mod, corpus.data, n, dim, { texts: zipf && ((i) => zipf.docText(i)) })
      const build = now() - t0
      closers.push(built.close)
      const { table } = built
      const own = qviews.map((q) => Array.from(q))
      const hits = []
      for (const q of own) hits.push((await flatSearch(table, q, TOP_K)).map(String))
      const entry = {
        engine: 'lancedb',
        variant: 'flat vectorSearch (no vector index), dot',
        version: lance.version,
        build,
        recall: recallAt(hits, truth),
      }
      time(
        entry,
        contestant(N_QUERIES, async (passes) => {
          for (let p = 0; p < passes; p++) for (const q of own) await flatSearch(table, q, TOP_K)
        }),
        contestant(BATCH, async (passes) => {
          for (let p = 0; p < passes; p++)
            await Promise.all(own.slice(0, BATCH).map((q) => flatSearch(table, q, TOP_K)))
        }),
      )
      if (zipf && rr) {
        // ragrank's hybrid on the same data: BM25 over the Zipf tokens + f32 vector top-10, fused by RRF (k=60),
        // as LanceDB's default hybrid query does (vector top-limit and FTS top-limit, RRF reranker).
        const bm25 = new rr.Bm25Index({ variant: 'lucene', k1: 1.5, b: 0.75 })
        bm25.add(Array.from({ length: n }, (_, i) => ({ id: String(i), tokens: zipf.docTokens(i) })))
        const vindex = new rr.VectorIndex({ dim, metric: 'cosine', storage: 'f32' })
        vindex.add(ids, corpus.data)
        const qTokens = zipf.queries.slice(0, N_QUERIES).map((q) => zipf.queryTokens(q))
        const rrHybrid = (i) =>
          rr
            .fuse([bm25.search(qTokens[i], { topK: TOP_K }), vindex.search(qviews[i], { topK: TOP_K })], {
              method: 'rrf',
              rrfK: 60,
            })
            .slice(0, TOP_K)
        const rrHits = qviews.map((_, i) => rrHybrid(i).map((h) => h.id))
        const lanceHits = []
        for (let i = 0; i < N_QUERIES; i++)
          lanceHits.push((await hybridSearch(table, own[i], qTexts[i], TOP_K)).map(String))
        const idx = Array.from({ length: N_QUERIES }, (_, i) => i)
        time(
          {
            engine: 'ragrank-hybrid',
            variant: 'Bm25Index top-10 + VectorIndex f32 top-10, fuse rrf k=60',
            recall: NaN,
            hybridAgreement: recallAt(lanceHits, rrHits),
          },
          loopContestant(idx, rrHybrid),
        )
        time(
          {
            engine: 'lancedb-hybrid',
            variant: 'query().nearestTo(v).fullTextSearch(text), default RRF reranker',
            version: lance.version,
            recall: NaN,
          },
          contestant(N_QUERIES, async (passes) => {
            for (let p = 0; p < passes; p++) for (const i of idx) await hybridSearch(table, own[i], qTexts[i], TOP_K)
          }),
        )
      } else if (!zipf) {
        out.engines.push({
          engine: 'lancedb-hybrid',
          skipped: `hybrid query only up to ${HYBRID_MAX_N.toLocaleString('en-US')} rows (Zipf texts per row)`,
        })
      }
    }
  }

  // hnswlib-node and the JS loop hold number[] per vector: only up to JS_PEER_MAX_N.
  if (n > JS_PEER_MAX_N) {
    const why = `not run above ${JS_PEER_MAX_N.toLocaleString('en-US')} vectors (number[] per vector: ~${Math.round((n * dim * 8) / 2 ** 30)} GiB of JS heap)`
    out.engines.push({ engine: 'hnswlib', skipped: why }, { engine: 'jsloop', skipped: why })
  } else {
    const qarrays = qviews.map((q) => Array.from(q))
    const { mod, error } = tryLoad(peers.hnswlib)
    if (error) out.engines.push({ engine: 'hnswlib', skipped: error })
    else {
      t0 = now()
      const bf = new mod.BruteforceSearch('ip', dim)
      bf.initIndex(n)
      for (let i = 0; i < n; i++) bf.addPoint(Array.from(corpus.data.subarray(i * dim, (i + 1) * dim)), i)
      const build = now() - t0
      const hits = qarrays.map((q) => bf.searchKnn(q, TOP_K).neighbors.map(String))
      const entry = {
        engine: 'hnswlib',
        variant: 'BruteforceSearch, ip, sync',
        version: pkgVersion('hnswlib-node'),
        build,
        recall: recallAt(hits, truth),
      }
      time(
        entry,
        loopContestant(qarrays, (q) => bf.searchKnn(q, TOP_K)),
      )
    }
    gc()
    t0 = now()
    const store = Array.from({ length: n }, (_, i) => Array.from(corpus.data.subarray(i * dim, (i + 1) * dim)))
    const build = now() - t0
    const few = qarrays.slice(0, JS_LOOP_QUERIES)
    const hits = few.map((q) => jsLoopSearch(store, q, TOP_K).map((h) => String(h.i)))
    const entry = {
      engine: 'jsloop',
      variant: `number[] + cosine + full sort (LangChain MemoryVectorStore style); first ${JS_LOOP_QUERIES} queries`,
      build,
      recall: recallAt(hits, truth.slice(0, JS_LOOP_QUERIES)),
    }
    time(
      entry,
      loopContestant(few, (q) => jsLoopSearch(store, q, TOP_K)),
    )
  }

  let server = null
  if (python) {
    if (!fs.existsSync(PYTHON)) {
      const why = `no Python venv at ${path.relative(repoRoot, PYTHON)} (run npm run setup:py)`
      out.engines.push({ engine: 'numpy', skipped: why }, { engine: 'faiss', skipped: why })
    } else {
      server = jsonLineServer(PYTHON, [pyScript('vector_runner.py')])
      const info = await server.request({
        corpus: corpus.path,
        queries: queries.path,
        n,
        dim,
        nq: N_QUERIES,
        k: TOP_K,
        batch: BATCH,
        engines: ['numpy', 'faiss'],
      })
      out.python = info.versions
      for (const [name, res] of Object.entries(info.engines)) {
        if (res.skipped) {
          out.engines.push({ engine: name, skipped: res.skipped })
          continue
        }
        const { ids: pyIds } = await server.request({ ids: name })
        const entry = {
          engine: name,
          variant:
            name === 'faiss' ? `IndexFlatIP, ${res.threads} OpenMP threads` : 'dot + argpartition; batch = matmul',
          version: info.versions[name],
          build: res.build_seconds,
          recall: recallAt(pyIds, truth),
        }
        const timer = (kind) => async (passes) => (await server.request({ time: name, kind, passes })).seconds
        time(entry, contestant(N_QUERIES, timer('single')), contestant(BATCH, timer('batch')))
      }
    }
  }

  // All single-query contestants in turn, then all batch ones. At 1M the bandwidth probe runs before each
  // round of single queries, so the f32 scan's fraction of it pairs two measurements made together.
  const native = rr && n >= PROBE_MIN_N ? benchNative() : null
  const probes = []
  const between = native ? () => probes.push(native.vectorReadBandwidth(1024, true, 3)) : undefined
  log(`  timing ${timings.length} engines in turn, ${repeats} rounds${native ? ' (bandwidth probe each round)' : ''}`)
  const singles = await interleavedThroughput(
    timings.map((t) => t.single),
    { repeats, between },
  )
  const batches = await interleavedThroughput(
    timings.filter((t) => t.batch).map((t) => t.batch),
    { repeats },
  )
  for (const t of timings) {
    t.entry.single = singles.get(t.single).summary
    if (t.batch) t.entry.batch = batches.get(t.batch).summary
    out.engines.push(t.entry)
    log(
      `  ${label(t.entry)}: ${fmt(t.entry.single.median)} q/s single${t.batch ? `, ${fmt(t.entry.batch.median)} q/s batch` : ''}`,
    )
  }
  if (native && scanF32) {
    const bytes = n * dim * 4
    const scanGBs = singles.get(scanF32).rates.map((r) => (r * bytes) / 1e9)
    out.bandwidth = {
      probeGBs: summarize(probes),
      scanGBs: summarize(scanGBs),
      fraction: summarize(scanGBs.map((s, i) => s / probes[i])),
    }
  }
  if (server) await server.close()
  for (const close of closers) await close()
  return out
}

// ---------------------------------------------------------------------------------------------------------
// Driver

function loadAverage() {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')
}

/** The addon with the bench-only probes, which the default build leaves out (cargo feature `bench`); null without. */
let warnedNoProbes = false
function benchNative() {
  const native = require(path.join(repoRoot, 'index.js'))
  if (typeof native.vectorReadBandwidth !== 'function' || typeof native.vectorKernelIsa !== 'function') {
    if (!warnedNoProbes)
      log(
        '  no bench-only native probes (vectorReadBandwidth, vectorKernelIsa): bandwidth not measured; run npm run build:bench for them',
      )
    warnedNoProbes = true
    return null
  }
  return native
}

async function bandwidth(rr) {
  const native = rr ? benchNative() : null
  if (!native) return null
  return {
    isa: native.vectorKernelIsa(),
    oneThread: native.vectorReadBandwidth(1024, false, 5),
    allThreads: native.vectorReadBandwidth(1024, true, 5),
  }
}

const label = (e) =>
  e.engine === 'ragrank'
    ? `ragrank ${e.variant}`
    : (peers[e.engine]?.label ??
      {
        jsloop: 'JS loop',
        numpy: 'numpy',
        faiss: 'faiss',
        lancedb: 'LanceDB flat',
        'lancedb-hybrid': 'LanceDB hybrid',
        'ragrank-hybrid': 'ragrank hybrid (BM25 + f32, RRF)',
      }[e.engine] ??
      e.engine)

function report(results, meta, recall) {
  const md = []
  md.push('# Vector benchmark: exact top-10 over random unit vectors')
  md.push('')
  md.push(
    `${meta.date}; ${meta.machine.cpu}, ${meta.machine.cores} cores, ${meta.machine.memoryGiB} GiB, ${meta.machine.node}; ${isaLine(meta.machine.isa)}; ragrank ${meta.ragrank ?? '?'}.`,
  )
  md.push(
    `Load average (1, 5, 15 min): ${meta.loadStart} at the start, ${meta.loadEnd} at the end (other builds may share the machine; the VM varies up to ±2x between runs).`,
  )
  if (meta.bandwidth) {
    const b = meta.bandwidth
    md.push(
      `Kernels: ${b.start.isa}. Read bandwidth (STREAM-like sum of squares over 1 GiB with the scan's SIMD dot kernel, best of 5): ${fmt(b.start.oneThread)} GB/s on one thread, ${fmt(b.start.allThreads)} GB/s on all threads at the start; ${fmt(b.end.oneThread)} / ${fmt(b.end.allThreads)} GB/s at the end.`,
    )
  }
  md.push(
    `Queries: ${N_QUERIES} (seed ${QUERY_SEED}); corpus seed ${CORPUS_SEED}; metric cosine (ip on the unit vectors for the peers); single = one query per call, batch = ${BATCH} queries per call. Recall@10 is against ragrank f32. ragrank \`binary\` is approximate (1 sign bit per value, Hamming shortlist of max(40 x topK, 400) rescored from f32): on random unit vectors, which have no structure, its recall is far below what real embeddings get (the recall table at the end).${STORAGES.includes('binary-int8') ? " ragrank `binary-int8` is `storage: 'binary', rescore: 'int8'`: the same scan, its shortlist rescored from int8 codes kept instead of the f32 copy (approximate scores)." : ''}`,
  )
  md.push('')
  const targets = []
  // The real-embedding recall table (kept apart from `results`, which bench/report.mjs charts by size).
  const recallMd = []
  for (const r of recall ? [recall] : []) {
    recallMd.push(r.error ? `## Recall on real embeddings\n\nFailed: ${r.error}\n` : recallReport(r))
    for (const d of r.error ? [] : r.rows.filter((x) => x.default)) {
      const what = d.rescore === 'int8' ? 'binary rescored from int8' : 'binary'
      targets.push([
        `${what} recall@10 vs exact f32 on real embeddings (${r.n.toLocaleString('en-US')} x ${r.dim}, default shortlist)`,
        fmt(d.recall),
        d.recall >= 0.95 ? '✓ (≥0.95)' : '✗ (≥0.95)',
      ])
    }
  }
  for (const r of results) {
    md.push(`## ${r.n.toLocaleString('en-US')} x ${r.dim}`)
    md.push('')
    if (r.error) {
      md.push(`Failed: ${r.error}`)
      md.push('')
      continue
    }
    const bytes = r.n * r.dim * 4
    const rows = r.engines
      .filter((e) => !e.skipped)
      .map((e) => [
        label(e),
        e.variant && e.engine !== 'ragrank' ? e.variant : e.engine === 'ragrank' ? 'sync, all cores above 3 MB' : '',
        e.build === undefined ? '–' : fmtSeconds(e.build),
        fmtSpread(e.single),
        fmtSeconds(1 / e.single.median),
        fmt((bytes * e.single.median) / 1e9),
        e.batch ? fmtSpread(e.batch) : '–',
        fmt(e.recall),
        e.bytes ? `${e.bytes.scan} / ${e.bytes.memory}` : '–',
      ])
    md.push(
      mdTable(
        [
          'engine',
          'how',
          'build',
          'single q/s',
          'ms/query',
          'f32-equivalent GB/s',
          `batch ${BATCH} q/s`,
          'recall@10',
          'bytes/row scanned / held',
        ],
        rows,
      ),
    )
    const skipped = r.engines.filter((e) => e.skipped)
    if (skipped.length) {
      md.push('')
      for (const e of skipped) md.push(`- ${label(e)}: ${e.skipped}`)
    }
    md.push('')
    const f32 = r.engines.find((e) => e.engine === 'ragrank' && e.variant === 'f32')
    const int8 = r.engines.find((e) => e.engine === 'ragrank' && e.variant === 'int8')
    const binary = r.engines.find((e) => e.engine === 'ragrank' && e.variant === 'binary')
    const binaryInt8 = r.engines.find((e) => e.engine === 'ragrank' && e.variant === 'binary-int8')
    if (!f32) continue
    const name = `${r.n.toLocaleString('en-US')} x ${r.dim}`
    if (r.bandwidth) {
      const b = r.bandwidth
      md.push(
        `Bandwidth probe (all threads, 1 GiB, best of 3) before each round of single queries: ${fmtSpread(b.probeGBs)} GB/s; the f32 scan in the same rounds: ${fmtSpread(b.scanGBs)} GB/s; per-round fraction ${fmtSpread(b.fraction)}.`,
      )
      md.push('')
    }
    // The probe of the scan's own round, not the run's start or end: those measured a different machine.
    if (r.bandwidth && r.n === 1_000_000 && r.dim === 384) {
      const fraction = r.bandwidth.fraction.median
      targets.push([
        `single f32 at ${name}: fraction of all-thread read bandwidth (median of per-round fractions)`,
        fmt(fraction),
        fraction >= 0.8 ? '✓ (≥0.8)' : '✗ (≥0.8)',
      ])
    }
    const br = f32.batch.median / f32.single.median
    targets.push([
      `batch ${BATCH} vs ${BATCH} single calls, per query, ${name}`,
      fmtRatio(br),
      br >= 8 ? '✓ (≥8×)' : '✗ (≥8×)',
    ])
    if (int8) {
      const ir = int8.single.median / f32.single.median
      const ok = ir >= 3 && int8.recall >= 0.99
      targets.push([
        `int8 vs f32 single, ${name} (recall@10 ${fmt(int8.recall)})`,
        fmtRatio(ir),
        ok ? '✓ (≥3×, recall ≥0.99)' : '✗ (≥3×, recall ≥0.99)',
      ])
    }
    if (binary && r.n === 1_000_000 && r.dim === 384) {
      const s = binary.single.median / f32.single.median
      const b = binary.batch.median / f32.batch.median
      targets.push([
        `binary vs f32 at ${name}, synthetic rows (recall on them ${fmt(binary.recall)}: see the real-embedding table)`,
        `single ${fmtRatio(s)}, batch ${fmtRatio(b)}`,
        s >= 8 ? '✓ (≥8× single)' : '✗ (≥8× single)',
      ])
    }
    if (binaryInt8 && r.n === 1_000_000 && r.dim === 384) {
      const s = binaryInt8.single.median / f32.single.median
      const b = binaryInt8.batch.median / f32.batch.median
      const vs = binary
        ? `; vs binary rescored from f32: single ${fmtRatio(binaryInt8.single.median / binary.single.median)}, batch ${fmtRatio(binaryInt8.batch.median / binary.batch.median)}`
        : ''
      targets.push([
        `binary rescored from int8 vs f32 at ${name}, synthetic rows (${binaryInt8.bytes.memory} vs ${f32.bytes.memory} bytes/row held${vs})`,
        `single ${fmtRatio(s)}, batch ${fmtRatio(b)}`,
        s >= 8 ? '✓ (≥8× single)' : '✗ (≥8× single)',
      ])
    }
    const rh = r.engines.find((e) => e.engine === 'ragrank-hybrid' && !e.skipped)
    const lh = r.engines.find((e) => e.engine === 'lancedb-hybrid' && !e.skipped)
    if (rh && lh) {
      const h = rh.single.median / lh.single.median
      targets.push([
        `ragrank hybrid vs LanceDB hybrid, ${name} (top-10 agreement ${fmt(rh.hybridAgreement)})`,
        `single ${fmtRatio(h)}`,
        h > 1 ? '✓ faster' : '✗ not faster',
      ])
    }
    const HYBRIDS = ['ragrank-hybrid', 'lancedb-hybrid']
    for (const e of r.engines.filter((x) => !x.skipped && x.engine !== 'ragrank' && !HYBRIDS.includes(x.engine))) {
      const s = f32.single.median / e.single.median
      const b = e.batch ? f32.batch.median / e.batch.median : NaN
      const ok = s > 1 && (!e.batch || b > 1)
      targets.push([
        `ragrank f32 vs ${label(e)}, ${name}`,
        `single ${fmtRatio(s)}${e.batch ? `, batch ${fmtRatio(b)}` : ''}`,
        ok ? '✓ faster' : '✗ not faster',
      ])
    }
  }
  md.push(...recallMd)
  md.push(
    "LanceDB (`@lancedb/lancedb`): the vectors are written to a table in a temporary directory (the build column is that ingest; no vector index is made, so `vectorSearch(q).distanceType('dot')` is LanceDB's flat scan, the same results as exact search); its single figure is one awaited query at a time, its batch all 32 queries in flight at once. Hybrid (up to 100,000 rows): every row also gets the Zipf text of the same index (bench/lib/zipf.mjs) and an FTS index; LanceDB's `query().nearestTo(v).fullTextSearch(text).limit(10)` (vector top-10 and FTS top-10 fused by its default RRF reranker) against ragrank's `fuse([bm25.search(tokens, { topK: 10 }), vectors.search(v, { topK: 10 })], { method: 'rrf', rrfK: 60 })`; their top-10 agreement is in the targets (BM25 parameters differ: LanceDB k1=1.2, ragrank k1=1.5).",
  )
  md.push('')
  md.push('## Targets')
  md.push('')
  md.push(mdTable(['target', 'measured', 'pass'], targets))
  md.push('')
  md.push(
    'Notes: ragrank `search` is synchronous and scans on all cores once the corpus exceeds 3 MB; `searchBatch` runs on the libuv pool. usearch `exactSearch` gets all cores; faiss uses OpenMP on all cores; numpy single queries are a BLAS gemv, its batch a matmul (its batch rate at 1M swings with the free huge pages of the host: numpy advises huge pages for its 32 x n score matrices, and in isolation it measured from 36 to 130 q/s here). The f32-equivalent GB/s column is n x dim x 4 bytes per query, whatever the storage.',
  )
  return md.join('\n')
}

export async function runVectorSuite(opts) {
  const quick = opts.quick
  const parse = (c) => {
    if (c === 'real') return 'real'
    const m = /^(\d+)(k|m)?:(\d+)$/.exec(c)
    if (!m) throw new Error(`--sizes takes n:dim pairs such as 1m:384, got ${c}`)
    return [Number(m[1]) * (m[2] === 'm' ? 1e6 : m[2] === 'k' ? 1e3 : 1), Number(m[3])]
  }
  const configs = opts.sizes
    ? opts.sizes.map(parse)
    : quick
      ? [
          [10_000, 384],
          [100_000, 384],
        ]
      : [
          [10_000, 384],
          [100_000, 384],
          [1_000_000, 384],
          [10_000, 768],
          [100_000, 768],
          ...(opts.full ? [[1_000_000, 768]] : []),
          'real',
        ]
  const repeats = opts.repeats ?? (quick ? 3 : 5)
  const rr = await loadRagrank()
  const meta = { date: new Date().toISOString(), machine: machineInfo(), loadStart: loadAverage() }
  try {
    meta.ragrank = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim()
  } catch {}
  const bwStart = await bandwidth(rr)
  const results = []
  let recall = null
  for (const config of configs) {
    const [n, dim] = config === 'real' ? [] : config
    log(config === 'real' ? 'vector recall on real embeddings' : `vector ${n} x ${dim}`)
    const job = JSON.stringify(config === 'real' ? { real: true } : { n, dim, repeats, python: opts.python })
    const r = await runCommand(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=16384', thisFile, '--worker', job],
      { echoStderr: true, prefix: '' },
    )
    const error = r.code !== 0 && r.stderr.trim().split('\n').slice(-3).join(' ')
    if (config === 'real') recall = error ? { error } : lastJsonLine(r.stdout)
    else results.push(error ? { n, dim, error } : lastJsonLine(r.stdout))
  }
  const bwEnd = await bandwidth(rr)
  meta.bandwidth = bwStart && { start: bwStart, end: bwEnd }
  meta.loadEnd = loadAverage()
  const markdown = report(results, meta, recall)
  const base = quick ? 'vector-quick' : 'vector'
  fs.mkdirSync(opts.outDir, { recursive: true })
  fs.writeFileSync(path.join(opts.outDir, `${base}.md`), `${markdown}\n`)
  fs.writeFileSync(
    path.join(opts.outDir, `${base}.json`),
    `${JSON.stringify({ meta, results, ...(recall && { recall }) }, null, 2)}\n`,
  )
  return { markdown }
}

if (process.argv[1] && path.resolve(process.argv[1]) === thisFile) {
  const i = process.argv.indexOf('--worker')
  if (i < 0) {
    console.error(
      'bench/suites/vector.mjs is run by bench/run.mjs (npm run bench -- --suite vector); it takes --worker <job> only.',
    )
    process.exit(2)
  }
  worker(JSON.parse(process.argv[i + 1]))
    .then((out) => process.stdout.write(`${JSON.stringify(out)}\n`))
    .catch((e) => {
      console.error(e?.stack ?? e)
      process.exit(1)
    })
}
