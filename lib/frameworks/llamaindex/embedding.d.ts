import { BaseEmbedding } from '@llamaindex/core/embeddings';
import type { MessageContentDetail } from '@llamaindex/core/llms';
import { type Embedder } from '../../models/embedder.js';
/** Options of `RagrankEmbedding`. */
export interface RagrankEmbeddingOptions {
    /** A loaded `Embedder`: its query and document prefixes apply as it defines them. */
    embedder: Embedder;
    /** Texts LlamaIndex hands over per call when it embeds nodes (default 64); the Embedder batches within. */
    embedBatchSize?: number;
}
/**
 * A ragrank `Embedder` as a LlamaIndex.TS embedding model (`Settings.embedModel`, or the
 * `embedModel` of a `VectorStoreIndex`). Texts and nodes are embedded as documents (with
 * the document prefix), queries by `getQueryEmbedding` with the query prefix, as
 * asymmetric models such as e5 and bge expect.
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { RagrankEmbedding } from 'ragrank/llamaindex'
 * import { Document, VectorStoreIndex } from 'llamaindex'
 *
 * const embedModel = new RagrankEmbedding({ embedder: await Embedder.load('models/bge-small-en-v1.5') })
 * const index = await VectorStoreIndex.fromDocuments([new Document({ text: 'the cat sat on the mat' })], { embedModel })
 * const nodes = await index.asRetriever({ similarityTopK: 3 }).retrieve({ query: 'cat' })
 * ```
 */
export declare class RagrankEmbedding extends BaseEmbedding {
    /** The ragrank Embedder behind every vector. */
    readonly embedder: Embedder;
    constructor(options: RagrankEmbeddingOptions);
    /** One document vector (with the document prefix). */
    getTextEmbedding(text: string): Promise<number[]>;
    /** The query vector (with the query prefix); `null` for a query with no text (an image), as LlamaIndex's own models. */
    getQueryEmbedding(query: MessageContentDetail): Promise<number[] | null>;
}
