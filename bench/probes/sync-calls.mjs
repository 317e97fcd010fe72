// How long each synchronous Bm25Index / VectorIndex call holds the event loop while the index takes writes and
// background work runs: the target "no sync call blocks the event loop for more than 5 ms".
//
//   node bench/probes/sync-calls.mjs [--docs 1000000] [--seconds 20] [--vectors 100000]
//
// A writer adds one document and removes one every 10 ms (100 adds/s + removes, sync calls), an `addAsync` of
// 2,000 documents and a `save` run now and then, and in between the loop times sync search, has, size, pending and
// stats. Reported: each call's p50 / p99 / max in ms, and the CPU model (the machine may be loaded: say so).
// SLOW=1 prints every call over 5 ms with its start on the monotonic clock; PROBE_MARK=1 prints "writes start" when
// the timed loop begins, to attach `perf record -k CLOCK_MONOTONIC -e sched:sched_switch ...` then (see offcpu.py).
// SCHEDSTAT=1 (Linux) adds to each slow call how long the event-loop thread waited runnable (preempted) during it
// and how many times it was switched back in, from /proc/thread-self/schedstat: no switch means the whole call ran
// on the CPU, and the loop thread's page faults during it. This needs no profiler (perf's own threads preempt the
// loop on 2 cores) and misses no switch.
// SKIP=add,save,vsave,vbatch leaves out background jobs. With SLOW=1 the slow calls that overlap a V8 garbage
// collection pause on the loop (PerformanceObserver 'gc' entries, same clock) are listed again at the end with it.
import { mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { generateZipf } from '../lib/zipf.mjs'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const args = process.argv.slice(2)
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const nDocs = arg('docs', 1_000_000)
const seconds = arg('seconds', 20)
const nVectors = arg('vectors', 100_000)
const dim = 384

const zipf = generateZipf({ nDocs: nDocs + 200_000, nQueries: 1000 })
const doc = (i) => ({ id: `d${i}`, tokens: zipf.docTokens(i) })
const queries = zipf.queries.map((q) => zipf.queryTokens(q))

const bm25 = new Bm25Index({ storeText: false })
const t = performance.now()
await bm25.addAsync(Array.from({ length: nDocs }, (_, i) => doc(i)))
const buildS = (performance.now() - t) / 1000
const vectors = new VectorIndex({ dim })
const rows = new Float32Array(nVectors * dim).map(() => Math.random() - 0.5)
vectors.add(
  Array.from({ length: nVectors }, (_, i) => `v${i}`),
  rows,
)

// The event-loop thread's counters, from /proc/thread-self: its time waiting for a CPU (ns) and its count of time
// slices (schedstat's last two fields), and its minor and major page faults (fields 10 and 12 of stat: an on-CPU
// stall with many faults was the kernel's, fresh pages zeroed or compaction, not ragrank's code).
const procReader = (file, size) => {
  const fd = openSync(`/proc/thread-self/${file}`, 'r')
  const buf = Buffer.alloc(size)
  return () => buf.toString('latin1', 0, readSync(fd, buf, 0, size, 0))
}
const readSchedstat = process.env.SCHEDSTAT ? procReader('schedstat', 64) : null
const readStat = process.env.SCHEDSTAT ? procReader('stat', 1024) : null
const threadCounters = () => {
  if (!readSchedstat) return null
  const [runnable, slices] = readSchedstat().split(' ').slice(1, 3).map(Number)
  const stat = readStat()
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // f[0] is field 3 (the state)
  return { runnable, slices, minor: Number(f[7]), major: Number(f[9]) }
}
const schedNote = (a, b) => {
  if (!a) return ''
  const switches = b.slices - a.slices
  const switched =
    switches === 0
      ? 'never switched out'
      : `switched out ${switches}x, runnable ${((b.runnable - a.runnable) / 1e6).toFixed(1)} ms`
  return `, ${switched}, ${b.minor - a.minor} minor / ${b.major - a.major} major page faults`
}

// V8 pauses of the event-loop thread: a slow call that overlaps one was (partly) the garbage collector's.
const gcPauses = []
const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental marking step', 16: 'weak callbacks' }
if (process.env.SLOW)
  new PerformanceObserver((list) => gcPauses.push(...list.getEntries())).observe({ entryTypes: ['gc'] })
const slowCalls = []

const timings = new Map()
const time = (name, fn) => {
  const c0 = threadCounters()
  const hr = process.hrtime.bigint()
  const s = performance.now()
  const r = fn()
  const d = performance.now() - s
  if (d > 5 && process.env.SLOW) {
    const note = schedNote(c0, threadCounters()) // read first: the message's own calls fault too
    slowCalls.push({ name, start: s, d, tick })
    console.error(
      `slow: ${name} ${d.toFixed(1)} ms at tick ${tick}, segments ${bm25.stats().segments}, monotonic ${Number(hr / 1000n) / 1e6} s${note}`,
    )
  }
  if (!timings.has(name)) timings.set(name, [])
  timings.get(name).push(d)
  return r
}

const dir = mkdtempSync(path.join(tmpdir(), 'ragrank-sync-'))
let next = nDocs
let oldest = 0
let background = Promise.resolve()
const end = performance.now() + seconds * 1000
let tick = 0
if (process.env.PROBE_MARK) console.error('writes start')
while (performance.now() < end) {
  tick++
  const fresh = doc(next++) // made before the clock starts: only ragrank's call is timed
  time('bm25 add (1 doc)', () => bm25.add([fresh]))
  time('bm25 remove (1 doc)', () => bm25.remove([`d${oldest++}`]))
  for (let i = 0; i < 5; i++) time('bm25 search', () => bm25.search(queries[(tick * 5 + i) % queries.length]))
  time('bm25 has', () => bm25.has(`d${next - 1}`))
  time('bm25 size', () => bm25.size)
  time('bm25 pending', () => bm25.pending)
  if (tick % 20 === 0) time('bm25 stats', () => bm25.stats())
  const q = rows.subarray((tick % nVectors) * dim, ((tick % nVectors) + 1) * dim)
  time('vector add (1 row)', () => vectors.add([`w${tick}`], q))
  time('vector remove (1 row)', () => vectors.remove([`w${tick - 1}`]))
  time('vector size', () => vectors.size)
  if (tick % 300 === 1) {
    // Heavy background work the sync calls must not wait for.
    const batch = Array.from({ length: 2000 }, () => doc(next++))
    background = Promise.all([
      background,
      process.env.SKIP?.includes('add') ? null : bm25.addAsync(batch),
      process.env.SKIP?.includes('save') ? null : bm25.save(path.join(dir, 'bm25.rgrk')),
      process.env.SKIP?.includes('vsave') ? null : vectors.save(path.join(dir, 'vectors.rgrk')),
      process.env.SKIP?.includes('vbatch') ? null : vectors.searchBatch(rows.subarray(0, 32 * dim), { topK: 10 }),
    ])
  }
  await new Promise((r) => setTimeout(r, 10))
}
await background
if (process.env.SLOW) {
  await new Promise((r) => setImmediate(r)) // the observer's last entries
  const overlapping = (c) => gcPauses.filter((g) => g.startTime < c.start + c.d && g.startTime + g.duration > c.start)
  for (const c of slowCalls) {
    const inside = overlapping(c)
    if (inside.length)
      console.error(
        `slow call with GC: ${c.name} ${c.d.toFixed(1)} ms at tick ${c.tick}: ${inside.map((g) => `${GC_KINDS[g.detail?.kind] ?? `kind ${g.detail?.kind}`} GC ${g.duration.toFixed(1)} ms`).join(', ')}`,
      )
  }
  console.error(
    `GC pauses on the loop: ${gcPauses.length}, ${slowCalls.length} slow calls, ${slowCalls.filter((c) => overlapping(c).length).length} of them overlapping one`,
  )
}
rmSync(dir, { recursive: true, force: true })

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
console.log(
  `CPU: ${cpus()[0].model} x ${cpus().length}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
)
console.log(
  `BM25 ${nDocs.toLocaleString()} docs built in ${buildS.toFixed(1)} s; vectors ${nVectors} x ${dim}; ${seconds} s of writes`,
)
console.log(`final: ${JSON.stringify({ segments: bm25.stats().segments, size: bm25.size })}`)
// RSS now and at its peak (VmHWM, Linux), and what the BM25 index counts as its own: an allocator shows in the gap.
const peak = /VmHWM:\s+(\d+)/.exec(process.platform === 'linux' ? readFileSync('/proc/self/status', 'latin1') : '')
console.log(
  `memory: rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, peak ${peak ? (Number(peak[1]) / 1024).toFixed(0) : '?'} MB, bm25 memoryBytes ${(bm25.stats().memoryBytes / 2 ** 20).toFixed(0)} MB`,
)
console.log('| call | n | p50 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: | ---: |')
for (const [name, xs] of timings) {
  console.log(
    `| ${name} | ${xs.length} | ${q(xs, 0.5).toFixed(3)} | ${q(xs, 0.99).toFixed(3)} | ${Math.max(...xs).toFixed(3)} |`,
  )
}
