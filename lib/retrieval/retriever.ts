import { checkSignal } from '../internal/abort.js'
import { typeError } from '../errors.js'
import { hasMethod, isArray, optionKeys, type OptionKeys, optionsObject, topK } from '../internal/validate.js'

/** A retrieved document. Retrievers may add fields; fusion keeps them. */
export interface ScoredDocument {
  /** The document's id. */
  id: string
  /** Its score from the retriever (higher is better; scales differ between retrievers). */
  score: number
  /** Its text, when the retriever has it. */
  text?: string
  /** Its metadata, when the retriever has it. */
  meta?: Record<string, unknown>
}

/** Options every `Retriever.retrieve` takes. */
export interface RetrieveOptions {
  /** How many documents at most (default 10). */
  topK?: number
  /** Rejects the call with an `AbortError` (`code: 'ABORT_ERR'`) when it fires. */
  signal?: AbortSignal
  /**
   * Only documents that match it may be returned. It is passed unchanged to every source
   * (the indexes validate it); a retriever that cannot honour it throws rather than ignore it.
   */
  filter?: RetrieveFilter
}

/**
 * The filter language of the indexes (`Bm25Index`, `VectorIndex`): documents must have one
 * of `ids` and match `meta`. Composite retrievers never read it, only pass it down.
 */
export interface RetrieveFilter {
  /** Only these document ids. */
  ids?: readonly string[]
  /** A condition on metadata, in the language of `MetaFilter` (docs/FILTERS.md). */
  meta?: Record<string, unknown>
}

/**
 * Anything that turns a query into ranked documents: `Bm25Index`, `VectorRetriever`,
 * `HybridRetriever`, `MultiQueryRetriever`, or your own. They nest freely.
 */
export interface Retriever {
  /** The best `topK` documents for `query`, best first. */
  retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]>
  /**
   * True when `retrieve` honours `options.filter` (returns only matching documents, as the
   * best `topK` of the matches). Composites refuse a filter unless every source declares it,
   * so a retriever without it is never handed a filter it would silently ignore.
   */
  readonly supportsFilter?: boolean
}

export function isRetriever(v: unknown): v is Retriever {
  return hasMethod(v, 'retrieve')
}

export function checkQuery(query: unknown): string {
  if (typeof query !== 'string') throw typeError('query must be a string')
  return query
}

/** The keys of the `Retriever` contract. */
export const RETRIEVE_KEYS = optionKeys('topK', 'signal', 'filter')

/**
 * Validated `{ topK, signal }` of a `retrieve` call, and its `filter` as given (the indexes
 * validate it); `known` adds a retriever's own keys to the contract's.
 */
export function retrieveOptions(
  options: unknown,
  known: OptionKeys = RETRIEVE_KEYS,
): { topK: number; signal?: AbortSignal; filter?: RetrieveFilter } {
  const o = optionsObject(options, 'options', known)
  return { topK: topK(o.topK), signal: checkSignal(o.signal), filter: o.filter as RetrieveFilter | undefined }
}

/** Whether a retriever declares that it honours filters. */
export function supportsFilter(retriever: Retriever): boolean {
  return retriever.supportsFilter === true
}

/**
 * Throws, before any source runs, when a filter is given and a source does not declare
 * `supportsFilter`: a source that ignored it would return documents the filter excludes.
 */
export function checkFilterSupport(filter: unknown, sources: readonly { retriever: Retriever; who: string }[]): void {
  if (filter === undefined) return
  for (const { retriever, who } of sources) {
    if (!supportsFilter(retriever)) {
      const name =
        retriever.constructor?.name && retriever.constructor.name !== 'Object' ? ` (${retriever.constructor.name})` : ''
      throw typeError(
        `${who}${name} cannot honour options.filter: it does not declare supportsFilter, so it would ignore the filter`,
      )
    }
  }
}

/** `{ filter }` when one is given, else nothing, so sources without filters see the options they always did. */
export function withFilter(filter: RetrieveFilter | undefined): { filter?: RetrieveFilter } {
  return filter === undefined ? {} : { filter }
}

/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export function retrievedList(v: unknown, topK: number, who: string): ScoredDocument[] {
  if (!isArray(v))
    throw typeError(`${who} must resolve to an array of { id, score }, got ${v === null ? 'null' : typeof v}`)
  return v.length > topK ? v.slice(0, topK) : v
}
