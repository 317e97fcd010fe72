// Timing, statistics, child-process and Markdown helpers shared by the benchmark suites.

import fs from 'node:fs'
import { spawn } from 'node:child_process'
import os from 'node:os'

export const now = () => performance.now() / 1000 // seconds, sub-microsecond resolution

/**
 * Run a full GC when the process was started with --expose-gc (the suites' worker processes are), then wait
 * until the GC's helper threads are idle. V8 sweeps and frees a large heap concurrently after `gc()` returns:
 * with a 1M-document corpus held in JS that took most of the other core for the next ~0.4 s and made the timed
 * loop after it 17% slower (the timed loop's CPU time per query, with and without a `gc()` before it).
 */
export function gc() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc()
    globalThis.gc()
    settleHelperThreads()
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))

/** Blocks until the process uses under 5% of a core for 20 ms (the main thread itself is asleep), 3 s at most. */
function settleHelperThreads() {
  const deadline = performance.now() + 3000
  while (performance.now() < deadline) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    Atomics.wait(pause, 0, 0, 20)
    const c = process.cpuUsage(c0)
    if ((c.user + c.system) / 1000 < 0.05 * (performance.now() - t0)) return
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Quantile with linear interpolation (q in [0, 1]) of an unsorted sample. */
export function quantile(values, q) {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo] + (s[hi] - s[lo]) * (pos - lo)
}

/** { n, median, min, max, p25, p75, mean } of a sample. */
export function summarize(values) {
  const v = values.filter((x) => Number.isFinite(x))
  if (v.length === 0) return { n: 0, median: NaN, min: NaN, max: NaN, p25: NaN, p75: NaN, mean: NaN }
  return {
    n: v.length,
    median: quantile(v, 0.5),
    min: Math.min(...v),
    max: Math.max(...v),
    p25: quantile(v, 0.25),
    p75: quantile(v, 0.75),
    mean: v.reduce((a, b) => a + b, 0) / v.length,
  }
}

/** Passes per repeat so that a repeat lasts at least `minRepeatSeconds` (at most `maxPasses`), given one pass's time. */
const passesFor = (passSeconds, minRepeatSeconds, maxPasses) =>
  Math.max(1, Math.min(maxPasses, Math.ceil(minRepeatSeconds / Math.max(passSeconds, 1e-9))))

/** { rates: per-repeat items/s, seconds, passes, summary } of repeats of `passes` passes over `nItems` items. */
function repeatResult(nItems, passes, seconds) {
  const rates = seconds.map((dt) => (nItems * passes) / dt)
  return { rates, seconds, passes, summary: summarize(rates) }
}

/**
 * Throughput of a loop over `items`: `fn(item)` is called for every item, `passes` times per repeat, after
 * `warmup` untimed passes. `passes` is chosen so that one repeat takes at least `minRepeatSeconds` (at most
 * `maxPasses`), measured on the first warm pass. Returns { rates: per-repeat items/s, seconds: per-repeat
 * wall time, passes, summary }.
 */
export function loopThroughput(
  items,
  fn,
  { repeats = 5, warmup = 1, minRepeatSeconds = 0.3, maxPasses = 1000, passSeconds: known } = {},
) {
  // Synchronous on purpose: no await between the calls that are timed.
  const timed = (passes) => {
    const t0 = now()
    for (let p = 0; p < passes; p++) for (let i = 0; i < items.length; i++) fn(items[i])
    return now() - t0
  }
  // `passSeconds` (optional): the caller already ran a warm pass and knows its duration; skip the warm-up.
  let passSeconds = known ?? Infinity
  if (known === undefined) for (let w = 0; w < Math.max(1, warmup); w++) passSeconds = Math.min(passSeconds, timed(1))
  const passes = passesFor(passSeconds, minRepeatSeconds, maxPasses)
  const seconds = []
  for (let r = 0; r < repeats; r++) {
    gc()
    seconds.push(timed(passes))
  }
  return repeatResult(items.length, passes, seconds)
}

/** Same as loopThroughput for one asynchronous call that handles all items at once (e.g. a batch search). */
export async function batchThroughput(
  nItems,
  fnAsync,
  { repeats = 5, warmup = 1, minRepeatSeconds = 0.3, maxPasses = 1000 } = {},
) {
  const timed = async (passes) => {
    const t0 = now()
    for (let p = 0; p < passes; p++) await fnAsync()
    return now() - t0
  }
  let passSeconds = Infinity
  for (let w = 0; w < Math.max(1, warmup); w++) passSeconds = Math.min(passSeconds, await timed(1))
  const passes = passesFor(passSeconds, minRepeatSeconds, maxPasses)
  const seconds = []
  for (let r = 0; r < repeats; r++) {
    gc()
    seconds.push(await timed(passes))
  }
  return repeatResult(nItems, passes, seconds)
}

