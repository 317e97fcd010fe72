import { type FuseOptions } from '../retrieval/fusion.js';
import { type RetrieveOptions, type Retriever, type ScoredDocument } from '../retrieval/retriever.js';
import type { EmbedFunction, QueryEmbedder } from '../retrieval/vector-retriever.js';
import type { NodeStore, StoredNode } from '../splitting/auto-merging.js';
import { type TextAnalysis } from './analysis.js';
import { type QueryClause } from './filter-dsl.js';
import { type IngestOptions, type IngestRecord, type IngestSink, type RejectedDocument } from './ingest.js';
import { type EngineTransport } from './transport.js';
/** What differs between Elasticsearch and OpenSearch for ragrank: the client, the kNN query and the vector mapping. */
export interface Dialect {
    readonly engine: EngineTransport['engine'];
    /** The official client package, loaded by `loadClient` only when options give a `node` URL. */
    readonly clientPackage: string;
    loadClient(): new (o: {
        node: string;
    }) => unknown;
    /** The mapping type of a vector field. */
    readonly vectorType: 'dense_vector' | 'knn_vector';
    knnSearch(field: string, vector: number[], k: number, numCandidates: number, filters: QueryClause[]): Record<string, unknown>;
    /** `vectorIndex`: the engine's own HNSW options (Elasticsearch `index_options`, OpenSearch `method.parameters`). */
    vectorMapping(dims: number, vectorIndex?: Record<string, unknown>): Record<string, unknown>;
    vectorDims(mapping: Record<string, unknown>): number | undefined;
    indexSettings(): Record<string, unknown>;
}
/** How an engine retriever searches: BM25 on text, kNN on vectors, or both fused in ragrank. */
export type EngineMode = 'bm25' | 'knn' | 'hybrid';
/** The fields of an index as ragrank's adapters use them (the defaults match `createIndex` and ingestion). */
export interface EngineFields {
    /** The text: returned with hits, matched by BM25 unless `analysis` is given (default `text`). */
    textField?: string;
    /** The metadata object filters read (default `meta`). */
    metaField?: string;
    /** The vector field (default `embedding`). */
    vectorField?: string;
    /** The whitespace-analyzed field holding ragrank's tokens, with `analysis` (default `tokens`). */
    tokensField?: string;
}
/** Options of the Elasticsearch and OpenSearch retrievers (with `client` or `node`). */
export interface EngineRetrieverOptions extends EngineFields {
    /** The index to search. */
    index: string;
    /** `bm25` (default), `knn`, or `hybrid`: both in one `_msearch` request, fused in ragrank. */
    mode?: EngineMode;
    /** Embeds queries for `knn` / `hybrid` (an `Embedder`, or a function). */
    embed?: QueryEmbedder | EmbedFunction;
    /** Analyze queries as the documents were (ragrank's analyzer into `tokensField`), e.g. `{ cjk: 'bigram' }`. */
    analysis?: TextAnalysis;
    /** kNN candidates per shard (default max(100, 2 * topK)); more is slower and closer to exact. */
    numCandidates?: number;
    /** For `hybrid`: hits each side fetches before fusion (default 4 * topK). */
    candidates?: number;
    /** For `hybrid`: how the two lists are fused (default RRF, k 60). */
    fusion?: FuseOptions;
    /** Check the mapping (index, fields, vector dimension) once before the first search (default true). */
    checkMapping?: boolean;
}
export declare const RETRIEVER_KEYS: import("../internal/validate.js").OptionKeys;
export declare function indexName(v: unknown, name?: string): string;
export declare function engineFields(o: Record<string, unknown>): Required<EngineFields>;
/** The `properties` of an index (or of the one index behind an alias); 404 becomes ERR_ENGINE_INDEX_NOT_FOUND. */
export declare function indexProperties(t: EngineTransport, index: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
/**
 * Checks that `index` has a vector field of the dialect's type and returns its dimension:
 * ERR_ENGINE_MAPPING when the field is missing or of another type.
 */
export declare function vectorFieldDims(d: Dialect, properties: Record<string, unknown>, index: string, field: string): number;
/**
 * A `Retriever` over an Elasticsearch or OpenSearch index: BM25 `match`, kNN, or both in one `_msearch`
 * request fused in ragrank (the engines' own hybrid / RRF need a licence or a plugin). Filters become the
 * engine's filter clauses (pre-filtering, so `topK` best matching documents come back).
 */
export declare class EngineRetriever implements Retriever {
    #private;
    readonly supportsFilter = true;
    constructor(transport: EngineTransport, dialect: Dialect, o: Record<string, unknown>);
    /** The search mode in use. */
    get mode(): EngineMode;
    /** Closes the client ragrank made from `node` (a `client` you passed stays open). */
    close(): Promise<void>;
    /** The best `topK` documents for `query` in the retriever's `mode`, with the call's `filter` as engine filter clauses. */
    retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>;
    /** kNN (or hybrid, with `query` for the BM25 side) with a vector you computed. */
    retrieveByVector(vector: Float32Array | readonly number[], options?: RetrieveOptions & {
        query?: string;
    }): Promise<ScoredDocument[]>;
}
/**
 * A `NodeStore` for `AutoMergingRetriever` over the node index ingestion writes: the parents of a result
 * are fetched by id in one `_mget` request.
 */
export declare class EngineNodeStore implements NodeStore {
    #private;
    constructor(transport: EngineTransport, index: string);
    /** Closes the client ragrank made from `node`. */
    close(): Promise<void>;
    /** The stored nodes for `ids`, in order; undefined where an id is unknown. */
    get(ids: string[]): Promise<(StoredNode | undefined)[]>;
}
/** Options of `createElasticsearchIndex` and `createOpenSearchIndex` (with `client` or `node`). */
export interface CreateIndexOptions extends EngineFields {
    /** The index to create. */
    index: string;
    /** Vector dimension: maps a vector field (cosine) when given. */
    dims?: number;
    /** Maps the whitespace-analyzed tokens field for ragrank's analysis (default false). */
    tokens?: boolean;
    /** BM25 parameters of the text fields (default k1 1.5, b 0.75, as `Bm25Index`). */
    k1?: number;
    /** See `k1`. */
    b?: number;
    /** Primary shards (default 1). */
    shards?: number;
    /** Default 0, so a single node is green. */
    replicas?: number;
    /**
     * The engine's vector index options: Elasticsearch `index_options` (default `{ type: 'hnsw' }`, float: its
     * own default int8_hnsw saves memory and loses recall), OpenSearch `method.parameters` (e.g. `{ m: 16 }`).
     */
    vectorIndex?: Record<string, unknown>;
}
/** The index body ragrank's adapters expect: text, keyword metadata (exact, case-sensitive filters), vectors. */
export declare function indexBody(d: Dialect, o: Required<EngineFields> & {
    dims?: number;
    tokens: boolean;
    k1: number;
    b: number;
    shards: number;
    replicas: number;
    vectorIndex?: Record<string, unknown>;
}): {
    settings: {
        number_of_shards: number;
        number_of_replicas: number;
        similarity: {
            ragrank_bm25: {
                type: string;
                k1: number;
                b: number;
            };
        };
    };
    mappings: {
        dynamic_templates: {
            meta_strings: {
                path_match: string;
                match_mapping_type: string;
                mapping: {
                    type: string;
                };
            };
        }[];
        properties: Record<string, unknown>;
    };
};
export declare function indexExists(t: EngineTransport, index: string, signal?: AbortSignal): Promise<boolean>;
export declare function createIndex(t: EngineTransport, d: Dialect, o: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
export declare function deleteIndex(t: EngineTransport, index: string, signal?: AbortSignal): Promise<void>;
export declare const CREATE_INDEX_KEYS: import("../internal/validate.js").OptionKeys;
/** Where ingestion writes in Elasticsearch / OpenSearch: `_bulk` with `index` actions on the documents' ids. */
export declare class EngineSink implements IngestSink {
    #private;
    constructor(t: EngineTransport, d: Dialect, o: {
        index: string;
        nodeIndex?: string;
        k1?: number;
        b?: number;
        vectorIndex?: Record<string, unknown>;
    } & EngineFields);
    get engine(): "Elasticsearch" | "OpenSearch";
    prepare(info: {
        dims?: number;
        tokens: boolean;
        nodes: boolean;
    }, signal?: AbortSignal): Promise<void>;
    write(records: IngestRecord[], signal?: AbortSignal): Promise<RejectedDocument[]>;
    finish(signal?: AbortSignal): Promise<void>;
}
/** Options of `ingestElasticsearch` and `ingestOpenSearch` (with `client` or `node`). */
export interface EngineIngestOptions extends IngestOptions, EngineFields {
    /** The index documents go to (created when missing). */
    index: string;
    /** Where the nodes of split documents go (default `<index>-nodes`). */
    nodeIndex?: string;
    /** BM25 parameters when the index is created (default 1.5 / 0.75, as `Bm25Index`). */
    k1?: number;
    /** See `k1`. */
    b?: number;
    /** The vector index options when the index is created (see `CreateIndexOptions.vectorIndex`). */
    vectorIndex?: Record<string, unknown>;
}
export declare const ENGINE_INGEST_KEYS: import("../internal/validate.js").OptionKeys;
