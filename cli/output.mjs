// Where the CLI writes: stdout (no path, or "-") or a file written through a temporary name and a rename, so an
// interrupted run never leaves half a file. Writes wait for the stream to drain, so a large output (split's nodes)
// is never held whole in memory, and a closed pipe is an EPIPE on the stream that bin/ragrank.mjs turns into a
// quiet exit.
import { once } from 'node:events'
import { createWriteStream, lstatSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { finished } from 'node:stream/promises'
import { UsageError } from './errors.mjs'

/** Temporary files not yet renamed into place or removed: an exit (Ctrl-C, EPIPE) removes them. */
const pending = new Set()
process.on('exit', () => {
  for (const tmp of pending) rmSync(tmp, { force: true })
})

/** True when `path` means standard output. */
export const isStdout = (path) => path === undefined || path === '-'

/** What a non-regular file system entry is, for messages. */
function kindOf(st) {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isSocket()) return 'a socket'
  return 'not a regular file'
}

/**
 * The file a write to `path` replaces: `path`, or the end of its symbolic links (followed, as the library's save
 * does, so a link stays a link). A UsageError naming `path` when that is not a regular file (a device, a FIFO, a
 * socket, a directory) or its folder does not exist: found before any work, not after an hour of indexing.
 */
export function outputTarget(path) {
  let at = path
  for (let hops = 0; ; hops++) {
    let st
    try {
      st = lstatSync(at)
    } catch {
      break // nothing there yet (or a folder on the way is missing: checked below)
    }
    if (st.isSymbolicLink() && hops < 40) {
      at = resolve(dirname(at), readlinkSync(at))
      continue
    }
    if (st.isFile()) return at
    const what = st.isSymbolicLink() ? 'too many levels of symbolic links' : `${kindOf(st)}, not a regular file`
    throw new UsageError(`cannot write to ${path}: ${at === path ? 'it is' : `it leads to ${at}, which is`} ${what}`)
  }
  const folder = dirname(at)
  let st
  try {
    st = statSync(folder)
  } catch {
    throw new UsageError(`cannot write to ${path}: folder ${folder} does not exist`)
  }
  if (!st.isDirectory()) throw new UsageError(`cannot write to ${path}: ${folder} is not a folder`)
  return at
}

/** Writes a file through a temp name and a rename. */
export function writeAtomic(file, text) {
  const path = outputTarget(file)
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
  if (isStdout(path))
    return {
      write: (s) => writeTo(stdout, s),
      finish: async () => {},
      place() {},
      commit: async () => {},
      discard() {},
    }
  const target = outputTarget(path)
  const tmp = `${target}.${process.pid}.tmp`
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
    /** Ends the temporary file: the data is on disk and the file closed, ready for `place()`. */
    async finish() {
      if (failed) throw failed
      file.end()
      await finished(file)
    },
    /** Renames the finished temporary file into place (synchronous: nothing can run in between). */
    place() {
      renameSync(tmp, target)
      pending.delete(tmp)
    },
    async commit() {
      await this.finish()
      this.place()
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
