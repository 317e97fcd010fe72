import { typeError } from '../errors.js'
import { fuse, rrfConstant, type Fused } from './fusion.js'
import { abortable, throwIfAborted } from '../internal/abort.js'
import { retrieveAll } from './fan-out.js'
import {
  checkFilterSupport,
  checkQuery,
  isRetriever,
  RETRIEVE_KEYS,
  retrieveOptions,
  type RetrieveOptions,
  type Retriever,
  supportsFilter,
} from './retriever.js'
import {
  booleanOption,
  hasMethod,
  oneOf,
  optionKeys,
  optionsObject,
  positiveInteger,
  stringArray,
} from '../internal/validate.js'

/** Rewrites a query into variants; in practice an LLM call. */
export type QueryVariantsFunction = (
  query: string,
  options: { signal?: AbortSignal },
) => readonly string[] | Promise<readonly string[]>

/** An object that produces variants, such as a `QueryRewriter`. */
export interface QueryVariantSource {
  /** The variants of `query` (the original is added by the retriever when `includeOriginal`). */
  variants(query: string, options: { signal?: AbortSignal }): readonly string[] | Promise<readonly string[]>
}

/** Options of `new MultiQueryRetriever(options)`. */
export interface MultiQueryRetrieverOptions {
  /** The retriever every variant runs against. */
  retriever: Retriever
  /** The variants: a fixed list, a function of the query, or a source such as a `QueryRewriter`. A call's own `queries` option overrides it. */
  queries?: readonly string[] | QueryVariantsFunction | QueryVariantSource
  /** Also retrieve with the original query (default true). */
  includeOriginal?: boolean
  /** Retrievals in flight at once (default 4). */
  concurrency?: number
  /**
   * How the variants' lists become one (default `'rrf'`): `'rrf'` by rank; `'max'` by each
   * document's best score over the variants (the competition pipeline's "top 3 by best
   * score"); `'sum'` by the sum of its scores. Score merges need scores on one scale, as
   * one retriever's are for every variant.
   */
  merge?: MultiQueryMerge
  /** RRF constant (default 60). Only for `merge: 'rrf'`. */
  rrfK?: number
  /** Candidates each variant fetches (default 50, and at least the call's `topK`). */
  candidates?: number
}

/** How `MultiQueryRetriever` merges the variants' lists. */
export type MultiQueryMerge = 'rrf' | 'max' | 'sum'

/** Options of `MultiQueryRetriever.retrieve`. */
export interface MultiQueryRetrieveOptions extends RetrieveOptions {
  /** This call's variants, used instead of the constructor's `queries` (e.g. rewrites you already have). */
  queries?: readonly string[]
}

const MULTI_QUERY_KEYS = optionKeys(
  'retriever',
  'queries',
  'includeOriginal',
  'concurrency',
  'merge',
  'rrfK',
  'candidates',
)
const MULTI_QUERY_RETRIEVE_KEYS = optionKeys(...RETRIEVE_KEYS, 'queries')

/**
 * Retrieves with several variants of a query and fuses the lists with RRF, so a document
 * found by several variants, or ranked high by one, rises (unlike a plain union).
 * Variants are trimmed, and ones equal up to whitespace are run once; empty ones are
 * dropped. If none is left (and the original is excluded), the original query is used.
 * In each result, `fusion[].list` indexes the variants as run: the original first when
 * included, then the rewrites in their order.
 */
export class MultiQueryRetriever implements Retriever {
  readonly #retriever: Retriever
  readonly #rewrite?: readonly string[] | QueryVariantsFunction
  readonly #includeOriginal: boolean
  readonly #concurrency: number
  readonly #rrfK?: number
  readonly #merge: MultiQueryMerge
  readonly #candidates: number

