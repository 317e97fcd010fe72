// The vector suite's recall table on real embeddings: how often the approximate storages (int8, binary) find
// exact f32's top-10, per shortlist, and what a query costs. Run by bench/suites/vector.mjs (`--sizes real`)
// in a worker process of its own.
//
// Data: bench/lib/real-embeddings.mjs (sentences of Cranfield, CISI, Medline, ADI and BBC News, embedded with
// all-MiniLM-L6-v2). 2,000 sentences drawn with a fixed seed are held out as queries and never indexed; with
// the collections' own 366 queries they make the query set. Recall@10 = |top-10 ∩ f32 top-10| / 10, averaged.

import { fmt, fmtSeconds, mdTable, now } from '../lib/harness.mjs'
import { realEmbeddings } from '../lib/real-embeddings.mjs'

/**
 * Bytes per row of a ragrank storage: what a scan reads, and what the index holds (rows, int8 scales, f32
 * rescoring copies; ids and slots left out).
 */
export function rowBytes(storage, dim) {
  const bits = 8 * Math.ceil(dim / 64)
  return {
    f32: { scan: 4 * dim, memory: 4 * dim },
    f16: { scan: 2 * dim, memory: 2 * dim },
    int8: { scan: dim, memory: dim + 4 + 4 * dim },
    binary: { scan: bits, memory: bits + 4 * dim },
    'binary-int8': { scan: bits, memory: bits + dim + 4 },
  }[storage]
}

const TOP_K = 10
const HELD_OUT = 2000
const SEED = 42
/** Binary shortlists measured (rows, with perTopK 1): from topK up to where recall stops mattering. */
export const BINARY_SHORTLISTS = [10, 20, 50, 100, 200, 300, 400, 600, 1000, 2000, 4000]
/** Shortlists measured for binary rescored from int8 (the default, 400 for topK 10, among them). */
export const BINARY_INT8_SHORTLISTS = [100, 200, 1000, 2000]
/** Passes over the queries per timing, best of them (the index is small: a pass takes well under a second). */
const PASSES = 3

