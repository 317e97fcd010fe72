// The client side of the server benchmark: start a server process, drive an endpoint with autocannon,
// run the writer next to it, and read the server's /metrics.
import { spawn } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { sleep } from '../lib/harness.mjs'
import { writerDocument } from './data.mjs'

const SERVE = fileURLToPath(new URL('./serve.mjs', import.meta.url))

/** Starts bench/server/serve.mjs with `job`; resolves with { url, info, pid, stop() } once it listens. */
export function startServer(job, { log = () => {} } = {}) {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.RAGRANK_SERVER_NODE_FLAGS?.split(' ') ?? []),
      '--max-old-space-size=16384',
      SERVE,
      JSON.stringify(job),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr.on('data', (d) => {
    stderr += d
    for (const line of String(d).split('\n')) if (line.trim()) log(`  [${job.stack}] ${line}`)
  })
  const exited = new Promise((resolve) => child.on('close', resolve))
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const nl = out.indexOf('\n')
      if (nl < 0) return
      const info = JSON.parse(out.slice(0, nl))
      const stop = async () => {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
        await exited
        clearTimeout(timer)
      }
      resolve({ url: `http://127.0.0.1:${info.port}`, info, pid: child.pid, stop })
    })
    exited.then((code) => reject(new Error(`server ${job.stack} exited (${code}): ${stderr.trim().split('\n').pop()}`)))
  })
}

