import { typeError } from '../errors.js'
import {
  checkWeights,
  fuse,
  listWeight,
  rrfConstant,
  type Fused,
  type FusionMethod,
  type ScoreNormalization,
} from './fusion.js'
import { throwIfAborted } from '../internal/abort.js'
import { retrieveAll } from './fan-out.js'
import {
  checkFilterSupport,
  checkQuery,
  isRetriever,
  retrieveOptions,
  type RetrieveOptions,
  type Retriever,
  type ScoredDocument,
  supportsFilter,
} from './retriever.js'
import {
  checkKeys,
  isArray,
  isPlainObject,
  oneOf,
  optionKeys,
  optionsObject,
  positiveInteger,
} from '../internal/validate.js'

/** One retriever of a hybrid, with its own candidate depth and weight. */
export interface HybridSource {
  /** The retriever. */
  retriever: Retriever
  /** Candidates it fetches (default: the hybrid's `candidates`, and at least the call's `topK`). */
  topK?: number
  /** Its weight in the fusion, finite and >= 0 (default 1). */
  weight?: number
}

/** Options of `new HybridRetriever(options)`. */
export interface HybridRetrieverOptions {
  /** Retrievers, bare or as `{ retriever, topK, weight }`. */
  retrievers: readonly (Retriever | HybridSource)[]
  /** Default `'rrf'`. */
  method?: FusionMethod
  /** RRF constant (default 60). */
  rrfK?: number
  /** Score normalisation for `'weighted'` (default `'minmax'`). */
  scoreNormalization?: ScoreNormalization
  /** Default candidate depth per retriever (default 50). */
  candidates?: number
  /**
   * A retriever that fails makes the call reject with its error (`'reject'`, default; the
   * others are aborted), or is left out of the fusion (`'skip'`; the call rejects with an
   * AggregateError, code `ERR_ALL_SOURCES_FAILED`, holding every error in `errors`, only when
   * every retriever failed). An abort always rejects.
   */
  onError?: 'reject' | 'skip'
  /** Called with each error `'skip'` leaves out, and the retriever's index (for logging). */
  onSkip?: (error: unknown, index: number) => void
}

export const DEFAULT_CANDIDATES = 50

const HYBRID_KEYS = optionKeys('retrievers', 'method', 'rrfK', 'scoreNormalization', 'candidates', 'onError', 'onSkip')
const SOURCE_KEYS = optionKeys('retriever', 'topK', 'weight')

/**
 * Runs several retrievers concurrently on the same query and fuses their lists with `fuse`
 * (weighted RRF by default). In each result, `fusion[].list` is the retriever's index.
 * Results a retriever returns beyond its depth are dropped.
 *
 * @example
 * ```ts
 * import { Bm25Index, Embedder, HybridRetriever, VectorIndex, VectorRetriever } from 'ragrank'
 *
 * const bm25 = new Bm25Index()
 * bm25.add(docs) // [{ id, text, meta? }]
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2')
 * const { data, dim } = await embedder.embedDocuments(docs.map((d) => d.text))
 * const vectors = new VectorIndex({ dim })
 * vectors.add(docs.map((d, i) => ({ ...d, vector: data.subarray(i * dim, (i + 1) * dim) }))) // rows with text and meta
 * const hybrid = new HybridRetriever({
 *   retrievers: [bm25, { retriever: new VectorRetriever({ index: vectors, embed: embedder }), weight: 2 }],
 *   candidates: 50,
 * })
 * await hybrid.retrieve('how do tides work', { topK: 10, filter: { meta: { lang: 'en' } } })
 * // [{ id, score, text, fusion: [{ list, rank, score, contribution }] }]
 * ```
 */
export class HybridRetriever implements Retriever {
  readonly #sources: { retriever: Retriever; topK?: number }[]
  readonly #weights: number[]
  readonly #fusion: { method: FusionMethod; rrfK?: number; scoreNormalization?: ScoreNormalization }
  readonly #candidates: number
  readonly #skipFailures: boolean
  readonly #onSkip?: (error: unknown, index: number) => void

  constructor(options: HybridRetrieverOptions) {
    const o = optionsObject(options, 'options', HYBRID_KEYS)
    if (!isArray(o.retrievers) || o.retrievers.length === 0) {
      throw typeError('options.retrievers must be a non-empty array of retrievers or { retriever, topK?, weight? }')
    }
    const sources = o.retrievers.map(source)
    this.#sources = sources.map(({ retriever, topK }) => ({ retriever, topK }))
    this.#weights = checkWeights(
      sources.map((s) => s.weight),
      sources.length,
      'options.retrievers weights',
    )
    const scoreNormalization = o.scoreNormalization as ScoreNormalization | undefined
    const method = (o.method ?? 'rrf') as FusionMethod
    this.#fusion = { method, rrfK: rrfConstant(o, method), scoreNormalization }
    fuse([], this.#fusion) // validates method and the normalisation now rather than on the first query
    this.#candidates =
      o.candidates === undefined ? DEFAULT_CANDIDATES : positiveInteger(o.candidates, 'options.candidates')
    this.#skipFailures = oneOf(o.onError ?? 'reject', ['reject', 'skip'], 'options.onError') === 'skip'
    if (o.onSkip !== undefined && typeof o.onSkip !== 'function')
      throw typeError('options.onSkip must be a function (error, index) => void')
    this.#onSkip = o.onSkip as HybridRetrieverOptions['onSkip']
  }

  /** True when every source honours filters. */
  get supportsFilter(): boolean {
    return this.#sources.every((s) => supportsFilter(s.retriever))
  }

  /** Runs every retriever on `query` (with the call's `filter`) and fuses their lists into the best `topK`. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<Fused[]> {
    const text = checkQuery(query)
    const { topK, signal, filter } = retrieveOptions(options)
    if (filter !== undefined)
      checkFilterSupport(
        filter,
        this.#sources.map((s, i) => ({ retriever: s.retriever, who: `retrievers[${i}]` })),
      )
    throwIfAborted(signal)
    if (topK === 0) return []
    const failures: unknown[] = []
    const skip = (e: unknown, i: number): ScoredDocument[] => {
      failures.push(e)
      this.#onSkip?.(e, i)
      return [] // an empty list keeps list indices equal to retriever indices
    }
    const calls = this.#sources.map((s, i) => ({
      retriever: s.retriever,
      query: text,
      depth: s.topK ?? Math.max(this.#candidates, topK),
      filter,
      who: `retrievers[${i}].retrieve`,
    }))
    const lists = await retrieveAll(calls, calls.length, signal, this.#skipFailures ? skip : undefined)
    if (failures.length === this.#sources.length) {
      const all = new AggregateError(failures, 'every retriever of the HybridRetriever failed')
      throw Object.assign(all, { code: 'ERR_ALL_SOURCES_FAILED' as const })
    }
    return fuse(lists, { ...this.#fusion, weights: this.#weights, topK })
  }
}

function source(v: unknown, i: number): { retriever: Retriever; topK?: number; weight: number } {
  if (isRetriever(v)) return { retriever: v, weight: 1 }
  const where = `options.retrievers[${i}]`
  if (!isPlainObject(v) || !isRetriever(v.retriever)) {
    throw typeError(`${where} must be a retriever (with retrieve(query, options)) or { retriever, topK?, weight? }`)
  }
  checkKeys(v, SOURCE_KEYS, where)
  return {
    retriever: v.retriever,
    topK: v.topK === undefined ? undefined : positiveInteger(v.topK, `${where}.topK`),
    weight: listWeight(v.weight, `${where}.weight`),
  }
}
