import { type CoalesceOptions } from '../internal/batcher.js';
import type { NativeHits, NativeSearchOptions } from '../internal/native.js';
/** A hit of `Bm25Index` or `VectorIndex`: sorted by score, best first; ties go to the document added first. */
export interface IndexHit {
    /** The document's id. */
    id: string;
    /** Its score for the query, higher is better: BM25's, or the vector index's metric. */
    score: number;
    /** The stored text, when the document has one (unless `includeFields: false`, or BM25's `storeText: false`). */
    text?: string;
    /** The stored metadata, likewise. */
    meta?: Record<string, unknown>;
}
/** An index's `coalesce` option: how its concurrent `searchAsync` calls join native batches (false: they do not). */
export declare function coalescing(v: unknown): Required<CoalesceOptions> | false;
/** A search's checked options: `topK`, the native options (undefined for a plain `{ topK }`), and the object itself. */
export interface ParsedSearch {
    topK: number;
    native: NativeSearchOptions | undefined;
    options: Record<string, unknown>;
}
/**
 * The options of a search call (`known`: the keys it takes). Types and shapes only (TypeError): the filter's
 * values and the defaults are Rust's. A plain `{ topK }` sends no options object, so the native call reads none.
 */
export declare function searchOptions(options: unknown, known: ReadonlySet<string>): ParsedSearch;
/** One `searchAsync` call as the native batch it joins runs it (calls of one batch share `topK` and `opts`). */
export interface SearchCall<Q> {
    query: Q;
    topK: number;
    opts: NativeSearchOptions | undefined;
}
/** Calls of equal keys may share a native batch. The common call has no options object: its key is just `topK`. */
export declare function batchKey(topK: number, native: NativeSearchOptions | undefined): string;
/**
 * The reusable output buffer of a synchronous native `search` (`fill_buffer` in `src/hits.rs`), and the decoder of
 * what the search returns: the native side fills `out[0]` = hit count, then the scores, then the UTF-16 end offsets
 * of the ids, and returns the ids joined in one string (or, for hits with fields, `NativeHits`). No typed array is
 * made per query.
 */
export declare class HitBuffer {
    #private;
    /** The buffer, grown for `topK` hits unless that is beyond what is worth keeping. */
    forTopK(topK: number): Float64Array;
    /** The hits of the search that just filled the buffer and returned `r`. */
    hits(r: string | NativeHits): IndexHit[];
}
/** A batch's hits, one list per query. */
export declare function allHits(hits: NativeHits): IndexHit[][];
/** A batch's hits split per query by `counts` (the columns run over the whole batch), appended to `out`. */
export declare function batchHits(hits: NativeHits, out: IndexHit[][]): void;
