/**
 * `ragrank/elasticsearch`: Elasticsearch 8.x / 9.x as a first stage (BM25, kNN, both), a node store for
 * `AutoMergingRetriever`, and bulk ingestion. Needs the optional peer dependency `@elastic/elasticsearch`
 * (8.19.x runs on Node 20) only when you pass `node` instead of a `client`.
 * @packageDocumentation
 */
import { packageRequire } from '../internal/package-require.js';
import { queryDslEngine } from './query-dsl.js';
const elasticsearch = queryDslEngine({
    engine: 'Elasticsearch',
    clientPackage: '@elastic/elasticsearch',
    loadClient: () => packageRequire('@elastic/elasticsearch').Client,
    vectorType: 'dense_vector',
    // Top-level knn with its filter inside: a pre-filter, so k matching documents come back.
    knnSearch: (field, vector, k, numCandidates, filters) => ({
        knn: {
            field,
            query_vector: vector,
            k,
            num_candidates: numCandidates,
            ...(filters.length ? { filter: filters } : {}),
        },
    }),
    // Float HNSW unless told otherwise: the default int8_hnsw quantization costs recall (bench/suites/engines.mjs).
    vectorMapping: (dims, vectorIndex) => ({
        type: 'dense_vector',
        dims,
        index: true,
        similarity: 'cosine',
        index_options: vectorIndex ?? { type: 'hnsw' },
    }),
    vectorDims: (m) => (typeof m.dims === 'number' ? m.dims : undefined),
    indexSettings: () => ({}),
});
/**
 * A `Retriever` over an Elasticsearch index: `mode: 'bm25'` (match on the text field, or on ragrank's tokens
 * with `analysis`), `'knn'` (the query embedded with `embed`), `'hybrid'` (both in one `_msearch`, fused in
 * ragrank: the engine's RRF retriever needs a paid licence). `filter` becomes Elasticsearch filter clauses.
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { ElasticsearchRetriever, ingestElasticsearch } from 'ragrank/elasticsearch'
 *
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2')
 * await ingestElasticsearch({ node: 'http://127.0.0.1:9200', index: 'docs', documents, embedder }) // [{ id, text, meta }]
 * const retriever = new ElasticsearchRetriever({ node: 'http://127.0.0.1:9200', index: 'docs', mode: 'hybrid', embed: embedder })
 * const hits = await retriever.retrieve('how do tides work', { topK: 5, filter: { meta: { tenant: 'acme' } } })
 * await retriever.close()
 * ```
 */
export class ElasticsearchRetriever extends elasticsearch.Retriever {
}
/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export class ElasticsearchNodeStore extends elasticsearch.NodeStore {
}
/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine dense_vector). */
export const createElasticsearchIndex = elasticsearch.createIndex;
/** Deletes an index; a missing one is not an error. */
export const deleteElasticsearchIndex = elasticsearch.deleteIndex;
/**
 * Indexes documents into Elasticsearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export const ingestElasticsearch = elasticsearch.ingest;
export * from './dsl-exports.js';
