import type { ChatGenerator, ChatRequest } from './chat.js';
/** What an LLM component does when a call fails or the reply is unusable: throw, or report it and fall back. */
export interface FallbackPolicy {
    raise: boolean;
    onFailure: (error: Error) => void;
}
/**
 * Reads the `raiseOnFailure` and `onFailure` options every LLM component takes. Without
 * `onFailure`, each fallback is a process warning (`RAGRANK_LLM_FALLBACK`) saying `warning`.
 */
export declare function fallbackPolicy(o: Record<string, unknown>, warning: string): FallbackPolicy;
/**
 * One chat call whose reply must be a JSON object, read by `parse` (which gets the parsed
 * object and the raw text, for error messages). `abortable`, so a custom generator that
 * ignores the signal cannot hold the caller. A reply without `{ text }`, or that is not
 * JSON, rejects with `ERR_LLM_REPLY`.
 */
export declare function chatJson<T>(chat: ChatGenerator, request: ChatRequest, parse: (reply: Record<string, unknown>, text: string) => T): Promise<T>;
/**
 * Runs `work` (one LLM call or several). A failure throws when the policy says so, else is
 * reported and `fallback()` is returned. An abort always rejects with an AbortError, never
 * falls back: the caller asked to stop, not for a degraded answer.
 */
export declare function withFallback<T>(policy: FallbackPolicy, signal: AbortSignal | undefined, work: () => Promise<T>, fallback: () => T): Promise<T>;