  constructor(options: MultiQueryRetrieverOptions) {
    const o = optionsObject(options, 'options', MULTI_QUERY_KEYS)
    if (!isRetriever(o.retriever))
      throw typeError('options.retriever must be a retriever (with retrieve(query, options))')
    this.#retriever = o.retriever
    const source = o.queries as QueryVariantSource | undefined
    this.#rewrite =
      o.queries === undefined || typeof o.queries === 'function'
        ? (o.queries as QueryVariantsFunction | undefined)
        : hasMethod(source, 'variants')
          ? (q, opts) => (source as QueryVariantSource).variants(q, opts)
          : [...stringArray(o.queries, 'options.queries')]
    this.#includeOriginal = booleanOption(o.includeOriginal, 'options.includeOriginal', true)
    this.#concurrency = o.concurrency === undefined ? 4 : positiveInteger(o.concurrency, 'options.concurrency')
    this.#merge = oneOf(o.merge ?? 'rrf', ['rrf', 'max', 'sum'], 'options.merge')
    this.#rrfK = rrfConstant(o, this.#merge === 'rrf' ? 'rrf' : 'weighted') // rrfK only means something to RRF
    this.#candidates = o.candidates === undefined ? 50 : positiveInteger(o.candidates, 'options.candidates')
  }

  /** True when its retriever honours filters. */
  get supportsFilter(): boolean {
    return supportsFilter(this.#retriever)
  }

  /** Retrieves for every variant and merges the lists (`merge`). */
  async retrieve(query: string, options: MultiQueryRetrieveOptions = {}): Promise<Fused[]> {
    const original = checkQuery(query)
    const { topK, signal, filter } = retrieveOptions(options, MULTI_QUERY_RETRIEVE_KEYS)
    checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }])
    const given = options?.queries === undefined ? undefined : stringArray(options.queries, 'options.queries')
    throwIfAborted(signal)
    if (topK === 0) return []
    const variants = distinctQueries(original, given ?? (await this.#rewrites(original, signal)), this.#includeOriginal)
    const depth = Math.max(this.#candidates, topK)
    const calls = variants.map((q, i) => ({
      retriever: this.#retriever,
      query: q,
      depth,
      filter,
      who: `retriever.retrieve (query ${i})`,
    }))
    const lists = await retrieveAll(calls, this.#concurrency, signal)
    if (this.#merge === 'rrf') return fuse(lists, { rrfK: this.#rrfK, topK })
    const summed = fuse(lists, { method: 'weighted', scoreNormalization: 'none' })
    return (this.#merge === 'sum' ? summed : byBestScore(summed)).slice(0, topK)
  }

  async #rewrites(query: string, signal: AbortSignal | undefined): Promise<readonly string[]> {
    const r = this.#rewrite
    if (r === undefined) return []
    if (typeof r !== 'function') return r
    const out = await abortable(
      Promise.resolve().then(() => r(query, { signal })),
      signal,
    )
    return stringArray(out, 'the queries function result')
  }
}

/**
 * Re-scores summed results by each document's best score: the list that gave it keeps its
 * contribution, the others contribute 0. Stable, so ties keep the fused order (best rank).
 */
function byBestScore(fused: Fused[]): Fused[] {
  return fused
    .map((d) => {
      const best = d.fusion.reduce((a, b) => (b.score > a.score ? b : a))
      return {
        ...d,
        score: best.score,
        fusion: d.fusion.map((c) => ({ ...c, contribution: c === best ? c.score : 0 })),
      }
    })
    .sort((a, b) => b.score - a.score)
}

/** The original (optionally) and the rewrites, trimmed, empty and whitespace-equal ones dropped. */
export function distinctQueries(original: string, rewrites: readonly string[], includeOriginal: boolean): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  const add = (q: string) => {
    const key = q.trim().replace(/\s+/g, ' ')
    if (key === '' || seen.has(key)) return
    seen.add(key)
    out.push(q.trim())
  }
  if (includeOriginal) add(original)
  for (const q of rewrites) add(q)
  return out.length > 0 ? out : [original]
}
