import { isPlainObject } from '../internal/validate.js'

/**
 * The filterable copy of a document's metadata that ingestion writes next to it in Elasticsearch / OpenSearch,
 * so that an engine filter matches exactly what the local indexes match: every value is indexed under a field of
 * its own JSON type (strings `keyword`, numbers `double`, booleans `boolean`), so the engine never compares across
 * types (`'1975'` never equals `1975`), a field may hold different types in different documents (or in one array)
 * without a mapping conflict, and nothing is left to dynamic mapping (no float narrowing, no date detection).
 * `present` lists every path a filter can read (for `$exists`), `null` the paths that hold a null (engines do not
 * index null). Paths are resolved as the local filter resolves them: a key of the object itself (`"a.b"`) wins,
 * else nested objects, one key per dot.
 */
export interface TypedMeta {
  present: string[]
  null?: string[]
  s?: Record<string, string[]>
  n?: Record<string, number[]>
  b?: Record<string, boolean[]>
}

/** The field a copy is indexed under: the metadata field's name with this suffix. */
export const TYPED_META_SUFFIX = '_filter'

/** What `_meta.ragrank.layout` says of an index whose metadata has a typed copy (ingested by this version). */
export const TYPED_LAYOUT = 'typed-meta-1'

/**
 * A path as one field name: engines split names at dots (so `a.b` and `{ a: { b } }` would collide, and `a` could
 * not be both a number and an object), and refuse empty or whitespace-only names. Percent-encoding of `%` and `.`
 * (all characters for a name of whitespace, `%` for the empty one) is injective, so two paths never share a field.
 */
export function pathField(path: string): string {
  if (path === '') return '%'
  if (path.trim() === '') return encodeURIComponent(path)
  return path.replace(/[%.]/g, (c) => (c === '%' ? '%25' : '%2E'))
}

/** Every path the local filter can resolve in `meta`, with its value. */
function resolvablePaths(meta: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>()
  for (const [k, v] of Object.entries(meta)) out.set(k, v)
  // Nested paths go one key per dot, so keys holding a dot are unreachable below the top level; a top-level key
  // equal to a nested path shadows it.
  const walk = (prefix: string, o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (k.includes('.')) continue
      const path = `${prefix}.${k}`
      if (!Object.hasOwn(meta, path)) out.set(path, v)
      if (isPlainObject(v)) walk(path, v)
    }
  }
  for (const [k, v] of Object.entries(meta)) if (!k.includes('.') && isPlainObject(v)) walk(k, v)
  return out
}

/** The typed copy of `meta` (see `TypedMeta`). */
export function typedMeta(meta: Record<string, unknown> | undefined): TypedMeta {
  const copy: TypedMeta = { present: [] }
  if (meta === undefined) return copy
  const add = <T>(kind: 's' | 'n' | 'b', path: string, v: T) => {
    if (!copy[kind]) copy[kind] = {}
    const byPath = copy[kind] as Record<string, T[]>
    const field = pathField(path)
    if (byPath[field]) byPath[field].push(v)
    else byPath[field] = [v]
  }
  for (const [path, value] of resolvablePaths(meta)) {
    copy.present.push(path)
    let hasNull = false
    // A filter compares a scalar, or each element of an array (never nested arrays or objects).
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === null) hasNull = true
      else if (typeof v === 'string') add('s', path, v)
      else if (typeof v === 'number') add('n', path, v)
      else if (typeof v === 'boolean') add('b', path, v)
    }
    if (hasNull) {
      if (!copy.null) copy.null = []
      copy.null.push(path)
    }
  }
  return copy
}

/** The mapping of the copy: explicit types by dynamic template under each kind, nothing else dynamic. */
export function typedMetaMapping(metaField: string): {
  properties: Record<string, unknown>
  dynamic_templates: Record<string, unknown>[]
} {
  const field = `${metaField}${TYPED_META_SUFFIX}`
  const kind = (k: 's' | 'n' | 'b', type: string) => ({
    [`ragrank_meta_${k}`]: { path_match: `${field}.${k}.*`, mapping: { type } },
  })
  return {
    properties: {
      // Stored for the hits, not indexed: filters read the typed copy.
      [metaField]: { type: 'object', enabled: false },
      [field]: {
        type: 'object',
        dynamic: false,
        properties: {
          present: { type: 'keyword' },
          null: { type: 'keyword' },
          s: { type: 'object', dynamic: true },
          n: { type: 'object', dynamic: true },
          b: { type: 'object', dynamic: true },
        },
      },
    },
    dynamic_templates: [kind('s', 'keyword'), kind('n', 'double'), kind('b', 'boolean')],
  }
}
