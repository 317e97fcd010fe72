// The frozen baseline of sync-calls.mjs: the same 1M-document index and queries, no writes (node bench/probes/frozen-search.mjs).
import { performance } from 'node:perf_hooks'
import { generateZipf } from '../lib/zipf.mjs'
import { Bm25Index } from '../../dist/esm/index.js'
const nDocs = 1_000_000
const zipf = generateZipf({ nDocs: nDocs + 200_000, nQueries: 1000 })
const queries = zipf.queries.map((q) => zipf.queryTokens(q))
const bm25 = new Bm25Index({ storeText: false })
await bm25.addAsync(Array.from({ length: nDocs }, (_, i) => ({ id: `d${i}`, tokens: zipf.docTokens(i) })))
bm25.search(queries[0])
await new Promise((r) => setTimeout(r, 3000)) // let the quiet snapshot precompute
const d = []
for (let pass = 0; pass < 7; pass++)
  for (const q of queries) {
    const s = performance.now()
    bm25.search(q)
    d.push(performance.now() - s)
  }
d.sort((a, b) => a - b)
const at = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))].toFixed(3)
console.log(
  `frozen 1M search n=${d.length} p50 ${at(0.5)} p99 ${at(0.99)} max ${d[d.length - 1].toFixed(3)} ms; stats ${JSON.stringify(bm25.stats().segments)}`,
)
