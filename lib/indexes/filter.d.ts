/** A value compared by equality: numbers by value (1 equals 1.0), strings case-sensitively. */
export type FilterValue = string | number | boolean | null;
/** Operators on one metadata field; all given must hold (see docs/FILTERS.md). */
export interface FieldOperators {
    /** Equal to the value. */
    $eq?: FilterValue;
    /** Not equal to the value (a missing field is not equal). */
    $ne?: FilterValue;
    /** Equal to one of the values. */
    $in?: readonly FilterValue[];
    /** Equal to none of the values. */
    $nin?: readonly FilterValue[];
    /** Greater than (numbers with numbers, strings with strings). */
    $gt?: number | string;
    /** Greater than or equal. */
    $gte?: number | string;
    /** Less than. */
    $lt?: number | string;
    /** Less than or equal. */
    $lte?: number | string;
    /** The field is present (`true`) or absent (`false`). */
    $exists?: boolean;
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
    $and?: readonly MetaFilter[];
    /** At least one filter must hold. */
    $or?: readonly MetaFilter[];
    /** The filter must not hold. */
    $not?: MetaFilter;
    [field: string]: FilterValue | readonly FilterValue[] | FieldOperators | MetaFilter | readonly MetaFilter[] | undefined;
}
/** Restricts a search: documents must have one of `ids` (when given) and match `meta` (when given). */
export interface Filter {
    /** Only these document ids (unknown ids are ignored). */
    ids?: readonly string[];
    /** A condition on the documents' metadata. */
    meta?: MetaFilter;
}
/**
 * The filter grammar's one parser: the indexes check a filter with it before the native call, and every
 * engine translation (query DSL, SQL) walks the tree it returns, so all of them accept the same filters and
 * refuse the others with the same error. The messages are those of the Rust evaluator
 * (`ragrank_core::filter`), which compiles the same JSON again to evaluate it.
 */
export type FilterNode = {
    kind: 'and';
    nodes: FilterNode[];
} | {
    kind: 'or';
    nodes: FilterNode[];
} | {
    kind: 'not';
    node: FilterNode;
} | {
    kind: 'eq' | 'ne';
    field: string;
    value: FilterValue;
} | {
    kind: 'in' | 'nin';
    field: string;
    values: FilterValue[];
} | {
    kind: 'gt' | 'gte' | 'lt' | 'lte';
    field: string;
    value: number | string;
} | {
    kind: 'exists';
    field: string;
    value: boolean;
};
/** A parsed `{ ids, meta }` filter: `meta` is the checked JSON for the native call, `tree` its parse. */
export interface ParsedFilter {
    ids?: string[];
    meta?: Record<string, unknown>;
    tree?: FilterNode;
}
/** Parses and checks a filter. Unknown keys are errors: a dropped filter would leak. */
export declare function parseFilter(v: unknown, name?: string): ParsedFilter;
/** A filter's parts for the native call, checked by `parseFilter`. */
export declare function filterParts(v: unknown, name?: string): {
    ids?: string[];
    meta?: Record<string, unknown>;
};
