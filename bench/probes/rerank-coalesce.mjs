// How `CrossEncoder`'s coalescing of concurrent rerank calls trades throughput for the shape of completions:
// `conc` loops each send a 20-pair rerank (max length 128, the server suite's shape) as soon as the last returns.
// Prints steady calls/s (after the first 3 s), latency p50/p99, and the gaps between completions (0 ms median:
// calls finish in bursts).
//   node bench/probes/rerank-coalesce.mjs <maxBatch: 0 = coalesce off> <conc> <seconds>
import { CrossEncoder } from '../../dist/esm/index.js'
import { generateZipf } from '../lib/zipf.mjs'
import { RERANK_MODEL } from '../server/data.mjs'

const [maxBatch, conc, seconds] = process.argv.slice(2).map(Number)
const model = await CrossEncoder.load(RERANK_MODEL, { maxLength: 128, coalesce: maxBatch === 0 ? false : { maxBatch } })
const corpus = generateZipf({ nDocs: 100_000 })
const queries = corpus.queries.map((q) => corpus.queryText(q))
let k = 0
const call = () => {
  const i = k++
  const docs = Array.from({ length: 20 }, (_, j) => ({
    id: `d${j}`,
    text: corpus.docText((i * 37 + j * 101) % 100_000),
  }))
  return model.rerank(queries[i % queries.length], docs, { topK: 10 })
}
for (let i = 0; i < 4; i++) await call()
const t0 = performance.now()
const done = []
const latencies = []
let stop = false
await Promise.all(
  Array.from({ length: conc }, async () => {
    while (!stop) {
      const start = performance.now()
      await call()
      const end = performance.now()
      done.push(end - t0)
      latencies.push(end - start)
      if (end - t0 > seconds * 1000) stop = true
    }
  }),
)
const steady = done.filter((t) => t >= 3000).length / ((Math.max(...done) - 3000) / 1000)
latencies.sort((a, b) => a - b)
const gaps = done
  .slice(1)
  .map((t, i) => t - done[i])
  .sort((a, b) => a - b)
const at = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))].toFixed(0)
console.log(
  `maxBatch ${maxBatch} c=${conc}: ${steady.toFixed(2)} calls/s steady, p50 ${at(latencies, 0.5)} p99 ${at(latencies, 0.99)} ms (n ${latencies.length}); gaps between completions: median ${at(gaps, 0.5)} max ${at(gaps, 1)} ms`,
)
