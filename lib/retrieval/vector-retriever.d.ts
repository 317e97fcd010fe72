import { type RetrieveFilter, type RetrieveOptions, type Retriever, type ScoredDocument } from './retriever.js';
/** What `VectorRetriever` needs of an index: exact or approximate top-k by vector (sync or async). */
export interface VectorSearchIndex {
    /** The top `topK` vectors for `query`, best first, honouring `filter` when `supportsFilter`. */
    search(query: Float32Array, options: {
        topK?: number;
        filter?: RetrieveFilter;
    }): readonly {
        /** The vector's id. */
        id: string;
        /** Its score, higher is better. */
        score: number;
    }[] | Promise<readonly {
        /** The vector's id. */
        id: string;
        /** Its score, higher is better. */
        score: number;
    }[]>;
    /**
     * The async single-query search, used instead of `search` when present (`VectorIndex`'s
     * coalesces concurrent calls into batches, off the event loop).
     */
    searchAsync?(query: Float32Array, options: {
        topK?: number;
        filter?: RetrieveFilter;
        signal?: AbortSignal;
    }): Promise<readonly {
        /** The vector's id. */
        id: string;
        /** Its score, higher is better. */
        score: number;
    }[]>;
    /** True when `search` honours `filter` inside its scan; without it the retriever refuses filters. */
    readonly supportsFilter?: boolean;
}
/** Whether an index honours `search(q, { topK, filter })` (`VectorIndex` declares it; a custom index may). */
export declare function indexSupportsFilter(index: VectorSearchIndex): boolean;
/** An object that embeds queries, such as `Embedder` (its `embedQuery` adds the query prefix). */
export interface QueryEmbedder {
    /** The query's vector. */
    embedQuery(text: string, options?: {
        signal?: AbortSignal;
    }): Promise<Float32Array>;
}
/** A function that embeds a query, e.g. a call to an embeddings API. */
export type EmbedFunction = (text: string, options: {
    signal?: AbortSignal;
}) => Promise<Float32Array | readonly number[]>;
/** The stored fields of a document, looked up by id so hits can carry them. */
export type DocumentFields = {
    /** The document's text. */
    text?: string;
    /** The document's metadata. */
    meta?: Record<string, unknown>;
};
/** Where a `VectorRetriever` finds a hit's fields: a Map by id, or a function (sync or async). */
export type DocumentLookup = ReadonlyMap<string, DocumentFields> | ((id: string) => DocumentFields | undefined | Promise<DocumentFields | undefined>);
/** Options of `new VectorRetriever(options)`. */
export interface VectorRetrieverOptions {
    /** The index to search, such as a `VectorIndex`. */
    index: VectorSearchIndex;
    /** Embeds the query: an object with `embedQuery` (an `Embedder`) or a function. */
    embed: QueryEmbedder | EmbedFunction;
    /** Where hits get `text` and `meta` from; without it hits carry what the index returns. */
    documents?: DocumentLookup;
}
/** Embeds the query, then searches a vector index. */
export declare class VectorRetriever implements Retriever {
    #private;
    constructor(options: VectorRetrieverOptions);
    /** True when its index honours filters. */
    get supportsFilter(): boolean;
    /** Embeds `query` and returns the `topK` nearest documents, with their fields when `documents` was given. */
    retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>;
}
