import { describe, rangeError, typeError } from '../errors.js'

/**
 * Runs a read of a caller's value. A revoked Proxy makes the engine throw a TypeError
 * without a code at the first touch; it becomes a coded one. Other errors (a caller's
 * throwing getter) pass on unchanged.
 */
export function readValue<T>(read: () => T): T {
  try {
    return read()
  } catch (e) {
    if (e instanceof TypeError && !('code' in e) && e.message.includes('proxy that has been revoked')) {
      throw typeError('a revoked Proxy was given where a value is read')
    }
    throw e
  }
}

/** `Array.isArray` (with its narrowing), safe on a revoked Proxy. */
// biome-ignore lint/suspicious/noExplicitAny: the same narrowing as Array.isArray
export const isArray = (v: unknown): v is any[] => readValue(() => Array.isArray(v))

/** Whether `v` is an object with a method `name` (duck typing of retrievers, rankers, generators). */
export const hasMethod = (v: unknown, name: string): boolean =>
  typeof v === 'object' && v !== null && readValue(() => typeof (v as Record<string, unknown>)[name] === 'function')

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !isArray(v)

/**
 * An options object (undefined and null mean `{}`). With `known`, a key outside it is a
 * TypeError naming the key and the likely intended one (see `checkKeys`).
 */
export function optionsObject(v: unknown, what: string, known?: OptionKeys): Record<string, unknown> {
  if (v === undefined || v === null) return {}
  if (!isPlainObject(v)) throw typeError(`${what} must be an object`)
  if (known !== undefined) checkKeys(v, known, what)
  return v
}

/** The keys an options object may have; build once per call site with `optionKeys`, not per call. */
export type OptionKeys = ReadonlySet<string>

export const optionKeys = (...names: string[]): OptionKeys => new Set(names)

/**
 * Rejects a key of `o` that is not in `known`: a misspelled option would otherwise be
 * silently ignored. A key counts even when its value is `undefined` (`{ limit: undefined }`
 * is still a typo). Only own keys count: an enumerable property added to `Object.prototype`
 * must not break every call. Cheap on hot paths: a `for-in` over the few keys against a
 * Set, allocating nothing unless it throws.
 */
export function checkKeys(o: object, known: OptionKeys, what: string): void {
  for (const key in o) {
    if (!known.has(key) && Object.hasOwn(o, key)) throw unknownOption(key, known, what)
  }
}

/** Names other libraries use for what ragrank calls `topK`. */
const TOP_K_ALIASES = new Set([
  'k',
  'n',
  'limit',
  'topN',
  'top_n',
  'top_k',
  'topk',
  'maxResults',
  'max_results',
  'size',
  'count',
])

function unknownOption(key: string, known: OptionKeys, what: string): TypeError {
  const list = [...known].join(', ')
  if (key === 'offset' || key === 'skip') {
    return typeError(
      `${what}.${key} is not supported: no ragrank call pages its results; ask for topK = offset + page size and slice(offset); known options: ${list}`,
    )
  }
  const hint = TOP_K_ALIASES.has(key) && known.has('topK') ? 'topK' : nearestKey(key, known)
  const suggestion = hint === undefined ? '' : ` (did you mean ${what}.${hint}?)`
  return typeError(`${what}.${key} is not a known option${suggestion}; known options: ${list}`)
}

/** The known key closest to `key` by edit distance (ignoring case), if close enough to be a typo. */
function nearestKey(key: string, known: OptionKeys): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [k, d]
  }
  // At most 2 edits, and fewer than half the key's letters: 'k' is not a typo of 'b'.
  return best !== undefined && bestDistance <= 2 && bestDistance * 2 < best.length ? best : undefined
}

