import { checkSignal } from '../internal/abort.js';
import { readCapped, readExcerpt } from '../internal/bounded-body.js';
import { AbortError, RagrankError, typeError } from '../errors.js';
import { finiteNumber, integer, isArray, isPlainObject, jsonValue, nonNegativeInteger, oneOf, optionKeys, optionsObject, } from '../internal/validate.js';
/** The model `OpenAIChatGenerator` asks for when none is given. */
export const DEFAULT_CHAT_MODEL = 'gpt-4.1-mini';
const OPENAI_BASE_URL = 'https://api.openai.com/v1';
// `body`, `headers` and `env` are open maps (any request field, header or variable), so only their owners' keys are checked.
const GENERATOR_KEYS = optionKeys(...[
    'model',
    'baseURL',
    'apiKey',
    'timeoutMs',
    'maxReplyBytes',
    'maxRetries',
    'retryDelayMs',
    'temperature',
    'responseFormat',
    'api',
    'body',
    'headers',
    'env',
]);
const REQUEST_KEYS = optionKeys('messages', 'responseFormat', 'signal');
const RESPONSE_FORMAT_KEYS = optionKeys('name', 'schema');
const RETRY_CAP_MS = 8000;
const DEFAULT_MAX_REPLY_BYTES = 16 * 2 ** 20;
/** What of an error reply is read: enough for any server's message, never a whole flood. */
const ERROR_EXCERPT_BYTES = 64 * 2 ** 10;
const RETRY_AFTER_CAP_MS = 60_000;
/**
 * A chat-completions client over `fetch`, for OpenAI and the servers that copy its API
 * (Ollama, vLLM, llama.cpp, LiteLLM); with `api: 'responses'`, a Responses API client. One POST endpoint does not justify a runtime SDK
 * dependency for a retrieval library; timeouts, retries and abort are done here as in
 * the hub client.
 */
