/**
 * The external data files an ONNX graph reads its weights from (every export over 2 GB keeps them
 * outside the protobuf: `model.onnx_data`, `model.onnx.data`, or one file per tensor), found by
 * walking the protobuf: ModelProto.graph (7) -> GraphProto.initializer (5) -> TensorProto
 * .external_data (13: key/value entries `location`, `offset`, `length`). Only those fields are
 * read; everything else, raw weights included, is skipped by its length, so a large single-file
 * model costs a few thousand small reads, never its size.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { RagrankError } from '../errors.js'

/** An external data file of a graph and the bytes its tensors need (`offset + length`, at most). */
export interface ExternalData {
  /** The file name as the graph writes it, relative to the graph's folder. */
  location: string
  /** Bytes the file must hold at least; `undefined` when a tensor gives no length. */
  needs: number | undefined
}

const WINDOW = 1 << 16

/** Positional reads through a 64 KiB window. */
class FileBytes {
  private buf = Buffer.alloc(0)
  private start = 0
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}
  byte(pos: number): number {
    if (pos < this.start || pos >= this.start + this.buf.length) {
      if (pos >= this.size) throw new RangeError('past the end')
      this.buf = Buffer.alloc(Math.min(WINDOW, this.size - pos))
      this.start = pos
      readSync(this.fd, this.buf, 0, this.buf.length, pos)
    }
    return this.buf[pos - this.start]
  }
  slice(pos: number, len: number): Buffer {
    if (pos + len > this.size) throw new RangeError('past the end')
    const out = Buffer.alloc(len)
    readSync(this.fd, out, 0, len, pos)
    return out
  }
}

interface Field {
  field: number
  wire: number
  /** Varint value (wire 0), or the payload's length (wire 2). */
  value: number
  /** Where the payload starts (wire 2). */
  at: number
  next: number
}

function varint(f: FileBytes, pos: number): [number, number] {
  let value = 0
  let scale = 1
  for (let i = 0; i < 10; i++) {
    const b = f.byte(pos + i)
    value += (b & 0x7f) * scale
    if (b < 0x80) return [value, pos + i + 1]
    scale *= 128
  }
  throw new RangeError('bad varint')
}

/** The fields of the message in `[start, end)`. */
function* fields(f: FileBytes, start: number, end: number): Generator<Field> {
  let pos = start
  while (pos < end) {
    const [tag, p] = varint(f, pos)
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (wire === 0) {
      const [value, next] = varint(f, p)
      yield { field, wire, value, at: p, next }
      pos = next
    } else if (wire === 2) {
      const [len, at] = varint(f, p)
      if (at + len > end) throw new RangeError('field past its message')
      yield { field, wire, value: len, at, next: at + len }
      pos = at + len
    } else if (wire === 1 || wire === 5) {
      pos = p + (wire === 1 ? 8 : 4)
    } else {
      throw new RangeError(`wire type ${wire}`)
    }
  }
  if (pos !== end) throw new RangeError('message overruns')
}

function tensorExternal(f: FileBytes, t: Field, out: Map<string, number | undefined>): void {
  const entries: Record<string, string> = {}
  for (const tf of fields(f, t.at, t.next)) {
    if (tf.field !== 13 || tf.wire !== 2) continue
    let key = ''
    let value = ''
    for (const e of fields(f, tf.at, tf.next)) {
      if (e.wire !== 2) continue
      const text = f.slice(e.at, e.value).toString('utf8')
      if (e.field === 1) key = text
      else if (e.field === 2) value = text
    }
    entries[key] = value
  }
  const location = entries.location
  if (!location) return
  const offset = Number(entries.offset ?? 0)
  const length = entries.length === undefined ? Number.NaN : Number(entries.length)
  const needs = Number.isFinite(offset + length) ? offset + length : undefined
  const known = out.has(location) ? out.get(location) : 0
  out.set(location, known === undefined || needs === undefined ? undefined : Math.max(known, needs))
}

/**
 * The external data files `model` refers to (none for a self-contained graph). A file that is not
 * an ONNX protobuf yields none: ONNX Runtime then reports it at load.
 */
export function externalDataOf(model: string): ExternalData[] {
  const fd = openSync(model, 'r')
  try {
    const f = new FileBytes(fd, statSync(model).size)
    const out = new Map<string, number | undefined>()
    try {
      for (const m of fields(f, 0, f.size)) {
        if (m.field !== 7 || m.wire !== 2) continue
        for (const g of fields(f, m.at, m.next)) {
          if (g.field === 5 && g.wire === 2) tensorExternal(f, g, out)
        }
      }
    } catch (e) {
      if (e instanceof RangeError) return []
      throw e
    }
    return [...out].map(([location, needs]) => ({ location, needs }))
  } finally {
    closeSync(fd)
  }
}

/** A relative path below the graph's folder (a location is written by an exporter, but read from any download). */
export const isPlainLocation = (location: string): boolean =>
  !location.startsWith('/') &&
  !/^[A-Za-z]:/.test(location) &&
  !location.split(/[\\/]/).some((s) => s === '' || s === '.' || s === '..')

/**
 * Checks that every external data file of `model` is there and long enough, at load, so that a
 * missing or truncated download is a clear error now rather than ONNX Runtime's (or a read past
 * the end of a mapped file) later. Returns their paths.
 */
export function checkExternalData(model: string, refs: ExternalData[] = externalDataOf(model)): string[] {
  return refs.map(({ location, needs }) => {
    if (!isPlainLocation(location)) {
      throw new RagrankError('ERR_MODEL_LOAD', `${model} names an external data file outside its folder: ${location}`)
    }
    const path = join(dirname(model), ...location.split('/'))
    let size: number
    try {
      size = statSync(path).size
    } catch {
      throw new RagrankError(
        'ERR_MODEL_NOT_FOUND',
        `${model} keeps its weights in the external data file ${location}, which is missing (expected at ${path})`,
      )
    }
    if (needs !== undefined && size < needs) {
      throw new RagrankError(
        'ERR_MODEL_LOAD',
        `the external data file ${path} of ${model} is truncated: ${size} bytes, the graph needs ${needs}`,
      )
    }
    return path
  })
}
