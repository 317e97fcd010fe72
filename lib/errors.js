/** An Error with a stable `code`. */
export class RagrankError extends Error {
    /** The stable code to branch on (the message may change). */
    code;
    /**
     * @param code - one of {@link ErrorCode}
     * @param message - what went wrong, for people
     */
    constructor(code, message) {
        // A message that is not a string is described, never converted: a Symbol or a null-prototype object would throw.
        super(typeof message === 'string' || message === undefined ? message : describe(message));
        this.name = 'RagrankError';
        this.code = code;
    }
}
/** Thrown or rejected when an `AbortSignal` fires (`code: 'ABORT_ERR'`, as Node's own). */
export class AbortError extends RagrankError {
    constructor(message = 'The operation was aborted') {
        super('ABORT_ERR', message);
        this.name = 'AbortError';
    }
}
function withCode(error, code) {
    return Object.assign(error, { code });
}
export const typeError = (message) => withCode(new TypeError(message), 'ERR_INVALID_ARG');
export const rangeError = (message) => withCode(new RangeError(message), 'ERR_INVALID_ARG');
/**
 * A value as error messages show it: never throws (null-prototype objects, Symbols, revoked
 * Proxies and throwing `toString`s break `String(v)` and templates) and stays short.
 */
export function describe(v) {
    try {
        if (typeof v === 'string')
            return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);
        if (typeof v === 'bigint')
            return `${v}n`;
        if (typeof v === 'symbol' || typeof v === 'function')
            return typeof v;
        if (v === null || typeof v !== 'object')
            return String(v);
        return Array.isArray(v) ? 'an array' : 'an object';
    }
    catch {
        return 'a value that cannot be read';
    }
}
/**
 * A user callback (a retriever, an embed function, a chat generator) rejected with
 * something that is not an Error: wrap it so callers always get an Error with a code.
 */
export function callbackError(e, what, code = 'ERR_CALLBACK') {
    // Resolving to a revoked Proxy: reading its `then` threw in the engine.
    if (e instanceof TypeError && !('code' in e) && e.message.includes('proxy that has been revoked')) {
        return Object.assign(typeError(`${what} resolved to a revoked Proxy`), { cause: e });
    }
    if (e instanceof Error)
        return e;
    return Object.assign(new RagrankError(code, `${what} rejected with ${describe(e)}, not an Error`), { cause: e });
}
/** napi's own status codes for a JS value its argument conversion could not read. */
const NAPI_CONVERSION = new Set([
    'InvalidArg',
    'ObjectExpected',
    'StringExpected',
    'NameExpected',
    'FunctionExpected',
    'NumberExpected',
    'BooleanExpected',
    'ArrayExpected',
    'BigintExpected',
    'DateExpected',
    'ArrayBufferExpected',
    'DetachableArraybufferExpected',
]);
/** Turns a native error (message `[CODE] text`) into the JS error users see. */
export function fromNative(err) {
    if (!(err instanceof Error))
        return new RagrankError('ERR_INTERNAL', describe(err));
    const napiCode = err.code;
    if (typeof napiCode === 'string' && NAPI_CONVERSION.has(napiCode))
        return typeError(`invalid argument: ${err.message}`);
    if (napiCode === 'Cancelled')
        return new AbortError();
    const m = /^\[([A-Z_]+)\] ([\s\S]*)$/.exec(err.message);
    if (!m)
        return err;
    const [, code, message] = m;
    if (code === 'ERR_INVALID_ARG')
        return rangeError(message);
    if (code === 'ABORT_ERR')
        return new AbortError(message);
    return new RagrankError(code, message);
}
/** Calls into native code, translating its errors. */
export function callNative(fn) {
    try {
        return fn();
    }
    catch (e) {
        throw fromNative(e);
    }
}
