import { native } from './native.js';
import { AbortError, callbackError, fromNative, typeError } from '../errors.js';
import { optionKeys, optionsObject, readValue } from './validate.js';
export function checkSignal(signal) {
    if (signal === undefined || signal === null)
        return undefined;
    const looksLikeSignal = readValue(() => typeof signal.aborted === 'boolean' &&
        typeof signal.addEventListener === 'function');
    if (!looksLikeSignal) {
        throw typeError('options.signal must be an AbortSignal');
    }
    return signal;
}
/**
 * Starts native async work: a synchronous throw (napi's argument conversion) becomes the
 * JS error users see, before anything is registered on the caller's signal.
 */
function startNative(token, start) {
    let work;
    try {
        work = start(token);
    }
    catch (e) {
        throw fromNative(e);
    }
    return work.catch((e) => {
        throw fromNative(e);
    });
}
/**
 * Runs native async work that can be cancelled: the signal cancels a native token
 * (checked while the work runs) and the promise rejects with an AbortError at once.
 * For work that only reads: a call that changes state uses `runCancellableChange`.
 */
export function runCancellable(signal, start) {
    return runWithToken(signal, start, true);
}
/**
 * Runs native work that changes state (an insert, a save): the signal cancels the native
 * token, but the promise waits for the native side, so it never lies. Work that stopped
 * before changing anything rejects with an AbortError; work that got past its last check
 * under the lock completes, and the promise resolves.
 */
export function runCancellableChange(signal, start) {
    return runWithToken(signal, start, false);
}
function runWithToken(signal, start, rejectAtOnce) {
    if (signal?.aborted)
        return Promise.reject(new AbortError());
    if (signal)
        return runWithSignal(signal, start, rejectAtOnce);
    // No signal, no token (a native object with a finalizer, made per call for nothing) and no
    // async wrapper: the native promise is the call's.
    try {
        return startNative(undefined, start);
    }
    catch (e) {
        return Promise.reject(e);
    }
}
async function runWithSignal(signal, start, rejectAtOnce) {
    const token = new native.CancelToken();
    const work = startNative(token, start);
    let onAbort = () => token.cancel();
    const aborted = rejectAtOnce
        ? new Promise((_, reject) => {
            onAbort = () => {
                token.cancel();
                reject(new AbortError());
            };
        })
        : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
    try {
        return await (aborted ? Promise.race([work, aborted]) : work);
    }
    finally {
        signal.removeEventListener('abort', onAbort);
        work.catch(() => { });
    }
}
/** Throws an AbortError when `signal` has fired: the check between steps of a composite call. */
export function throwIfAborted(signal) {
    if (signal?.aborted)
        throw new AbortError();
}
/**
 * Settles like `promise`, or rejects with an AbortError as soon as `signal` fires, so a
 * callee that ignores the signal (a user's embed function, a custom retriever) cannot hold
 * the caller. A rejection that is not an Error (a callback's `reject(undefined)`) becomes a
 * RagrankError `ERR_CALLBACK` with the value as `cause`.
 */
export function abortable(given, signal) {
    const promise = Promise.resolve(given).catch((e) => {
        throw callbackError(e, 'a callback');
    });
    if (!signal)
        return promise;
    if (signal.aborted) {
        promise.catch(() => { });
        return Promise.reject(new AbortError());
    }
    return new Promise((resolve, reject) => {
        const onAbort = () => {
            promise.catch(() => { });
            reject(new AbortError());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        promise.then((v) => {
            signal.removeEventListener('abort', onAbort);
            resolve(v);
        }, (e) => {
            signal.removeEventListener('abort', onAbort);
            reject(e);
        });
    });
}
/**
 * An AbortController that also aborts when `parent` does, so a composite retriever can stop
 * its children either on the caller's signal or on its own (e.g. after the first failure).
 * Call `dispose` when done, to drop the listener from a long-lived parent.
 */
export function childController(parent) {
    const controller = new AbortController();
    if (!parent)
        return { controller, dispose: () => { } };
    if (parent.aborted) {
        controller.abort();
        return { controller, dispose: () => { } };
    }
    const onAbort = () => controller.abort();
    parent.addEventListener('abort', onAbort, { once: true });
    return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}
const SAVE_KEYS = optionKeys('signal');
/**
 * An index's `save(path, { signal })`: bad arguments reject (never throw), and the save
 * runs under `runCancellableChange`, so a signal that fires stops it while it writes, and
 * a save that already replaced the file resolves.
 */
export function saveCancellable(path, options, save) {
    try {
        if (typeof path !== 'string' || path === '')
            throw typeError('path must be a non-empty string');
        const signal = checkSignal(optionsObject(options, 'options', SAVE_KEYS).signal);
        return runCancellableChange(signal, (token) => save(path, token));
    }
    catch (e) {
        return Promise.reject(e);
    }
}
