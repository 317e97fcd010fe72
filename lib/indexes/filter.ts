import { rangeError, typeError } from '../errors.js'
import { isArray, isPlainObject, jsonValue, stringArray } from '../internal/validate.js'

/** A value compared by equality: numbers by value (1 equals 1.0), strings case-sensitively. */
export type FilterValue = string | number | boolean | null

/** Operators on one metadata field; all given must hold (see docs/FILTERS.md). */
export interface FieldOperators {
  /** Equal to the value. */
  $eq?: FilterValue
  /** Not equal to the value (a missing field is not equal). */
  $ne?: FilterValue
  /** Equal to one of the values. */
  $in?: readonly FilterValue[]
  /** Equal to none of the values. */
  $nin?: readonly FilterValue[]
  /** Greater than (numbers with numbers, strings with strings). */
  $gt?: number | string
  /** Greater than or equal. */
  $gte?: number | string
  /** Less than. */
  $lt?: number | string
  /** Less than or equal. */
  $lte?: number | string
  /** The field is present (`true`) or absent (`false`). */
  $exists?: boolean
}

/**
 * A filter over document metadata, evaluated inside the scan (see docs/FILTERS.md):
 * `{ field: value }` (equality), `{ field: [a, b] }` (any of), `{ field: { $gte: 2020 } }`
 * (operators), `{ $and: [...] }`, `{ $or: [...] }`, `{ $not: {...} }`; keys of one object
 * must all hold, and `a.b` reads a nested field. An unknown operator or a bad operand is a
 * RangeError with code `ERR_INVALID_ARG`.
 */
export interface MetaFilter {
  /** Every filter must hold. */
  $and?: readonly MetaFilter[]
  /** At least one filter must hold. */
  $or?: readonly MetaFilter[]
  /** The filter must not hold. */
  $not?: MetaFilter
  [field: string]:
    | FilterValue
    | readonly FilterValue[]
    | FieldOperators
    | MetaFilter
    | readonly MetaFilter[]
    | undefined
}

/** Restricts a search: documents must have one of `ids` (when given) and match `meta` (when given). */
export interface Filter {
  /** Only these document ids (unknown ids are ignored). */
  ids?: readonly string[]
  /** A condition on the documents' metadata. */
  meta?: MetaFilter
}

/**
 * The filter grammar's one parser: the indexes check a filter with it before the native call, and every
 * engine translation (query DSL, SQL) walks the tree it returns, so all of them accept the same filters and
 * refuse the others with the same error. The messages are those of the Rust evaluator
 * (`ragrank_core::filter`), which compiles the same JSON again to evaluate it.
 */
export type FilterNode =
  | { kind: 'and'; nodes: FilterNode[] }
  | { kind: 'or'; nodes: FilterNode[] }
  | { kind: 'not'; node: FilterNode }
  | { kind: 'eq' | 'ne'; field: string; value: FilterValue }
  | { kind: 'in' | 'nin'; field: string; values: FilterValue[] }
  | { kind: 'gt' | 'gte' | 'lt' | 'lte'; field: string; value: number | string }
  | { kind: 'exists'; field: string; value: boolean }

/** A parsed `{ ids, meta }` filter: `meta` is the checked JSON for the native call, `tree` its parse. */
export interface ParsedFilter {
  ids?: string[]
  meta?: Record<string, unknown>
  tree?: FilterNode
}

const MAX_DEPTH = 32

/** Parses and checks a filter. Unknown keys are errors: a dropped filter would leak. */
export function parseFilter(v: unknown, name = 'options.filter'): ParsedFilter {
  if (!isPlainObject(v)) throw typeError(`${name} must be an object such as { meta: { tenant: 'a' } }`)
  for (const key of Object.keys(v)) {
    if (key !== 'ids' && key !== 'meta') {
      throw typeError(`${name}.${key} is not a filter key (use ids, or meta: { ${key}: ... } for a metadata field)`)
    }
  }
  const out: ParsedFilter = {}
  if (v.ids !== undefined) out.ids = stringArray(v.ids, `${name}.ids`)
  if (v.meta !== undefined) {
    out.tree = parseMetaFilter(v.meta, `${name}.meta`)
    out.meta = v.meta as Record<string, unknown>
  }
  return out
}