/** A permutation of 0..n-1 (xorshift32, fixed seed). */
function shuffled(n, seed) {
  const out = Array.from({ length: n }, (_, i) => i)
  let x = seed >>> 0 || 1
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    const j = x % (i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

function dot(a, b) {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

const unit = (v) => {
  const n = Math.sqrt(dot(v, v))
  return Float64Array.from(v, (x) => x / n)
}

function recall(hits, truth) {
  let found = 0
  for (let q = 0; q < truth.length; q++) {
    const want = new Set(truth[q])
    for (const id of hits[q]) if (want.has(id)) found++
  }
  return found / (truth.length * TOP_K)
}

export async function recallWorker(rr, log) {
  const real = await realEmbeddings({ log })
  const { dim } = real
  const order = shuffled(real.n, SEED)
  const held = order.slice(0, HELD_OUT)
  const docRows = order.slice(HELD_OUT)
  const docs = new Float32Array(docRows.length * dim)
  for (const [i, r] of docRows.entries()) docs.set(real.docs.subarray(r * dim, (r + 1) * dim), i * dim)
  const ids = docRows.map((r) => String(r))
  const queries = [
    ...Array.from({ length: real.m }, (_, i) => real.queries.subarray(i * dim, (i + 1) * dim)),
    ...held.map((r) => real.docs.subarray(r * dim, (r + 1) * dim)),
  ]
  const out = { n: docRows.length, dim, queries: queries.length, collectionQueries: real.m, rows: [] }
  // Exact cosine of a query and a document row, for the score error of each hit.
  const qUnit = queries.map(unit)
  const rowOf = new Map(docRows.map((r, i) => [String(r), i]))
  const exactScore = (qi, id) => {
    const i = rowOf.get(id)
    return (
      dot(qUnit[qi], docs.subarray(i * dim, (i + 1) * dim)) /
      Math.sqrt(dot(docs.subarray(i * dim, (i + 1) * dim), docs.subarray(i * dim, (i + 1) * dim)))
    )
  }
  const measure = (label, options, extra = {}) => {
    const t0 = now()
    const index = new rr.VectorIndex({ dim, metric: 'cosine', ...options })
    index.add(ids, docs)
    const build = now() - t0
    const results = queries.map((q) => index.search(q, { topK: TOP_K }))
    const hits = results.map((r) => r.map((h) => h.id))
    let errSum = 0
    let errMax = 0
    let count = 0
    results.forEach((r, qi) => {
      for (const h of r) {
        const e = Math.abs(h.score - exactScore(qi, h.id))
        errSum += e
        errMax = Math.max(errMax, e)
        count++
      }
    })
    let best = Infinity
    for (let p = 0; p < PASSES; p++) {
      const s = now()
      for (const q of queries) index.search(q, { topK: TOP_K })
      best = Math.min(best, now() - s)
    }
    const storage = options.rescore === 'int8' ? 'binary-int8' : options.storage
    const scoreError = { mean: errSum / count, max: errMax }
    return { label, storage, build, hits, qps: queries.length / best, scoreError, ...extra }
  }
  const f32 = measure('f32', { storage: 'f32' })
  const truth = f32.hits
  const add = (row) => {
    const { hits, ...rest } = row
    rest.recall = recall(hits, truth)
    rest.recallCollection = recall(hits.slice(0, real.m), truth.slice(0, real.m))
    rest.recallHeldOut = recall(hits.slice(real.m), truth.slice(real.m))
    rest.bytes = rowBytes(rest.storage, dim)
    out.rows.push(rest)
    log(`  real ${rest.label}: recall@10 ${fmt(rest.recall)}, ${fmt(rest.qps)} q/s`)
  }
  add(f32)
  add(measure('int8 (default shortlist)', { storage: 'int8' }))
  add(measure('binary (default shortlist)', { storage: 'binary' }, { default: true }))
  const byShortlist = new Map()
  for (const rows of BINARY_SHORTLISTS) {
    const row = measure(
      `binary, shortlist ${rows}`,
      { storage: 'binary', shortlist: { perTopK: 1, rows } },
      { shortlist: rows },
    )
    byShortlist.set(rows, row.hits)
    add(row)
  }
  // Rescored from int8: the same Hamming shortlist, so what differs from the f32-rescored row of the same
  // shortlist is only the order int8 scores give it (`sameAsF32Rescore`: top-10 overlap with that row).
  const int8Row = (label, options, rows, extra) => {
    const row = measure(label, { storage: 'binary', rescore: 'int8', ...options }, extra)
    row.sameAsF32Rescore = recall(row.hits, byShortlist.get(rows))
    add(row)
  }
  int8Row('binary rescored from int8 (default shortlist)', {}, 400, { default: true, rescore: 'int8' })
  for (const rows of BINARY_INT8_SHORTLISTS) {
    int8Row(`binary rescored from int8, shortlist ${rows}`, { shortlist: { perTopK: 1, rows } }, rows, {
      shortlist: rows,
      rescore: 'int8',
    })
  }
  return out
}

export function recallReport(r) {
  const md = []
  md.push(`## Recall on real embeddings: ${r.n.toLocaleString('en-US')} x ${r.dim} (all-MiniLM-L6-v2)`)
  md.push('')
  md.push(
    `Texts: sentences of the shared collections (Cranfield, CISI, Medline, ADI abstracts; BBC News articles), deduplicated, embedded by ragrank's Embedder (mean pooling, L2-normalised, max length 128; bench/lib/real-embeddings.mjs, cached in bench/.cache). Queries: the collections' ${r.collectionQueries} queries and ${(r.queries - r.collectionQueries).toLocaleString('en-US')} held-out sentences (never indexed). Recall@10 against ragrank f32 (exact); q/s is one synchronous query at a time over all ${r.queries.toLocaleString('en-US')} queries, best of ${PASSES} passes (at this size a scan is a few MB: the rates show the per-query overhead of each shortlist more than the bandwidth).`,
  )
  md.push('')
  md.push(
    mdTable(
      [
        'storage',
        'build',
        'q/s',
        'recall@10',
        'collection queries',
        'held-out sentences',
        'bytes/row scanned',
        'bytes/row in memory',
        'score error vs exact (mean / max)',
        'top-10 = f32-rescored binary',
      ],
      r.rows.map((x) => [
        x.label,
        fmtSeconds(x.build),
        fmt(x.qps),
        fmt(x.recall),
        fmt(x.recallCollection),
        fmt(x.recallHeldOut),
        String(x.bytes.scan),
        String(x.bytes.memory),
        x.scoreError ? `${x.scoreError.mean.toExponential(1)} / ${x.scoreError.max.toExponential(1)}` : '–',
        x.sameAsF32Rescore === undefined ? '–' : fmt(x.sameAsF32Rescore),
      ]),
    ),
  )
  md.push('')
  return md.join('\n')
}
