import type { EmbedFunction } from '../retrieval/vector-retriever.js';
/** `embed` as given to an engine retriever: an Embedder (anything with embedQuery) or a function. */
export declare function queryEmbedding(embed: unknown, name?: string): EmbedFunction | undefined;
/** A query vector as plain finite numbers, the form both engines' JSON and pgvector take. */
export declare function vectorArray(v: unknown, name: string): number[];
export declare function embedQuery(embed: EmbedFunction, query: string, signal: AbortSignal | undefined): Promise<number[]>;
