/** A candidate document as rankers take it: a string, or an object with text. */
export type Candidate = string | {
    /** Duplicates are recognised by it when present (see `DedupeBy`). */
    id?: string;
    /** What the ranker reads. */
    text: string;
    /** Returned as it is (an `LLMRanker` adds `priorScore`). */
    meta?: Record<string, unknown>;
    /** A prior score: among duplicates, the copy with the highest is kept. */
    score?: number;
    [k: string]: unknown;
};
/** How duplicates are recognised: by `id` when there is one, else by text (default); by text only; or not at all. */
export type DedupeBy = 'id-or-content' | 'content' | 'none';
export declare const DEDUPE_RULES: readonly DedupeBy[];
/** A `dedupeBy` option: one of `DEDUPE_RULES` (a TypeError / RangeError naming `name` otherwise). */
export declare const dedupeRule: (v: unknown, name: string) => DedupeBy;
/** Checks a ranker's input: an array of strings or `{ text }` objects whose `id`, if any, is a string. */
export declare function checkCandidates<D extends Candidate>(documents: readonly D[], name: string): readonly D[];
/**
 * Drops duplicate candidates: the one rule of every ranker (`CrossEncoder`, `LLMRanker`,
 * `rerankPooled`). Two candidates are the same document when they have the same `id`; a
 * candidate without an `id` (a string, or an object with no id) is the same as another
 * without an id and with the identical text. An id'd candidate never matches an id-less
 * one. Of a group of duplicates the copy with the highest prior `score` is kept (ties: the
 * first), at the position of the first copy, so the order the sources gave still decides
 * where the group sits. The kept copy gets the fields its duplicates add (`mergeCopies`,
 * the kept copy first, then the others in input order): a copy with meta is not lost to a
 * higher-scored copy without it. Returns the kept documents and, for each, the input
 * position of that kept copy (so a result's `index` points at the document whose fields win).
 *
 * `by` is for the pooled rerank's override: `'content'` ignores ids (sources that id the
 * same text differently), `'none'` keeps every copy.
 */
export declare function dedupe<D extends Candidate>(documents: readonly D[], by?: DedupeBy): {
    docs: D[];
    indices: number[];
};
