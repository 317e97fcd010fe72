import type { QueryBundle } from '@llamaindex/core/query-engine';
import { BaseRetriever } from '@llamaindex/core/retriever';
import { type NodeWithScore, TextNode } from '@llamaindex/core/schema';
import type { MetadataFilters } from '@llamaindex/core/vector-store';
import { type RetrieveFilter, type Retriever } from '../../retrieval/retriever.js';
import { type HitDocument } from '../hits.js';
/** Options of `RagrankRetriever`. */
export interface RagrankRetrieverOptions {
    /** `Bm25Index`, `VectorRetriever`, `HybridRetriever`, `MultiQueryRetriever`, `AutoMergingRetriever`, ... */
    retriever: Retriever;
    /** Nodes per query (default 10): what LlamaIndex's `VectorIndexRetriever` calls `similarityTopK`. */
    topK?: number;
    /** A ragrank filter passed to every `retrieve` call; the retriever must declare `supportsFilter`. */
    filter?: RetrieveFilter;
    /**
     * LlamaIndex `MetadataFilters`, translated to a ragrank metadata filter (and combined with
     * `filter`). `text_match` and `is_empty` have no exact equivalent and are a TypeError.
     */
    filters?: MetadataFilters;
}
/**
 * Any ragrank retriever as a LlamaIndex.TS retriever. Each hit becomes a `NodeWithScore`
 * whose `TextNode` has the hit's id, text and metadata; an auto-merged hit also has its
 * document as the `SOURCE` relationship, its parent as `PARENT`, its character span, and
 * the leaves it merged in `metadata.leafIds` (kept out of embeddings and prompts).
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 * import { RagrankRetriever } from 'ragrank/llamaindex'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } }])
 * const retriever = new RagrankRetriever({ retriever: index, topK: 5 })
 * const nodes = await retriever.retrieve({ query: 'cat' })
 * console.log(nodes[0].node.id_, nodes[0].score, nodes[0].node.metadata) // cat 0.28... { kind: 'pet' }
 * ```
 */
export declare class RagrankRetriever extends BaseRetriever {
    /** The ragrank retriever every query goes to. */
    readonly retriever: Retriever;
    /** Nodes per query. */
    readonly topK: number;
    /** The ragrank filter every call passes down (`filter` and the translated `filters` combined). */
    readonly filter?: RetrieveFilter;
    constructor(options: RagrankRetrieverOptions);
    /** LlamaIndex's hook behind `retrieve()`: the query's text, retrieved by ragrank, as nodes. */
    _retrieve(params: QueryBundle): Promise<NodeWithScore[]>;
}
/** A LlamaIndex `TextNode` of a ragrank hit. */
export declare function textNode(h: HitDocument): TextNode;
