import type { ClientOptions } from './client.js';
import type { CreateIndexOptions, EngineRetrieverOptions } from './search-engine.js';
declare const elasticsearch: import("./query-dsl.js").QueryDslEngine;
/** Options of `new ElasticsearchRetriever(options)`: a `client` or `node`, and the retriever's. */
export type ElasticsearchRetrieverOptions = ClientOptions & EngineRetrieverOptions;
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
export declare class ElasticsearchRetriever extends elasticsearch.Retriever {
}
/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export declare class ElasticsearchNodeStore extends elasticsearch.NodeStore {
}
/** Options of `createElasticsearchIndex`: a `client` or `node`, and the index's. */
export type ElasticsearchIndexOptions = ClientOptions & CreateIndexOptions;
/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine dense_vector). */
export declare const createElasticsearchIndex: (options: ElasticsearchIndexOptions) => Promise<void>;
/** Deletes an index; a missing one is not an error. */
export declare const deleteElasticsearchIndex: (options: ClientOptions & {
    index: string;
}) => Promise<void>;
/**
 * Indexes documents into Elasticsearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export declare const ingestElasticsearch: (options: ClientOptions & import("./search-engine.js").EngineIngestOptions) => Promise<import("./ingest.js").IngestReport>;
export * from './dsl-exports.js';
