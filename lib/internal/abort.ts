import { native } from './native'
import { AbortError, fromNative, typeError } from '../errors'
import { optionKeys, optionsObject } from './validate'

export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined || signal === null) return undefined
  if (typeof (signal as AbortSignal).aborted !== 'boolean' || typeof (signal as AbortSignal).addEventListener !== 'function') {
    throw typeError('options.signal must be an AbortSignal')
  }
  return signal as AbortSignal
}

/**
 * Runs native async work that can be cancelled: the signal cancels a native token
 * (checked while the work runs) and the promise rejects with an AbortError at once.
 */
export async function runCancellable<T>(
  signal: AbortSignal | undefined,
  start: (token: InstanceType<typeof native.CancelToken>) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw new AbortError()
  const token = new native.CancelToken()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      token.cancel()
      reject(new AbortError())
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  const work = start(token).catch((e: unknown) => {
    throw fromNative(e)
  })
  try {
    return await (signal ? Promise.race([work, aborted]) : work)
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    work.catch(() => {})
  }
}

/** Throws an AbortError when `signal` has fired: the check between steps of a composite call. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError()
}

/**
 * Settles like `promise`, or rejects with an AbortError as soon as `signal` fires, so a
 * callee that ignores the signal (a user's embed function, a custom retriever) cannot hold
 * the caller.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(new AbortError())
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      reject(new AbortError())
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

/**
 * An AbortController that also aborts when `parent` does, so a composite retriever can stop
 * its children either on the caller's signal or on its own (e.g. after the first failure).
 * Call `dispose` when done, to drop the listener from a long-lived parent.
 */
export function childController(parent: AbortSignal | undefined): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController()
  if (!parent) return { controller, dispose: () => {} }
  if (parent.aborted) {
    controller.abort()
    return { controller, dispose: () => {} }
  }
  const onAbort = () => controller.abort()
  parent.addEventListener('abort', onAbort, { once: true })
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) }
}

const SAVE_KEYS = optionKeys('signal')

/**
 * An index's `save(path, { signal })`: bad arguments reject (never throw), and the save
 * runs under `runCancellable`, so a signal that fires stops it while it writes.
 */
export function saveCancellable(
  path: unknown,
  options: { signal?: AbortSignal } | undefined,
  save: (path: string, token: InstanceType<typeof native.CancelToken>) => Promise<void>,
): Promise<void> {
  try {
    if (typeof path !== 'string' || path === '') throw typeError('path must be a non-empty string')
    const signal = checkSignal(optionsObject(options, 'options', SAVE_KEYS).signal)
    return runCancellable(signal, (token) => save(path, token))
  } catch (e) {
    return Promise.reject(e)
  }
}
