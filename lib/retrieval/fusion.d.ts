import type { ScoredDocument } from './retriever.js';
/** How `fuse` combines lists: by rank (`'rrf'`) or by normalised score (`'weighted'`). */
export type FusionMethod = 'rrf' | 'weighted';
/** How `'weighted'` fusion puts each list's scores on a common scale. */
export type ScoreNormalization = 'minmax' | 'zscore' | 'none';
/** Options of `fuse`. */
export interface FuseOptions<T extends ScoredDocument = ScoredDocument> {
    /** Default `'rrf'`. */
    method?: FusionMethod;
    /** RRF constant, > 0 (default 60): a list contributes `weight / (rrfK + rank)`. Only for `'rrf'`. */
    rrfK?: number;
    /** One finite weight >= 0 per list (default 1 each); at least one must be positive. */
    weights?: readonly number[];
    /** Only for `'weighted'` (default `'minmax'`). */
    scoreNormalization?: ScoreNormalization;
    /** What makes two items the same document: `'id'` (default) or a function returning a string key. */
    keyBy?: 'id' | ((doc: T) => string);
    /** Keep at most this many fused documents (default all). */
    topK?: number;
}
/** What one input list gave a fused document. */
export interface FusionContribution {
    /** Index of the input list. */
    list: number;
    /** 1-based rank in that list, counting only the first copy of each document. */
    rank: number;
    /** The document's own score in that list. */
    score: number;
    /** What the list added to the fused score: `w / (rrfK + rank)`, or `w * normalized(score)`. */
    contribution: number;
}
/**
 * A fused document: the fields of every copy the lists returned (see `fuse`), the fused
 * `score`, and where it came from.
 */
export type Fused<T extends ScoredDocument = ScoredDocument> = T & {
    /** The fused score (see `fuse`). */
    score: number;
    /** One entry per list that contains the document, in list order. */
    fusion: FusionContribution[];
};
/**
 * Fuses ranked lists of scored documents into one ranking.
 *
 * - `'rrf'`: `score = Σ w_i / (rrfK + rank_i)` over the lists containing the document, ranks 1-based.
 * - `'weighted'`: `score = Σ w_i * norm_i(score_i)`. `'minmax'` maps a list's best score to 1 and
 *   its worst to 0; a list whose scores are all equal (one item included) gives each 1.
 *   `'zscore'` is `(s - mean) / std` (population std); zero variance gives each 0. `'none'`
 *   uses raw scores.
 *
 * A document missing from a list gets 0 from it; a document only in zero-weight lists is still
 * returned, with score 0. Each list is taken in the given order (scores
 * are not re-sorted), and a repeated document within one list counts once, at its first
 * position; later items move up. The output merges the fields of every list's copy, so a
 * document keeps the text and meta one source returned when another returned only its id:
 * copies take precedence by rank (lowest first; on equal ranks the earliest list), the first
 * non-empty `text` is kept, `meta` objects are merged with the keys of the higher copy
 * winning, and any other field comes from the highest copy that has it. `score` is replaced
 * by the fused score and a `fusion` field lists each list's share.
 *
 * Order: fused score descending; ties by best rank, then by the list it was reached in. A
 * document's contributions are summed in ascending order, so its score does not depend on
 * the order of the lists. O(total items + d log d) for d distinct documents.
 *
 * @example
 * ```ts
 * import { fuse } from 'ragrank'
 *
 * const lexical = [{ id: 'a', score: 12.1 }, { id: 'b', score: 9.4 }]
 * const dense = [{ id: 'b', score: 0.82 }, { id: 'c', score: 0.79 }]
 * fuse([lexical, dense]) // RRF: b first (in both lists), then a, then c; each with `fusion: [{ list, rank, ... }]`
 * fuse([lexical, dense], { method: 'weighted', weights: [0.3, 0.7], scoreNormalization: 'minmax', topK: 2 })
 * ```
 */
export declare function fuse<T extends ScoredDocument>(lists: readonly (readonly T[])[], options?: FuseOptions<T>): Fused<T>[];
/**
 * The RRF constant `rrfK` of `fuse` and of the composite retrievers' options (undefined when
 * left out). Not `k`: elsewhere `k` means how many results, so `{ k: 5 }` is an unknown key
 * whose error points at `topK`.
 */
export declare function rrfConstant(o: Record<string, unknown>, method: unknown): number | undefined;
/** A list's weight option (a source of a hybrid or rescoring retriever): finite and >= 0, 1 when left out. */
export declare function listWeight(v: unknown, name: string): number;
/** Weights: one finite number >= 0 per list, at least one positive (unless there are no lists). */
export declare function checkWeights(v: unknown, count: number, name: string): number[];
/** The per-list score map of `'weighted'` fusion. */
export declare function normalizer(scores: ArrayLike<number> & Iterable<number>, method: ScoreNormalization): (s: number) => number;
