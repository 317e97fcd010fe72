import { rangeError, typeError } from '../errors'

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export function optionsObject(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined || v === null) return {}
  if (!isPlainObject(v)) throw typeError(`${what} must be an object`)
  return v
}

export function finiteNumber(v: unknown, name: string, min: number, max = Infinity): number {
  if (typeof v !== 'number' || Number.isNaN(v)) throw typeError(`${name} must be a number, got ${String(v)}`)
  if (!Number.isFinite(v) || v < min || v > max) {
    throw rangeError(`${name} must be in [${min}, ${max}], got ${v}`)
  }
  return v
}

export function nonNegativeInteger(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${name} must be an integer, got ${String(v)}`)
  if (v < 0) throw rangeError(`${name} must be >= 0, got ${v}`)
  return v
}

/** Ids must be well-formed UTF-16: a lone surrogate would not survive the trip to Rust. */
export function documentId(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) throw typeError(`${where}: id must be a non-empty string`)
  if (!v.isWellFormed()) throw rangeError(`${where}: id contains a lone UTF-16 surrogate`)
  return v
}

export function stringArray(v: unknown, name: string): string[] {
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw typeError(`${name} must be an array of strings`)
  return v as string[]
}

/** Type checks only, for options whose values Rust checks (and names in its RangeError). */
export function optionalString(v: unknown, name: string): void {
  if (v !== undefined && typeof v !== 'string') throw typeError(`${name} must be a string, got ${String(v)}`)
}

export function integer(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${name} must be an integer, got ${String(v)}`)
  return v
}
