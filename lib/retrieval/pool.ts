import { abortable, checkSignal, throwIfAborted } from '../internal/abort.js'
import { type Candidate, checkCandidates, dedupe, type DedupeBy, dedupeRule } from './dedupe.js'
import { describe, typeError } from '../errors.js'
import {
  checkFilterSupport,
  checkQuery,
  isRetriever,
  RETRIEVE_KEYS,
  retrievedList,
  type RetrieveFilter,
  type Retriever,
  type ScoredDocument,
  supportsFilter,
  withFilter,
} from './retriever.js'
import {
  hasMethod,
  isArray,
  isPlainObject,
  optionKeys,
  optionsObject,
  positiveInteger,
  topK as topKOption,
} from '../internal/validate.js'

/** `CrossEncoder`, `LLMRanker`, or anything with the same method. */
export interface Ranker {
  /** The documents reordered (and cut to `topK`), best first. */
  rerank(
    query: string,
    documents: readonly Candidate[],
    options?: { topK?: number; signal?: AbortSignal },
  ): Promise<unknown[]>
}

/** Options of `rerankPooled`. */
export interface PoolRerankOptions {
  /** Default 10. */
  topK?: number
  /** Cancels the ranker call; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
  /** Default `'id-or-content'`, the rankers' rule (see `dedupe`); `'content'` when sources id the same text differently; `'none'` to keep every copy. */
  dedupeBy?: DedupeBy
}

/** A pooled document after reranking: the ranker's output, `index` pointing into the pooled input, prior score in meta. */
export type Pooled = ScoredDocument & {
  /** Position of the kept copy in the pooled input. */
  index: number
  /** The input's meta, plus `priorScore` when the input had a score. */
  meta: Record<string, unknown>
  [k: string]: unknown
}

export function isRanker(v: unknown): v is Ranker {
  return hasMethod(v, 'rerank')
}

const POOL_RERANK_KEYS = optionKeys('topK', 'signal', 'dedupeBy')
const COMPRESSION_KEYS = optionKeys('ranker', 'retriever', 'candidates', 'dedupeBy')
const COMPRESSION_RETRIEVE_KEYS = optionKeys(...RETRIEVE_KEYS, 'dedupeBy', 'documents')

/**
 * Reranks candidates gathered from any number of sources (several indexes, books, tools)
 * in one ranker call. Duplicates are merged first, by the rankers' rule (`dedupe`: the
 * same `id`, or without ids the same text; the copy with the highest prior score is kept,
 * with the fields only its duplicates carry, such as another source's meta), so a passage
 * two sources found is scored once. Each result keeps the score its source
 * gave as `meta.priorScore`, and `index` points into `documents`, at the kept copy.
 */
export async function rerankPooled(
  query: string,
  documents: readonly Candidate[],
  ranker: Ranker,
  options: PoolRerankOptions = {},
): Promise<Pooled[]> {
  checkQuery(query)
  if (!isArray(documents)) throw typeError('documents must be an array of strings or { text } objects')
  if (!isRanker(ranker))
    throw typeError('ranker must have a rerank(query, documents, options) method (a CrossEncoder, an LLMRanker, ...)')
  const o = optionsObject(options, 'options', POOL_RERANK_KEYS)
  const topK = topKOption(o.topK)
  const signal = checkSignal(o.signal)
  const by = dedupeRule(o.dedupeBy ?? 'id-or-content', 'options.dedupeBy')
  const candidates = Array.from(documents, (d: unknown, i): Candidate => {
    if (typeof d === 'string' || (isPlainObject(d) && typeof d.text === 'string')) return d as Candidate
    // AutoMergingRetriever hits carry their text on the (merged) node.
    const node = isPlainObject(d) ? (d as { node?: unknown }).node : undefined
    if (isPlainObject(node) && typeof node.text === 'string') return { ...(d as object), text: node.text } as Candidate
    throw typeError(
      `documents[${i}] must be a string or have a string text${isPlainObject(d) && 'id' in d ? ` (id ${typeof d.id === 'string' ? d.id : describe(d.id)}: was the text stored?)` : ''}`,
    )
  })
  checkCandidates(candidates, 'documents') // ids must be strings: dedupe keys them
  throwIfAborted(signal)
  const { docs, indices } = dedupe(candidates, by)
  if (docs.length === 0 || topK === 0) return []
  const out = await abortable(Promise.resolve(ranker.rerank(query, docs, { topK, signal })), signal)
  if (!isArray(out)) throw typeError('ranker.rerank must resolve to an array')
  return out.slice(0, topK).map((r, i) => {
    if (!isPlainObject(r)) throw typeError(`ranker.rerank result ${i} is not an object`)
    const at = typeof r.index === 'number' && docs[r.index] !== undefined ? r.index : undefined
    const source = at === undefined ? undefined : docs[at]
    const meta: Record<string, unknown> = isPlainObject(r.meta) ? { ...r.meta } : {}
    if (typeof source !== 'string' && typeof source?.score === 'number' && !('priorScore' in meta))
      meta.priorScore = source.score
    return { ...r, index: at === undefined ? -1 : indices[at], meta } as Pooled
  })
}

