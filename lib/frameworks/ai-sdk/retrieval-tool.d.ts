import { type Tool } from 'ai';
import { type RetrieveFilter, type Retriever } from '../../retrieval/retriever.js';
/** Options of `retrievalTool`. */
export interface RetrievalToolOptions {
    /** `Bm25Index`, `VectorRetriever`, `HybridRetriever`, `AutoMergingRetriever`, `CompressionRetriever`, ... */
    retriever: Retriever;
    /** Documents per search (default 5). */
    topK?: number;
    /** What the model reads to decide when to call the tool. */
    description?: string;
    /** Passed to every search (e.g. the tenant); the retriever must declare `supportsFilter`. */
    filter?: RetrieveFilter;
}
/** What the tool's `execute` returns: one entry per document found, best first. */
export interface RetrievedDocument {
    /** The document's id in the index. */
    id: string;
    /** Its text (`''` when the retriever returned none). */
    text: string;
    /** The retriever's score: higher is better. */
    score: number;
    /** A copy of its metadata (`{}` when it has none). */
    meta: Record<string, unknown>;
}
/** What the model sends: the search query. */
export interface RetrievalToolInput {
    /** What to search the documents for. */
    query: string;
}
/**
 * A ragrank retriever as an AI SDK tool (`tools: { search: retrievalTool({ retriever }) }`):
 * the model calls it with `{ query }` and gets the documents found, each with its id, text,
 * score and metadata. The SDK's `abortSignal` for the call reaches the retriever.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai'
 * import { generateText, stepCountIs } from 'ai'
 * import { retrievalTool } from 'ragrank/ai-sdk'
 *
 * const { text } = await generateText({
 *   model: openai('gpt-4o-mini'),
 *   tools: { search: retrievalTool({ retriever: bm25, topK: 3 }) },
 *   stopWhen: stepCountIs(3),
 *   prompt: 'Where did the cat sit?',
 * })
 * ```
 */
export declare function retrievalTool(options: RetrievalToolOptions): Tool<RetrievalToolInput, RetrievedDocument[]>;
