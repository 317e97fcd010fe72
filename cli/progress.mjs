// A progress bar with rate and ETA (cli-progress) on stderr, shown only on a terminal so pipes and logs stay clean.
import cliProgress from 'cli-progress'

export function progressBar(label, total, { enabled = process.stderr.isTTY } = {}) {
  if (!enabled || total === 0) return { update() {}, stop() {} }
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  )
  const started = Date.now()
  bar.start(total, 0, { rate: 0 })
  return {
    update(value) {
      bar.update(value, { rate: Math.round(value / Math.max((Date.now() - started) / 1000, 1e-3)) })
    },
    stop() {
      bar.stop()
    },
  }
}
