import type { ChatGenerator, ChatMessage, ChatReply, ChatRequest, ChatUsage } from './chat.js';
/** The model `OpenAIChatGenerator` asks for when none is given. */
export declare const DEFAULT_CHAT_MODEL = "gpt-4.1-mini";
/** Options of `new OpenAIChatGenerator(options)`. */
export interface OpenAIChatGeneratorOptions {
    /** Default `gpt-4.1-mini`. */
    model?: string;
    /** Any OpenAI-compatible server, e.g. `http://localhost:11434/v1` (Ollama). Default `OPENAI_BASE_URL` or OpenAI's. */
    baseURL?: string;
    /** Default `OPENAI_API_KEY`; required only for api.openai.com. */
    apiKey?: string;
    /** Per attempt, from request to the whole reply (default 60 000). */
    timeoutMs?: number;
    /**
     * The largest reply accepted, in bytes (default 16 MiB): a bigger one is `ERR_NETWORK`, not
     * retried, and the rest of it is not read. Error replies are read up to 64 KiB for the message.
     */
    maxReplyBytes?: number;
    /** Extra attempts after a 429, a 5xx, a timeout or a network error (default 2). */
    maxRetries?: number;
    /** First backoff delay; doubles per retry, with jitter, capped at 8 s, unless the server sends Retry-After (default 500). */
    retryDelayMs?: number;
    /** Default 0, for repeatable rankings. */
    temperature?: number;
    /** `json_schema` (default) sends the schema; `json_object` only asks for JSON (older llama.cpp, some proxies); `none` sends neither. */
    responseFormat?: 'json_schema' | 'json_object' | 'none';
    /**
     * The wire format: `chat-completions` (default: `POST /chat/completions`, what compatible
     * servers speak) or `responses` (`POST /responses`, OpenAI's Responses API, which Haystack's
     * default generator uses). Same requests and replies on this side either way.
     */
    api?: 'chat-completions' | 'responses';
    /** Extra fields merged into every request body (e.g. `{ seed: 1 }`). */
    body?: Record<string, unknown>;
    /** Extra headers (e.g. an organisation or a proxy token). */
    headers?: Record<string, string>;
    /** Environment to read `OPENAI_API_KEY` and `OPENAI_BASE_URL` from (default `process.env`). */
    env?: NodeJS.ProcessEnv;
}
/**
 * A chat-completions client over `fetch`, for OpenAI and the servers that copy its API
 * (Ollama, vLLM, llama.cpp, LiteLLM); with `api: 'responses'`, a Responses API client. One POST endpoint does not justify a runtime SDK
 * dependency for a retrieval library; timeouts, retries and abort are done here as in
 * the hub client.
 */
export declare class OpenAIChatGenerator implements ChatGenerator {
    #private;
    /** The model asked for. */
    readonly model: string;
    /** The server's base URL, without a trailing slash. */
    readonly baseURL: string;
    /** The wire format in use. */
    readonly api: 'chat-completions' | 'responses';
    constructor(options?: OpenAIChatGeneratorOptions);
    /** Tokens used by all calls of this generator so far (retried attempts excluded). */
    get usage(): ChatUsage & {
        /** Calls that got a reply. */
        calls: number;
    };
    /**
     * One completion: retried after a 429, a 5xx, a timeout or a network error (`maxRetries`), with
     * exponential backoff or the server's `Retry-After`. Rejects with `ERR_LLM`, `ERR_UNAUTHORIZED`,
     * `ERR_NETWORK` or an `AbortError`.
     */
    chat(request: ChatRequest): Promise<ChatReply>;
}
export declare function checkMessages(v: unknown, name?: string): ChatMessage[];
