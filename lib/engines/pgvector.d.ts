import { type RetrieveOptions, type Retriever, type ScoredDocument } from '../retrieval/retriever.js';
import type { EmbedFunction, QueryEmbedder } from '../retrieval/vector-retriever.js';
import type { NodeStore, StoredNode } from '../splitting/auto-merging.js';
import { type IngestOptions, type IngestReport } from './ingest.js';
import { type PgQueryable } from './postgres.js';
/** `pool` (a `pg.Pool` or connected `pg.Client`) or `connectionString`. */
export interface PgConnectionOptions {
    /** A `pg.Pool` or connected `pg.Client` you configured (it stays open on `close()`). */
    pool?: PgQueryable;
    /** e.g. `postgres://user@127.0.0.1:5432/db`: a `pg.Pool` is made (needs the `pg` package). */
    connectionString?: string;
}
/** The table layout `createPgvectorTable` makes and ingestion writes. */
export interface PgColumns {
    /** Default `documents`. */
    table?: string;
    /** Defaults: `id`, `text`, `meta` (jsonb), `embedding` (vector). */
    idColumn?: string;
    /** See `idColumn`. */
    textColumn?: string;
    /** See `idColumn`. */
    metaColumn?: string;
    /** See `idColumn`. */
    vectorColumn?: string;
}
/** Options of `new PgvectorRetriever(options)`. */
export interface PgvectorRetrieverOptions extends PgConnectionOptions, PgColumns {
    /** Embeds text queries (an `Embedder`, or a function); `retrieveByVector` needs none. */
    embed?: QueryEmbedder | EmbedFunction;
    /** HNSW candidate list (`hnsw.ef_search`, default max(40, 2 * topK)): larger is slower and closer to exact. */
    efSearch?: number;
}
/**
 * A `Retriever` over a pgvector table: cosine kNN through the HNSW index, `filter` as a parameterised SQL
 * condition over the id and jsonb metadata columns (with pgvector's iterative scan, so a selective filter
 * still fills `topK`). Scores are cosine similarities.
 *
 * @example
 * ```ts
 * import pg from 'pg'
 * import { Bm25Index, Embedder, HybridRetriever } from 'ragrank'
 * import { ingestPgvector, PgvectorRetriever } from 'ragrank/pgvector'
 *
 * const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' })
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2')
 * await ingestPgvector({ pool, table: 'documents', documents, embedder }) // creates the table and HNSW index
 * const dense = new PgvectorRetriever({ pool, table: 'documents', embed: embedder })
 * // PostgreSQL's ts_rank is not BM25: pair the dense stage with a Bm25Index
 * const hybrid = new HybridRetriever({ retrievers: [bm25, dense] })
 * await hybrid.retrieve('how do tides work', { topK: 5, filter: { meta: { tenant: 'acme' } } })
 * ```
 */
export declare class PgvectorRetriever implements Retriever {
    #private;
    readonly supportsFilter = true;
    constructor(options: PgvectorRetrieverOptions);
    /** Ends the pool ragrank made from `connectionString` (a `pool` you passed stays open). */
    close(): Promise<void>;
    /** Embeds `query` with `embed` and returns the `topK` nearest rows that match `filter`. */
    retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>;
    /** The `topK` nearest rows to a vector you computed, that match `filter`. */
    retrieveByVector(vector: Float32Array | readonly number[], options?: RetrieveOptions): Promise<ScoredDocument[]>;
}
/** The nodes ingestion stored (table `<table>_nodes` by default), fetched by id in one query. */
export declare class PgvectorNodeStore implements NodeStore {
    #private;
    constructor(options: PgConnectionOptions & {
        table?: string;
    });
    /** Ends the pool ragrank made from `connectionString`. */
    close(): Promise<void>;
    /** The stored nodes for `ids`, in order; undefined where an id is unknown. */
    get(ids: string[]): Promise<(StoredNode | undefined)[]>;
}
export interface PgvectorTableOptions extends PgConnectionOptions, PgColumns {
    /** Vector dimension of the `vector(dims)` column and its HNSW (cosine) index. */
    dims: number;
    /** Also a node table for split documents (default false; named `<table>_nodes`). */
    nodes?: boolean;
    /** The node table's name (default `<table>_nodes`). */
    nodeTable?: string;
}
/** Creates (if missing) the table, its HNSW and jsonb indexes, and optionally the node table. */
export declare function createPgvectorTable(options: PgvectorTableOptions): Promise<void>;
export interface PgvectorIngestOptions extends IngestOptions, PgConnectionOptions, PgColumns {
    /** Where the nodes of split documents go (default `<table>_nodes`). */
    nodeTable?: string;
}
/**
 * Indexes documents into a pgvector table (see `IngestOptions`; `analysis` does not apply): the table is
 * created when missing, an existing one must have a vector column of the documents' dimension.
 */
export declare function ingestPgvector(options: PgvectorIngestOptions): Promise<IngestReport>;
export * from './ingest-exports.js';
export type { PgQueryable, PgPool, PgRow } from './postgres.js';
