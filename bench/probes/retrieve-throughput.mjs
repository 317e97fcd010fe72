// Bm25Index.retrieve (the example server's BM25 call) in a closed loop at concurrency 1, 16 and 64, in process, over
// 100k Zipf documents: q/s per concurrency, 2 s each, and the process's CPU time per query (all threads, from
// process.cpuUsage over the phase). The argument is a checkout's root (default this one), so two builds can be run
// side by side, alternating:
//
//   node bench/probes/retrieve-throughput.mjs [/path/to/other/checkout]
import { performance } from 'node:perf_hooks'
const root = process.argv[2] ?? new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const { generateZipf } = await import(`${root}/bench/lib/zipf.mjs`)
const { Bm25Index } = await import(`${root}/dist/esm/index.js`)
const zipf = generateZipf({ nDocs: 100_000 })
const index = new Bm25Index()
await index.addAsync(Array.from({ length: 100_000 }, (_, i) => ({ id: `d${i}`, text: zipf.docText(i) })))
const queries = zipf.queries.slice(0, 256).map((q) => zipf.queryText(q))
await new Promise((r) => setTimeout(r, 1500)) // precompute
const out = []
for (const c of [1, 16, 64]) {
  let n = 0
  const cpu0 = process.cpuUsage()
  const end = performance.now() + 2000
  const worker = async (w) => {
    let i = w
    while (performance.now() < end) {
      await index.retrieve(queries[i++ % queries.length], { topK: 10 })
      n++
    }
  }
  await Promise.all(Array.from({ length: c }, (_, w) => worker(w)))
  const cpu = process.cpuUsage(cpu0)
  out.push(`c=${c} ${Math.round(n / 2)} q/s ${((cpu.user + cpu.system) / n).toFixed(1)} us cpu/q`)
}
console.log(out.join(', '))