/**
 * Contestant for `interleavedThroughput`: `nItems` items per pass; `pass(passes)` runs that many passes
 * (sync or async) and may return the seconds it measured itself (a peer in another process), else it
 * is timed here.
 */
export const contestant = (nItems, pass) => ({ nItems, pass })

/** A contestant whose pass calls `fn(item)` for every item. */
export const loopContestant = (items, fn) =>
  contestant(items.length, (passes) => {
    for (let p = 0; p < passes; p++) for (let i = 0; i < items.length; i++) fn(items[i])
  })

/**
 * Throughput (items/s per repeat) of several contestants timed in turn: every round times each once,
 * starting one further along each round, so a slow phase of a noisy host hits them all alike rather
 * than whichever was timed then. `between(round)` (optional) runs untimed before each round. After warm
 * passes (>= warmupSeconds) each, a contestant's passes per repeat are set so a repeat of it lasts
 * >= minRepeatSeconds.
 * Contestants already `warm` skip that and run one pass per repeat. Each repeat starts after `settleMs`
 * idle, long enough for the previous contestant's spinning worker threads (OpenBLAS, OpenMP, rayon) to
 * go to sleep. `afterRound(round, rates)` (optional) sees the rates so far. Returns a Map contestant ->
 * { rates, summary }.
 */
export async function interleavedThroughput(
  contestants,
  {
    repeats = 5,
    minRepeatSeconds = 0.3,
    maxPasses = 1000,
    warmupSeconds = 1,
    warm = false,
    settleMs = 100,
    between,
    afterRound,
  } = {},
) {
  const timed = async (c, passes, settle = true) => {
    gc()
    if (settle) await sleep(settleMs)
    const t0 = now()
    const own = await c.pass(passes)
    return typeof own === 'number' ? own : now() - t0
  }
  const passes = new Map(contestants.map((c) => [c, 1]))
  for (const c of warm ? [] : contestants) {
    // Warm passes for at least warmupSeconds: the first calls of some peers are several times slower
    // (numpy's first 32 x 1M score matrices: fresh huge pages), and a repeat must not pay for that.
    let [fastest, spent] = [Infinity, 0]
    while (spent < warmupSeconds || spent === 0) {
      const one = await timed(c, 1, spent === 0)
      fastest = Math.min(fastest, one)
      spent += one
    }
    passes.set(c, passesFor(fastest, minRepeatSeconds, maxPasses))
  }
  const rates = new Map(contestants.map((c) => [c, []]))
  for (let r = 0; r < repeats; r++) {
    if (between) await between(r)
    for (let j = 0; j < contestants.length; j++) {
      const c = contestants[(r + j) % contestants.length]
      const p = passes.get(c)
      rates.get(c).push((c.nItems * p) / (await timed(c, p)))
    }
    if (afterRound) afterRound(r, rates)
  }
  return new Map([...rates].map(([c, v]) => [c, { rates: v, summary: summarize(v) }]))
}

/**
 * A child process answering one JSON line per JSON line sent (bench/py/vector_runner.py). `request(obj)`
 * resolves with the reply; `close()` ends its input and waits for it to exit.
 */
