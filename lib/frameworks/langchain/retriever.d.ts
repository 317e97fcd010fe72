import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { DocumentInterface } from '@langchain/core/documents';
import type { RunnableConfig } from '@langchain/core/runnables';
import { type RetrieveFilter, type Retriever } from '../../retrieval/retriever.js';
/** The options of `RagrankRetriever`, with LangChain's own `BaseRetrieverInput` (callbacks, tags, ...). */
export interface RagrankRetrieverInput extends BaseRetrieverInput {
    /** `Bm25Index`, `VectorRetriever`, `HybridRetriever`, `MultiQueryRetriever`, `AutoMergingRetriever`, `CompressionRetriever`, ... */
    retriever: Retriever;
    /** Documents per query (default 10). */
    topK?: number;
    /** Metadata key for the ragrank score (default `score`). */
    scoreKey?: string;
    /**
     * Passed to every `retrieve` call (e.g. the tenant), in ragrank's filter language
     * (`{ ids?, meta? }`, docs/FILTERS.md). A retriever that does not declare `supportsFilter`
     * is refused with a TypeError at construction, since it would ignore the filter.
     */
    filter?: RetrieveFilter;
}
/**
 * A ragrank retriever as a LangChain retriever: each hit becomes a `Document` with the
 * hit's text as `pageContent`, its `id`, and all it carries as `metadata` (its meta, the
 * score under `scoreKey`, and the fields composites add: see `hitToDocument`). One class
 * serves every ragrank retriever, since they share `retrieve(query, { topK, filter, signal })`.
 * The `signal` of `invoke(query, { signal })` reaches the ragrank retriever, so aborting a
 * LangChain call stops its retrieval (an `AbortError`, code `ABORT_ERR`).
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 * import { RagrankRetriever } from 'ragrank/langchain'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'a', text: 'the cat sat on the mat', meta: { tenant: 'x' } }])
 * const retriever = new RagrankRetriever({ retriever: index, topK: 5, filter: { meta: { tenant: 'x' } } })
 * const docs = await retriever.invoke('cat') // [Document { pageContent, id: 'a', metadata: { tenant, score } }]
 * ```
 */
export declare class RagrankRetriever extends BaseRetriever {
    lc_namespace: string[];
    /** The wrapped ragrank retriever. */
    readonly retriever: Retriever;
    /** Documents per query. */
    readonly topK: number;
    /** Metadata key of the score. */
    readonly scoreKey: string;
    /** The filter passed to every call, if any. */
    readonly filter?: RetrieveFilter;
    static lc_name(): string;
    constructor(fields: RagrankRetrieverInput);
    /** LangChain's `invoke`, with the config's `signal` passed on to the ragrank retriever. */
    invoke(input: string, options?: RunnableConfig): Promise<DocumentInterface[]>;
    _getRelevantDocuments(query: string): Promise<DocumentInterface[]>;
}
