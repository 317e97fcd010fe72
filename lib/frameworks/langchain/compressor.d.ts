import { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors';
import { type DocumentInterface } from '@langchain/core/documents';
import { type Ranker } from '../../retrieval/pool.js';
/** The options of `RankerCompressor`. */
export interface RankerCompressorInput {
    /** `CrossEncoder`, `LLMRanker`, or anything with `rerank(query, documents, { topK })`. */
    ranker: Ranker;
    /** Documents kept (default: the ranker's own; a CrossEncoder keeps all, an LLMRanker 10). */
    topK?: number;
    /** Metadata key for the score (default `relevanceScore`, as LangChain's Cohere reranker). */
    scoreKey?: string;
}
/**
 * A ragrank ranker as a LangChain document compressor, for `ContextualCompressionRetriever`.
 * Unlike LangChain's CrossEncoderReranker it keeps the score, in `metadata[scoreKey]`, and
 * every document keeps its metadata and id.
 * Duplicates are ranked once, by the rankers' one rule (the same `id`, or without ids the same text).
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 * import { RankerCompressor, RagrankRetriever } from 'ragrank/langchain'
 * import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression'
 *
 * const ranker = await CrossEncoder.load('cross-encoder/ms-marco-MiniLM-L-6-v2')
 * const retriever = new ContextualCompressionRetriever({
 *   baseRetriever: new RagrankRetriever({ retriever: index, topK: 50 }),
 *   baseCompressor: new RankerCompressor({ ranker, topK: 5 }),
 * })
 * ```
 */
export declare class RankerCompressor extends BaseDocumentCompressor {
    /** The wrapped ranker. */
    readonly ranker: Ranker;
    /** Documents kept, when set. */
    readonly topK?: number;
    /** Metadata key of the score. */
    readonly scoreKey: string;
    constructor(fields: RankerCompressorInput);
    /** The documents reordered by the ranker, cut to `topK`, each with its score in `metadata[scoreKey]`. */
    compressDocuments(documents: DocumentInterface[], query: string): Promise<DocumentInterface[]>;
}
