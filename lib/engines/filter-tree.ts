import { rangeError, typeError } from '../errors.js'
import { filterParts } from '../indexes/filter.js'
import { isArray, isPlainObject } from '../internal/validate.js'

/**
 * ragrank's metadata filter (docs/FILTERS.md) parsed and validated once, so each engine's translation
 * (query DSL, SQL) walks a small tree and never sees a malformed filter. Validation mirrors the indexes':
 * an unknown operator or a bad operand is a RangeError naming the place, before any request.
 */
export type FilterNode =
  | { kind: 'and'; nodes: FilterNode[] }
  | { kind: 'or'; nodes: FilterNode[] }
  | { kind: 'not'; node: FilterNode }
  | { kind: 'eq' | 'ne'; field: string; value: Scalar }
  | { kind: 'in' | 'nin'; field: string; values: Scalar[] }
  | { kind: 'gt' | 'gte' | 'lt' | 'lte'; field: string; value: number | string }
  | { kind: 'exists'; field: string; value: boolean }

export type Scalar = string | number | boolean | null

/** A parsed `{ ids, meta }` filter; `meta` absent means no metadata condition. */
export interface ParsedFilter {
  ids?: string[]
  meta?: FilterNode
}

const MAX_DEPTH = 32
const FIELD_OPS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists'])

export function parseFilter(filter: unknown, name = 'options.filter'): ParsedFilter | undefined {
  if (filter === undefined) return undefined
  const parts = filterParts(filter, name)
  const out: ParsedFilter = {}
  if (parts.ids) out.ids = parts.ids
  if (parts.meta) out.meta = parseObject(parts.meta, `${name}.meta`, 0)
  return out
}

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
}

function scalar(v: unknown, where: string): Scalar {
  if (!isScalar(v)) throw rangeError(`${where} must be a string, a finite number, a boolean or null`)
  return v
}

function parseObject(o: Record<string, unknown>, where: string, depth: number): FilterNode {
  if (depth > MAX_DEPTH) throw rangeError(`${where} is nested deeper than ${MAX_DEPTH} levels`)
  const nodes: FilterNode[] = []
  for (const [key, v] of Object.entries(o)) {
    const at = `${where}.${key}`
    if (key === '$and' || key === '$or') {
      if (!isArray(v) || v.length === 0) throw rangeError(`${at} must be a non-empty array of filters`)
      const list = v.map((f, i) => {
        if (!isPlainObject(f)) throw rangeError(`${at}[${i}] must be an object`)
        return parseObject(f, `${at}[${i}]`, depth + 1)
      })
      nodes.push({ kind: key === '$and' ? 'and' : 'or', nodes: list })
    } else if (key === '$not') {
      if (!isPlainObject(v)) throw rangeError(`${at} must be an object`)
      nodes.push({ kind: 'not', node: parseObject(v, at, depth + 1) })
    } else if (key.startsWith('$')) {
      throw rangeError(`${at}: unknown operator ${key}`)
    } else {
      nodes.push(parseField(key, v, at))
    }
  }
  return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes }
}

function parseField(field: string, v: unknown, where: string): FilterNode {
  if (isArray(v)) return { kind: 'in', field, values: v.map((x, i) => scalar(x, `${where}[${i}]`)) }
  if (!isPlainObject(v)) return { kind: 'eq', field, value: scalar(v, where) }
  const keys = Object.keys(v)
  // As the indexes' (ragrank_core::filter): an empty operator object is a mistake, not "match all".
  if (keys.length === 0) throw rangeError(`${where} is an empty object; give an operator such as { $eq: value }`)
  if (!keys.every((k) => k.startsWith('$')))
    throw rangeError(`${where} mixes field names with operators, or compares with an object`)
  const nodes: FilterNode[] = []
  for (const op of keys) {
    const at = `${where}.${op}`
    if (!FIELD_OPS.has(op)) throw rangeError(`${at}: unknown operator ${op}`)
    const x = v[op]
    if (op === '$eq' || op === '$ne') nodes.push({ kind: op === '$eq' ? 'eq' : 'ne', field, value: scalar(x, at) })
    else if (op === '$in' || op === '$nin') {
      if (!isArray(x)) throw rangeError(`${at} must be an array`)
      nodes.push({ kind: op === '$in' ? 'in' : 'nin', field, values: x.map((y, i) => scalar(y, `${at}[${i}]`)) })
    } else if (op === '$exists') {
      if (typeof x !== 'boolean') throw rangeError(`${at} must be a boolean`)
      nodes.push({ kind: 'exists', field, value: x })
    } else {
      if (!(typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x))))
        throw rangeError(`${at} must be a number or a string`)
      nodes.push({ kind: op.slice(1) as 'gt' | 'gte' | 'lt' | 'lte', field, value: x })
    }
  }
  return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes }
}

/** A TypeError for a filter an engine cannot express exactly: refused rather than answered differently. */
export function unsupported(engine: string, what: string): TypeError {
  return typeError(`${engine} cannot express ${what} exactly; refused rather than answered differently`)
}
