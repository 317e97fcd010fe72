import type { MessageContent } from '@llamaindex/core/llms';
import type { BaseNodePostprocessor } from '@llamaindex/core/postprocessor';
import { type NodeWithScore } from '@llamaindex/core/schema';
import { type Ranker } from '../../retrieval/pool.js';
/** Options of `RagrankReranker`. */
export interface RagrankRerankerOptions {
    /** `CrossEncoder`, `LLMRanker`, or anything with `rerank(query, documents, { topK })`. */
    ranker: Ranker;
    /** Nodes kept, best first (default: the ranker's own; a CrossEncoder keeps all, an LLMRanker 10). */
    topN?: number;
}
/**
 * A ragrank ranker as a LlamaIndex.TS node postprocessor (for `nodePostprocessors` of a query
 * engine, or called directly): the nodes come back best first, each with the ranker's score
 * as its `score`. Nodes are ranked on their text without metadata; duplicates (the same node
 * id) are ranked once, by the rankers' one rule.
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 * import { RagrankReranker } from 'ragrank/llamaindex'
 *
 * const reranker = new RagrankReranker({ ranker: await CrossEncoder.load('models/ms-marco-MiniLM-L-6-v2'), topN: 3 })
 * const best = await reranker.postprocessNodes(await retriever.retrieve({ query }), query)
 * ```
 */
export declare class RagrankReranker implements BaseNodePostprocessor {
    /** The ragrank ranker the nodes go to. */
    readonly ranker: Ranker;
    /** Nodes kept; undefined keeps the ranker's default. */
    readonly topN?: number;
    constructor(options: RagrankRerankerOptions);
    /** The nodes reranked against `query`, at most `topN`. Without a query there is nothing to rank by: a TypeError. */
    postprocessNodes(nodes: NodeWithScore[], query?: MessageContent): Promise<NodeWithScore[]>;
}
