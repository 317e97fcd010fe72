import { AbortError, describe, RagrankError, typeError } from '../errors.js';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { hasMethod, isPlainObject } from '../internal/validate.js';
/** An error a retry may cure: the engine was unreachable, overloaded (429) or unavailable (503). */
export function isRetryable(e) {
    return e instanceof RagrankError && (e.code === 'ERR_ENGINE_UNREACHABLE' || e.code === 'ERR_ENGINE_OVERLOADED');
}
function reasonOf(body) {
    if (!isPlainObject(body))
        return {};
    const error = body.error;
    if (typeof error === 'string')
        return { reason: error };
    if (!isPlainObject(error))
        return {};
    const root = Array.isArray(error.root_cause) && isPlainObject(error.root_cause[0]) ? error.root_cause[0] : error;
    const caused = isPlainObject(error.caused_by) ? error.caused_by : undefined;
    return {
        type: String(root.type ?? error.type ?? ''),
        reason: [root.reason ?? error.reason, caused?.reason].filter((r) => typeof r === 'string').join(': '),
    };
}
/** The most of an engine's error text a message quotes (the whole body stays on `error.body`). */
export const ENGINE_MESSAGE_EXCERPT = 4096;
const excerpt = (s) => s.length <= ENGINE_MESSAGE_EXCERPT
    ? s
    : `${s.slice(0, ENGINE_MESSAGE_EXCERPT)}... (${s.length - ENGINE_MESSAGE_EXCERPT} more characters)`;
/** A status code and error body as the RagrankError users see; `what` says which call failed. */
export function statusError(engine, status, body, what) {
    const { type, reason } = reasonOf(body);
    const detail = excerpt(`${type ? `${type}: ` : ''}${reason || `HTTP ${status}`}`);
    let code = 'ERR_ENGINE';
    if (status === 429 || status === 503)
        code = 'ERR_ENGINE_OVERLOADED';
    else if (type === 'index_not_found_exception')
        code = 'ERR_ENGINE_INDEX_NOT_FOUND';
    else if (/dimension|dims/i.test(detail))
        code = 'ERR_ENGINE_DIMENSION';
    return Object.assign(new RagrankError(code, `${engine} ${what} failed (${status}): ${detail}`), {
        status,
        body,
    });
}
/** A client error as a RagrankError: the caller can tell unreachable, missing index, overload and the rest apart. */
export function clientError(e, engine, what) {
    if (e instanceof RagrankError)
        return e;
    const err = (e ?? {});
    if (err.name === 'RequestAbortedError')
        return new AbortError();
    if (err.name === 'ConnectionError' || err.name === 'NoLivingConnectionsError' || err.name === 'TimeoutError') {
        return Object.assign(new RagrankError('ERR_ENGINE_UNREACHABLE', `${engine} is unreachable during ${what}: ${err.message ?? describe(e)}`), { cause: e });
    }
    const status = err.meta?.statusCode ?? err.statusCode;
    if (err.name === 'ResponseError' && typeof status === 'number') {
        return Object.assign(statusError(engine, status, err.meta?.body ?? err.body, what), { cause: e });
    }
    if (e instanceof Error)
        return e;
    return new RagrankError('ERR_ENGINE', `${engine} ${what} failed with ${describe(e)}`);
}
/**
 * The transport of an official client (`@elastic/elasticsearch` 8, `@opensearch-project/opensearch`). The
 * Elasticsearch client takes an AbortSignal; the OpenSearch one returns a promise with `abort()`.
 */
export function clientTransport(client, engine, owned = false) {
    const transport = client?.transport;
    if (!hasMethod(transport, 'request')) {
        throw typeError(`options.client must be a ${engine} client (an object with transport.request)`);
    }
    const t = transport;
    return {
        engine,
        async close() {
            if (owned)
                await client.close?.();
        },
        async request(req, signal) {
            throwIfAborted(signal);
            const { method, path, body, bulkBody, querystring } = req;
            const params = { method, path, body, bulkBody, querystring };
            let pending;
            const onAbort = () => pending?.abort?.();
            signal?.addEventListener('abort', onAbort, { once: true });
            try {
                // meta: true makes the Elasticsearch client return { body, statusCode } like the OpenSearch one.
                pending = t.request(params, { meta: true, signal });
                const res = await abortable(pending, signal);
                // Every answer ragrank asks for is a JSON object; anything else reads as an empty one.
                return (isPlainObject(res.body) ? res.body : {});
            }
            catch (e) {
                throw clientError(e, engine, `${method} ${path}`);
            }
            finally {
                signal?.removeEventListener('abort', onAbort);
            }
        },
    };
}
