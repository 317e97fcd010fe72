import { randomUUID } from 'node:crypto';
import { Document } from '@langchain/core/documents';
import { maximalMarginalRelevance } from '@langchain/core/utils/math';
import { VectorStore } from '@langchain/core/vectorstores';
import { rangeError, typeError } from '../../errors.js';
import { filterParts } from '../../indexes/filter.js';
import { VectorIndex } from '../../indexes/vector.js';
import { documentId, finiteNumber, isArray, isPlainObject, optionKeys, optionsObject, readValue, stringArray, topK, } from '../../internal/validate.js';
const ARGS_KEYS = optionKeys('index', 'metric', 'storage');
const ADD_KEYS = optionKeys('ids');
const DELETE_KEYS = optionKeys('ids');
const MMR_KEYS = optionKeys('k', 'fetchK', 'lambda', 'filter');
/**
 * A LangChain `VectorStore` over ragrank's exact `VectorIndex`: every Document's
 * `pageContent` and `metadata` are stored with its vector and come back, with its id, on
 * every search. `filter` is ragrank's filter language, `{ ids?, meta? }` (docs/FILTERS.md),
 * applied inside the scan, so `k` matching documents come back; any other filter (a function,
 * as `MemoryVectorStore` takes) is a TypeError. Scores are the index's (cosine similarity by
 * default: higher is better). Metadata is stored as JSON: a value JSON cannot hold
 * (`undefined`, NaN, a function) is a TypeError naming the field.
 *
 * MMR needs the candidates' vectors, which the index does not return: the store keeps a
 * copy of each vector it added (4 bytes per value), and embeds the text of a candidate it did
 * not add (an index passed in).
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { RagrankEmbeddings, RagrankVectorStore } from 'ragrank/langchain'
 *
 * const embeddings = new RagrankEmbeddings({ embedder: await Embedder.load('Xenova/all-MiniLM-L6-v2') })
 * const store = await RagrankVectorStore.fromTexts(
 *   ['the cat sat on the mat', 'a kitten slept', 'the car drove off'],
 *   [{ kind: 'pet' }, { kind: 'pet' }, { kind: 'car' }],
 *   embeddings,
 * )
 * await store.similaritySearch('cat', 2, { meta: { kind: 'pet' } })
 * await store.maxMarginalRelevanceSearch('cat', { k: 2, fetchK: 10, lambda: 0.5 })
 * const retriever = store.asRetriever({ k: 2, filter: { meta: { kind: 'pet' } } })
 * ```
 */
