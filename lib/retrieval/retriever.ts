import { checkSignal } from '../internal/abort'
import { AbortError, rangeError, typeError } from '../errors'
import { nonNegativeInteger, optionsObject } from '../internal/validate'

/** A retrieved document. Retrievers may add fields; fusion keeps them. */
export interface ScoredDocument {
  id: string
  score: number
  text?: string
  meta?: Record<string, unknown>
}

export interface RetrieveOptions {
  /** How many documents at most (default 10). */
  topK?: number
  /** Rejects the call with an `AbortError` (`code: 'ABORT_ERR'`) when it fires. */
  signal?: AbortSignal
}

/**
 * Anything that turns a query into ranked documents: `Bm25Index`, `VectorRetriever`,
 * `HybridRetriever`, `MultiQueryRetriever`, or your own. They nest freely.
 */
export interface Retriever {
  retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>
}

export const DEFAULT_TOP_K = 10

export function isRetriever(v: unknown): v is Retriever {
  return typeof v === 'object' && v !== null && typeof (v as Retriever).retrieve === 'function'
}

export function checkQuery(query: unknown): string {
  if (typeof query !== 'string') throw typeError('query must be a string')
  return query
}

/** Validated `{ topK, signal }` of a `retrieve` call. */
export function retrieveOptions(options: unknown): { topK: number; signal?: AbortSignal } {
  const o = optionsObject(options, 'options')
  const topK = o.topK === undefined ? DEFAULT_TOP_K : nonNegativeInteger(o.topK, 'options.topK')
  return { topK, signal: checkSignal(o.signal) }
}

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

/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export function retrievedList(v: unknown, topK: number, who: string): ScoredDocument[] {
  if (!Array.isArray(v)) throw typeError(`${who} must resolve to an array of { id, score }, got ${v === null ? 'null' : typeof v}`)
  return v.length > topK ? v.slice(0, topK) : v
}

export function positiveInteger(v: unknown, name: string): number {
  const n = nonNegativeInteger(v, name)
  if (n === 0) throw rangeError(`${name} must be >= 1, got 0`)
  return n
}
