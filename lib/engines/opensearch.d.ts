import type { ClientOptions } from './client.js';
import type { CreateIndexOptions, EngineRetrieverOptions } from './search-engine.js';
declare const opensearch: import("./query-dsl.js").QueryDslEngine;
/** Options of `new OpenSearchRetriever(options)`: a `client` or `node`, and the retriever's. */
export type OpenSearchRetrieverOptions = ClientOptions & EngineRetrieverOptions;
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
export declare class OpenSearchRetriever extends opensearch.Retriever {
}
/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export declare class OpenSearchNodeStore extends opensearch.NodeStore {
}
/** Options of `createOpenSearchIndex`: a `client` or `node`, and the index's. */
export type OpenSearchIndexOptions = ClientOptions & CreateIndexOptions;
/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine knn_vector on the Lucene engine). */
export declare const createOpenSearchIndex: (options: OpenSearchIndexOptions) => Promise<void>;
/** Deletes an index; a missing one is not an error. */
export declare const deleteOpenSearchIndex: (options: ClientOptions & {
    index: string;
}) => Promise<void>;
/**
 * Indexes documents into OpenSearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export declare const ingestOpenSearch: (options: ClientOptions & import("./search-engine.js").EngineIngestOptions) => Promise<import("./ingest.js").IngestReport>;
export * from './dsl-exports.js';
