/** Stable error codes ragrank attaches to `error.code`. */
export type ErrorCode =
  | 'ERR_INVALID_ARG'
  | 'ERR_DUPLICATE_ID'
  | 'ERR_CORRUPT_INDEX'
  | 'ERR_IO'
  | 'ERR_INDEX_CHANGED'
  | 'ERR_INTERNAL'
  | 'ERR_ORT_NOT_FOUND'
  | 'ERR_MODEL_NOT_FOUND'
  | 'ERR_MODEL_LOAD'
  | 'ERR_INFERENCE'
  | 'ERR_DISPOSED'
  | 'ERR_UNAUTHORIZED'
  | 'ERR_NETWORK'
  | 'ERR_MISSING_NODE'
  | 'ERR_LLM'
  | 'ERR_LLM_REPLY'
  | 'ABORT_ERR'

/** An Error with a stable `code`. */
export class RagrankError extends Error {
  readonly code: ErrorCode
  constructor(code: ErrorCode, message: string) {
    super(message)
    this.name = 'RagrankError'
    this.code = code
  }
}

/** Thrown or rejected when an `AbortSignal` fires (`code: 'ABORT_ERR'`, as Node's own). */
export class AbortError extends RagrankError {
  constructor(message = 'The operation was aborted') {
    super('ABORT_ERR', message)
    this.name = 'AbortError'
  }
}

function withCode<E extends Error>(error: E, code: ErrorCode): E & { code: ErrorCode } {
  return Object.assign(error, { code })
}

export const typeError = (message: string) => withCode(new TypeError(message), 'ERR_INVALID_ARG')
export const rangeError = (message: string) => withCode(new RangeError(message), 'ERR_INVALID_ARG')

/** Turns a native error (message `[CODE] text`) into the JS error users see. */
export function fromNative(err: unknown): Error {
  if (!(err instanceof Error)) return new RagrankError('ERR_INTERNAL', String(err))
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
