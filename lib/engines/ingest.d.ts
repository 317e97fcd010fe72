import type { HierarchyNode } from '../splitting/splitter.js';
import { type TextAnalysis } from './analysis.js';
/** A document to index. Its `id` is the engine's id, so indexing it again replaces it (never a duplicate). */
export interface IngestDocument {
    /** The engine's document id (or the root of its nodes when split). */
    id: string;
    /** The text indexed for BM25 and embedded. */
    text: string;
    /** Metadata, stored and matched by filters. */
    meta?: Record<string, unknown>;
    /** Its embedding, when you computed it yourself (otherwise give `embedder`, or index no vectors). */
    vector?: Float32Array | readonly number[];
}
/** A hierarchy node's place in its tree, stored so a node store can rebuild `StoredNode`s. */
export interface NodeFields {
    parentId: string | null;
    childrenIds: string[];
    level: number;
    blockSize: number;
    sourceId: string;
    start: number;
    end: number;
}
/** One row or engine document, as a sink writes it. */
export interface IngestRecord {
    id: string;
    text: string;
    meta?: Record<string, unknown>;
    vector?: number[];
    /** ragrank's analysis of `text`, space-joined (with `analysis`). */
    tokens?: string;
    /** Set for every node of a split document: the sink also writes it to its node store. */
    node?: NodeFields;
    /** False for the inner nodes of a split document: they go to the node store only, not to the search index. */
    searchable: boolean;
}
/** A document the engine refused. `retryable` ones (429) were retried `retries` times first. */
export interface RejectedDocument {
    /** The record's id. */
    id: string;
    /** The engine's HTTP status for it (e.g. 400 for a mapping conflict, 429). */
    status: number;
    /** The engine's reason, as it gave it. */
    reason: string;
    /** Whether it was refused for a transient reason (429, 503), after the retries. */
    retryable: boolean;
}
/** What an engine adapter gives ingestion: where records go. */
export interface IngestSink {
    readonly engine: string;
    /** Creates the index / table when missing, else checks it can take these records (vector field, dimension). */
    prepare(info: {
        dims?: number;
        tokens: boolean;
        nodes: boolean;
    }, signal?: AbortSignal): Promise<void>;
    /** One bulk request. Throws for a failure of the whole request; returns the documents refused one by one. */
    write(records: IngestRecord[], signal?: AbortSignal): Promise<RejectedDocument[]>;
    /** Makes the writes visible to searches. */
    finish(signal?: AbortSignal): Promise<void>;
}
/** What `onProgress` is told after each bulk request. */
export interface IngestProgress {
    /** Input documents read so far. */
    documents: number;
    /** Records (documents, or nodes of split documents) the engine accepted. */
    indexed: number;
    /** Records the engine refused (see `IngestReport.rejectedDocuments`). */
    rejected: number;
    /** Retries made so far (requests and documents). */
    retries: number;
}
/** What an ingestion resolves with (and, on failure, the error's `report`). */
export interface IngestReport extends IngestProgress {
    /** Bulk requests made. */
    batches: number;
    /** The refused documents with the engine's reason, for a re-run or a fix. */
    rejectedDocuments: RejectedDocument[];
    /** Wall time in milliseconds. */
    ms: number;
}
/** Something that embeds document texts: an `Embedder` (`embedDocuments`) or a function. */
export type DocumentEmbedder = {
    /** One vector per text, row-major. */
    embedDocuments(texts: string[], options?: {
        signal?: AbortSignal;
    }): Promise<{
        /** `texts.length * dim` values. */
        data: Float32Array;
        /** Values per vector. */
        dim: number;
    }>;
} | ((texts: string[], options: {
    signal?: AbortSignal;
}) => Promise<readonly (Float32Array | readonly number[])[]>);
/** What every ingestion takes (each engine adds its connection and index options). */
export interface IngestOptions {
    /** The documents, read lazily (an async iterable streams from a file or a database). */
    documents: Iterable<IngestDocument> | AsyncIterable<IngestDocument>;
    /** Split each document hierarchically (a `HierarchicalSplitter`): leaves are indexed, every node is stored. */
    splitter?: {
        /** The nodes of the documents, as `HierarchicalSplitter.split` returns them. */
        split(docs: {
            id: string;
            text: string;
            meta?: Record<string, unknown>;
        }[]): HierarchyNode[];
    };
    /** Embeds the indexed texts (leaves when splitting) for kNN. */
    embedder?: DocumentEmbedder;
    /** Index ragrank's analysis of each text in the tokens field too (e.g. `{ cjk: 'bigram' }` for Korean). */
    analysis?: TextAnalysis;
    /** Records per bulk request (default 500). */
    batchSize?: number;
    /** Bulk requests in flight at most (default 2): more documents are read only when one completes. */
    concurrency?: number;
    /** Retries of a request or a document refused with 429 / 503 / a lost connection (default 8). */
    retries?: number;
    /** Backoff before the first retry, doubled each time with jitter (default 200 ms). */
    minDelayMs?: number;
    /** Longest backoff (default 10 s). */
    maxDelayMs?: number;
    /** Called after each bulk request. */
    onProgress?: (progress: IngestProgress) => void;
    /** Stops reading and writing; the promise rejects with an `AbortError` (what was written stays). */
    signal?: AbortSignal;
}
export declare const INGEST_KEYS: import("../internal/validate.js").OptionKeys;
/**
 * Indexes documents into an engine with bulk requests: bounded concurrency (the input is read only as fast
 * as the engine takes it), retries with exponential backoff on 429 / 503 / lost connections (whole requests
 * and single refused documents), idempotent ids (a re-run replaces, never duplicates), a progress callback,
 * and a report of the refused documents. When a request still fails after its retries, it throws that
 * error (code `ERR_ENGINE_OVERLOADED` / `ERR_ENGINE_UNREACHABLE` ...) with the partial `report` attached:
 * running the same ingestion again completes the job.
 */
export declare function ingestInto(sink: IngestSink, options: IngestOptions, known?: import("../internal/validate.js").OptionKeys): Promise<IngestReport>;
