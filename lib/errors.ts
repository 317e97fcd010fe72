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
 * | `ERR_LOCKED` | an index directory's writer lock is held by another live process (the message names its pid) |
 * | `ERR_READ_ONLY` | a write to an index opened with `readOnly: true` |
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
export type ErrorCode =
  | 'ERR_INVALID_ARG'
  | 'ERR_DUPLICATE_ID'
  | 'ERR_CORRUPT_INDEX'
  | 'ERR_IO'
  | 'ERR_INDEX_CHANGED'
  | 'ERR_LOCKED'
  | 'ERR_READ_ONLY'
  | 'ERR_INTERNAL'
  | 'ERR_ORT_NOT_FOUND'
  | 'ERR_ORT_VERSION'
  | 'ERR_MODEL_NOT_FOUND'
  | 'ERR_MODEL_LOAD'
  | 'ERR_INFERENCE'
  | 'ERR_DISPOSED'
  | 'ERR_UNAUTHORIZED'
  | 'ERR_NETWORK'
  | 'ERR_MISSING_NODE'
  | 'ERR_LLM'
  | 'ERR_LLM_REPLY'
  | 'ERR_CALLBACK'
  | 'ERR_ALL_SOURCES_FAILED'
  | 'ERR_ENGINE_UNREACHABLE'
  | 'ERR_ENGINE_INDEX_NOT_FOUND'
  | 'ERR_ENGINE_MAPPING'
  | 'ERR_ENGINE_DIMENSION'
  | 'ERR_ENGINE_OVERLOADED'
  | 'ERR_ENGINE'
  | 'ABORT_ERR'

/** An Error with a stable `code`. */
export class RagrankError extends Error {
  /** The stable code to branch on (the message may change). */
  readonly code: ErrorCode
  /**
   * @param code - one of {@link ErrorCode}
   * @param message - what went wrong, for people
   */
  constructor(code: ErrorCode, message: string) {
    // A message that is not a string is described, never converted: a Symbol or a null-prototype object would throw.
    super(typeof message === 'string' || message === undefined ? message : describe(message))
    this.name = 'RagrankError'
    this.code = code
  }
}

/** Thrown or rejected when an `AbortSignal` fires (`code: 'ABORT_ERR'`, as Node's own). */
export class AbortError extends RagrankError {
  constructor(message: string = 'The operation was aborted') {
    super('ABORT_ERR', message)
    this.name = 'AbortError'
  }
}

function withCode<E extends Error>(error: E, code: ErrorCode): E & { code: ErrorCode } {
  return Object.assign(error, { code })
}

export const typeError = (message: string) => withCode(new TypeError(message), 'ERR_INVALID_ARG')
export const rangeError = (message: string) => withCode(new RangeError(message), 'ERR_INVALID_ARG')

/**
 * A value as error messages show it: never throws (null-prototype objects, Symbols, revoked
 * Proxies and throwing `toString`s break `String(v)` and templates) and stays short.
 */
export function describe(v: unknown): string {
  try {
    if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v)
    if (typeof v === 'bigint') return `${v}n`
    if (typeof v === 'symbol' || typeof v === 'function') return typeof v
    if (v === null || typeof v !== 'object') return String(v)
    return Array.isArray(v) ? 'an array' : 'an object'
  } catch {
    return 'a value that cannot be read'
  }
}

/**
 * A user callback (a retriever, an embed function, a chat generator) rejected with
 * something that is not an Error: wrap it so callers always get an Error with a code.
 */
export function callbackError(e: unknown, what: string, code: ErrorCode = 'ERR_CALLBACK'): Error {
  // Resolving to a revoked Proxy: reading its `then` threw in the engine.
  if (e instanceof TypeError && !('code' in e) && e.message.includes('proxy that has been revoked')) {
    return Object.assign(typeError(`${what} resolved to a revoked Proxy`), { cause: e })
  }
  if (e instanceof Error) return e
  return Object.assign(new RagrankError(code, `${what} rejected with ${describe(e)}, not an Error`), { cause: e })
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
])

/** Turns a native error (message `[CODE] text`) into the JS error users see. */
export function fromNative(err: unknown): Error {
  if (!(err instanceof Error)) return new RagrankError('ERR_INTERNAL', describe(err))
  const napiCode = (err as { code?: unknown }).code
  if (typeof napiCode === 'string' && NAPI_CONVERSION.has(napiCode))
    return typeError(`invalid argument: ${err.message}`)
  if (napiCode === 'Cancelled') return new AbortError()
  const m = /^\[([A-Z_]+)\] ([\s\S]*)$/.exec(err.message)
  if (!m) return err
  const [, code, message] = m as unknown as [string, ErrorCode, string]
  if (code === 'ERR_INVALID_ARG') return rangeError(message)
  if (code === 'ABORT_ERR') return new AbortError(message)
  return new RagrankError(code, message)
}

/** Calls into native code, translating its errors. */
export function callNative<T>(fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    throw fromNative(e)
  }
}
