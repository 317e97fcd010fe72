// How long a sync VectorIndex.search blocks the event loop while unrelated work occupies rayon's global
// pool (an 8.9 ms search once took 264-413 ms while a Bm25Index.searchBatch ran). Times sync searches of a
// 100k x 384 index alone, then while a Bm25Index.searchBatch of many queries runs, and prints the median,
// p90 and max of each. For comparison, the same query through `searchBatch` (whose scan runs on rayon's
// global pool, where the sync search ran before it got a pool of its own), timed alone and during the batch.
// Reported, not a test.
//
//   node bench/probes/sync-search-blocked.mjs [nVectors=100000] [dim=384] [bm25Docs=200000]
import { Bm25Index, VectorIndex } from 'ragrank'
import { randomVectors } from '../../fixtures/random-vectors.mjs'
import { generateZipf } from '../lib/zipf.mjs'

const [n = 100_000, dim = 384, bmDocs = 200_000] = process.argv.slice(2).map(Number)

const vectors = new VectorIndex({ dim })
vectors.add(
  Array.from({ length: n }, (_, i) => `v${i}`),
  randomVectors(n, dim, 1),
)
const corpus = generateZipf({ nDocs: bmDocs, seed: 7 })
const bm25 = new Bm25Index()
bm25.add(Array.from({ length: bmDocs }, (_, i) => ({ id: corpus.docId(i), text: corpus.docText(i) })))
const bmQueries = Array.from({ length: 20_000 }, (_, i) => corpus.queryText(corpus.queries[i % corpus.queries.length]))
const queries = randomVectors(64, dim, 2)

function timeSearches(count) {
  const ms = []
  for (let i = 0; i < count; i++) {
    const q = queries.subarray((i % 64) * dim, ((i % 64) + 1) * dim)
    const t0 = process.hrtime.bigint()
    vectors.search(q, { topK: 10 })
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return ms
}

async function timeGlobalPool(count) {
  const ms = []
  for (let i = 0; i < count; i++) {
    const q = queries.subarray((i % 64) * dim, ((i % 64) + 1) * dim)
    const t0 = process.hrtime.bigint()
    await vectors.searchBatch(q, { topK: 10 })
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return ms
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b)
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))]
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (${s.length} searches)`
}

timeSearches(5) // warm up
console.log(`sync search, ${n} x ${dim}, alone:            ${stats(timeSearches(40))}`)
console.log(`same scan on the global pool, alone:          ${stats(await timeGlobalPool(40))}`)
// A batch long enough to cover the measurement, started on the libuv pool (it fans out on rayon's global pool).
const busy = []
const busyGlobal = []
let running = true
const batch = bm25.searchBatch(bmQueries, { topK: 10 }).finally(() => {
  running = false
})
await new Promise((r) => setTimeout(r, 50))
while (running && busy.length < 40) {
  busy.push(...timeSearches(1))
  if (running) busyGlobal.push(...(await timeGlobalPool(1)))
}
await batch
console.log(`sync search during Bm25Index.searchBatch:     ${stats(busy)}`)
if (busyGlobal.length) console.log(`global-pool scan during the batch:            ${stats(busyGlobal)}`)
if (busy.length < 10) console.log('(the batch ended early: pass a larger bm25Docs for a longer one)')