export function jsonLineServer(cmd, args, { env } = {}) {
  const child = spawn(cmd, args, { env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] })
  let buffered = ''
  let stderr = ''
  const waiting = []
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)))
  const fail = (why) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${why}: ${stderr.trim().split('\n').pop() ?? ''}`))
  }
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout.on('data', (d) => {
    buffered += d
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      if (line.trim()) waiting.shift()?.resolve(JSON.parse(line))
    }
  })
  child.on('error', (e) => fail(String(e)))
  exited.then((code) => fail(`exited with code ${code}`))
  return {
    request(obj) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject })
        child.stdin.write(`${JSON.stringify(obj)}\n`)
      })
    },
    async close() {
      child.stdin.end()
      return exited
    },
  }
}

/** Time `fn` (sync or async) `repeats` times; `setup` (untimed) runs before each repeat. Returns seconds[]. */
export async function timeRepeats(fn, { repeats = 3, setup } = {}) {
  const out = []
  for (let r = 0; r < repeats; r++) {
    const ctx = setup ? await setup(r) : undefined
    gc()
    const t0 = now()
    await fn(ctx, r)
    out.push(now() - t0)
  }
  return out
}

export function rssBytes() {
  return process.memoryUsage().rss
}

/** Peak RSS of this process so far (bytes), from getrusage (maxRSS is in KiB on Linux). */
export function peakRssBytes() {
  return process.resourceUsage().maxRSS * 1024
}

/**
 * Run a command, collect stdout; resolve with { code, stdout, stderr, seconds }. stderr is forwarded
 * line by line to our stderr with a prefix when `echoStderr` is set (progress of long children).
 */
export function runCommand(cmd, args, { input, env, cwd, echoStderr = false, prefix = '', timeoutMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = now()
    const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out = []
    const err = []
    let timer = null
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        child.kill('SIGKILL')
      }, timeoutMs)
    }
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => {
      err.push(d)
      if (echoStderr) {
        for (const line of d.toString().split('\n')) if (line.trim()) process.stderr.write(`${prefix}${line}\n`)
      }
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      resolve({
        code: code ?? (signal ? 128 : 1),
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        seconds: now() - t0,
      })
    })
    if (input !== undefined) child.stdin.end(input)
    else child.stdin.end()
  })
}

/** Parse the last non-empty stdout line of a child as JSON. */
export function lastJsonLine(stdout) {
  const lines = stdout.split('\n').filter((l) => l.trim())
  if (lines.length === 0) throw new Error('child printed nothing on stdout')
  return JSON.parse(lines[lines.length - 1])
}

// ---------------------------------------------------------------------------------------------------------
// Formatting

/** Number with a sensible number of significant digits and thousands separators. */
export function fmt(x, { digits = 3 } = {}) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–'
  if (!Number.isFinite(x)) return String(x)
  const a = Math.abs(x)
  if (a >= 10 ** digits) return Math.round(x).toLocaleString('en-US')
  if (a === 0) return '0'
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(a)))
  return x.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
}

/** "median (min–max)" of a summary. */
export function fmtSpread(s, opts) {
  if (!s?.n) return '–'
  if (s.n === 1) return fmt(s.median, opts)
  return `${fmt(s.median, opts)} (${fmt(s.min, opts)}–${fmt(s.max, opts)})`
}

export function fmtBytes(b) {
  if (b === null || b === undefined || Number.isNaN(b)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB']
  let i = 0
  let v = b
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${fmt(v)} ${units[i]}`
}

export function fmtSeconds(s) {
  if (s === null || s === undefined || Number.isNaN(s)) return '–'
  if (s < 1e-3) return `${fmt(s * 1e6)} µs`
  if (s < 1) return `${fmt(s * 1e3)} ms`
  return `${fmt(s)} s`
}

/** Ratio "12.3x", with a ✓/✗ mark against a target when given. */
export function fmtRatio(r, target) {
  if (r === null || r === undefined || !Number.isFinite(r)) return '–'
  const s = `${fmt(r)}×`
  if (target === undefined) return s
  return `${s} ${r >= target ? '✓' : '✗'} (≥${target}×)`
}

/** Markdown table. `align` is a string of 'l'/'r' per column (default: first left, rest right). */
export function mdTable(headers, rows, align) {
  const al = align ?? `l${'r'.repeat(headers.length - 1)}`
  const esc = (c) => String(c ?? '').replace(/\|/g, '\\|')
  const lines = [
    `| ${headers.map(esc).join(' | ')} |`,
    `| ${headers.map((_, i) => (al[i] === 'r' ? '---:' : '---')).join(' | ')} |`,
  ]
  for (const r of rows) lines.push(`| ${r.map(esc).join(' | ')} |`)
  return lines.join('\n')
}

/** CPU features that decide which kernels run (ragrank's and the peers'): recorded in every result file. */
const ISA_FLAGS = [
  'avx2',
  'fma',
  'avx512f',
  'avx512bw',
  'avx512_vnni',
  'avx512_vpopcntdq',
  'avx512_bf16',
  'avx_vnni',
  'amx_tile',
  'amx_int8',
  'amx_bf16',
]

/** The ISA flags above as { flag: boolean } from /proc/cpuinfo (Linux), or null where it cannot be read. */
export function cpuIsa() {
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => /^(flags|Features)\s*:/.test(l))
    const have = new Set((line ?? '').split(':')[1]?.trim().split(/\s+/) ?? [])
    return Object.fromEntries(ISA_FLAGS.map((f) => [f, have.has(f)]))
  } catch {
    return null
  }
}

/** "AVX-512 VNNI yes, VPOPCNTDQ yes, AMX int8 yes ..." for report headers. */
export function isaLine(isa) {
  if (!isa) return 'ISA flags unknown (no /proc/cpuinfo)'
  const yes = (f) => (isa[f] ? 'yes' : 'no')
  return `ISA: AVX2 ${yes('avx2')}, AVX-512F ${yes('avx512f')}, AVX-512 VNNI ${yes('avx512_vnni')}, AVX-512 VPOPCNTDQ ${yes('avx512_vpopcntdq')}, AVX-512 BF16 ${yes('avx512_bf16')}, AVX-VNNI ${yes('avx_vnni')}, AMX tile/int8/bf16 ${yes('amx_tile')}/${yes('amx_int8')}/${yes('amx_bf16')}`
}

/** One-line description of the machine for the report header (with the ISA flags, see cpuIsa). */
export function machineInfo() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    isa: cpuIsa(),
  }
}
