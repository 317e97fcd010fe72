// What GET /metrics reports: event-loop delay (the time a ready callback waited: a sync call that holds
// the loop shows up here), memory, searches still being worked on, and the indexes' own statistics. `reset()` starts a new measurement
// window, so a benchmark can read one window per run.
import { monitorEventLoopDelay } from 'node:perf_hooks'

const ms = (ns) => ns / 1e6

/** An event-loop delay histogram (1 ms resolution) and an RSS sampler (every `rssEveryMs`). */
export function createMetrics({ rssEveryMs = 250 } = {}) {
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  let rss = { max: 0, sum: 0, n: 0 }
  let since = Date.now()
  // Searches whose handler has not finished (a client that left may still have its work running).
  let inFlight = 0
  const sample = () => {
    const now = process.memoryUsage.rss()
    rss.max = Math.max(rss.max, now)
    rss.sum += now
    rss.n++
  }
  sample()
  const timer = setInterval(sample, rssEveryMs)
  timer.unref()
  return {
    /** The window so far: delays in ms, memory in bytes. */
    snapshot() {
      sample()
      const mem = process.memoryUsage()
      return {
        windowSeconds: (Date.now() - since) / 1000,
        inFlight,
        eventLoopDelayMs: {
          p50: ms(loop.percentile(50)),
          p99: ms(loop.percentile(99)),
          max: ms(loop.max),
          mean: ms(loop.mean),
        },
        memory: {
          rss: mem.rss,
          rssMax: rss.max,
          rssMean: rss.sum / rss.n,
          heapUsed: mem.heapUsed,
          heapTotal: mem.heapTotal,
        },
      }
    },
    /** Runs `work()`, counted in `inFlight` until it settles. */
    async track(work) {
      inFlight++
      try {
        return await work()
      } finally {
        inFlight--
      }
    },
    reset() {
      loop.reset()
      rss = { max: 0, sum: 0, n: 0 }
      since = Date.now()
      sample()
    },
    close() {
      clearInterval(timer)
      loop.disable()
    },
  }
}
