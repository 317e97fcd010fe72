import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';
import { type Embeddings as VectorBlock } from '../../models/embedder.js';
/** What `RagrankEmbeddings` needs of a model: `Embedder`'s two prompt-aware methods. */
export interface DocumentQueryEmbedder {
    /** Passage vectors (with the document prompt), row-major in one block. */
    embedDocuments(texts: readonly string[]): Promise<VectorBlock>;
    /** One query vector (with the query prompt). */
    embedQuery(text: string): Promise<Float32Array>;
}
/** The options of `RagrankEmbeddings`, with LangChain's own `EmbeddingsParams` (unused: the model is local). */
export interface RagrankEmbeddingsInput extends EmbeddingsParams {
    /** An `Embedder` (from `Embedder.load`), or anything with its `embedDocuments` and `embedQuery`. */
    embedder: DocumentQueryEmbedder;
}
/**
 * A ragrank `Embedder` as LangChain `Embeddings`, for `MemoryVectorStore`, `RagrankVectorStore`
 * or any other LangChain vector store. `embedDocuments` returns `number[][]` (one array per
 * text, with the model's document prompt) and `embedQuery` a `number[]` (with its query
 * prompt), where `Embedder`'s own methods return Float32Arrays. Calls go straight to the
 * local model: LangChain's retry and concurrency options are accepted and have nothing to do
 * (concurrent single-text calls already share native batches).
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { RagrankEmbeddings } from 'ragrank/langchain'
 * import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory'
 *
 * const embeddings = new RagrankEmbeddings({ embedder: await Embedder.load('Xenova/all-MiniLM-L6-v2') })
 * const store = await MemoryVectorStore.fromTexts(['the cat sat', 'a car drove'], [{}, {}], embeddings)
 * const [best] = await store.similaritySearch('kitten', 1)
 * ```
 */
export declare class RagrankEmbeddings extends Embeddings {
    /** The wrapped model. */
    readonly embedder: DocumentQueryEmbedder;
    constructor(fields: RagrankEmbeddingsInput);
    /** One vector per text, as arrays of numbers. */
    embedDocuments(documents: string[]): Promise<number[][]>;
    /** The query's vector, as an array of numbers. */
    embedQuery(document: string): Promise<number[]>;
}
