// Where the CLI writes: stdout (no path, or "-") or a file written through a temporary name and a rename, so an
// interrupted run never leaves half a file. Writes wait for the stream to drain, so a large output (split's nodes)
// is never held whole in memory, and a closed pipe is an EPIPE on the stream that bin/ragrank.mjs turns into a
// quiet exit.
import { once } from 'node:events'
import { createWriteStream, renameSync, rmSync, writeFileSync } from 'node:fs'
import { finished } from 'node:stream/promises'

/** Temporary files not yet renamed into place or removed: an exit (Ctrl-C, EPIPE) removes them. */
const pending = new Set()
process.on('exit', () => {
  for (const tmp of pending) rmSync(tmp, { force: true })
})

/** True when `path` means standard output. */
export const isStdout = (path) => path === undefined || path === '-'

/** Writes a file through a temp name and a rename. */
export function writeAtomic(path, text) {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text)
    renameSync(tmp, path)
  } finally {
    rmSync(tmp, { force: true })
  }
}

/** Writes `chunk` to `stream`, waiting for 'drain' when its buffer is full. */
export async function writeTo(stream, chunk) {
  if (!stream.write(chunk)) await once(stream, 'drain')
}

/**
 * An output for `path`: `write(text)` (awaits backpressure), then `commit()` to put the file in place, or
 * `discard()` to remove the temporary file after a failure. For stdout both are no-ops.
 */
export function openOutput(path, stdout = process.stdout) {
  if (isStdout(path)) return { write: (s) => writeTo(stdout, s), commit: async () => {}, discard() {} }
  const tmp = `${path}.${process.pid}.tmp`
  pending.add(tmp)
  const file = createWriteStream(tmp)
  // Without a listener an open error (missing folder) would be an uncaught exception; write() reports it instead.
  let failed
  file.on('error', (e) => (failed = e))
  return {
    async write(s) {
      if (failed) throw failed
      if (!file.write(s)) await once(file, 'drain') // rejects on an error
    },
    async commit() {
      if (failed) throw failed
      file.end()
      await finished(file) // the data is on disk and the file closed before it is renamed into place
      renameSync(tmp, path)
      pending.delete(tmp)
    },
    discard() {
      file.destroy()
      rmSync(tmp, { force: true })
      pending.delete(tmp)
    },
  }
}

/** Writes to `path` (or stdout) through `fill(output)`; the file appears only if `fill` completes. */
export async function withOutput(path, fill) {
  const out = openOutput(path)
  try {
    await fill(out)
    await out.commit()
  } catch (e) {
    out.discard()
    throw e
  }
}
