/**
 * ragrank's filter as a parameterised SQL condition over an id column and a jsonb metadata column: values
 * only ever travel as parameters ($n), never inside the SQL text. jsonb keeps ragrank's semantics exactly:
 * `@>` compares numbers by value, strings exactly and never across types, and matches an array when one
 * element is equal; a missing path is SQL NULL, so it matches only the negations and `$exists: false`, while
 * a JSON null is present.
 */
export interface SqlCondition {
    /** `TRUE` when the filter has no condition. */
    sql: string;
    params: unknown[];
}
/** `firstParam` is the number of the first placeholder to use (the query's own come before). */
export declare function filterSql(filter: unknown, columns: {
    id: string;
    meta: string;
}, firstParam?: number): SqlCondition;
