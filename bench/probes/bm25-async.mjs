// In-process throughput of concurrent single BM25 queries, per way of calling: C callers each search, await the
// answer and search again, for a fixed time. Reported, not a test.
//   sync        index.search(q) (a caller yields with setImmediate between searches)
//   batch1      index.searchBatch([q]) (one native batch per call: what retrieve did before searchAsync)
//   async       index.searchAsync(q) on an index with coalesce: false
//   coalesced   index.searchAsync(q) with the default coalescing
// Prints req/s, latency p50/p99 and event-loop delay p99 per mode and concurrency.
//
//   node bench/probes/bm25-async.mjs [docs=100000] [seconds=3] [concurrency=1,16,64]
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { cpus, loadavg } from 'node:os'
import { Bm25Index } from '../../dist/esm/index.js'
import { generateZipf } from '../lib/zipf.mjs'

const [nDocs = 100_000, seconds = 3] = process.argv.slice(2, 4).map(Number)
const levels = (process.argv[4] ?? '1,16,64').split(',').map(Number)
const zipf = generateZipf({ nDocs, nQueries: 1000 })
const docs = Array.from({ length: nDocs }, (_, i) => ({ id: `d${i}`, tokens: zipf.docTokens(i) }))
const queries = zipf.queries.map((q) => zipf.queryTokens(q))
const coalesced = new Bm25Index({ storeText: false })
const plain = new Bm25Index({ storeText: false, coalesce: false })
await coalesced.addAsync(docs)
await plain.addAsync(docs)
await new Promise((r) => setTimeout(r, 1500)) // the background precompute of the quiet snapshot

const modes = {
  sync: (q) => new Promise((resolve) => setImmediate(() => resolve(coalesced.search(q, { topK: 10 })))),
  batch1: (q) => coalesced.searchBatch([q], { topK: 10 }).then((r) => r[0]),
  async: (q) => plain.searchAsync(q, { topK: 10 }),
  coalesced: (q) => coalesced.searchAsync(q, { topK: 10 }),
}

async function run(call, concurrency) {
  const lat = []
  const loop = monitorEventLoopDelay({ resolution: 1 })
  let next = 0
  const end = performance.now() + seconds * 1000
  loop.enable()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        await call(queries[next++ % queries.length])
        lat.push(performance.now() - t)
      }
    }),
  )
  loop.disable()
  lat.sort((a, b) => a - b)
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]
  return { rps: lat.length / seconds, p50: pct(0.5), p99: pct(0.99), loopP99: loop.percentile(99) / 1e6 }
}

console.log(
  `CPU: ${cpus()[0].model} x ${cpus().length}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${nDocs} docs`,
)
console.log('| mode | conc. | req/s | p50 ms | p99 ms | loop p99 ms |\n| --- | ---: | ---: | ---: | ---: | ---: |')
for (const c of levels) {
  for (const [name, call] of Object.entries(modes)) {
    await run(call, c) // warm-up
    const r = await run(call, c)
    console.log(
      `| ${name} | ${c} | ${Math.round(r.rps)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.loopP99.toFixed(2)} |`,
    )
  }
}
