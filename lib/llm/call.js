import { AbortError, callbackError, typeError } from '../errors.js';
import { abortable } from '../internal/abort.js';
import { booleanOption, isPlainObject } from '../internal/validate.js';
import { parseJsonObject, replyError } from './json-reply.js';
/**
 * Reads the `raiseOnFailure` and `onFailure` options every LLM component takes. Without
 * `onFailure`, each fallback is a process warning (`RAGRANK_LLM_FALLBACK`) saying `warning`.
 */
export function fallbackPolicy(o, warning) {
    const raise = booleanOption(o.raiseOnFailure, 'options.raiseOnFailure', false);
    if (o.onFailure !== undefined && typeof o.onFailure !== 'function')
        throw typeError('options.onFailure must be a function');
    const onFailure = o.onFailure ??
        ((e) => process.emitWarning(`${warning}: ${e.message}`, { code: 'RAGRANK_LLM_FALLBACK' }));
    return { raise, onFailure };
}
/**
 * One chat call whose reply must be a JSON object, read by `parse` (which gets the parsed
 * object and the raw text, for error messages). `abortable`, so a custom generator that
 * ignores the signal cannot hold the caller. A reply without `{ text }`, or that is not
 * JSON, rejects with `ERR_LLM_REPLY`.
 */
export async function chatJson(chat, request, parse) {
    const call = Promise.resolve()
        .then(() => chat.chat(request))
        .catch((e) => {
        throw callbackError(e, 'chatGenerator.chat', 'ERR_LLM');
    });
    const reply = await abortable(call, request.signal);
    if (!isPlainObject(reply) || typeof reply.text !== 'string')
        throw replyError('chatGenerator.chat must resolve to { text }');
    return parse(parseJsonObject(reply.text), reply.text);
}
/**
 * Runs `work` (one LLM call or several). A failure throws when the policy says so, else is
 * reported and `fallback()` is returned. An abort always rejects with an AbortError, never
 * falls back: the caller asked to stop, not for a degraded answer.
 */
export async function withFallback(policy, signal, work, fallback) {
    try {
        return await work();
    }
    catch (e) {
        if (e instanceof AbortError || signal?.aborted)
            throw e instanceof AbortError ? e : new AbortError();
        // A generator may reject with anything (undefined too): the policy always gets an Error.
        const error = callbackError(e, 'chatGenerator.chat', 'ERR_LLM');
        if (policy.raise)
            throw error;
        policy.onFailure(error);
        return fallback();
    }
}
