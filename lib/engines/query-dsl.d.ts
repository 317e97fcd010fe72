import { type ClientOptions } from './client.js';
import { type IngestReport } from './ingest.js';
import { type CreateIndexOptions, type Dialect, EngineNodeStore, EngineRetriever, type EngineIngestOptions, type EngineRetrieverOptions } from './search-engine.js';
/** The entry points of a query-DSL engine (ragrank/elasticsearch, ragrank/opensearch). */
export interface QueryDslEngine {
    Retriever: new (options: ClientOptions & EngineRetrieverOptions) => EngineRetriever;
    NodeStore: new (options: ClientOptions & {
        index: string;
    }) => EngineNodeStore;
    createIndex(options: ClientOptions & CreateIndexOptions): Promise<void>;
    deleteIndex(options: ClientOptions & {
        index: string;
    }): Promise<void>;
    ingest(options: ClientOptions & EngineIngestOptions): Promise<IngestReport>;
}
/**
 * The entry points of the engine `d` describes, over the shared modules: each checks its options, then makes
 * the transport (the given `client`'s, or a client of `d.clientPackage` made from `node`), which the one-shot
 * calls close when they end.
 */
export declare function queryDslEngine(d: Dialect): QueryDslEngine;
