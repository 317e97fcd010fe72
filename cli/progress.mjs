// Progress bars with rate and ETA (cli-progress) on stderr, shown only on a terminal so pipes and logs stay clean.
import cliProgress from 'cli-progress'

function bar(format, total) {
  const b = new cliProgress.SingleBar(
    { format, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  )
  b.start(total, 0, { rate: 0, count: 0 })
  return b
}

const perSecond = (n, started) => Math.round(n / Math.max((Date.now() - started) / 1000, 1e-3))
const OFF = { update() {}, stop() {} }

/** A bar over `total` items: `update(done)`. */
export function progressBar(label, total, { enabled = process.stderr.isTTY } = {}) {
  if (!enabled || total === 0) return OFF
  const b = bar(`${label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`, total)
  const started = Date.now()
  return {
    update: (value) => b.update(value, { rate: perSecond(value, started) }),
    stop: () => b.stop(),
  }
}

/**
 * A bar over a streamed input whose document count is known only at its end: it fills with the bytes (or files)
 * read, `source.progress()`, and shows the documents counted so far, `update(count)`.
 */
export function readingBar(label, source, { enabled = process.stderr.isTTY } = {}) {
  const { total } = source.progress()
  if (!enabled || total === 0) return OFF
  const b = bar(`${label} [{bar}] {percentage}% | {count} documents | {rate}/s | ETA {eta_formatted}`, total)
  const started = Date.now()
  return {
    update: (count) => b.update(source.progress().done, { count, rate: perSecond(count, started) }),
    stop: () => b.stop(),
  }
}
