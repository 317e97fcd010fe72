import { checkSignal } from '../internal/abort'
import { typeError } from '../errors'
import { optionsObject, topK, isArray, hasMethod } from '../internal/validate'

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

export function isRetriever(v: unknown): v is Retriever {
  return hasMethod(v, 'retrieve')
}

export function checkQuery(query: unknown): string {
  if (typeof query !== 'string') throw typeError('query must be a string')
  return query
}

/** Validated `{ topK, signal }` of a `retrieve` call. */
export function retrieveOptions(options: unknown): { topK: number; signal?: AbortSignal } {
  const o = optionsObject(options, 'options')
  return { topK: topK(o.topK), signal: checkSignal(o.signal) }
}

/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export function retrievedList(v: unknown, topK: number, who: string): ScoredDocument[] {
  if (!isArray(v)) throw typeError(`${who} must resolve to an array of { id, score }, got ${v === null ? 'null' : typeof v}`)
  return v.length > topK ? v.slice(0, topK) : v
}
