import { rangeError, typeError } from './errors'
import { finiteNumber, isPlainObject, nonNegativeInteger, optionsObject } from './validate'
import type { ScoredDocument } from './retriever'

/** How `fuse` combines lists: by rank (`'rrf'`) or by normalised score (`'weighted'`). */
export type FusionMethod = 'rrf' | 'weighted'

/** How `'weighted'` fusion puts each list's scores on a common scale. */
export type ScoreNormalization = 'minmax' | 'zscore' | 'none'

export interface FuseOptions<T extends ScoredDocument = ScoredDocument> {
  /** Default `'rrf'`. */
  method?: FusionMethod
  /** RRF constant, > 0 (default 60): a list contributes `weight / (k + rank)`. Only for `'rrf'`. */
  k?: number
  /** One finite weight >= 0 per list (default 1 each); at least one must be positive. */
  weights?: readonly number[]
  /** Only for `'weighted'` (default `'minmax'`). */
  normalize?: ScoreNormalization
  /** What makes two items the same document: `'id'` (default) or a function returning a string key. */
  dedupeBy?: 'id' | ((doc: T) => string)
  /** Keep at most this many fused documents (default all). */
  topK?: number
}

/** What one input list gave a fused document. */
export interface FusionContribution {
  /** Index of the input list. */
  list: number
  /** 1-based rank in that list, counting only the first copy of each document. */
  rank: number
  /** The document's own score in that list. */
  score: number
  /** What the list added to the fused score: `w / (k + rank)`, or `w * normalized(score)`. */
  contribution: number
}

/** A fused document: the best-ranked copy's fields, the fused `score`, and where it came from. */
export type Fused<T extends ScoredDocument = ScoredDocument> = T & {
  score: number
  /** One entry per list that contains the document, in list order. */
  fusion: FusionContribution[]
}

/** One distinct document while fusing. */
interface Entry<T> {
  doc: T
  bestRank: number
  bestList: number
  /** The last list that contained it: a second copy in the same list is skipped. */
  lastList: number
  parts: FusionContribution[]
  score: number
}

/**
 * Fuses ranked lists of scored documents into one ranking.
 *
 * - `'rrf'`: `score = Σ w_i / (k + rank_i)` over the lists containing the document, ranks 1-based.
 * - `'weighted'`: `score = Σ w_i * norm_i(score_i)`. `'minmax'` maps a list's best score to 1 and
 *   its worst to 0; a list whose scores are all equal (one item included) gives each 1.
 *   `'zscore'` is `(s - mean) / std` (population std); zero variance gives each 0. `'none'`
 *   uses raw scores.
 *
 * A document missing from a list gets 0 from it. Each list is taken in the given order (scores
 * are not re-sorted), and a repeated document within one list counts once, at its first
 * position; later items move up. The output keeps the fields of the document's best-ranked
 * copy (lowest rank; on equal ranks the earliest list), with `score` replaced by the fused
 * score and a `fusion` field listing each list's share.
 *
 * Order: fused score descending; ties by best rank, then by the list it was reached in. A
 * document's contributions are summed in ascending order, so its score does not depend on
 * the order of the lists. O(total items + d log d) for d distinct documents.
 */
export function fuse<T extends ScoredDocument>(lists: readonly (readonly T[])[], options: FuseOptions<T> = {}): Fused<T>[] {
  if (!Array.isArray(lists)) throw typeError('lists must be an array of arrays of { id, score }')
  const o = fuseOptions(options, lists.length)
  const entries = new Map<string, Entry<T>>()
  for (let i = 0; i < lists.length; i++) {
    const list = lists[i]
    if (!Array.isArray(list)) throw typeError(`lists[${i}] must be an array of { id, score }`)
    const parts = collect(list, i, o, entries)
    if (o.method === 'rrf') for (const p of parts) p.contribution = o.weights[i] / (o.k + p.rank)
    else applyNormalized(parts, o.weights[i], o.normalize)
  }
  const all = [...entries.values()]
  for (const e of all) e.score = sumAscending(e.parts)
  all.sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || a.bestList - b.bestList)
  const kept = o.topK === undefined ? all : all.slice(0, o.topK)
  return kept.map((e) => ({ ...e.doc, score: e.score, fusion: e.parts }))
}

interface CheckedOptions<T> {
  method: FusionMethod
  k: number
  weights: readonly number[]
  normalize: ScoreNormalization
  key: (doc: T) => unknown
  topK?: number
}

function fuseOptions<T extends ScoredDocument>(options: unknown, count: number): CheckedOptions<T> {
  const o = optionsObject(options, 'options')
  const method = o.method ?? 'rrf'
  if (method !== 'rrf' && method !== 'weighted') throw rangeError(`options.method must be 'rrf' or 'weighted', got ${String(method)}`)
  if (method === 'weighted' && o.k !== undefined) throw rangeError("options.k applies to method 'rrf' only")
  if (method === 'rrf' && o.normalize !== undefined) throw rangeError("options.normalize applies to method 'weighted' only")
  const k = o.k === undefined ? 60 : finiteNumber(o.k, 'options.k', 0)
  if (k === 0) throw rangeError('options.k must be > 0, got 0')
  const normalize = o.normalize ?? 'minmax'
  if (normalize !== 'minmax' && normalize !== 'zscore' && normalize !== 'none') {
    throw rangeError(`options.normalize must be 'minmax', 'zscore' or 'none', got ${String(normalize)}`)
  }
  return {
    method,
    k,
    weights: o.weights === undefined ? new Array<number>(count).fill(1) : checkWeights(o.weights, count, 'options.weights'),
    normalize,
    key: dedupeKey<T>(o.dedupeBy),
    topK: o.topK === undefined ? undefined : nonNegativeInteger(o.topK, 'options.topK'),
  }
}