export class OpenAIChatGenerator {
    /** The model asked for. */
    model;
    /** The server's base URL, without a trailing slash. */
    baseURL;
    /** The wire format in use. */
    api;
    #apiKey;
    #timeoutMs;
    #maxReplyBytes;
    #maxRetries;
    #retryDelayMs;
    #temperature;
    #format;
    #body;
    #headers;
    #usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    #calls = 0;
    constructor(options = {}) {
        const o = optionsObject(options, 'options', GENERATOR_KEYS);
        const env = o.env === undefined ? process.env : optionsObject(o.env, 'options.env');
        this.model = o.model === undefined ? DEFAULT_CHAT_MODEL : nonEmptyString(o.model, 'options.model');
        const base = o.baseURL === undefined ? env.OPENAI_BASE_URL || OPENAI_BASE_URL : nonEmptyString(o.baseURL, 'options.baseURL');
        let url;
        try {
            url = new URL(base);
        }
        catch {
            throw typeError(`options.baseURL is not a URL: ${base}`);
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
            throw typeError(`options.baseURL must be http(s), got ${base}`);
        this.baseURL = base.replace(/\/+$/, '');
        this.#apiKey = o.apiKey === undefined ? env.OPENAI_API_KEY || undefined : nonEmptyString(o.apiKey, 'options.apiKey');
        if (this.#apiKey === undefined && url.hostname === 'api.openai.com') {
            throw new RagrankError('ERR_UNAUTHORIZED', 'OpenAIChatGenerator needs an API key for api.openai.com: set OPENAI_API_KEY or pass options.apiKey');
        }
        this.#timeoutMs = o.timeoutMs === undefined ? 60_000 : finiteNumber(o.timeoutMs, 'options.timeoutMs', 1);
        this.#maxReplyBytes =
            o.maxReplyBytes === undefined
                ? DEFAULT_MAX_REPLY_BYTES
                : integer(o.maxReplyBytes, 'options.maxReplyBytes', 1, Number.MAX_SAFE_INTEGER);
        this.#maxRetries = o.maxRetries === undefined ? 2 : nonNegativeInteger(o.maxRetries, 'options.maxRetries');
        this.#retryDelayMs = o.retryDelayMs === undefined ? 500 : finiteNumber(o.retryDelayMs, 'options.retryDelayMs', 0);
        this.#temperature = o.temperature === undefined ? 0 : finiteNumber(o.temperature, 'options.temperature', 0, 2);
        this.#format = oneOf(o.responseFormat ?? 'json_schema', ['json_schema', 'json_object', 'none'], 'options.responseFormat');
        this.api = oneOf(o.api ?? 'chat-completions', ['chat-completions', 'responses'], 'options.api');
        this.#body = o.body === undefined ? {} : { ...optionsObject(o.body, 'options.body') };
        const headers = optionsObject(o.headers, 'options.headers');
        for (const [k, v] of Object.entries(headers))
            if (typeof v !== 'string')
                throw typeError(`options.headers.${k} must be a string`);
        this.#headers = headers;
    }
    /** Tokens used by all calls of this generator so far (retried attempts excluded). */
    get usage() {
        return { ...this.#usage, calls: this.#calls };
    }
    /**
     * One completion: retried after a 429, a 5xx, a timeout or a network error (`maxRetries`), with
     * exponential backoff or the server's `Retry-After`. Rejects with `ERR_LLM`, `ERR_UNAUTHORIZED`,
     * `ERR_NETWORK` or an `AbortError`.
     */
    async chat(request) {
        const r = optionsObject(request, 'request', REQUEST_KEYS);
        const messages = checkMessages(r.messages);
        const signal = checkSignal(r.signal);
        const responses = this.api === 'responses';
        const body = { model: this.model, temperature: this.#temperature, ...this.#body };
        // The Responses API takes the same role/content turns, as `input`.
        body[responses ? 'input' : 'messages'] = messages;
        if (r.responseFormat !== undefined && this.#format !== 'none') {
            const f = optionsObject(r.responseFormat, 'request.responseFormat', RESPONSE_FORMAT_KEYS);
            if (typeof f.name !== 'string' || !isPlainObject(f.schema))
                throw typeError('request.responseFormat must be { name, schema }');
            jsonValue(f.schema, 'request.responseFormat.schema');
            if (responses)
                body.text = {
                    format: this.#format === 'json_schema'
                        ? { type: 'json_schema', name: f.name, schema: f.schema }
                        : { type: 'json_object' },
                };
            else
                body.response_format =
                    this.#format === 'json_schema'
                        ? { type: 'json_schema', json_schema: { name: f.name, schema: f.schema } }
                        : { type: 'json_object' };
        }
        const payload = JSON.stringify(body);
        for (let attempt = 0;; attempt++) {
            if (signal?.aborted)
                throw new AbortError();
            const outcome = await this.#attempt(payload, signal);
            if ('reply' in outcome) {
                this.#count(outcome.reply.usage);
                return outcome.reply;
            }
            if (!outcome.retry || attempt >= this.#maxRetries)
                throw outcome.error;
            await sleep(outcome.retryAfterMs ?? this.#backoff(attempt), signal);
        }
    }
    #backoff(attempt) {
        const d = Math.min(RETRY_CAP_MS, this.#retryDelayMs * 2 ** attempt);
        return d * (0.75 + Math.random() * 0.25);
    }
    #count(u) {
        this.#calls++;
        if (!u)
            return;
        this.#usage = {
            promptTokens: this.#usage.promptTokens + u.promptTokens,
            completionTokens: this.#usage.completionTokens + u.completionTokens,
            totalTokens: this.#usage.totalTokens + u.totalTokens,
        };
    }
    async #attempt(payload, signal) {
        const responses = this.api === 'responses';
        const url = `${this.baseURL}/${responses ? 'responses' : 'chat/completions'}`;
        const controller = new AbortController();
        let timedOut = false;
        const timer = setTimeout(() => {
            timedOut = true;
            controller.abort();
        }, this.#timeoutMs);
        const onAbort = () => controller.abort();
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted)
            controller.abort(); // aborted between attempts: no event comes
        try {
            const headers = {
                'content-type': 'application/json',
                accept: 'application/json',
                ...this.#headers,
            };
            if (this.#apiKey)
                headers.authorization = `Bearer ${this.#apiKey}`;
            const res = await fetch(url, { method: 'POST', headers, body: payload, signal: controller.signal });
            // The timeout covers the body too: a server may send headers and then stall.
            if (!res.ok)
                return {
                    error: statusError(res.status, (await readExcerpt(res, ERROR_EXCERPT_BYTES)).text, url),
                    retry: res.status === 429 || res.status >= 500,
                    retryAfterMs: retryAfter(res.headers),
                };
            const text = await readCapped(res, this.#maxReplyBytes);
            if (text === undefined) {
                // Not retried: the same request would get the same flood.
                const error = new RagrankError('ERR_NETWORK', `${url} sent a reply over the cap of ${this.#maxReplyBytes} bytes (options.maxReplyBytes); the rest was not read`);
                return { error, retry: false };
            }
            return { reply: responses ? parseResponse(text, url) : parseCompletion(text, url) };
        }
        catch (e) {
            if (signal?.aborted)
                throw new AbortError();
            if (e instanceof RagrankError)
                throw e;
            const message = timedOut
                ? `no complete reply from ${url} within ${this.#timeoutMs} ms`
                : `could not reach ${url} (${e?.cause?.code ?? e?.message ?? String(e)})`;
            const error = new RagrankError('ERR_NETWORK', message);
            error.cause = e;
            return { error, retry: true };
        }
        finally {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
        }
    }
}
function nonEmptyString(v, name) {
    if (typeof v !== 'string' || v === '')
        throw typeError(`${name} must be a non-empty string`);
    return v;
}
const ROLES = new Set(['system', 'user', 'assistant']);
export function checkMessages(v, name = 'request.messages') {
    if (!isArray(v) || v.length === 0)
        throw typeError(`${name} must be a non-empty array of { role, content }`);
    return Array.from(v, (m, i) => {
        if (!isPlainObject(m) || !ROLES.has(m.role) || typeof m.content !== 'string') {
            throw typeError(`${name}[${i}] must be { role: 'system' | 'user' | 'assistant', content: string }`);
        }
        return { role: m.role, content: m.content };
    });
}
function statusError(status, body, url) {
    let detail = body.slice(0, 300);
    try {
        const j = JSON.parse(body);
        if (typeof j?.error?.message === 'string')
            detail = j.error.message;
    }
    catch {
        // not JSON: keep the raw start of the body
    }
    const code = status === 401 || status === 403 ? 'ERR_UNAUTHORIZED' : 'ERR_LLM';
    return Object.assign(new RagrankError(code, `${url} answered ${status}: ${detail}`), { status });
}
/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as a date. */
function retryAfter(h) {
    const ms = Number(h.get('retry-after-ms'));
    if (h.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0)
        return Math.min(ms, RETRY_AFTER_CAP_MS);
    const v = h.get('retry-after');
    if (v === null)
        return undefined;
    const s = Number(v);
    if (Number.isFinite(s) && s >= 0)
        return Math.min(s * 1000, RETRY_AFTER_CAP_MS);
    const at = Date.parse(v);
    return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - Date.now()), RETRY_AFTER_CAP_MS);
}
function parseJson(text, url) {
    try {
        return JSON.parse(text);
    }
    catch {
        throw new RagrankError('ERR_LLM', `${url} did not answer with JSON: ${text.slice(0, 200)}`);
    }
}
function parseCompletion(text, url) {
    const j = parseJson(text, url);
    const choice = isPlainObject(j) && isArray(j.choices) ? j.choices[0] : undefined;
    const message = isPlainObject(choice) ? choice.message : undefined;
    if (!isPlainObject(message))
        throw new RagrankError('ERR_LLM', `${url} answered without choices[0].message`);
    if (typeof message.content !== 'string') {
        const refusal = typeof message.refusal === 'string' ? `: refused (${message.refusal})` : '';
        throw new RagrankError('ERR_LLM', `${url} answered without text${refusal}`);
    }
    const reply = { text: message.content };
    const u = j.usage;
    if (isPlainObject(u)) {
        const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
        reply.usage = {
            promptTokens: n(u.prompt_tokens),
            completionTokens: n(u.completion_tokens),
            totalTokens: n(u.total_tokens),
        };
    }
    if (typeof j.model === 'string')
        reply.model = j.model;
    return reply;
}
/**
 * A Responses API reply: the text is the `output_text` parts of the `message` items of
 * `output`, joined (the SDKs' `output_text`); a `refusal` part or no text is an error.
 */
function parseResponse(text, url) {
    const j = parseJson(text, url);
    if (!isPlainObject(j) || !isArray(j.output))
        throw new RagrankError('ERR_LLM', `${url} answered without an output array`);
    const parts = j.output
        .filter((item) => isPlainObject(item) && item.type === 'message' && isArray(item.content))
        .flatMap((item) => item.content)
        .filter(isPlainObject);
    const texts = parts.filter((p) => p.type === 'output_text' && typeof p.text === 'string').map((p) => p.text);
    if (texts.length === 0) {
        const refusal = parts.find((p) => p.type === 'refusal' && typeof p.refusal === 'string');
        const why = refusal ? `: refused (${refusal.refusal})` : typeof j.status === 'string' ? ` (status ${j.status})` : '';
        throw new RagrankError('ERR_LLM', `${url} answered without text${why}`);
    }
    const reply = { text: texts.join('') };
    const u = j.usage;
    if (isPlainObject(u)) {
        const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
        reply.usage = {
            promptTokens: n(u.input_tokens),
            completionTokens: n(u.output_tokens),
            totalTokens: n(u.total_tokens),
        };
    }
    if (typeof j.model === 'string')
        reply.model = j.model;
    return reply;
}
function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(new AbortError());
        const onAbort = () => {
            clearTimeout(t);
            reject(new AbortError());
        };
        const t = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
