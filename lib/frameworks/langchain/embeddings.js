import { Embeddings } from '@langchain/core/embeddings';
import { typeError } from '../../errors.js';
import { optionKeys, optionsObject, readValue } from '../../internal/validate.js';
import { embedderOption } from '../../models/embedder.js';
const EMBEDDINGS_FIELDS = optionKeys('embedder', 'maxConcurrency', 'maxRetries', 'onFailedAttempt');
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
export class RagrankEmbeddings extends Embeddings {
    /** The wrapped model. */
    embedder;
    constructor(fields) {
        const o = optionsObject(fields, 'fields', EMBEDDINGS_FIELDS);
        const embedder = embedderOption(o.embedder, 'fields.embedder');
        super(fields);
        this.embedder = embedder;
    }
    /** One vector per text, as arrays of numbers. */
    async embedDocuments(documents) {
        const block = await this.embedder.embedDocuments(documents);
        const { data, dim, count } = checkBlock(block);
        const rows = new Array(count);
        for (let i = 0; i < count; i++)
            rows[i] = Array.from(data.subarray(i * dim, (i + 1) * dim));
        return rows;
    }
    /** The query's vector, as an array of numbers. */
    async embedQuery(document) {
        const v = await this.embedder.embedQuery(document);
        if (!readValue(() => v instanceof Float32Array))
            throw typeError('embedder.embedQuery must resolve to a Float32Array');
        return Array.from(v);
    }
}
function checkBlock(v) {
    const b = v;
    if (typeof b !== 'object' ||
        b === null ||
        !(b.data instanceof Float32Array) ||
        !Number.isInteger(b.dim) ||
        !Number.isInteger(b.count) ||
        b.data.length !== b.dim * b.count)
        throw typeError('embedder.embedDocuments must resolve to { data: Float32Array, dim, count }');
    return b;
}
