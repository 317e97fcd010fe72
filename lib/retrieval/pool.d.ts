import { type Candidate, type DedupeBy } from './dedupe.js';
import { type RetrieveFilter, type Retriever, type ScoredDocument } from './retriever.js';
/** `CrossEncoder`, `LLMRanker`, or anything with the same method. */
export interface Ranker {
    /** The documents reordered (and cut to `topK`), best first. */
    rerank(query: string, documents: readonly Candidate[], options?: {
        topK?: number;
        signal?: AbortSignal;
    }): Promise<unknown[]>;
}
/** Options of `rerankPooled`. */
export interface PoolRerankOptions {
    /** Default 10. */
    topK?: number;
    /** Cancels the ranker call; the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
    /** Default `'id-or-content'`, the rankers' rule (see `dedupe`); `'content'` when sources id the same text differently; `'none'` to keep every copy. */
    dedupeBy?: DedupeBy;
}
/** A pooled document after reranking: the ranker's output, `index` pointing into the pooled input, prior score in meta. */
export type Pooled = ScoredDocument & {
    /** Position of the kept copy in the pooled input. */
    index: number;
    /** The input's meta, plus `priorScore` when the input had a score. */
    meta: Record<string, unknown>;
    [k: string]: unknown;
};
export declare function isRanker(v: unknown): v is Ranker;
/**
 * Reranks candidates gathered from any number of sources (several indexes, books, tools)
 * in one ranker call. Duplicates are merged first, by the rankers' rule (`dedupe`: the
 * same `id`, or without ids the same text; the copy with the highest prior score is kept,
 * with the fields only its duplicates carry, such as another source's meta), so a passage
 * two sources found is scored once. Each result keeps the score its source
 * gave as `meta.priorScore`, and `index` points into `documents`, at the kept copy.
 */
export declare function rerankPooled(query: string, documents: readonly Candidate[], ranker: Ranker, options?: PoolRerankOptions): Promise<Pooled[]>;
/** Options of `new CompressionRetriever(options)`. */
export interface CompressionRetrieverOptions {
    /** Reorders and cuts the candidates. */
    ranker: Ranker;
    /** Where candidates come from; leave it out to pass `documents` to each call instead. */
    retriever?: Retriever;
    /** Candidates fetched from the retriever (default 50, and at least the call's `topK`). */
    candidates?: number;
    /** How duplicates are merged before ranking (default `'id-or-content'`; see `PoolRerankOptions.dedupeBy`). */
    dedupeBy?: DedupeBy;
}
/** Options of `CompressionRetriever.retrieve`. */
export interface CompressionRetrieveOptions extends PoolRerankOptions {
    /** Candidates you already hold (pooled from several sources); used instead of the base retriever. */
    documents?: readonly Candidate[];
    /** Passed to the base retriever; refused with `documents` (filter them before you pass them). */
    filter?: RetrieveFilter;
}
/**
 * A retriever whose results a ranker reorders and cuts: LangChain's
 * ContextualCompressionRetriever, with the base retriever optional so already-collected
 * documents can be passed per call (the variant users patch LangChain for).
 */
export declare class CompressionRetriever implements Retriever {
    #private;
    constructor(options: CompressionRetrieverOptions);
    /** True when its base retriever honours filters (without one, there is nothing to filter). */
    get supportsFilter(): boolean;
    /** Fetches candidates (or takes `documents`), merges duplicates and returns the ranker's best `topK`. */
    retrieve(query: string, options?: CompressionRetrieveOptions): Promise<Pooled[]>;
}