/** Options of `new CompressionRetriever(options)`. */
export interface CompressionRetrieverOptions {
  /** Reorders and cuts the candidates. */
  ranker: Ranker
  /** Where candidates come from; leave it out to pass `documents` to each call instead. */
  retriever?: Retriever
  /** Candidates fetched from the retriever (default 50, and at least the call's `topK`). */
  candidates?: number
  /** How duplicates are merged before ranking (default `'id-or-content'`; see `PoolRerankOptions.dedupeBy`). */
  dedupeBy?: DedupeBy
}

/** Options of `CompressionRetriever.retrieve`. */
export interface CompressionRetrieveOptions extends PoolRerankOptions {
  /** Candidates you already hold (pooled from several sources); used instead of the base retriever. */
  documents?: readonly Candidate[]
  /** Passed to the base retriever; refused with `documents` (filter them before you pass them). */
  filter?: RetrieveFilter
}

/**
 * A retriever whose results a ranker reorders and cuts: LangChain's
 * ContextualCompressionRetriever, with the base retriever optional so already-collected
 * documents can be passed per call (the variant users patch LangChain for).
 */
export class CompressionRetriever implements Retriever {
  readonly #ranker: Ranker
  readonly #retriever?: Retriever
  readonly #candidates: number
  readonly #dedupeBy?: DedupeBy

  constructor(options: CompressionRetrieverOptions) {
    const o = optionsObject(options, 'options', COMPRESSION_KEYS)
    if (!isRanker(o.ranker)) throw typeError('options.ranker must have a rerank(query, documents, options) method')
    if (o.retriever !== undefined && !isRetriever(o.retriever))
      throw typeError('options.retriever must be a retriever (with retrieve(query, options))')
    this.#ranker = o.ranker
    this.#retriever = o.retriever as Retriever | undefined
    this.#candidates = o.candidates === undefined ? 50 : positiveInteger(o.candidates, 'options.candidates')
    this.#dedupeBy = o.dedupeBy === undefined ? undefined : dedupeRule(o.dedupeBy, 'options.dedupeBy')
  }

  /** True when its base retriever honours filters (without one, there is nothing to filter). */
  get supportsFilter(): boolean {
    return this.#retriever !== undefined && supportsFilter(this.#retriever)
  }

  /** Fetches candidates (or takes `documents`), merges duplicates and returns the ranker's best `topK`. */
  async retrieve(query: string, options: CompressionRetrieveOptions = {}): Promise<Pooled[]> {
    checkQuery(query)
    const o = optionsObject(options, 'options', COMPRESSION_RETRIEVE_KEYS)
    const topK = topKOption(o.topK)
    const signal = checkSignal(o.signal)
    const dedupeBy = (o.dedupeBy ?? this.#dedupeBy) as DedupeBy | undefined
    const filter = o.filter as RetrieveFilter | undefined
    let documents = o.documents as readonly Candidate[] | undefined
    if (filter !== undefined && documents !== undefined) {
      throw typeError(
        'options.filter applies to the base retriever, not to options.documents: filter the documents before passing them',
      )
    }
    if (documents === undefined) {
      if (!this.#retriever) throw typeError('this CompressionRetriever has no base retriever: pass options.documents')
      checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }])
      throwIfAborted(signal)
      if (topK === 0) return []
      const depth = Math.max(this.#candidates, topK)
      const hits = await abortable(
        this.#retriever.retrieve(query, { topK: depth, signal, ...withFilter(filter) }),
        signal,
      )
      documents = retrievedList(hits, depth, 'retriever.retrieve') as Candidate[]
    }
    return rerankPooled(query, documents, this.#ranker, { topK, signal, dedupeBy })
  }
}
