// Seeded random unit vectors for the vector benchmark, cached as raw float32 files in bench/.cache/ so the
// Python peers read exactly the same bytes.

import fs from 'node:fs'
import path from 'node:path'
import { cacheDir } from './paths.mjs'

/** mulberry32: a small, fast, seedable PRNG returning floats in [0, 1). */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** n x dim standard-normal values (Box-Muller), each row scaled to unit length. */
export function generateUnitVectors(n, dim, seed) {
  const rand = prng(seed)
  const out = new Float32Array(n * dim)
  for (let r = 0; r < n; r++) {
    const row = out.subarray(r * dim, (r + 1) * dim)
    let sq = 0
    for (let j = 0; j < dim; j += 2) {
      const u = 1 - rand()
      const v = rand()
      const m = Math.sqrt(-2 * Math.log(u))
      const a = m * Math.cos(2 * Math.PI * v)
      row[j] = a
      sq += a * a
      if (j + 1 < dim) {
        const b = m * Math.sin(2 * Math.PI * v)
        row[j + 1] = b
        sq += b * b
      }
    }
    const inv = 1 / Math.sqrt(sq)
    for (let j = 0; j < dim; j++) row[j] *= inv
  }
  return out
}

/** The cached file of `generateUnitVectors(n, dim, seed)`, written on first use. Returns { path, data }. */
export function unitVectors(n, dim, seed) {
  const file = path.join(cacheDir, `unit-${n}x${dim}-seed${seed}.f32`)
  if (fs.existsSync(file) && fs.statSync(file).size === n * dim * 4) {
    // Read in pieces: readFileSync stops at 2 GiB.
    const data = new Float32Array(n * dim)
    const bytes = new Uint8Array(data.buffer)
    const fd = fs.openSync(file, 'r')
    for (let off = 0; off < bytes.length; ) {
      const got = fs.readSync(fd, bytes, off, Math.min(1 << 30, bytes.length - off), off)
      if (got <= 0) throw new Error(`short read of ${file}`)
      off += got
    }
    fs.closeSync(fd)
    return { path: file, data }
  }
  const data = generateUnitVectors(n, dim, seed)
  fs.mkdirSync(cacheDir, { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  const fd = fs.openSync(tmp, 'w')
  for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off, Math.min(1 << 30, bytes.length - off))
  fs.closeSync(fd)
  fs.renameSync(tmp, file)
  return { path: file, data }
}
