import { typeError } from '../errors.js'
import { type FilterNode, type FilterValue, type ParsedFilter, parseFilter } from '../indexes/filter.js'
import { pathField, TYPED_META_SUFFIX } from './typed-meta.js'

/**
 * ragrank's filter as Elasticsearch / OpenSearch filter clauses (bool / term / terms / range / ids).
 *
 * - `typed` (indexes ragrank created or ingested into): over the typed copy of the metadata (`typed-meta.ts`),
 *   exactly the local semantics: a value is compared only with values of its own JSON type, null and `$exists`
 *   included.
 * - `mapped` (an index ragrank did not make): over `metaField` as the engine mapped it. Arrays match when any
 *   element does and a missing field matches only negations, as locally, but the engine's own coercion applies
 *   (a string may equal a number on a numeric field); null is not indexed, so a comparison with null is refused
 *   (TypeError) and a null value counts as absent for `$exists`.
 */
export type QueryClause = Record<string, unknown>

/** How an index holds filterable metadata: see `filterClauses`. */
export type MetaLayout = 'typed' | 'mapped'

export function filterClauses(
  filter: ParsedFilter | undefined,
  engine: string,
  metaField: string,
  layout: MetaLayout,
): QueryClause[] {
  if (filter === undefined) return []
  const out: QueryClause[] = []
  if (filter.ids) out.push({ ids: { values: filter.ids } })
  if (filter.tree)
    out.push(
      layout === 'typed'
        ? typed(filter.tree, `${metaField}${TYPED_META_SUFFIX}`)
        : mapped(filter.tree, engine, metaField),
    )
  return out
}

/** A call's filter, checked before any request (`filterClauses` translates it once the index's layout is known). */
export const parsedFilter = (filter: unknown): ParsedFilter | undefined =>
  filter === undefined ? undefined : parseFilter(filter)

const MATCH_NONE = { match_none: {} }
const not = (c: QueryClause) => ({ bool: { must_not: [c] } })
const anyOf = (cs: QueryClause[]) =>
  cs.length === 0 ? MATCH_NONE : cs.length === 1 ? cs[0] : { bool: { should: cs, minimum_should_match: 1 } }

function typed(n: FilterNode, base: string): QueryClause {
  const kindOf = (v: FilterValue) => (typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b')
  const field = (path: string, v: FilterValue) => `${base}.${kindOf(v)}.${pathField(path)}`
  const equals = (path: string, values: FilterValue[]): QueryClause => {
    const clauses: QueryClause[] = []
    if (values.includes(null)) clauses.push({ term: { [`${base}.null`]: path } })
    // One terms query per type, so a value meets only values of its type.
    for (const kind of ['s', 'n', 'b'] as const) {
      const same = values.filter((v) => v !== null && kindOf(v) === kind)
      if (same.length) clauses.push({ terms: { [field(path, same[0])]: same } })
    }
    return anyOf(clauses)
  }
  switch (n.kind) {
    case 'and':
      return n.nodes.length === 0 ? { match_all: {} } : { bool: { filter: n.nodes.map((c) => typed(c, base)) } }
    case 'or':
      return anyOf(n.nodes.map((c) => typed(c, base)))
    case 'not':
      return not(typed(n.node, base))
    case 'eq':
      return equals(n.field, [n.value])
    case 'ne':
      return not(equals(n.field, [n.value]))
    case 'in':
      return equals(n.field, n.values)
    case 'nin':
      return not(equals(n.field, n.values))
    case 'exists': {
      const present = { term: { [`${base}.present`]: n.field } }
      return n.value ? present : not(present)
    }
    default:
      // Strings range over keywords, whose order is the UTF-8 bytes': code points, as locally.
      return { range: { [field(n.field, n.value)]: { [n.kind]: n.value } } }
  }
}

/** A TypeError for a filter an engine cannot express exactly: refused rather than answered differently. */
function unsupported(engine: string, what: string): TypeError {
  return typeError(`${engine} cannot express ${what} exactly; refused rather than answered differently`)
}

function nonNull(v: FilterValue, engine: string, field: string): Exclude<FilterValue, null> {
  if (v === null) throw unsupported(engine, `a comparison of ${field} with null (null is not indexed)`)
  return v
}

function mapped(n: FilterNode, engine: string, meta: string): QueryClause {
  switch (n.kind) {
    case 'and':
      return n.nodes.length === 0
        ? { match_all: {} }
        : { bool: { filter: n.nodes.map((c) => mapped(c, engine, meta)) } }
    case 'or':
      return { bool: { should: n.nodes.map((c) => mapped(c, engine, meta)), minimum_should_match: 1 } }
    case 'not':
      return not(mapped(n.node, engine, meta))
    case 'eq':
      return { term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } }
    case 'ne':
      return not({ term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } })
    case 'in':
      return { terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } }
    case 'nin':
      return not({ terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } })
    case 'exists':
      return n.value ? { exists: { field: `${meta}.${n.field}` } } : not({ exists: { field: `${meta}.${n.field}` } })
    default:
      return { range: { [`${meta}.${n.field}`]: { [n.kind]: n.value } } }
  }
}
