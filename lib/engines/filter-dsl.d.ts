/**
 * ragrank's filter as Elasticsearch / OpenSearch filter clauses (bool / term / terms / range / exists / ids),
 * over metadata indexed under `metaField` (strings as `keyword`, as `createIndex` maps them). Array fields
 * match when any element does and a missing field matches only `must_not` clauses, as in ragrank. The engines
 * do not index null, so a comparison with null is refused (TypeError) and a null value counts as absent for
 * `$exists`.
 */
export type QueryClause = Record<string, unknown>;
export declare function filterClauses(filter: unknown, engine: string, metaField: string): QueryClause[];
