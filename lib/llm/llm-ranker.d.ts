import type { ChatGenerator, JsonResponseFormat } from './chat.js';
import { type Candidate } from '../retrieval/dedupe.js';
/** A ranked document: the input (a string becomes `{ text }`) with a rank-based score and its input position. */
export type LLMRanked<D> = (D extends string ? {
    /** The candidate string. */
    text: string;
} : D) & {
    /** `1 / rank` (1, 1/2, 1/3, ...): comparable across calls and ready for rank fusion. */
    score: number;
    /** Position in the input list. */
    index: number;
    /** The input's meta, plus `priorScore` when the input had a score. */
    meta: Record<string, unknown>;
};
/** Ranks a long list in overlapping windows, as RankGPT does (see docs/LLM.md). */
export interface SlidingWindow {
    /** Documents per LLM call. */
    size: number;
    /** Distance between window starts (default half the size); windows overlap by `size - step`. */
    step?: number;
    /** Windows ranked at once (default 4). */
    concurrency?: number;
}
/** Options of `new LLMRanker(options)`. */
export interface LLMRankerOptions {
    /** Default: `new OpenAIChatGenerator()` (needs `OPENAI_API_KEY`). */
    chatGenerator?: ChatGenerator;
    /** A template with exactly `{{query}}` and `{{documents}}`; the reply must still be `{"documents":[{"index":n},...]}`. */
    prompt?: string;
    /** Default 10. */
    topK?: number;
    /** Throw on a failed call or an unusable reply instead of returning the input order (default false). */
    raiseOnFailure?: boolean;
    /** Rank long candidate lists in overlapping windows (see docs/LLM.md); by default one call sees all. */
    window?: SlidingWindow;
    /** Told about each failure that led to the fallback order (default: a process warning). */
    onFailure?: (error: Error) => void;
}
/** Options of `LLMRanker.rerank`. */
export interface LLMRerankOptions {
    /** Documents to return at most (default: the ranker's `topK`). */
    topK?: number;
    /** Cancels the LLM calls; the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
}
/** The prompt `LLMRanker` uses by default; a custom `prompt` needs the same `{{query}}` and `{{documents}}` slots. */
export declare const DEFAULT_LLM_RANKER_PROMPT = "Your task is to order search results by how well they help answer a search query.\n\nQuery:\n{{query}}\n\nCandidate documents, numbered from 1:\n{{documents}}\n\nInstructions:\n- List the numbers of the documents that help answer the query, the most useful first.\n- Leave out every document that does not help; if none does, give an empty list.\n- Use each number at most once, and only numbers shown above.\n- Reply with one JSON object and nothing else, in this form: {\"documents\": [{\"index\": 3}, {\"index\": 1}]}";
/** The schema sent as `response_format`; servers that honour it can only produce a parseable reply. */
export declare const RANKING_FORMAT: JsonResponseFormat;
/**
 * Reranks candidates with a language model, as Haystack's LLMRanker: the model sees the
 * query and the numbered documents and names the relevant ones, best first, so it also
 * decides how many to keep. Same `rerank(query, documents, { topK, signal })` as
 * `CrossEncoder`, so either fits wherever a ranker is expected.
 *
 * @example
 * ```ts
 * import { Bm25Index, LLMRanker, OpenAIChatGenerator } from 'ragrank'
 *
 * // OPENAI_API_KEY for OpenAI, or any OpenAI-compatible server:
 * const llm = new OpenAIChatGenerator({ baseURL: 'http://localhost:11434/v1', model: 'qwen2.5' })
 * const ranker = new LLMRanker({ chatGenerator: llm, topK: 5 })
 * const candidates = await index.retrieve(query, { topK: 20 }) // any retriever
 * const top = await ranker.rerank(query, candidates) // score = 1 / rank, meta.priorScore = the retriever's
 * ```
 */
export declare class LLMRanker {
    #private;
    constructor(options?: LLMRankerOptions);
    /**
     * The relevant documents, best first, at most `topK`. Duplicates are sent once, by the
     * rankers' one rule (`dedupe`: the same `id`, or without ids the same text): the copy
     * with the highest prior score, at the first copy's position; `index` is that copy's.
     * On a failed call or an unusable reply the input order is returned (cut to `topK`)
     * unless `raiseOnFailure`; an empty list from the model means none is relevant and
     * gives `[]`.
     */
    rerank<D extends Candidate>(query: string, documents: readonly D[], options?: LLMRerankOptions): Promise<LLMRanked<D>[]>;
}
/**
 * 0-based positions from a ranking reply. Entries may be `{ "index": n }` or bare `n`, and
 * `n` a number or an integral string (`"3"`: models often quote numbers); duplicates,
 * out-of-range and non-integer indices are dropped. Entries that are all unusable make the
 * reply unusable; an empty list is a valid "nothing is relevant".
 */
export declare function parseRanking(reply: Record<string, unknown>, text: string, count: number): number[];