/**
 * Parses and checks a metadata filter on its own (what `filter.meta` holds; `removeMatching` takes one): a TypeError
 * when it is no plain JSON object, a RangeError naming the bad operator or operand, both with code `ERR_INVALID_ARG`.
 */
export function parseMetaFilter(v: unknown, name: string): FilterNode {
  if (!isPlainObject(v)) throw typeError(`${name} must be an object such as { tenant: 'a' }`)
  jsonValue(v, name)
  return parseObject(v, name, 0)
}

/** A filter's parts for the native call, checked by `parseFilter`. */
export function filterParts(v: unknown, name = 'options.filter'): { ids?: string[]; meta?: Record<string, unknown> } {
  const { ids, meta } = parseFilter(v, name)
  return meta === undefined ? (ids === undefined ? {} : { ids }) : ids === undefined ? { meta } : { ids, meta }
}

// After jsonValue every value is JSON: numbers are finite, nothing is undefined or cyclic.
function scalar(v: unknown, where: string): FilterValue {
  if (typeof v === 'object' && v !== null) throw rangeError(`${where} must be a string, number, boolean or null`)
  return v as FilterValue
}

const scalars = (v: unknown[], where: string) => v.map((x, i) => scalar(x, `${where}[${i}]`))

function parseObject(o: unknown, where: string, depth: number): FilterNode {
  if (depth > MAX_DEPTH) throw rangeError(`${where} nests $and/$or/$not deeper than ${MAX_DEPTH}`)
  if (!isPlainObject(o)) throw rangeError(`${where} must be an object such as { tenant: 'a' }`)
  const nodes: FilterNode[] = []
  for (const [key, v] of Object.entries(o)) {
    const at = `${where}.${key}`
    if (key === '$and' || key === '$or') {
      if (!isArray(v) || v.length === 0) throw rangeError(`${at} must be a non-empty array of filter objects`)
      const list = v.map((f, i) => parseObject(f, `${at}[${i}]`, depth + 1))
      nodes.push({ kind: key === '$and' ? 'and' : 'or', nodes: list })
    } else if (key === '$not') {
      nodes.push({ kind: 'not', node: parseObject(v, at, depth + 1) })
    } else if (key.startsWith('$')) {
      throw rangeError(`${at} is not a filter operator (use $and, $or, $not, or a field name)`)
    } else {
      nodes.push(parseField(key, v, at))
    }
  }
  return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes }
}

function parseField(field: string, v: unknown, where: string): FilterNode {
  if (isArray(v)) return { kind: 'in', field, values: scalars(v, where) }
  if (!isPlainObject(v)) return { kind: 'eq', field, value: scalar(v, where) }
  const keys = Object.keys(v)
  // An empty operator object is a mistake, not "match all".
  if (keys.length === 0) throw rangeError(`${where} is an empty object; give an operator such as { $eq: value }`)
  const nodes: FilterNode[] = []
  for (const op of keys) {
    const at = `${where}.${op}`
    const x = v[op]
    if (op === '$eq' || op === '$ne') nodes.push({ kind: op === '$eq' ? 'eq' : 'ne', field, value: scalar(x, at) })
    else if (op === '$in' || op === '$nin') {
      if (!isArray(x)) throw rangeError(`${at} must be an array of values`)
      nodes.push({ kind: op === '$in' ? 'in' : 'nin', field, values: scalars(x, at) })
    } else if (op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') {
      if (typeof x !== 'string' && typeof x !== 'number') throw rangeError(`${at} must be a number or a string`)
      nodes.push({ kind: op.slice(1) as 'gt' | 'gte' | 'lt' | 'lte', field, value: x })
    } else if (op === '$exists') {
      if (typeof x !== 'boolean') throw rangeError(`${at} must be a boolean (true or false)`)
      nodes.push({ kind: 'exists', field, value: x })
    } else if (op.startsWith('$')) {
      throw rangeError(`${at} is not a field operator (one of $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists)`)
    } else {
      throw rangeError(`${where} mixes a field name with operators; an object value must hold operators only`)
    }
  }
  return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes }
}
