import { AsyncLocalStorage } from 'node:async_hooks'
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers'
import type { DocumentInterface } from '@langchain/core/documents'
import type { RunnableConfig } from '@langchain/core/runnables'
import { callbackError, typeError } from '../../errors.js'
import { filterParts } from '../../indexes/filter.js'
import { isArray, isPlainObject, optionKeys, optionsObject, readValue, topK } from '../../internal/validate.js'
import {
  checkFilterSupport,
  isRetriever,
  type RetrieveFilter,
  type Retriever,
  withFilter,
} from '../../retrieval/retriever.js'
import { hitToDocument, scoreKey } from './document.js'

/** The options of `RagrankRetriever`, with LangChain's own `BaseRetrieverInput` (callbacks, tags, ...). */
export interface RagrankRetrieverInput extends BaseRetrieverInput {
  /** `Bm25Index`, `VectorRetriever`, `HybridRetriever`, `MultiQueryRetriever`, `AutoMergingRetriever`, `CompressionRetriever`, ... */
  retriever: Retriever
  /** Documents per query (default 10). */
  topK?: number
  /** Metadata key for the ragrank score (default `score`). */
  scoreKey?: string
  /**
   * Passed to every `retrieve` call (e.g. the tenant), in ragrank's filter language
   * (`{ ids?, meta? }`, docs/FILTERS.md). A retriever that does not declare `supportsFilter`
   * is refused with a TypeError at construction, since it would ignore the filter.
   */
  filter?: RetrieveFilter
}

// With LangChain's own `BaseRetrieverInput` fields, passed on to `BaseRetriever`.
const RETRIEVER_FIELDS = optionKeys(
  'retriever',
  'topK',
  'scoreKey',
  'callbacks',
  'tags',
  'metadata',
  'verbose',
  'filter',
)

/**
 * The signal of the `invoke` call in progress. LangChain hands `_getRelevantDocuments` only
 * the query and the callbacks, so the config's signal travels beside the call.
 */
const callSignal = new AsyncLocalStorage<AbortSignal | undefined>()

/**
 * A ragrank retriever as a LangChain retriever: each hit becomes a `Document` with the
 * hit's text as `pageContent`, its `id`, and all it carries as `metadata` (its meta, the
 * score under `scoreKey`, and the fields composites add: see `hitToDocument`). One class
 * serves every ragrank retriever, since they share `retrieve(query, { topK, filter, signal })`.
 * The `signal` of `invoke(query, { signal })` reaches the ragrank retriever, so aborting a
 * LangChain call stops its retrieval (an `AbortError`, code `ABORT_ERR`).
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 * import { RagrankRetriever } from 'ragrank/langchain'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'a', text: 'the cat sat on the mat', meta: { tenant: 'x' } }])
 * const retriever = new RagrankRetriever({ retriever: index, topK: 5, filter: { meta: { tenant: 'x' } } })
 * const docs = await retriever.invoke('cat') // [Document { pageContent, id: 'a', metadata: { tenant, score } }]
 * ```
 */
export class RagrankRetriever extends BaseRetriever {
  lc_namespace = ['ragrank', 'retrievers']
  /** The wrapped ragrank retriever. */
  readonly retriever: Retriever
  /** Documents per query. */
  readonly topK: number
  /** Metadata key of the score. */
  readonly scoreKey: string
  /** The filter passed to every call, if any. */
  readonly filter?: RetrieveFilter

  static override lc_name(): string {
    return 'RagrankRetriever'
  }

  constructor(fields: RagrankRetrieverInput) {
    const o = optionsObject(fields, 'fields', RETRIEVER_FIELDS)
    if (!isRetriever(o.retriever))
      throw typeError('fields.retriever must be a ragrank retriever (with retrieve(query, options))')
    super(fields)
    this.retriever = o.retriever
    this.topK = topK(o.topK, 10, 'fields.topK', 1)
    this.scoreKey = scoreKey(o.scoreKey, 'score')
    // Refused now rather than on the first query: a bad key or a retriever without support would ignore it.
    if (o.filter !== undefined) filterParts(o.filter, 'fields.filter')
    checkFilterSupport(o.filter, [{ retriever: this.retriever, who: 'fields.retriever' }])
    this.filter = o.filter as RetrieveFilter | undefined
  }

  /** LangChain's `invoke`, with the config's `signal` passed on to the ragrank retriever. */
  override invoke(input: string, options?: RunnableConfig): Promise<DocumentInterface[]> {
    const signal = readValue(() => (isPlainObject(options) ? options.signal : undefined))
    return callSignal.run(signal as AbortSignal | undefined, () => super.invoke(input, options))
  }

  override async _getRelevantDocuments(query: string): Promise<DocumentInterface[]> {
    const signal = callSignal.getStore()
    const options = { topK: this.topK, ...withFilter(this.filter), ...(signal === undefined ? {} : { signal }) }
    const hits: unknown = await Promise.resolve()
      .then(() => this.retriever.retrieve(query, options))
      .catch((e: unknown) => {
        throw callbackError(e, 'retriever.retrieve')
      })
    if (!isArray(hits)) throw typeError('retriever.retrieve must resolve to an array')
    return hits.map((h, i) => hitToDocument(h, i, this.scoreKey))
  }
}
