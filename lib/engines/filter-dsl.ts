import { typeError } from '../errors.js'
import { type FilterNode, type FilterValue, parseFilter } from '../indexes/filter.js'

/**
 * ragrank's filter as Elasticsearch / OpenSearch filter clauses (bool / term / terms / range / exists / ids),
 * over metadata indexed under `metaField` (strings as `keyword`, as `createIndex` maps them). Array fields
 * match when any element does and a missing field matches only `must_not` clauses, as in ragrank. The engines
 * do not index null, so a comparison with null is refused (TypeError) and a null value counts as absent for
 * `$exists`.
 */
export type QueryClause = Record<string, unknown>

export function filterClauses(filter: unknown, engine: string, metaField: string): QueryClause[] {
  if (filter === undefined) return []
  const parsed = parseFilter(filter)
  const out: QueryClause[] = []
  if (parsed.ids) out.push({ ids: { values: parsed.ids } })
  if (parsed.tree) out.push(clause(parsed.tree, engine, metaField))
  return out
}

/** A TypeError for a filter an engine cannot express exactly: refused rather than answered differently. */
function unsupported(engine: string, what: string): TypeError {
  return typeError(`${engine} cannot express ${what} exactly; refused rather than answered differently`)
}

function nonNull(v: FilterValue, engine: string, field: string): Exclude<FilterValue, null> {
  if (v === null) throw unsupported(engine, `a comparison of ${field} with null (null is not indexed)`)
  return v
}

function clause(n: FilterNode, engine: string, meta: string): QueryClause {
  switch (n.kind) {
    case 'and':
      return n.nodes.length === 0
        ? { match_all: {} }
        : { bool: { filter: n.nodes.map((c) => clause(c, engine, meta)) } }
    case 'or':
      return { bool: { should: n.nodes.map((c) => clause(c, engine, meta)), minimum_should_match: 1 } }
    case 'not':
      return { bool: { must_not: [clause(n.node, engine, meta)] } }
    case 'eq':
      return { term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } }
    case 'ne':
      return { bool: { must_not: [{ term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } }] } }
    case 'in':
      return { terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } }
    case 'nin':
      return {
        bool: { must_not: [{ terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } }] },
      }
    case 'exists':
      return n.value
        ? { exists: { field: `${meta}.${n.field}` } }
        : { bool: { must_not: [{ exists: { field: `${meta}.${n.field}` } }] } }
    default:
      return { range: { [`${meta}.${n.field}`]: { [n.kind]: n.value } } }
  }
}
