/**
 * One document from its copies, given in precedence order (the copy that wins first), so a
 * composition never loses a field one source returned and another did not (fusion of BM25,
 * which returns text and meta, with a vector index that returns only ids):
 * - `text`: the first non-empty string;
 * - `meta`: every copy's meta merged, a key of an earlier copy winning over a later one;
 * - any other field: the first copy's value that is not `undefined`.
 * A single copy is returned as it is; several give a new object (the copies are not changed).
 */
export declare function mergeCopies<T extends object>(copies: readonly T[]): T;
