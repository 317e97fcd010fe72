/**
 * Stable error codes ragrank attaches to `error.code` (docs/ERRORS.md has the details):
 *
 * | code | meaning |
 * | --- | --- |
 * | `ERR_INVALID_ARG` | a bad argument or an unknown option key (on a `TypeError` or `RangeError`) |
 * | `ERR_DUPLICATE_ID` | an id already in the index (without `upsert`) or repeated in one call |
 * | `ERR_CORRUPT_INDEX` | a damaged or foreign index file |
 * | `ERR_IO` | a file could not be read or written, or is not a regular file |
 * | `ERR_INDEX_CHANGED` | a memory-mapped index file was changed in place: load it again |
 * | `ERR_INTERNAL` | a Rust panic caught at the boundary (please report it) |
 * | `ERR_ORT_NOT_FOUND` | no ONNX Runtime library was found |
 * | `ERR_ORT_VERSION` | the ONNX Runtime library found is older than ragrank accepts (1.24.2) |
 * | `ERR_MODEL_NOT_FOUND` | a model folder, file or hub repository is missing |
 * | `ERR_MODEL_LOAD` | ONNX Runtime or the tokenizer could not load the model |
 * | `ERR_INFERENCE` | a model run failed |
 * | `ERR_DISPOSED` | a call on a model after `dispose()` |
 * | `ERR_UNAUTHORIZED` | a server refused the credentials (hub, LLM server) |
 * | `ERR_NETWORK` | a server could not be reached or did not answer in time |
 * | `ERR_MISSING_NODE` | auto-merging with `strict: true` met a node the store does not have |
 * | `ERR_LLM` | an LLM server answered an error status, or no completion |
 * | `ERR_LLM_REPLY` | an LLM completion that cannot be used (not JSON, wrong shape) |
 * | `ERR_CALLBACK` | a callback you passed rejected with something that is not an Error (the value is `cause`) |
 * | `ERR_ALL_SOURCES_FAILED` | every retriever of a `HybridRetriever` with `onError: 'skip'` failed (an `AggregateError`) |
 * | `ERR_ENGINE_UNREACHABLE` | a search engine or database could not be reached (retried by ingestion) |
 * | `ERR_ENGINE_INDEX_NOT_FOUND` | the engine's index or table does not exist |
 * | `ERR_ENGINE_MAPPING` | the engine's mapping or table lacks a field or column the call needs |
 * | `ERR_ENGINE_DIMENSION` | a vector of another length than the engine index's |
 * | `ERR_ENGINE_OVERLOADED` | the engine is overloaded (HTTP 429/503, too many connections; retried by ingestion) |
 * | `ERR_ENGINE` | any other engine error |
 * | `ABORT_ERR` | an `AbortSignal` fired (on an `AbortError`) |
 */
export type ErrorCode = 'ERR_INVALID_ARG' | 'ERR_DUPLICATE_ID' | 'ERR_CORRUPT_INDEX' | 'ERR_IO' | 'ERR_INDEX_CHANGED' | 'ERR_INTERNAL' | 'ERR_ORT_NOT_FOUND' | 'ERR_ORT_VERSION' | 'ERR_MODEL_NOT_FOUND' | 'ERR_MODEL_LOAD' | 'ERR_INFERENCE' | 'ERR_DISPOSED' | 'ERR_UNAUTHORIZED' | 'ERR_NETWORK' | 'ERR_MISSING_NODE' | 'ERR_LLM' | 'ERR_LLM_REPLY' | 'ERR_CALLBACK' | 'ERR_ALL_SOURCES_FAILED' | 'ERR_ENGINE_UNREACHABLE' | 'ERR_ENGINE_INDEX_NOT_FOUND' | 'ERR_ENGINE_MAPPING' | 'ERR_ENGINE_DIMENSION' | 'ERR_ENGINE_OVERLOADED' | 'ERR_ENGINE' | 'ABORT_ERR';
/** An Error with a stable `code`. */
export declare class RagrankError extends Error {
    /** The stable code to branch on (the message may change). */
    readonly code: ErrorCode;
    /**
     * @param code - one of {@link ErrorCode}
     * @param message - what went wrong, for people
     */
    constructor(code: ErrorCode, message: string);
}
/** Thrown or rejected when an `AbortSignal` fires (`code: 'ABORT_ERR'`, as Node's own). */
export declare class AbortError extends RagrankError {
    constructor(message?: string);
}
export declare const typeError: (message: string) => TypeError & {
    code: ErrorCode;
};
export declare const rangeError: (message: string) => RangeError & {
    code: ErrorCode;
};
/**
 * A value as error messages show it: never throws (null-prototype objects, Symbols, revoked
 * Proxies and throwing `toString`s break `String(v)` and templates) and stays short.
 */
export declare function describe(v: unknown): string;
/**
 * A user callback (a retriever, an embed function, a chat generator) rejected with
 * something that is not an Error: wrap it so callers always get an Error with a code.
 */
export declare function callbackError(e: unknown, what: string, code?: ErrorCode): Error;
/** Turns a native error (message `[CODE] text`) into the JS error users see. */
export declare function fromNative(err: unknown): Error;
/** Calls into native code, translating its errors. */
export declare function callNative<T>(fn: () => T): T;
