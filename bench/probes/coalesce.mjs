// In-process throughput of concurrent single vector queries (target: searchAsync >= 4x per-call async at
// 64 callers, event-loop p99 < 10 ms). A 100k x 384 index of random vectors; C callers each search, await the
// answer, and search again, for a fixed time, in four ways:
//   sync       index.search(q) (a caller yields with setImmediate between searches)
//   async      index.searchAsync(q) on an index with coalesce: false (one native batch per call: per-call async)
//   coalesced  index.searchAsync(q) with the default coalescing
//   manual     a hand-made micro-batcher over searchBatch (queue, flush when the previous batch is done)
// Prints req/s, latency p50/p99 and event-loop delay p99 for each mode at each concurrency. Reported, not a test.
//
//   node bench/probes/coalesce.mjs [nVectors=100000] [dim=384] [seconds=5] [concurrency=16,64]
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { VectorIndex } from 'ragrank'
import { randomVectors } from '../../fixtures/random-vectors.mjs'

const [n = 100_000, dim = 384, seconds = 5] = process.argv.slice(2, 5).map(Number)
const levels = (process.argv[5] ?? '16,64').split(',').map(Number)

const ids = Array.from({ length: n }, (_, i) => `v${i}`)
const data = randomVectors(n, dim, 1)
const coalesced = new VectorIndex({ dim })
coalesced.add(ids, data)
const plain = new VectorIndex({ dim, coalesce: false })
plain.add(ids, data)
const queries = randomVectors(256, dim, 2)
const query = (i) => queries.subarray((i % 256) * dim, ((i % 256) + 1) * dim)

/** A minimal hand-made micro-batcher, as a user would write one: all queued queries go as the next batch. */
function manualBatcher(index) {
  let queue = []
  let busy = false
  const flush = () => {
    if (busy || queue.length === 0) return
    const batch = queue.slice(0, 64)
    queue = queue.slice(64)
    busy = true
    const q = new Float32Array(batch.length * dim)
    for (const [i, b] of batch.entries()) q.set(b.q, i * dim)
    index.searchBatch(q, { topK: 10 }).then(
      (r) => {
        busy = false
        for (const [i, b] of batch.entries()) b.resolve(r[i])
        flush()
      },
      (e) => {
        busy = false
        for (const b of batch) b.reject(e)
        flush()
      },
    )
  }
  return (q) =>
    new Promise((resolve, reject) => {
      queue.push({ q, resolve, reject })
      setImmediate(flush)
    })
}

const modes = {
  sync: async (q) => {
    const r = plain.search(q, { topK: 10 })
    await new Promise((res) => setImmediate(res))
    return r
  },
  async: (q) => plain.searchAsync(q, { topK: 10 }),
  coalesced: (q) => coalesced.searchAsync(q, { topK: 10 }),
  manual: manualBatcher(plain),
}

async function run(search, callers) {
  const loop = monitorEventLoopDelay({ resolution: 1 })
  const latencies = []
  let done = 0
  const end = performance.now() + seconds * 1000
  loop.enable()
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      let i = c
      while (performance.now() < end) {
        const t0 = performance.now()
        await search(query(i))
        latencies.push(performance.now() - t0)
        done++
        i += callers
      }
    }),
  )
  loop.disable()
  latencies.sort((a, b) => a - b)
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]
  return { rps: done / seconds, p50: at(0.5), p99: at(0.99), loopP99: loop.percentile(99) / 1e6 }
}

console.log(`${n} x ${dim} f32 cosine, ${seconds} s per run`)
console.log('callers  mode        req/s   p50 ms   p99 ms   loop p99 ms')
for (const callers of levels) {
  const rows = {}
  for (const [name, search] of Object.entries(modes)) {
    await run(search, callers) // warm-up pass is short: reuse the same time budget once
    const r = await run(search, callers)
    rows[name] = r
    console.log(
      `${String(callers).padStart(7)}  ${name.padEnd(10)} ${r.rps.toFixed(0).padStart(6)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}  ${r.loopP99.toFixed(1).padStart(11)}`,
    )
  }
  console.log(`         coalesced / async: ${(rows.coalesced.rps / rows.async.rps).toFixed(1)}x`)
}
