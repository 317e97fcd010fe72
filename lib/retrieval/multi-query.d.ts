import { type Fused } from './fusion.js';
import { type RetrieveOptions, type Retriever } from './retriever.js';
/** Rewrites a query into variants; in practice an LLM call. */
export type QueryVariantsFunction = (query: string, options: {
    signal?: AbortSignal;
}) => readonly string[] | Promise<readonly string[]>;
/** An object that produces variants, such as a `QueryRewriter`. */
export interface QueryVariantSource {
    /** The variants of `query` (the original is added by the retriever when `includeOriginal`). */
    variants(query: string, options: {
        signal?: AbortSignal;
    }): readonly string[] | Promise<readonly string[]>;
}
/** Options of `new MultiQueryRetriever(options)`. */
export interface MultiQueryRetrieverOptions {
    /** The retriever every variant runs against. */
    retriever: Retriever;
    /** The variants: a fixed list, a function of the query, or a source such as a `QueryRewriter`. A call's own `queries` option overrides it. */
    queries?: readonly string[] | QueryVariantsFunction | QueryVariantSource;
    /** Also retrieve with the original query (default true). */
    includeOriginal?: boolean;
    /** Retrievals in flight at once (default 4). */
    concurrency?: number;
    /**
     * How the variants' lists become one (default `'rrf'`): `'rrf'` by rank; `'max'` by each
     * document's best score over the variants (the competition pipeline's "top 3 by best
     * score"); `'sum'` by the sum of its scores. Score merges need scores on one scale, as
     * one retriever's are for every variant.
     */
    merge?: MultiQueryMerge;
    /** RRF constant (default 60). Only for `merge: 'rrf'`. */
    rrfK?: number;
    /** Candidates each variant fetches (default 50, and at least the call's `topK`). */
    candidates?: number;
}
/** How `MultiQueryRetriever` merges the variants' lists. */
export type MultiQueryMerge = 'rrf' | 'max' | 'sum';
/** Options of `MultiQueryRetriever.retrieve`. */
export interface MultiQueryRetrieveOptions extends RetrieveOptions {
    /** This call's variants, used instead of the constructor's `queries` (e.g. rewrites you already have). */
    queries?: readonly string[];
}
/**
 * Retrieves with several variants of a query and fuses the lists with RRF, so a document
 * found by several variants, or ranked high by one, rises (unlike a plain union).
 * Variants are trimmed, and ones equal up to whitespace are run once; empty ones are
 * dropped. If none is left (and the original is excluded), the original query is used.
 * In each result, `fusion[].list` indexes the variants as run: the original first when
 * included, then the rewrites in their order.
 */
export declare class MultiQueryRetriever implements Retriever {
    #private;
    constructor(options: MultiQueryRetrieverOptions);
    /** True when its retriever honours filters. */
    get supportsFilter(): boolean;
    /** Retrieves for every variant and merges the lists (`merge`). */
    retrieve(query: string, options?: MultiQueryRetrieveOptions): Promise<Fused[]>;
}
/** The original (optionally) and the rewrites, trimmed, empty and whitespace-equal ones dropped. */
export declare function distinctQueries(original: string, rewrites: readonly string[], includeOriginal: boolean): string[];
