import { type RetrieveFilter, type Retriever, type ScoredDocument } from './retriever.js';
/** One child retrieval of a composite retriever. */
export interface ChildRetrieval {
    retriever: Retriever;
    query: string;
    /** Candidates to ask for; extra results are dropped. */
    depth: number;
    /** The call's filter, passed to the child unchanged. */
    filter?: RetrieveFilter;
    /** Names the child in errors, e.g. `retrievers[1].retrieve`. */
    who: string;
}
/**
 * The fan-out of the composite retrievers (hybrid, multi-query): runs the child retrievals,
 * at most `concurrency` at once, under one child signal of the caller's. The first failure
 * aborts the others and rejects, unless `recover` turns it into a list (the composite then
 * fuses without it). An abort of the caller's signal always rejects with an AbortError.
 */
export declare function retrieveAll(calls: readonly ChildRetrieval[], concurrency: number, signal: AbortSignal | undefined, recover?: (error: unknown, index: number) => ScoredDocument[]): Promise<ScoredDocument[][]>;
