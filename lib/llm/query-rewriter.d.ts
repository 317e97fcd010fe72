import { type ChatGenerator, type ChatMessage } from './chat.js';
/** How a variant departs from the standalone query. */
export type RewriteStrategy = 'synonyms' | 'broader-narrower' | 'cause-effect';
/** Every `RewriteStrategy`, in the order `QueryRewriter` uses them by default. */
export declare const REWRITE_STRATEGIES: readonly RewriteStrategy[];
/** Options of `new QueryRewriter(options)`. */
export interface QueryRewriterOptions {
    /** Default: `new OpenAIChatGenerator()` (needs `OPENAI_API_KEY`). */
    chatGenerator?: ChatGenerator;
    /** Variants per rewrite (default 3; 0 for the standalone query only). */
    variants?: number;
    /** Strategies, used in turn for the variants (default all three). */
    strategies?: readonly RewriteStrategy[];
    /** Throw on a failed call or an unusable reply instead of falling back to the last user turn (default false). */
    raiseOnFailure?: boolean;
    /** Told about each failure that led to the fallback (default: a process warning). */
    onFailure?: (error: Error) => void;
}
/** What `QueryRewriter.rewrite` returns. */
export interface Rewrite {
    /** The last user turn made self-contained (pronouns and ellipses resolved from the conversation). */
    query: string;
    /** False for chit-chat, greetings and thanks: nothing to look up. */
    needsRetrieval: boolean;
    /** Alternative phrasings for recall, each with its strategy; empty when no retrieval is needed. */
    variants: {
        /** How this variant departs from `query`. */
        strategy: RewriteStrategy;
        /** The variant's text. */
        query: string;
    }[];
    /** The conversation's language as the model named it (e.g. `ko`), if it did. */
    language?: string;
    /** True when the model's reply was unusable and `query` is the last user turn as is. */
    fallback: boolean;
}
/**
 * Turns a conversation into what a retriever needs: a standalone query, whether to search
 * at all, and variants by named strategies, all in the conversation's language, in one
 * LLM call. Also a variant source for `MultiQueryRetriever` (`queries: rewriter`).
 */
export declare class QueryRewriter {
    #private;
    constructor(options?: QueryRewriterOptions);
    /** Rewrites a conversation (`[{ role, content }]`, the last user turn being the question) or a lone question. */
    rewrite(conversation: string | readonly ChatMessage[], options?: {
        signal?: AbortSignal;
    }): Promise<Rewrite>;
    /** For `MultiQueryRetriever`: the standalone query and the variants of a lone question (none if it needs no search). */
    variants(query: string, options?: {
        signal?: AbortSignal;
    }): Promise<string[]>;
}
/** Reads the model's JSON; wrong types make the whole reply unusable, bad variants are dropped. */
export declare function parseRewrite(o: Record<string, unknown>, text: string, plan: readonly RewriteStrategy[]): Rewrite;
