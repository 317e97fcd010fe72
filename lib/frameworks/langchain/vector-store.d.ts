import type { Callbacks } from '@langchain/core/callbacks/manager';
import { type DocumentInterface } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { type MaxMarginalRelevanceSearchOptions, VectorStore } from '@langchain/core/vectorstores';
import { type Filter } from '../../indexes/filter.js';
import { VectorIndex, type VectorMetric, type VectorStorage } from '../../indexes/vector.js';
/** The options of `RagrankVectorStore`. */
export interface RagrankVectorStoreArgs {
    /**
     * The index to search and add to: one you built or loaded (its stored text and meta become
     * the Documents). Default: an index created on the first add, of the first vector's width.
     */
    index?: VectorIndex;
    /** The metric of the index created on the first add (default `'cosine'`). */
    metric?: VectorMetric;
    /** The storage of the index created on the first add (default `'f32'`). */
    storage?: VectorStorage;
}
/** The options of `addDocuments` and `addVectors`. */
export interface RagrankAddOptions {
    /** One id per document (default: each document's `id`, else a random UUID). An id already stored is replaced. */
    ids?: string[];
}
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
export declare class RagrankVectorStore extends VectorStore {
    #private;
    /** ragrank's filter language, `{ ids?, meta? }` (docs/FILTERS.md). */
    FilterType: Filter;
    _vectorstoreType(): string;
    constructor(embeddings: EmbeddingsInterface, args?: RagrankVectorStoreArgs);
    /** The index (undefined until the first add when none was given). */
    get index(): VectorIndex | undefined;
    /** Embeds the documents' `pageContent` and stores them; returns their ids. */
    addDocuments(documents: DocumentInterface[], options?: RagrankAddOptions): Promise<string[]>;
    /** Stores one vector per document, with its `pageContent` and `metadata`; returns their ids. */
    addVectors(vectors: number[][], documents: DocumentInterface[], options?: RagrankAddOptions): Promise<string[]>;
    /** Removes documents by id (unknown ids are ignored). */
    delete(params?: {
        ids: string[];
    }): Promise<void>;
    /** The `k` documents nearest to a query vector, each with its score, best first. */
    similaritySearchVectorWithScore(query: number[], k: number, filter?: this['FilterType']): Promise<[DocumentInterface, number][]>;
    /**
     * Maximal marginal relevance: fetches the `fetchK` (default 20) nearest documents that
     * pass `filter`, then picks `k` (default 4) of them, trading relevance to the query
     * against similarity to those already picked (`lambda` in [0, 1], default 0.5; 1 is pure
     * relevance). LangChain's own `maximalMarginalRelevance` does the picking.
     */
    maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<this['FilterType']>, _callbacks?: Callbacks): Promise<DocumentInterface[]>;
    /** A store of the texts, one metadata object per text (or one for all). */
    static fromTexts(texts: string[], metadatas: object[] | object, embeddings: EmbeddingsInterface, args?: RagrankVectorStoreArgs): Promise<RagrankVectorStore>;
    /** A store of the documents. */
    static fromDocuments(docs: DocumentInterface[], embeddings: EmbeddingsInterface, args?: RagrankVectorStoreArgs): Promise<RagrankVectorStore>;
}