/** Edit distance counting a swap of neighbours as one edit (`stpe` -> `step`); for error messages only. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

export function finiteNumber(v: unknown, name: string, min: number, max = Infinity): number {
  if (typeof v !== 'number' || Number.isNaN(v)) throw typeError(`${name} must be a number, got ${describe(v)}`)
  if (!Number.isFinite(v) || v < min || v > max) {
    throw rangeError(`${name} must be in [${min}, ${max}], got ${v}`)
  }
  return v
}

/**
 * An integer in [`min`, `max`]: a TypeError when `v` is not an integer, a RangeError when it
 * is out of range. Every integer option goes through here, so the messages agree.
 */
export function integer(v: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${name} must be an integer, got ${describe(v)}`)
  if (v < min) throw rangeError(`${name} must be >= ${min}, got ${v}`)
  if (v > max) throw rangeError(`${name} must be <= ${max}, got ${v}`)
  return v
}

export const nonNegativeInteger = (v: unknown, name: string): number => integer(v, name, 0)

export const positiveInteger = (v: unknown, name: string): number => integer(v, name, 1)

/** How many results a call returns when it does not say. */
export const DEFAULT_TOP_K = 10

/**
 * A `topK` option: an integer >= `min` (0: "none", a valid answer), or, when it is left
 * out, `fallback` (which may be undefined: "all"). The one parser of `topK` across
 * indexes, retrievers and rankers.
 */
export function topK(v: unknown): number
export function topK<F extends number | undefined>(v: unknown, fallback: F, name?: string, min?: number): number | F
export function topK(v: unknown, ...rest: [fallback?: number, name?: string, min?: number]): number | undefined {
  // Read the fallback by count, not by default parameter: an explicit `undefined` means "all".
  const fallback = rest.length === 0 ? DEFAULT_TOP_K : rest[0]
  const [, name = 'options.topK', min = 0] = rest
  return v === undefined ? fallback : integer(v, name, min)
}

/** One of `values`: a TypeError when `v` is not a string, a RangeError when it is not one of them. */
export function oneOf<T extends string>(v: unknown, values: readonly T[], name: string): T {
  const list = values.map((x) => `'${x}'`).join(', ')
  if (typeof v !== 'string') throw typeError(`${name} must be one of ${list}, got ${typeof v}`)
  if (!values.includes(v as T)) throw rangeError(`${name} must be one of ${list}, got '${v}'`)
  return v as T
}

/** A boolean option, `fallback` when left out; anything else (`'no'`, 1) is a TypeError, not coerced. */
export function booleanOption(v: unknown, name: string, fallback: boolean): boolean {
  if (v === undefined) return fallback
  if (typeof v !== 'boolean') throw typeError(`${name} must be a boolean, got ${typeof v}`)
  return v
}

/**
 * An option renamed in a release: the new name is read, and the deprecated one still is.
 * Giving both is a TypeError, since which one was meant cannot be known. Returns the value and the name
 * the caller used, so error messages speak of what they wrote.
 */
export function renamedOption(
  o: Record<string, unknown>,
  name: string,
  deprecated: string,
  where = 'options',
): { value: unknown; name: string } {
  if (o[name] !== undefined && o[deprecated] !== undefined) {
    throw typeError(`${where}.${deprecated} is the deprecated name of ${where}.${name}: give only ${where}.${name}`)
  }
  return o[deprecated] !== undefined
    ? { value: o[deprecated], name: `${where}.${deprecated}` }
    : { value: o[name], name: `${where}.${name}` }
}

/** Ids must be well-formed UTF-16: a lone surrogate would not survive the trip to Rust. */
export function documentId(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) throw typeError(`${where}: id must be a non-empty string`)
  if (!v.isWellFormed()) throw rangeError(`${where}: id contains a lone UTF-16 surrogate`)
  return v
}

/** An array of strings; holes count as missing strings (`some` would skip them). */
export function stringArray(v: unknown, name: string): string[] {
  if (!isArray(v)) throw typeError(`${name} must be an array of strings`)
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'string')
      throw typeError(`${name} must be an array of strings: ${name}[${i}] is ${describe(v[i])}`)
  }
  return v as string[]
}

/**
 * The ids a `remove` takes. Removal by filter is `removeMatching(filter)`: async, since it matches on the pool, so a
 * `remove({ filter })` (the shape LangChain's and Chroma's `delete` take) is told where to go rather than rejected as
 * a bad array.
 */
export function removalIds(v: unknown): string[] {
  if (v !== null && typeof v === 'object' && !isArray(v) && 'filter' in v)
    throw typeError('remove takes an array of ids: to remove by a metadata filter, await removeMatching(filter)')
  return stringArray(v, 'ids')
}

/** The deepest a JSON value may nest (containers, the root counting as 1): far past real metadata, far short of a stack. */
export const MAX_JSON_DEPTH = 128
/** The most values (every container and leaf, shared ones once per path) a JSON value may hold. */
export const MAX_JSON_VALUES = 1_000_000

interface JsonFrame {
  value: Record<string | number, unknown>
  name: string
  /** The object's own keys; `undefined` for an array. */
  keys: string[] | undefined
  length: number
  next: number
}

const childName = (parent: JsonFrame, key: string | number) =>
  typeof key === 'number' ? `${parent.name}[${key}]` : `${parent.name}.${key}`

/**
 * A value JSON can hold, checked before it crosses to Rust (`meta`, filter values), so the
 * error names the field: no NaN or Infinity, functions, Symbols, BigInts, `undefined`,
 * holes or cycles. Iterative and bounded: nesting past {@link MAX_JSON_DEPTH} or more than
 * {@link MAX_JSON_VALUES} values (an object shared by many paths counts once per path, so a
 * shared-object DAG cannot make the walk exponential) is a RangeError.
 */
export function jsonValue(v: unknown, name: string): void {
  const path: JsonFrame[] = []
  const onPath = new Set<object>()
  let parent: JsonFrame | undefined
  let key: string | number = ''
  let x = v
  for (let values = 1; ; values++) {
    if (values > MAX_JSON_VALUES) {
      throw rangeError(
        `${name} has more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values (an object shared by several fields counts once for each)`,
      )
    }
    if (typeof x === 'object' && x !== null) {
      const at = parent ? childName(parent, key) : name
      if (onPath.has(x)) throw typeError(`${at} must be a JSON value: it contains itself (cyclic)`)
      if (path.length >= MAX_JSON_DEPTH)
        throw rangeError(`${name} is nested deeper than ${MAX_JSON_DEPTH} levels (at ${at})`)
      onPath.add(x)
      const keys = isArray(x) ? undefined : Object.keys(x)
      const length = keys ? keys.length : (x as unknown[]).length
      path.push({ value: x as JsonFrame['value'], name: at, keys, length, next: 0 })
    } else if (x !== null && typeof x !== 'string' && typeof x !== 'boolean') {
      const at = parent ? childName(parent, key) : name
      // JSON drops an undefined value, so { tenant: undefined } would filter on nothing at all.
      if (x === undefined) throw typeError(`${at} is undefined: give a value, or leave the key out`)
      if (typeof x !== 'number') throw typeError(`${at} must be a JSON value: got ${describe(x)}`)
      if (!Number.isFinite(x)) throw typeError(`${at} must be a JSON value: got ${x}`)
    }
    // The next value to check: the top container's next entry, or its parent's once it is done.
    for (;;) {
      const top = path.at(-1)
      if (top === undefined) return
      if (top.next < top.length) {
        const i = top.next++
        parent = top
        key = top.keys ? top.keys[i] : i
        x = top.value[key]
        break
      }
      path.pop()
      onPath.delete(top.value)
    }
  }
}

/** Type checks only, for options whose values Rust checks (and names in its RangeError). */
export function optionalString(v: unknown, name: string): void {
  if (v !== undefined && typeof v !== 'string') throw typeError(`${name} must be a string, got ${describe(v)}`)
}

/** Type check only: an integer of any sign, for options whose range Rust checks. */
export function anyInteger(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${name} must be an integer, got ${describe(v)}`)
  return v
}
