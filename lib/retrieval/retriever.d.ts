import { type OptionKeys } from '../internal/validate.js';
/** A retrieved document. Retrievers may add fields; fusion keeps them. */
export interface ScoredDocument {
    /** The document's id. */
    id: string;
    /** Its score from the retriever (higher is better; scales differ between retrievers). */
    score: number;
    /** Its text, when the retriever has it. */
    text?: string;
    /** Its metadata, when the retriever has it. */
    meta?: Record<string, unknown>;
}
/** Options every `Retriever.retrieve` takes. */
export interface RetrieveOptions {
    /** How many documents at most (default 10). */
    topK?: number;
    /** Rejects the call with an `AbortError` (`code: 'ABORT_ERR'`) when it fires. */
    signal?: AbortSignal;
    /**
     * Only documents that match it may be returned. It is passed unchanged to every source
     * (the indexes validate it); a retriever that cannot honour it throws rather than ignore it.
     */
    filter?: RetrieveFilter;
}
/**
 * The filter language of the indexes (`Bm25Index`, `VectorIndex`): documents must have one
 * of `ids` and match `meta`. Composite retrievers never read it, only pass it down.
 */
export interface RetrieveFilter {
    /** Only these document ids. */
    ids?: readonly string[];
    /** A condition on metadata, in the language of `MetaFilter` (docs/FILTERS.md). */
    meta?: Record<string, unknown>;
}
/**
 * Anything that turns a query into ranked documents: `Bm25Index`, `VectorRetriever`,
 * `HybridRetriever`, `MultiQueryRetriever`, or your own. They nest freely.
 */
export interface Retriever {
    /** The best `topK` documents for `query`, best first. */
    retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>;
    /**
     * True when `retrieve` honours `options.filter` (returns only matching documents, as the
     * best `topK` of the matches). Composites refuse a filter unless every source declares it,
     * so a retriever without it is never handed a filter it would silently ignore.
     */
    readonly supportsFilter?: boolean;
}
export declare function isRetriever(v: unknown): v is Retriever;
export declare function checkQuery(query: unknown): string;
/** The keys of the `Retriever` contract. */
export declare const RETRIEVE_KEYS: OptionKeys;
/**
 * Validated `{ topK, signal }` of a `retrieve` call, and its `filter` as given (the indexes
 * validate it); `known` adds a retriever's own keys to the contract's.
 */
export declare function retrieveOptions(options: unknown, known?: OptionKeys): {
    topK: number;
    signal?: AbortSignal;
    filter?: RetrieveFilter;
};
/** Whether a retriever declares that it honours filters. */
export declare function supportsFilter(retriever: Retriever): boolean;
/**
 * Throws, before any source runs, when a filter is given and a source does not declare
 * `supportsFilter`: a source that ignored it would return documents the filter excludes.
 */
export declare function checkFilterSupport(filter: unknown, sources: readonly {
    retriever: Retriever;
    who: string;
}[]): void;
/** `{ filter }` when one is given, else nothing, so sources without filters see the options they always did. */
export declare function withFilter(filter: RetrieveFilter | undefined): {
    filter?: RetrieveFilter;
};
/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export declare function retrievedList(v: unknown, topK: number, who: string): ScoredDocument[];
