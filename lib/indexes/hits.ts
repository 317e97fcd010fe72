// The search protocol of both indexes (`src/hits.rs` is its native half): one options parser, one options object
// for the native call, and one decoder of the hits that come back.
import { type CoalesceOptions, coalesceOption } from '../internal/batcher.js'
import type { NativeHits, NativeSearchOptions } from '../internal/native.js'
import { booleanOption, optionsObject, topK as parseTopK } from '../internal/validate.js'
import { filterParts } from './filter.js'

/** A hit of `Bm25Index` or `VectorIndex`: sorted by score, best first; ties go to the document added first. */
export interface IndexHit {
  /** The document's id. */
  id: string
  /** Its score for the query, higher is better: BM25's, or the vector index's metric. */
  score: number
  /** The stored text, when the document has one (unless `includeFields: false`, or BM25's `storeText: false`). */
  text?: string
  /** The stored metadata, likewise. */
  meta?: Record<string, unknown>
}

/** A document as `get` returns it: its id, stored text and metadata. */
export interface StoredDocument {
  /** The document's id. */
  id: string
  /** The stored text, when the document has one (BM25 with `storeText: false` keeps none). */
  text?: string
  /** The stored metadata, when it has some. */
  meta?: Record<string, unknown>
}

/** Queries per coalesced `searchAsync` batch of either index: past 64 a batch gains little per query. */
const COALESCE_DEFAULTS = { maxBatch: 64, maxWaitMs: 0 }

/** An index's `coalesce` option: how its concurrent `searchAsync` calls join native batches (false: they do not). */
export function coalescing(v: unknown): Required<CoalesceOptions> | false {
  return coalesceOption(v, 'options.coalesce', COALESCE_DEFAULTS)
}

/** A search's checked options: `topK`, the native options (undefined for a plain `{ topK }`), and the object itself. */
export interface ParsedSearch {
  topK: number
  native: NativeSearchOptions | undefined
  options: Record<string, unknown>
}

/**
 * The options of a search call (`known`: the keys it takes). Types and shapes only (TypeError): the filter's
 * values and the defaults are Rust's. A plain `{ topK }` sends no options object, so the native call reads none.
 */
export function searchOptions(options: unknown, known: ReadonlySet<string>): ParsedSearch {
  const o = optionsObject(options, 'options', known)
  const topK = Math.min(parseTopK(o.topK), 0xffffffff)
  if (o.includeFields === undefined && o.filter === undefined) return { topK, native: undefined, options: o }
  const native: NativeSearchOptions = {}
  if (o.includeFields !== undefined)
    native.includeFields = booleanOption(o.includeFields, 'options.includeFields', true)
  if (o.filter !== undefined) {
    const f = filterParts(o.filter)
    native.filterIds = f.ids
    native.filterMeta = f.meta
  }
  return { topK, native, options: o }
}

/** One `searchAsync` call as the native batch it joins runs it (calls of one batch share `topK` and `opts`). */
export interface SearchCall<Q> {
  query: Q
  topK: number
  opts: NativeSearchOptions | undefined
}

/** Calls of equal keys may share a native batch. The common call has no options object: its key is just `topK`. */
export function batchKey(topK: number, native: NativeSearchOptions | undefined): string {
  return native === undefined ? String(topK) : `${topK}|${JSON.stringify(native)}`
}

/**
 * The reusable output buffer of a synchronous native `search` (`fill_buffer` in `src/hits.rs`), and the decoder of
 * what the search returns: the native side fills `out[0]` = hit count, then the scores, then the UTF-16 end offsets
 * of the ids, and returns the ids joined in one string (or, for hits with fields, `NativeHits`). No typed array is
 * made per query.
 */
export class HitBuffer {
  #out = new Float64Array(1 + 2 * 16)

  /** The buffer, grown for `topK` hits unless that is beyond what is worth keeping. */
  forTopK(topK: number): Float64Array {
    if (this.#out.length < 1 + 2 * topK && topK <= MAX_BUFFERED_HITS) this.#out = new Float64Array(1 + 2 * topK)
    return this.#out
  }

  /** The hits of the search that just filled the buffer and returned `r`. */
  hits(r: string | NativeHits): IndexHit[] {
    if (typeof r !== 'string') return hitsOf(r, 0, r.idEnds.length, parseMetas(r))
    const out = this.#out
    const n = out[0]
    const hits: IndexHit[] = new Array(n)
    let start = 0
    for (let i = 0; i < n; i++) {
      const end = out[1 + n + i]
      hits[i] = { id: r.slice(start, end), score: out[1 + i] }
      start = end
    }
    return hits
  }
}

/** Top-k sizes up to which `search` keeps a reusable output buffer. */
const MAX_BUFFERED_HITS = 1024

/** A batch's hits, one list per query. */
export function allHits(hits: NativeHits): IndexHit[][] {
  const out: IndexHit[][] = []
  batchHits(hits, out)
  return out
}

/** A batch's hits split per query by `counts` (the columns run over the whole batch), appended to `out`. */
export function batchHits(hits: NativeHits, out: IndexHit[][]): void {
  const { counts } = hits
  const metas = parseMetas(hits)
  if (counts === undefined) {
    out.push(hitsOf(hits, 0, hits.idEnds.length, metas))
    return
  }
  let at = 0
  for (let q = 0; q < counts.length; q++) {
    out.push(hitsOf(hits, at, at + counts[q], metas))
    at += counts[q]
  }
}

function parseMetas(h: NativeHits): (Record<string, unknown> | null)[] | undefined {
  return h.metasJson === undefined ? undefined : (JSON.parse(h.metasJson) as (Record<string, unknown> | null)[])
}

/** Hit objects for the rows `from..to` of the columns. */
function hitsOf(
  h: NativeHits,
  from: number,
  to: number,
  metas: (Record<string, unknown> | null)[] | undefined,
): IndexHit[] {
  const { ids, idEnds, scores, texts } = h
  const out: IndexHit[] = new Array(to - from)
  let start = from === 0 ? 0 : idEnds[from - 1]
  for (let i = from; i < to; i++) {
    const hit: IndexHit = { id: ids.slice(start, idEnds[i]), score: scores[i] }
    start = idEnds[i]
    const text = texts?.[i]
    if (text != null) hit.text = text
    const meta = metas?.[i]
    if (meta != null) hit.meta = meta
    out[i - from] = hit
  }
  return out
}