export class RagrankVectorStore extends VectorStore {
    #index;
    #metric;
    #storage;
    /** Copies of the vectors added through this store, for MMR. */
    #vectors = new Map();
    _vectorstoreType() {
        return 'ragrank';
    }
    constructor(embeddings, args = {}) {
        const o = optionsObject(args, 'args', ARGS_KEYS);
        if (!hasMethods(embeddings, 'embedQuery', 'embedDocuments'))
            throw typeError('embeddings must be LangChain Embeddings (with embedQuery and embedDocuments)');
        if (o.index !== undefined && !readValue(() => o.index instanceof VectorIndex))
            throw typeError('args.index must be a ragrank VectorIndex');
        super(embeddings, args);
        this.#index = o.index;
        this.#metric = o.metric;
        this.#storage = o.storage;
        // Checked now, not on the first add: a bad metric would otherwise fail far from its cause.
        if (this.#index === undefined && (o.metric !== undefined || o.storage !== undefined))
            new VectorIndex({ dim: 1, metric: this.#metric, storage: this.#storage });
    }
    /** The index (undefined until the first add when none was given). */
    get index() {
        return this.#index;
    }
    /** Embeds the documents' `pageContent` and stores them; returns their ids. */
    async addDocuments(documents, options) {
        checkDocuments(documents);
        const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
        return this.addVectors(vectors, documents, options);
    }
    /** Stores one vector per document, with its `pageContent` and `metadata`; returns their ids. */
    async addVectors(vectors, documents, options) {
        checkDocuments(documents);
        const o = optionsObject(options, 'options', ADD_KEYS);
        if (!isArray(vectors) || vectors.length !== documents.length)
            throw typeError(`vectors must be an array of one vector per document (${documents.length})`);
        const given = o.ids === undefined ? undefined : stringArray(o.ids, 'options.ids');
        if (given && given.length !== documents.length)
            throw rangeError(`options.ids has ${given.length} ids for ${documents.length} documents`);
        if (documents.length === 0)
            return [];
        const ids = documents.map((d, i) => given ? given[i] : d.id === undefined || d.id === '' ? randomUUID() : documentId(d.id, `documents[${i}].id`));
        const rows = vectors.map((v, i) => {
            if (!isArray(v) && !readValue(() => v instanceof Float32Array))
                throw typeError(`vectors[${i}] must be an array of numbers`);
            return Float32Array.from(v);
        });
        this.#index ??= new VectorIndex({ dim: rows[0].length, metric: this.#metric, storage: this.#storage });
        this.#index.add(ids.map((id, i) => ({ id, vector: rows[i], text: documents[i].pageContent, meta: metadataOf(documents[i], i) })), { upsert: true });
        ids.forEach((id, i) => {
            this.#vectors.set(id, rows[i]);
        });
        return ids;
    }
    /** Removes documents by id (unknown ids are ignored). */
    async delete(params) {
        const o = optionsObject(params, 'params', DELETE_KEYS);
        if (o.ids === undefined)
            throw typeError('delete needs { ids }: the ids of the documents to remove');
        const ids = stringArray(o.ids, 'params.ids');
        this.#index?.remove(ids);
        for (const id of ids)
            this.#vectors.delete(id);
    }
    /** The `k` documents nearest to a query vector, each with its score, best first. */
    async similaritySearchVectorWithScore(query, k, filter) {
        const hits = await this.#search(query, topK(k, 4, 'k'), filter);
        return hits.map((h) => [toDocument(h), h.score]);
    }
    /**
     * Maximal marginal relevance: fetches the `fetchK` (default 20) nearest documents that
     * pass `filter`, then picks `k` (default 4) of them, trading relevance to the query
     * against similarity to those already picked (`lambda` in [0, 1], default 0.5; 1 is pure
     * relevance). LangChain's own `maximalMarginalRelevance` does the picking.
     */
    async maxMarginalRelevanceSearch(query, options, _callbacks) {
        const o = optionsObject(options, 'options', MMR_KEYS);
        const k = topK(o.k, 4, 'options.k');
        const fetchK = topK(o.fetchK, 20, 'options.fetchK');
        const lambda = o.lambda === undefined ? 0.5 : finiteNumber(o.lambda, 'options.lambda', 0, 1);
        const queryVector = await this.embeddings.embedQuery(query);
        const hits = await this.#search(queryVector, Math.max(fetchK, k), o.filter);
        if (hits.length === 0 || k === 0)
            return [];
        const vectors = await this.#candidateVectors(hits);
        const picked = maximalMarginalRelevance(queryVector, vectors, lambda, k);
        return picked.map((i) => toDocument(hits[i]));
    }
    /** A store of the texts, one metadata object per text (or one for all). */
    static async fromTexts(texts, metadatas, embeddings, args) {
        const list = stringArray(texts, 'texts');
        const docs = list.map((pageContent, i) => new Document({
            pageContent,
            metadata: (isArray(metadatas) ? metadatas[i] : metadatas),
        }));
        return RagrankVectorStore.fromDocuments(docs, embeddings, args);
    }
    /** A store of the documents. */
    static async fromDocuments(docs, embeddings, args) {
        const store = new RagrankVectorStore(embeddings, args);
        await store.addDocuments(docs);
        return store;
    }
    async #search(query, k, filter) {
        if (filter !== undefined) {
            if (typeof filter === 'function')
                throw typeError('RagrankVectorStore filters are ragrank filters ({ ids?, meta? }, docs/FILTERS.md), evaluated in the index: not functions');
            filterParts(filter, 'filter');
        }
        if (!isArray(query) && !readValue(() => query instanceof Float32Array))
            throw typeError('query must be a vector (an array of numbers)');
        if (this.#index === undefined || k === 0)
            return [];
        return this.#index.searchAsync(Float32Array.from(query), {
            topK: k,
            ...(filter === undefined ? {} : { filter: filter }),
        });
    }
    /** The candidates' vectors: the copies kept when they were added, else their text embedded. */
    async #candidateVectors(hits) {
        const missing = hits.filter((h) => !this.#vectors.has(h.id));
        const embedded = new Map();
        if (missing.length > 0) {
            if (missing.some((h) => typeof h.text !== 'string'))
                throw typeError('maxMarginalRelevanceSearch needs the vectors or the texts of the candidates: the index has neither');
            const vectors = await this.embeddings.embedDocuments(missing.map((h) => h.text));
            missing.forEach((h, i) => {
                embedded.set(h.id, vectors[i]);
            });
        }
        return hits.map((h) => embedded.get(h.id) ?? Array.from(this.#vectors.get(h.id)));
    }
}
function hasMethods(v, ...names) {
    return (typeof v === 'object' && v !== null && names.every((n) => typeof v[n] === 'function'));
}
function checkDocuments(documents) {
    if (!isArray(documents))
        throw typeError('documents must be an array of Documents');
    documents.forEach((d, i) => {
        if (!isPlainObject(d) || typeof d.pageContent !== 'string')
            throw typeError(`documents[${i}] must be a Document with a string pageContent`);
    });
}
function metadataOf(d, i) {
    if (d.metadata === undefined || d.metadata === null)
        return undefined;
    if (!isPlainObject(d.metadata))
        throw typeError(`documents[${i}].metadata must be an object`);
    return Object.keys(d.metadata).length === 0 ? undefined : d.metadata;
}
function toDocument(h) {
    return new Document({ pageContent: h.text ?? '', metadata: h.meta ?? {}, id: h.id });
}
