import { checkSignal } from '../internal/abort'
import { typeError } from '../errors'
import { optionKeys, optionsObject, topK, type OptionKeys } from '../internal/validate'

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
  return typeof v === 'object' && v !== null && typeof (v as Retriever).retrieve === 'function'
}

export function checkQuery(query: unknown): string {
  if (typeof query !== 'string') throw typeError('query must be a string')
  return query
}

/**
 * The keys of the `Retriever` contract. `filter` is reserved for the filters every composite
 * passes down (issue 16): known here so that it is never reported as a typo.
 */
export const RETRIEVE_KEYS = optionKeys('topK', 'signal', 'filter')

/** Validated `{ topK, signal }` of a `retrieve` call; `known` adds a retriever's own keys to the contract's. */
export function retrieveOptions(options: unknown, known: OptionKeys = RETRIEVE_KEYS): { topK: number; signal?: AbortSignal } {
  const o = optionsObject(options, 'options', known)
  return { topK: topK(o.topK), signal: checkSignal(o.signal) }
}

/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export function retrievedList(v: unknown, topK: number, who: string): ScoredDocument[] {
  if (!Array.isArray(v)) throw typeError(`${who} must resolve to an array of { id, score }, got ${v === null ? 'null' : typeof v}`)
  return v.length > topK ? v.slice(0, topK) : v
}