/** Weights: one finite number >= 0 per list, at least one positive (unless there are no lists). */
export function checkWeights(v: unknown, count: number, name: string): number[] {
  if (!Array.isArray(v)) throw typeError(`${name} must be an array of numbers`)
  if (v.length !== count) throw rangeError(`${name} must have one weight per list: got ${v.length} for ${count}`)
  const weights = v.map((w, i) => finiteNumber(w, `${name}[${i}]`, 0))
  if (count > 0 && !weights.some((w) => w > 0)) throw rangeError(`${name}: at least one weight must be > 0`)
  return weights
}

function dedupeKey<T extends ScoredDocument>(v: unknown): (doc: T) => unknown {
  if (v === undefined || v === 'id') return (doc) => doc.id
  if (typeof v === 'function') return v as (doc: T) => unknown
  throw rangeError(`options.dedupeBy must be 'id' or a function (doc) => string, got ${String(v)}`)
}

/** Registers list `i`'s distinct documents and returns their contributions (still 0) in rank order. */
function collect<T extends ScoredDocument>(list: readonly T[], i: number, o: CheckedOptions<T>, entries: Map<string, Entry<T>>) {
  const parts: FusionContribution[] = []
  for (let j = 0; j < list.length; j++) {
    const doc = list[j]
    const where = `lists[${i}][${j}]`
    if (!isPlainObject(doc)) throw typeError(`${where} must be an object { id, score }`)
    if (typeof doc.id !== 'string' || doc.id === '') throw typeError(`${where}.id must be a non-empty string`)
    if (typeof doc.score !== 'number') throw typeError(`${where}.score must be a number`)
    if (o.method === 'weighted' && !Number.isFinite(doc.score)) throw rangeError(`${where}.score must be finite for weighted fusion, got ${doc.score}`)
    const key = o.key(doc)
    if (typeof key !== 'string') throw typeError(`options.dedupeBy must return a string, got ${typeof key} for ${where}`)
    let entry = entries.get(key)
    if (entry?.lastList === i) continue
    const part: FusionContribution = { list: i, rank: parts.length + 1, score: doc.score, contribution: 0 }
    if (!entry) {
      entry = { doc, bestRank: part.rank, bestList: i, lastList: i, parts: [], score: 0 }
      entries.set(key, entry)
    } else if (part.rank < entry.bestRank) {
      entry.doc = doc
      entry.bestRank = part.rank
      entry.bestList = i
    }
    entry.lastList = i
    entry.parts.push(part)
    parts.push(part)
  }
  return parts
}

function applyNormalized(parts: FusionContribution[], weight: number, normalize: ScoreNormalization): void {
  const norm = normalizer(parts.map((p) => p.score), normalize)
  for (const p of parts) p.contribution = weight * norm(p.score)
}

/** The per-list score map of `'weighted'` fusion. */
export function normalizer(scores: readonly number[], method: ScoreNormalization): (s: number) => number {
  if (method === 'none' || scores.length === 0) return (s) => s
  let min = Infinity
  let max = -Infinity
  for (const s of scores) {
    if (s < min) min = s
    if (s > max) max = s
  }
  // All equal (one item included): for minmax each is the list's best, so each gets full
  // credit; for zscore each sits at the mean. Tested directly, as a computed variance of
  // equal values can come out a rounding error above 0.
  if (min === max) return method === 'minmax' ? () => 1 : () => 0
  if (method === 'minmax') {
    // Halved when max - min overflows; halving is exact, so the ratio is unchanged.
    const h = Number.isFinite(max - min) ? 1 : 0.5
    const range = max * h - min * h
    return (s) => (s * h - min * h) / range
  }
  // z-scores do not change when every score is divided by the same c. A power of two near
  // the largest magnitude divides exactly and keeps the sums below from overflowing or
  // underflowing.
  const c = 2 ** Math.floor(Math.log2(Math.max(Math.abs(min), Math.abs(max))))
  let mean = 0
  for (const s of scores) mean += s / c / scores.length
  let variance = 0
  for (const s of scores) variance += (s / c - mean) ** 2 / scores.length
  const std = Math.sqrt(variance)
  return std > 0 ? (s) => (s / c - mean) / std : () => 0
}

/** Sums in ascending order, so the result depends only on the multiset of contributions. */
function sumAscending(parts: readonly FusionContribution[]): number {
  if (parts.length === 1) return parts[0].contribution
  const values = parts.map((p) => p.contribution).sort((a, b) => a - b)
  let sum = 0
  for (const v of values) sum += v
  return sum
}