export async function getJson(url, path, init) {
  const res = await fetch(`${url}${path}`, init)
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status} ${await res.text()}`)
  return res.json()
}

export const postJson = (url, path, body) =>
  getJson(url, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

/**
 * autocannon on `path` with `connections`, POSTing `bodies` in turn (one shared cursor, so concurrent
 * connections send different queries): `warmupSeconds` of load, then `seconds` measured without a pause, so
 * the window starts with every connection's request already in the server (steady state, not an empty
 * pipeline filling up). `onWindow()` is called when the window starts. Counts and latencies are those of the
 * replies that arrive in the window. Returns { rps, littleRps, p50, p99, max, requests, errors, non2xx }.
 *
 * `littleRps` is Little's law for a closed loop (each connection sends its next request when a reply comes):
 * connections / mean latency. It does not depend on where the window's edges fall, which matters when
 * replies come in bursts a sizeable part of the window apart (16 coalesced reranks finishing together every
 * few seconds: a 10 s window then held either one or two bursts).
 */
export async function drive(url, path, bodies, { connections, seconds, warmupSeconds = 0, onWindow }) {
  let next = 0
  const replies = [] // [arrival ms, latency ms, ok]
  let windowStart = Infinity
  const instance = autocannon({
    url: `${url}${path}`,
    connections,
    duration: warmupSeconds + seconds,
    // Longer than the run: a timed-out request is sent again while the server still works on the first, and a
    // slow peer then holds many times `connections` requests (a reply after the run is not counted anyway).
    timeout: warmupSeconds + seconds + 30,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
      },
    ],
  })
  instance.on('response', (_client, status, _bytes, latency) => {
    const now = performance.now()
    if (now >= windowStart) replies.push([now, latency, status >= 200 && status < 300])
  })
  const startWindow = () => {
    windowStart = performance.now()
    onWindow?.()
  }
  const timer = setTimeout(startWindow, warmupSeconds * 1000)
  const r = await instance
  clearTimeout(timer)
  const end = windowStart + seconds * 1000
  const inWindow = replies.filter(([t]) => t <= end)
  const latencies = inWindow.map(([, ms]) => ms).sort((a, b) => a - b)
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length
  // No reply within the window: its latencies are longer than the window, not 0.
  const none = latencies.length === 0
  return {
    rps: inWindow.length / seconds,
    littleRps: none ? 0 : connections / (mean / 1000),
    p50: none ? Infinity : at(0.5),
    p99: none ? Infinity : at(0.99),
    max: none ? Infinity : latencies[latencies.length - 1],
    requests: inWindow.length,
    errors: r.errors + r.timeouts,
    non2xx: inWindow.filter(([, , ok]) => !ok).length,
  }
}

/**
 * The concurrent writer, a client of its own: every 1000/addsPerSecond ms one POST /documents of a new
 * document (fresh unique token, a vector), and after every `addsPerRemove` adds one DELETE of a document it
 * added `lag` adds earlier. At most `maxInFlight` writes are outstanding: a server that falls behind gets
 * fewer writes (the achieved rate is reported) rather than an ever-growing queue.
 */
export function startWriter(
  url,
  { corpus, dim, first, addsPerSecond = 100, addsPerRemove = 10, lag = 50, maxInFlight = 8 },
) {
  const stats = { adds: 0, removes: 0, skipped: 0, errors: 0 }
  let i = first
  let inFlight = 0
  const t0 = performance.now()
  // node:http on a keep-alive agent, not fetch: fetch costs the client about 3x the CPU per request, and the
  // client shares the server's cores (at 100 adds/s fetch took a quarter of a core).
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight })
  const send = (path, method, body, counter) => {
    inFlight++
    const headers = body === undefined ? {} : { 'content-type': 'application/json' }
    let settled = false
    // Once per request: a response that errors after its request did must not count twice.
    const done = (ok) => {
      if (settled) return
      settled = true
      if (ok) stats[counter]++
      else stats.errors++
      inFlight--
    }
    const req = http.request(`${url}${path}`, { method, headers, agent }, (res) => {
      res.resume()
      res.on('end', () => done(res.statusCode >= 200 && res.statusCode < 300))
      res.on('error', () => done(false))
    })
    req.on('error', () => done(false))
    req.end(body)
  }
  const timer = setInterval(() => {
    if (inFlight >= maxInFlight) return void stats.skipped++
    const doc = writerDocument(i, corpus, dim)
    send('/documents', 'POST', JSON.stringify({ documents: [doc] }), 'adds')
    if ((i - first) % addsPerRemove === addsPerRemove - 1 && i - lag >= first)
      send(`/documents/w${i - lag}`, 'DELETE', undefined, 'removes')
    i++
  }, 1000 / addsPerSecond)
  return {
    /** Stops; resolves with { adds, removes, skipped, errors, seconds, addsPerSecond, next } after in-flight writes. */
    async stop() {
      clearInterval(timer)
      while (inFlight > 0) await sleep(5)
      agent.destroy()
      const seconds = (performance.now() - t0) / 1000
      return { ...stats, seconds, addsPerSecond: stats.adds / seconds, next: i }
    },
  }
}

/** How long a drain waits for a server's searches in flight to finish before the next run starts anyway. */
const DRAIN_SECONDS = 180

/**
 * Waits until the server has worked off what earlier clients left: requests of a run that ended are still
 * handled (a server without abort signals finishes them for nobody), and would slow the next run. An answer
 * to /healthz is not enough: a rerank waits off the event loop, so the loop answers while the work queues.
 * Resolves with the seconds waited.
 */
export async function drain(url) {
  const t0 = performance.now()
  // Twice 0 in a row: a server whose loop was busy reads the requests left in its sockets' buffers in the
  // same turn as the poll, which can be answered before their handlers start.
  let idle = 0
  for (;;) {
    const { inFlight = 0 } = await getJson(url, '/metrics')
    const waited = (performance.now() - t0) / 1000
    idle = inFlight === 0 ? idle + 1 : 0
    if (idle === 2 || waited > DRAIN_SECONDS) return waited
    await sleep(100)
  }
}

/** A window in which fewer replies came than there are connections is extended once, to this factor (at most MAX). */
const EXTEND = 4
const MAX_WINDOW_SECONDS = 20

/**
 * One measured cell: warm-up (untimed), drain, metrics reset, the run (with the writer when asked), metrics.
 * `writer(first)` starts a writer whose first document is `first` (`writerFirst`, then after the last one).
 * When the run got fewer replies than it has connections (latency about the window or longer) it is run
 * again in a longer window, so every cell reports measured latencies.
 */
export async function cell(url, path, bodies, { connections, seconds, warmupSeconds, writer, writerFirst = 0 }) {
  let window = seconds
  let load
  let writes
  let m
  let drained
  for (;;) {
    drained = await drain(url)
    let w = null
    let reset = null
    // At the window's start, under load: a fresh metrics window and the writer (a run again writes new documents).
    const onWindow = () => {
      reset = postJson(url, '/metrics/reset', {})
      w = writer ? writer(writes?.next ?? writerFirst) : null
    }
    load = await drive(url, path, bodies, { connections, seconds: window, warmupSeconds, onWindow })
    await reset
    writes = w ? await w.stop() : null
    m = await getJson(url, '/metrics')
    const longer = Math.min(MAX_WINDOW_SECONDS, window * EXTEND)
    if (load.requests >= connections || longer <= window) break
    window = longer
  }
  return {
    window,
    ...load,
    loopP99: m.eventLoopDelayMs.p99,
    loopMax: m.eventLoopDelayMs.max,
    rssMax: m.memory.rssMax,
    rssMean: m.memory.rssMean,
    drainSeconds: drained,
    // Shorter than the window when the server's loop was blocked as the window began (the reset waited).
    metricsSeconds: m.windowSeconds,
    writes,
  }
}
