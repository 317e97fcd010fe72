// Two builds of ragrank in one process, interleaved: Bm25Index.retrieve (coalesced searchAsync, the example server's
// BM25 call) in a closed loop at each concurrency, in short slices that alternate between the builds (and this
// build's `coalesce: false` as the reference), so the load other work puts on the machine falls on all alike.
// Prints q/s and the process's CPU time per query (all threads, process.cpuUsage over the slices) per build and
// concurrency, and each build's ratio to the first.
//
//   node bench/probes/bm25-coalesce-ab.mjs <other checkout> [docs=100000] [concurrency=1,16,64] [slices=20] [sliceMs=250]
import { performance } from 'node:perf_hooks'
import { loadavg } from 'node:os'

const here = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const [other, docsArg = '100000', levelsArg = '1,16,64', slicesArg = '20', sliceArg = '250'] = process.argv.slice(2)
if (!other) throw new Error('usage: bm25-coalesce-ab.mjs <other checkout> [docs] [concurrency] [slices] [sliceMs]')
const [nDocs, slices, sliceMs] = [docsArg, slicesArg, sliceArg].map(Number)
const { generateZipf } = await import(`${here}/bench/lib/zipf.mjs`)
const zipf = generateZipf({ nDocs })
const docs = Array.from({ length: nDocs }, (_, i) => ({ id: `d${i}`, text: zipf.docText(i) }))
const queries = zipf.queries.slice(0, 256).map((q) => zipf.queryText(q))

async function build(root, tag, options) {
  const { Bm25Index } = await import(`${root}/dist/esm/index.js?${tag}`)
  const index = new Bm25Index(options)
  await index.addAsync(docs)
  return { tag, index }
}
const modes = [
  await build(other, 'other', {}),
  await build(here, 'this', {}),
  await build(here, 'this, coalesce: false', { coalesce: false }),
]
await new Promise((r) => setTimeout(r, 2000)) // the indexes' background precompute

/** One slice: `c` callers each retrieve, await and retrieve again until the slice ends. */
async function slice(index, c) {
  let n = 0
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const end = t0 + sliceMs
  const caller = async (w) => {
    let i = w
    while (performance.now() < end) {
      await index.retrieve(queries[i++ % queries.length], { topK: 10 })
      n++
    }
  }
  await Promise.all(Array.from({ length: c }, (_, w) => caller(w)))
  const cpu = process.cpuUsage(cpu0)
  return { n, ms: performance.now() - t0, cpuUs: cpu.user + cpu.system }
}

const load0 = loadavg()[0]
console.log(
  `${nDocs} Zipf documents, ${slices} slices of ${sliceMs} ms per mode and concurrency, load ${load0.toFixed(2)}`,
)
console.log('| concurrency | mode | q/s | CPU us/query | q/s vs other |')
console.log('| ---: | --- | ---: | ---: | ---: |')
for (const c of levelsArg.split(',').map(Number)) {
  const sums = modes.map(() => ({ n: 0, ms: 0, cpuUs: 0 }))
  for (let s = 0; s < slices; s++) {
    // Alternate the order, so no mode always follows the same one.
    const order = s % 2 === 0 ? [0, 1, 2] : [2, 1, 0]
    for (const m of order) {
      const r = await slice(modes[m].index, c)
      sums[m].n += r.n
      sums[m].ms += r.ms
      sums[m].cpuUs += r.cpuUs
    }
  }
  const qps = sums.map((x) => (x.n * 1000) / x.ms)
  sums.forEach((x, m) => {
    const row = [c, modes[m].tag, Math.round(qps[m]), (x.cpuUs / x.n).toFixed(1), `${(qps[m] / qps[0]).toFixed(2)}x`]
    console.log(`| ${row.join(' | ')} |`)
  })
}
console.log(`load average at the end ${loadavg()[0].toFixed(2)}`)
