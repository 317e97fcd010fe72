/**
 * `ragrank/opensearch`: OpenSearch 2.x as a first stage (BM25, kNN with the k-NN plugin's Lucene engine,
 * both), a node store for `AutoMergingRetriever`, and bulk ingestion. Needs the optional peer dependency
 * `@opensearch-project/opensearch` only when you pass `node` instead of a `client`.
 * @packageDocumentation
 */
import { packageRequire } from '../internal/package-require.js';
import { queryDslEngine } from './query-dsl.js';
const opensearch = queryDslEngine({
    engine: 'OpenSearch',
    clientPackage: '@opensearch-project/opensearch',
    loadClient: () => packageRequire('@opensearch-project/opensearch').Client,
    vectorType: 'knn_vector',
    // The k-NN query with its filter inside: the Lucene engine filters while it searches, so k matching
    // documents come back. ef_search plays num_candidates' part.
    knnSearch: (field, vector, k, numCandidates, filters) => ({
        query: {
            knn: {
                [field]: {
                    vector,
                    k,
                    method_parameters: { ef_search: numCandidates },
                    ...(filters.length ? { filter: { bool: { filter: filters } } } : {}),
                },
            },
        },
    }),
    // The Lucene engine: faiss and nmslib need native libraries a minimal install may lack.
    vectorMapping: (dims, vectorIndex) => ({
        type: 'knn_vector',
        dimension: dims,
        method: {
            name: 'hnsw',
            engine: 'lucene',
            space_type: 'cosinesimil',
            ...(vectorIndex ? { parameters: vectorIndex } : {}),
        },
    }),
    vectorDims: (m) => (typeof m.dimension === 'number' ? m.dimension : undefined),
    indexSettings: () => ({ 'index.knn': true }),
});
/**
 * A `Retriever` over an OpenSearch index: `mode: 'bm25'` (match on the text field, or on ragrank's tokens
 * with `analysis`), `'knn'` (the query embedded with `embed`), `'hybrid'` (both in one `_msearch`, fused in
 * ragrank: the engine's hybrid query needs the neural-search plugin). `filter` becomes OpenSearch filter clauses.
 *
 * @example
 * ```ts
 * import { AutoMergingRetriever, HierarchicalSplitter } from 'ragrank'
 * import { ingestOpenSearch, OpenSearchNodeStore, OpenSearchRetriever } from 'ragrank/opensearch'
 *
 * const node = 'http://127.0.0.1:9200'
 * // Korean analysed by ragrank (character bigrams), leaves indexed, every node stored in docs-nodes
 * const splitter = new HierarchicalSplitter({ blockSizes: [512, 128] })
 * await ingestOpenSearch({ node, index: 'docs', documents, splitter, analysis: { cjk: 'bigram' } })
 * const leaves = new OpenSearchRetriever({ node, index: 'docs', analysis: { cjk: 'bigram' } }) // mode 'bm25'
 * const merged = new AutoMergingRetriever({ retriever: leaves, store: new OpenSearchNodeStore({ node, index: 'docs-nodes' }) })
 * await merged.retrieve('조석은 왜 생기나', { topK: 5 })
 * ```
 */
export class OpenSearchRetriever extends opensearch.Retriever {
}
/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export class OpenSearchNodeStore extends opensearch.NodeStore {
}
/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine knn_vector on the Lucene engine). */
export const createOpenSearchIndex = opensearch.createIndex;
/** Deletes an index; a missing one is not an error. */
export const deleteOpenSearchIndex = opensearch.deleteIndex;
/**
 * Indexes documents into OpenSearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export const ingestOpenSearch = opensearch.ingest;
export * from './dsl-exports.js';
