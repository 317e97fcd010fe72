// Ctrl-C. bin/ragrank.mjs imports this module first, so the handler is in place before the native addon and the rest
// load (that takes a moment, and a Ctrl-C in it would otherwise be lost when the shell started ragrank with SIGINT
// ignored). Commands that stop on the signal themselves (index, split: they abort between batches and remove what
// they had started to write) say so with `stopOnSignal()`; any other command exits 130 at once, and the temporary
// files of its outputs are removed on exit (cli/output.mjs).
export const interrupt = new AbortController()
let cooperative = false

/** The running command watches `interrupt.signal` and stops cleanly by itself. */
export function stopOnSignal() {
  cooperative = true
  return interrupt.signal
}

process.once('SIGINT', () => {
  interrupt.abort()
  if (cooperative) return
  console.error('interrupted: nothing was written')
  process.exit(130)
})
