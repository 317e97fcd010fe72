import { native } from './native.js';
export declare function checkSignal(signal: unknown): AbortSignal | undefined;
type CancelToken = InstanceType<typeof native.CancelToken>;
/** Starts the native work; `token` is undefined when there is no signal (nothing could cancel it). */
type NativeStart<T> = (token: CancelToken | undefined) => Promise<T>;
/**
 * Runs native async work that can be cancelled: the signal cancels a native token
 * (checked while the work runs) and the promise rejects with an AbortError at once.
 * For work that only reads: a call that changes state uses `runCancellableChange`.
 */
export declare function runCancellable<T>(signal: AbortSignal | undefined, start: NativeStart<T>): Promise<T>;
/**
 * Runs native work that changes state (an insert, a save): the signal cancels the native
 * token, but the promise waits for the native side, so it never lies. Work that stopped
 * before changing anything rejects with an AbortError; work that got past its last check
 * under the lock completes, and the promise resolves.
 */
export declare function runCancellableChange<T>(signal: AbortSignal | undefined, start: NativeStart<T>): Promise<T>;
/** Throws an AbortError when `signal` has fired: the check between steps of a composite call. */
export declare function throwIfAborted(signal: AbortSignal | undefined): void;
/**
 * Settles like `promise`, or rejects with an AbortError as soon as `signal` fires, so a
 * callee that ignores the signal (a user's embed function, a custom retriever) cannot hold
 * the caller. A rejection that is not an Error (a callback's `reject(undefined)`) becomes a
 * RagrankError `ERR_CALLBACK` with the value as `cause`.
 */
export declare function abortable<T>(given: Promise<T>, signal: AbortSignal | undefined): Promise<T>;
/**
 * An AbortController that also aborts when `parent` does, so a composite retriever can stop
 * its children either on the caller's signal or on its own (e.g. after the first failure).
 * Call `dispose` when done, to drop the listener from a long-lived parent.
 */
export declare function childController(parent: AbortSignal | undefined): {
    controller: AbortController;
    dispose: () => void;
};
/**
 * An index's `save(path, { signal })`: bad arguments reject (never throw), and the save
 * runs under `runCancellableChange`, so a signal that fires stops it while it writes, and
 * a save that already replaced the file resolves.
 */
export declare function saveCancellable(path: unknown, options: {
    signal?: AbortSignal;
} | undefined, save: (path: string, token: CancelToken | undefined) => Promise<void>): Promise<void>;
export {};
