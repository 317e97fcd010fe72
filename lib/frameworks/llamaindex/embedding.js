import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { embedderOption } from '../../models/embedder.js';
import { optionKeys, optionsObject, positiveInteger } from '../../internal/validate.js';
const EMBEDDING_KEYS = optionKeys('embedder', 'embedBatchSize');
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
export class RagrankEmbedding extends BaseEmbedding {
    /** The ragrank Embedder behind every vector. */
    embedder;
    constructor(options) {
        const o = optionsObject(options, 'options', EMBEDDING_KEYS);
        const embedder = embedderOption(o.embedder, 'options.embedder');
        const batch = o.embedBatchSize === undefined ? 64 : positiveInteger(o.embedBatchSize, 'options.embedBatchSize');
        super();
        this.embedder = embedder;
        this.embedBatchSize = batch;
        this.embedInfo = { dimensions: this.embedder.dim };
        // A property on BaseEmbedding, not a method: one native call for the whole batch.
        this.getTextEmbeddings = async (texts) => rows(await this.embedder.embedDocuments(texts));
    }
    /** One document vector (with the document prefix). */
    async getTextEmbedding(text) {
        const [row] = rows(await this.embedder.embedDocuments([text]));
        return row;
    }
    /** The query vector (with the query prefix); `null` for a query with no text (an image), as LlamaIndex's own models. */
    async getQueryEmbedding(query) {
        const text = typeof query === 'string' ? query : query?.type === 'text' ? query.text : undefined;
        if (text === undefined)
            return null;
        return Array.from(await this.embedder.embedQuery(text));
    }
}
/** An `Embeddings` block as LlamaIndex's arrays of numbers, one per text. */
function rows({ data, dim, count }) {
    return Array.from({ length: count }, (_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim)));
}
