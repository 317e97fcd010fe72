import { native, type NativeBm25Index, type NativeDoc, type NativeSearchOptions } from '../internal/native.js'
import { callNative, describe, rangeError, typeError } from '../errors.js'
import { checkSignal, runCancellable, runCancellableChange, saveCancellable } from '../internal/abort.js'
import {
  anyInteger,
  booleanOption,
  integer,
  documentId,
  isArray,
  isPlainObject,
  jsonValue,
  optionalString,
  optionKeys,
  optionsObject,
  readValue,
  removalIds,
  stringArray,
} from '../internal/validate.js'
import type { Retriever } from '../retrieval/retriever.js'
import { Batcher, type CoalesceOptions } from '../internal/batcher.js'
import { partCount, pipeline } from '../internal/pipeline.js'
import { fieldOptions, type FieldsOption } from './fields.js'
import { type Filter, type MetaFilter, parseMetaFilter } from './filter.js'
import {
  allHits,
  batchHits,
  batchKey,
  coalescing,
  HitBuffer,
  type IndexHit,
  type StoredDocument,
  type SearchCall,
  searchOptions,
} from './hits.js'

/** The names `variant` takes (`'bm25plus'` is also accepted, as `'bm25+'`); docs/BM25.md gives their formulas. */
export const BM25_VARIANTS = Object.freeze(['lucene', 'robertson', 'atire', 'bm25l', 'bm25l-lvzhai', 'bm25+'] as const)

/** BM25 variants, with the formulas of bm25s. */
export type Bm25Variant = (typeof BM25_VARIANTS)[number]

/** How text becomes index terms (the analysis runs in Rust). */
export interface AnalyzerOptions {
  /** `'unicode'` (default): UAX #29 word boundaries. `'regex'`: runs of `\w` of 2+ characters, as bm25s and scikit-learn. */
  segmentation?: 'unicode' | 'regex'
  /** Unicode lowercasing (default true). */
  lowercase?: boolean
  /** `'en'` (the Lucene English list, as bm25s's `"en"`), your own list, or none (default). */
  stopwords?: 'en' | readonly string[] | null
  /** A Snowball stemmer language such as `'english'`, or none (default). */
  stemmer?: string | null
  /**
   * Runs of Hangul, Han, Hiragana and Katakana: `'bigram'` (default) makes overlapping
   * character bigrams (a lone character stays a unigram), `'wordbigram'` also keeps the
   * whole run, `'none'` leaves the word segmenter's cut.
   */
  cjk?: 'bigram' | 'wordbigram' | 'none'
  /** Drop tokens shorter than this many characters (default 1; CJK tokens are kept). */
  minTokenLength?: number
}

/** Options of `new Bm25Index(options)` (and of `Bm25Index.load` for what is not saved). */
export interface Bm25Options {
  /** Default `'lucene'`. */
  variant?: Bm25Variant
  /** Term-frequency saturation, default 1.5 (as bm25s). */
  k1?: number
  /** Length normalisation in [0, 1], default 0.75. */
  b?: number
  /** BM25L/BM25+ shift, default 0.5. */
  delta?: number
  /** Rust analyzer settings, or the preset `'bm25s'` (regex words, lowercase, English stopwords, English stemmer). */
  analyzer?: AnalyzerOptions | 'bm25s'
  /**
   * A JS tokenizer used instead of the Rust analyzer for documents given as text and for
   * string queries (e.g. a morphological analyser). It is not saved with the index: pass
   * it again to `Bm25Index.load`.
   */
  tokenizer?: (text: string) => string[]
  /** Keep document text so hits return it (default true). */
  storeText?: boolean
  /**
   * Metadata fields to index, and how (see `FieldsOption` and docs/FILTERS.md): a filter on indexed fields is
   * answered from bitmaps, and a selective one (a tenant) scores only its documents. Saved with the index.
   */
  fields?: FieldsOption
  /** Index top-level metadata fields not named in `fields` as they come (default true). Saved with the index. */
  dynamicFields?: boolean
  /**
   * Milliseconds after which writes staged without a refresh (`add(docs, { refresh: false })`)
   * become searchable on their own, as Elasticsearch's `refresh_interval` (default 1000;
   * `0` or `null`: only on `refresh()` or the next refreshing write). Not saved with the
   * index: pass it again to `Bm25Index.load`.
   */
  refreshInterval?: number | null
  /**
   * How concurrent `searchAsync` (and `retrieve`) calls are joined into native batches (see
   * docs/CONCURRENCY.md): default `{ maxBatch: 64, maxWaitMs: 0 }` (adaptive: no wait when
   * idle); `false` runs each call as its own batch. Not saved with the index.
   */
  coalesce?: CoalesceOptions | false
}

/** When a write to an index bound to a directory is durable (docs/STORAGE.md). */
export type Durability = 'commit' | 'sync' | 'async'

/** Options of `Bm25Index.open(dir, options)`. */
export interface Bm25OpenOptions extends Bm25Options {
  /**
   * `'commit'` (default): writes are durable at the next `commit()`, and a crash loses those made since (as
   * Lucene without a translog). `'sync'`: each `add`/`remove` returns once its log record is on disk (concurrent
   * writers share one fsync); `'async'`: logged at once, fsync'd every `syncInterval` ms. `open` replays the log.
   */
  durability?: Durability
  /** With `durability: 'async'`, milliseconds between fsyncs of the log (default 1000). */
  syncInterval?: number
  /**
   * Open as a reader (any number, in any process): the last commit, read without the writer's lock; newer commits
   * are picked up every `refreshInterval` ms (default 1000; `0`/`null`: only at `refresh()`). Writes throw
   * `ERR_READ_ONLY`.
   */
  readOnly?: boolean
  /** Rejects the open with an `AbortError` if it fires before the open starts (one under way completes). */
  signal?: AbortSignal
}

/** A document to index. `tokens` bypass analysis; when both are given, tokens are indexed and text is stored. */
export interface Bm25Document {
  /** Unique in the index (`ERR_DUPLICATE_ID` unless `upsert`). */
  id: string
  /** Analysed into terms, and stored unless `storeText: false`. */
  text?: string
  /** Terms indexed as they are, without analysis. */
  tokens?: readonly string[]
  /** JSON metadata, returned with hits and matched by `filter.meta`. */
  meta?: Record<string, unknown>
}

/** Restricts a search: documents must have one of `ids` and match the `meta` filter (see docs/FILTERS.md). */
export type Bm25Filter = Filter

/** Options of `Bm25Index.search`. */
export interface Bm25SearchOptions {
  /** How many hits at most (default 10). 0 returns none; more than the matches returns all matches. */
  topK?: number
  /** Only documents that match it are scored (checked inside the scan, so `topK` still fills). */
  filter?: Bm25Filter
  /** Return each hit's stored `text` and `meta` (default true). */
  includeFields?: boolean
}

/** Options of `Bm25Index.searchAsync`, `searchBatch` and `retrieve`: the search options plus a signal. */
export interface Bm25BatchOptions extends Bm25SearchOptions {
  /** Cancels the batch; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
}

/** Options of `Bm25Index.searchBatch`: the batch options plus a cap on its threads. */
export interface Bm25SearchBatchOptions extends Bm25BatchOptions {
  /**
   * At most this many threads search the batch at once (an integer >= 1; default: all of
   * the pool's). With `1` the queries run one after another on one pool thread and the
   * batch is not cut into pipelined parts, so it never uses more than one core at a time
   * (the event loop waits while it runs); a server can keep one tenant's large batch off
   * the other cores this way. Results are the same for every value.
   */
  threads?: number
}

/** A hit of `Bm25Index.search`: its score is the document's BM25 score; ties go to the document added first. */
export type Bm25Hit = IndexHit

/** What `Bm25Index.stats()` reports. */
export interface Bm25Stats {
  /** Live documents. */
  documents: number
  /** Distinct terms in live documents. */
  terms: number
  /** (term, document) pairs. */
  postings: number
  /** Mean document length in terms, the `avgdl` of the formulas. */
  avgDocLength: number
  /** Postings (document, tf) plus the forward index (term, tf), per posting. */
  bytesPerPosting: number
  /** Approximate memory held by the index's segments. */
  memoryBytes: number
  /** fsyncs of the write-ahead log so far (an index opened with `durability: 'sync'` or `'async'`). */
  logFsyncs?: number
  /**
   * Terms whose precomputed scores are also held as a dense row of one float per document (terms in at least
   * half the documents of a segment below 50,000 documents, built with the other precomputed parts once the index
   * has been quiet for a second; 0 before). Counted in `memoryBytes`, not in `bytesPerPosting`.
   */
  denseTerms: number
  /** Segments searched (each refresh adds one; background merges join them). */
  segments: number
  /** Removed documents still held by segments, until a merge rewrites them away. */
  deletedDocs: number
  /** Approximate bytes of the field indexes by field (counted in `memoryBytes`). */
  fieldIndexBytes: Record<string, number>
  /** Searches with a metadata filter since the index was made or loaded. */
  filteredSearches: number
  /** Of those, searches that tested some candidates' metadata one by one (a field no field index covers)... */
  scannedFilterSearches: number
  /** ...and the fields that made them (up to 64 names). */
  scannedFilterFields: string[]
}

/** A query: text (analysed like documents) or tokens (used as they are). */
export type Bm25Query = string | readonly string[]

/** Lets `load` wrap an index read from disk without a public constructor overload. */
const FROM_NATIVE = Symbol('fromNative')

/** The analyzer fields Rust reads; any other key is a TypeError naming it (Rust would reject it too, less clearly). */
const ANALYZER_KEYS = ['segmentation', 'lowercase', 'stopwords', 'stemmer', 'cjk', 'minTokenLength'] as const
const ANALYZER_KEY_SET = optionKeys(...ANALYZER_KEYS)
const INDEX_KEYS = optionKeys(
  'variant',
  'k1',
  'b',
  'delta',
  'analyzer',
  'tokenizer',
  'storeText',
  'fields',
  'dynamicFields',
  'refreshInterval',
  'coalesce',
)
const ADD_KEYS = optionKeys('upsert', 'refresh')
const ADD_ASYNC_KEYS = optionKeys('upsert', 'signal')
const SEARCH_KEYS = optionKeys('topK', 'filter', 'includeFields')
const BATCH_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal')
const SEARCH_BATCH_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal', 'threads')
const OPEN_KEYS = new Set([...INDEX_KEYS, 'durability', 'syncInterval', 'readOnly', 'signal'])
const DURABILITIES: readonly string[] = ['commit', 'sync', 'async']
const COMMIT_KEYS = optionKeys('signal')
const LOAD_KEYS = optionKeys('tokenizer', 'signal', 'refreshInterval', 'coalesce')
const REFRESH_KEYS = optionKeys('signal')
const REMOVE_MATCHING_KEYS = optionKeys('signal')
/** `refreshInterval` as it crosses: milliseconds, 0 for off, undefined for Rust's default (1000, as Elasticsearch's). */
function refreshInterval(v: unknown): number | undefined {
  if (v === undefined) return undefined
  if (v === null) return 0
  return integer(v, 'options.refreshInterval', 0, 0x7fffffff)
}

/**
 * Types and shapes only: defaults, ranges and enum names are Rust's (`IndexConfig` in
 * ragrank-core), which names the bad option in a RangeError.
 */
function analyzerShape(a: unknown): unknown {
  if (typeof a === 'string') return a // a preset name
  const o = optionsObject(a, 'options.analyzer', ANALYZER_KEY_SET)
  // null means the default (as it always has); Rust reads it so.
  optionalString(o.segmentation ?? undefined, 'options.analyzer.segmentation')
  optionalString(o.cjk ?? undefined, 'options.analyzer.cjk')
  optionalString(o.stemmer ?? undefined, 'options.analyzer.stemmer')
  if (o.stopwords !== undefined && o.stopwords !== null && typeof o.stopwords !== 'string') {
    stringArray(o.stopwords, 'options.analyzer.stopwords')
  }
  if (o.lowercase !== undefined) booleanOption(o.lowercase, 'options.analyzer.lowercase', true)
  if (o.minTokenLength !== undefined) anyInteger(o.minTokenLength, 'options.analyzer.minTokenLength')
  return Object.fromEntries(ANALYZER_KEYS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]))
}

function indexConfig(options: unknown): string {
  const o = optionsObject(options, 'options', INDEX_KEYS)
  const variant = o.variant ?? undefined // null means the default, as it always has
  optionalString(variant, 'options.variant')
  for (const name of ['k1', 'b', 'delta'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'number')
      throw typeError(`options.${name} must be a number, got ${describe(o[name])}`)
  }
  if (o.storeText !== undefined) booleanOption(o.storeText, 'options.storeText', true)
  const params = { variant, k1: o.k1, b: o.b, delta: o.delta }
  // JSON has no NaN or Infinity: they cross spelled out, so Rust can reject them by name.
  const spellNonFinite = (_key: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)
  const fields = fieldOptions(o.fields, o.dynamicFields)
  return JSON.stringify(
    { params, analyzer: analyzerShape(o.analyzer), storeText: o.storeText, ...fields },
    spellNonFinite,
  )
}

/** The index options of `open` as they cross: only the keys given, so the others take the directory's. */
function recordedOptions(o: Record<string, unknown>): string | undefined {
  const { tokenizer: _t, refreshInterval: _r, coalesce: _c, ...rest } = o
  if (Object.values(rest).every((v) => v === undefined)) return undefined
  const config = JSON.parse(indexConfig(rest)) as Record<string, unknown>
  if (Object.keys(config.params as object).length === 0) delete config.params
  if (rest.analyzer === undefined) delete config.analyzer
  return JSON.stringify(config)
}

function checkTokenizer(t: unknown): ((text: string) => string[]) | undefined {
  if (t === undefined || t === null) return undefined
  if (typeof t !== 'function') throw typeError('options.tokenizer must be a function (text) => string[]')
  return t as (text: string) => string[]
}

/**
 * An incremental BM25 index whose analysis, scoring and top-k selection run in Rust, and
 * that takes writes while it serves reads (as Lucene does): searches run on an immutable
 * snapshot and never wait for a writer, a refresh or a save.
 *
 * Writes are staged, then published by a refresh, which adds one segment holding what
 * changed (its cost follows the change, not the index); a background thread merges
 * segments and drops removed documents and their terms.
 *
 * Synchronous (on the event loop; none waits for another thread's work):
 * - `search`, `size`, `pending`, `has`, `stats`, `analyze`: read the current snapshot (or,
 *   `has` and `pending`, the staged writes under a mutex held only for pushes and drains).
 * - `add`, `remove`: analyse (`add`: in proportion to the documents) and stage, then
 *   publish at once, unless a refresh or merge commit is running on another thread: then
 *   the write becomes searchable when that one ends (`pending` counts it meanwhile; `has`
 *   already sees it). `add(docs, { refresh: false })` only stages: searchable after
 *   `refreshInterval`, at `refresh()` or at the next refreshing write.
 *
 * Off the event loop (Promises, on the libuv pool, cancellable with an `AbortSignal`):
 * `searchAsync` and `retrieve` (concurrent calls coalesced into batches: what a server with
 * a large index should call, since a sync `search` of a heavy query holds the loop for its
 * whole scan), `addAsync` (analysis, then resolves once searchable), `removeMatching` (the filter
 * matched on the pool, then resolves once the removal is searchable), `refresh` (resolves once every
 * earlier write is searchable), `merge`, `searchBatch` (one snapshot for the whole batch), `save`
 * (publishes staged writes, then writes that snapshot while writes go on), `load`. Writes,
 * refreshes, merges and saves run at a lower CPU priority than the event loop.
 *
 * Scores are computed at query time from the snapshot's statistics (N, df, average
 * length), so they stay exact across adds and removes: results equal those of an index
 * built from scratch on the documents searchable.
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 *
 * const index = new Bm25Index({ analyzer: { stopwords: 'en', stemmer: 'english' } })
 * index.add([
 *   { id: 'a', text: 'The cat sat on the mat.', meta: { lang: 'en' } },
 *   { id: 'b', text: '학교에 가는 길에 고양이를 봤다', meta: { lang: 'ko' } },
 * ])
 * index.search('cats', { topK: 5 }) // [{ id: 'a', score, text, meta }]
 * index.search('학교', { filter: { meta: { lang: 'ko' } } })
 * await index.save('docs.rgrk')
 * const again = await Bm25Index.load('docs.rgrk')
 * ```
 */
export class Bm25Index implements Retriever {
  readonly #native: NativeBm25Index
  /** Reused output buffer of `search` (hit count, scores, id end offsets): no typed array per query. */
  readonly #out = new HitBuffer()
  readonly #tokenizer?: (text: string) => string[]
  readonly #batcher: Batcher<BatchCall, Bm25Hit[]> | undefined
  /** A reader's automatic refresh (see `open`), stopped by `close`. */
  #reloading: ReturnType<typeof setInterval> | undefined

  constructor(options: Bm25Options = {}) {
    const restored = readValue(() => (options as { [FROM_NATIVE]?: NativeBm25Index } | undefined)?.[FROM_NATIVE])
    const config = restored ? '' : indexConfig(options)
    this.#tokenizer = checkTokenizer(options?.tokenizer)
    const coalesce = coalescing(readValue(() => options?.coalesce))
    const interval = restored ? 0 : refreshInterval(readValue(() => options?.refreshInterval))
    this.#native = restored ?? callNative(() => new native.NativeBm25Index(config, interval))
    this.#batcher = coalesce ? new Batcher((calls, signal) => this.#runBatch(calls, signal, true), coalesce) : undefined
  }

  /** Number of searchable documents (staged writes count once refreshed). */
  get size(): number {
    return this.#native.size
  }

  /** Documents added or removed but not yet searchable (staged, or in a refresh under way). */
  get pending(): number {
    return this.#native.pending
  }

  /**
   * Makes every write made before the call searchable (read-your-writes), on the libuv
   * pool. An aborted signal rejects at once with an AbortError; the refresh still completes.
   */
  refresh(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#native.directoryMode === 'reader') {
      return this.#maintain(options, (token) => this.#native.reload(token).then(() => undefined))
    }
    return this.#maintain(options, (token) => this.#native.refresh(token))
  }

  /** A call that takes only `{ signal }`, on the pool. */
  #maintain<T>(options: unknown, run: Parameters<typeof runCancellable<T>>[1]): Promise<T> {
    try {
      return runCancellable(checkSignal(optionsObject(options, 'options', REFRESH_KEYS).signal), run)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /** Whether a document with this id was added (staged writes included) and not removed. */
  has(id: string): boolean {
    return typeof id === 'string' && this.#native.has(id)
  }

  /**
   * Runs the segment merges due now, on the libuv pool, and resolves with how many ran.
   * The index's background thread runs them on its own after writes: call this only to
   * reclaim removed documents at a moment of your choosing (searches are not blocked).
   */
  merge(options: { signal?: AbortSignal } = {}): Promise<number> {
    return this.#maintain(options, (token) => this.#native.merge(token))
  }

  /**
   * Adds documents and returns how many. Ids must be new unless `upsert` is set (then the
   * old document is replaced and counts as newly added for tie order); an id repeated
   * within one call is an error. A call that throws leaves the index unchanged. With
   * `refresh: false` the documents are only staged (see the class comment).
   */
  add(docs: readonly Bm25Document[], options: { upsert?: boolean; refresh?: boolean } = {}): number {
    if (isArray(docs) && docs.length >= PARTED_ADD_DOCS) return this.#addInParts(docs, options)
    const nativeDocs = this.#toNative(docs)
    const upsert = upsertOption(options, ADD_KEYS)
    const refresh = booleanOption(options?.refresh, 'options.refresh', true)
    return callNative(() => this.#native.add(nativeDocs, upsert, refresh))
  }

  /**
   * A big `add` in parts: Rust analyses each part on a thread of its own while the next
   * one is converted here, so the conversion (about a quarter of a 1M-document add) runs
   * beside the analysis instead of before it. Nothing is staged before the last part.
   */
  #addInParts(docs: readonly Bm25Document[], options: { upsert?: boolean; refresh?: boolean }): number {
    const upsert = upsertOption(options, ADD_KEYS)
    const refresh = booleanOption(options?.refresh, 'options.refresh', true)
    const parts = this.#native.addParts()
    try {
      const size = Math.max(PARTED_ADD_DOCS / 2, Math.ceil(docs.length / ADD_PARTS))
      for (let from = 0; from < docs.length; from += size) {
        const part = this.#toNative(docs, from, Math.min(docs.length, from + size))
        callNative(() => parts.push(part, from))
      }
      return callNative(() => this.#native.addFinish(parts, upsert, refresh))
    } finally {
      parts.abandon()
    }
  }

  /**
   * `add` with analysis and the refresh on the libuv pool; resolves once the documents are
   * searchable. An aborted call either rejects with an AbortError and adds nothing, or
   * (aborted too late) adds all and resolves.
   */
  addAsync(docs: readonly Bm25Document[], options: { upsert?: boolean; signal?: AbortSignal } = {}): Promise<number> {
    try {
      const nativeDocs = this.#toNative(docs)
      const upsert = upsertOption(options, ADD_ASYNC_KEYS)
      const signal = checkSignal(options?.signal)
      return runCancellableChange(signal, (token) => this.#native.addAsync(nativeDocs, upsert, token))
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /** Removes documents by id; returns how many were present (unknown ids are ignored). */
  remove(ids: readonly string[]): number {
    const list = removalIds(ids)
    return callNative(() => this.#native.remove(list))
  }

  /**
   * Removes every document whose metadata matches `filter` (what `search` takes as `filter.meta`, with the same
   * semantics: docs/FILTERS.md) and resolves with how many it removed, once the removal is searchable. Off the event
   * loop: writes staged before the call are published first, the filter is matched on the pool against that
   * snapshot (from the field indexes when they cover it, not a walk of every document's metadata), and the matches are
   * removed by id as `remove` removes them. A document added or replaced (upsert) after that snapshot is never
   * removed, and one removed meanwhile by another call counts there, not here. A bad filter rejects as `search`
   * throws (TypeError or RangeError, `ERR_INVALID_ARG`); an aborted `signal` rejects with an AbortError and removes
   * nothing, unless it fired after the removal was staged (the promise then resolves).
   *
   * @example
   * ```ts
   * import { Bm25Index } from 'ragrank'
   *
   * const index = new Bm25Index()
   * index.add([
   *   { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme', year: 2019 } },
   *   { id: 'b', text: 'waves and the wind', meta: { tenant: 'globex', year: 2024 } },
   * ])
   * await index.removeMatching({ tenant: 'acme' }) // 1
   * await index.removeMatching({ year: { $lt: 2020 } }) // 0: 'a' is gone already
   * ```
   */
  removeMatching(filter: MetaFilter, options: { signal?: AbortSignal } = {}): Promise<number> {
    try {
      parseMetaFilter(filter, 'filter')
      const signal = checkSignal(optionsObject(options, 'options', REMOVE_MATCHING_KEYS).signal)
      return runCancellableChange(signal, (token) =>
        this.#native.removeMatching(filter as Record<string, unknown>, token),
      )
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * The stored text and metadata of documents by id, in order; `undefined` for an id that is not searchable (never
   * added, removed, or staged and not yet refreshed). Reads the snapshot searches see: sync, never waits.
   *
   * @example
   * ```ts
   * import { Bm25Index } from 'ragrank'
   *
   * const index = new Bm25Index()
   * index.add([{ id: 'a', text: 'tides and the moon', meta: { tenant: 'acme' } }])
   * const [doc, missing] = index.get(['a', 'b']) // { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme' } }, undefined
   * ```
   */
  get(ids: readonly string[]): (StoredDocument | undefined)[] {
    const list = stringArray(ids, 'ids')
    return callNative(() => this.#native.get(list)).map((d) => d ?? undefined)
  }

  /** The best `topK` documents containing at least one query term. */
  search(query: Bm25Query, options: Bm25SearchOptions = {}): Bm25Hit[] {
    // Token arrays skip `#query`'s U+0000 pass: Rust counts the separators of the joined
    // string instead (one more means a token held one) and answers null.
    let q: string
    let isTokens = true
    let count: number | undefined
    if (isArray(query)) {
      q = stringArray(query, 'query').join('\0')
      count = query.length
    } else {
      ;[q, isTokens] = this.#query(query, 'query')
    }
    const { topK, native: opts } = searchOptions(options, SEARCH_KEYS)
    const out = this.#out.forTopK(topK)
    const r = callNative(() => this.#native.search(q, isTokens, topK, opts, out, count))
    if (r === null) throw rangeError(NUL_IN_TOKENS('query'))
    return this.#out.hits(r)
  }

  /**
   * `search` off the event loop, with the same hits: concurrent calls with the same `topK`,
   * `filter` and `includeFields` are joined into one native batch (see the `coalesce`
   * option), so a server awaiting one search per request gets `searchBatch` throughput and
   * its event loop never runs a scan. An aborted `signal` rejects this call at once with an
   * AbortError; the batch stops only when all its calls aborted.
   */
  searchAsync(query: Bm25Query, options: Bm25BatchOptions = {}): Promise<Bm25Hit[]> {
    try {
      const q = this.#query(query, 'query')
      const { topK, native: opts, options: o } = searchOptions(options, BATCH_KEYS)
      const signal = checkSignal(o.signal)
      const call: BatchCall = { query: q, topK, opts }
      if (!this.#batcher) return this.#runBatch([call], signal, false).then((r) => r[0])
      return this.#batcher.submit(batchKey(topK, opts), call, signal)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * One native batch of `searchAsync` calls, which share their options. `coalesced`: the
   * Batcher rejects each aborted caller itself, so the signal only has to stop the work.
   */
  #runBatch(calls: BatchCall[], signal: AbortSignal | undefined, coalesced: boolean): Promise<Bm25Hit[][]> {
    const { topK, opts } = calls[0]
    return this.#batch(
      calls.map((c) => c.query),
      topK,
      opts,
      signal,
      coalesced,
    )
  }

  /** Many queries at once, in parallel on all cores; results in query order. */
  searchBatch(queries: readonly Bm25Query[], options: Bm25SearchBatchOptions = {}): Promise<Bm25Hit[][]> {
    try {
      if (!isArray(queries)) throw typeError('queries must be an array')
      const qs = queries.map((q, i) => this.#query(q, `queries[${i}]`))
      const { topK, native: opts, options: o } = searchOptions(options, SEARCH_BATCH_KEYS)
      const threads = threadsOption(o.threads)
      const signal = checkSignal(o.signal)
      return this.#batch(qs, topK, opts, signal, false, threads)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * Checked queries (text or joined tokens, flagged) searched as one batch over one snapshot.
   * `settledElsewhere`: the caller (the Batcher) rejects aborted callers itself, so an abort
   * only cancels the native work (no listener-and-race to reject this promise at once).
   */
  #batch(
    qs: readonly [string, boolean][],
    topK: number,
    opts: NativeSearchOptions | undefined,
    signal: AbortSignal | undefined,
    settledElsewhere = false,
    threads?: number,
  ): Promise<Bm25Hit[][]> {
    // One thread means one part: pipelined parts would overlap the event loop's conversion
    // with the search of the next part.
    const parts = threads === 1 ? 1 : partCount(qs.length, BATCH_PART_QUERIES, MAX_BATCH_PARTS)
    const run = settledElsewhere ? runCancellableChange : runCancellable
    if (parts === 1) {
      // One native call (every coalesced batch: at most BATCH_PART_QUERIES queries) takes the
      // current snapshot itself, so nothing is pinned, released or piped.
      return run(signal, (token) => {
        const c = crossing(qs, 0, qs.length)
        return this.#native.searchBatch(c.joined, c.lengths, c.areTokens, topK, opts, token, threads)
      }).then(allHits)
    }
    const bound = (part: number) => Math.floor((part * qs.length) / parts)
    return run(signal, (token) => {
      // One pinned snapshot for every part, so the whole batch sees the same documents (pinned
      // here: a call aborted before it starts pins nothing).
      const snapshot = this.#native.pin()
      const search = (c: ReturnType<typeof crossing>) =>
        snapshot.searchBatch(c.joined, c.lengths, c.areTokens, topK, opts, token, threads)
      // `then`, not `finally`: `finally` costs a species lookup and two more promises per batch.
      return pipeline(parts, (part) => crossing(qs, bound(part), bound(part + 1)), search, batchHits).then(
        (hits) => {
          snapshot.release()
          return hits
        },
        (e: unknown) => {
          snapshot.release()
          throw e
        },
      )
    })
  }

  /** The terms the index would make of `text` (for debugging analysis). */
  analyze(text: string): string[] {
    if (typeof text !== 'string') throw typeError('text must be a string')
    return this.#tokenizer ? this.#tokenize(text) : callNative(() => this.#native.analyze(text))
  }

  /** Sizes of the current snapshot: documents, terms, postings, segments, memory. */
  stats(): Bm25Stats {
    return callNative(() => this.#native.stats()) as Bm25Stats
  }

  /**
   * Writes the index to one file (magic, version, checksum), atomically: the snapshot
   * searchable once staged writes are published, whatever is written meanwhile. A `signal` that
   * fires stops a running save: its temporary file is removed and an existing file at
   * `path` is left as it was. Temporary files that killed saves of the same `path` left
   * behind are removed first.
   * `path` may be a regular file, nothing yet, or a symbolic link to either: links are
   * followed and the file they lead to is replaced (the links stay). Anything else there (a
   * device, a FIFO, a socket, a directory) rejects with `ERR_IO` before anything is written.
   */
  save(path: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    return saveCancellable(path, options, (p, token) => this.#native.save(p, token))
  }

  /**
   * Reads an index written by `save`; a damaged or foreign file rejects with `ERR_CORRUPT_INDEX`,
   * a path that is not a regular file (a directory, a device, a FIFO) with `ERR_IO`.
   */
  static async load(
    path: string,
    options: { tokenizer?: (text: string) => string[]; signal?: AbortSignal; refreshInterval?: number | null } = {},
  ): Promise<Bm25Index> {
    if (typeof path !== 'string' || path === '') throw typeError('path must be a non-empty string')
    const o = optionsObject(options, 'options', LOAD_KEYS)
    const tokenizer = checkTokenizer(o.tokenizer)
    const signal = checkSignal(o.signal)
    const interval = refreshInterval(o.refreshInterval)
    coalescing(o.coalesce)
    const inner = await runCancellable(signal, (token) => native.NativeBm25Index.load(path, token, interval))
    return new Bm25Index({ [FROM_NATIVE]: inner, tokenizer, coalesce: o.coalesce } as Bm25Options)
  }

  /**
   * Opens (or creates) the index bound to directory `dir` (docs/STORAGE.md): segment files written once, a
   * manifest per commit, a write-ahead log per `durability`. A new directory takes `options` as the constructor
   * does and records them (analyzer, variant, parameters, fields); an existing one reads them, and an option given
   * that differs from the recorded one is an `ERR_INVALID_ARG` naming it. `tokenizer`, `refreshInterval` and `coalesce` are
   * not recorded: pass them at each open. One writer per directory (a second process gets `ERR_LOCKED`, naming the
   * holder's pid); readers (`readOnly: true`) in any number of processes. A `VectorIndex` opened on the same path
   * in this process shares the directory: either's `commit()` commits both.
   *
   * On the libuv pool: reads the last commit's segments and replays the log written since.
   */
  static async open(dir: string, options: Bm25OpenOptions = {}): Promise<Bm25Index> {
    if (typeof dir !== 'string' || dir === '') throw typeError('dir must be a non-empty string')
    const o = optionsObject(options, 'options', OPEN_KEYS)
    const durability = o.durability ?? 'commit'
    if (typeof durability !== 'string' || !DURABILITIES.includes(durability))
      throw typeError(`options.durability must be 'commit', 'sync' or 'async', got ${describe(o.durability)}`)
    const syncInterval =
      o.syncInterval === undefined ? 1000 : integer(o.syncInterval, 'options.syncInterval', 1, 0x7fffffff)
    const readOnly = booleanOption(o.readOnly, 'options.readOnly', false)
    const signal = checkSignal(o.signal)
    const tokenizer = checkTokenizer(o.tokenizer)
    coalescing(o.coalesce)
    const interval = refreshInterval(o.refreshInterval)
    const { durability: _d, syncInterval: _s, readOnly: _r, signal: _g, ...indexOptions } = o
    const given = recordedOptions(indexOptions)
    const inner = await runCancellableChange(signal, (token) =>
      native.NativeBm25Index.open(dir, given, durability, syncInterval, readOnly, readOnly ? 0 : interval, token),
    )
    const index = new Bm25Index({ [FROM_NATIVE]: inner, tokenizer, coalesce: o.coalesce } as Bm25Options)
    if (readOnly) index.#reloadEvery(interval ?? 1000)
    return index
  }

  /**
   * Makes every write so far durable (with those of a `VectorIndex` sharing the directory), writing only what
   * changed since the last commit: new segments, changed deletions, then the manifest. Resolves with the commit's
   * generation. On the libuv pool; a `signal` rejects only before it starts (a commit under way completes).
   */
  commit(options: { signal?: AbortSignal } = {}): Promise<number> {
    const signal = checkSignal(optionsObject(options, 'options', COMMIT_KEYS).signal)
    return runCancellableChange(signal, (token) => this.#native.commit(token))
  }

  /**
   * Lets go of the directory: a writer commits first (if that fails, the index stays open and the promise
   * rejects), then the index takes no more writes (`ERR_READ_ONLY`) and the directory's lock is released once no
   * `VectorIndex` of this process shares it, so the directory can be opened again here or in another process.
   * Searches go on over what the index holds. An index not bound to a directory has nothing to close.
   */
  async close(): Promise<void> {
    clearInterval(this.#reloading)
    await runCancellableChange(undefined, (token) => this.#native.close(token))
  }

  /** A reader's view of the newest commit (an error thrown here would only repeat at the next tick). */
  #reloadEvery(ms: number): void {
    if (ms <= 0) return
    // The timer holds the index weakly, so an index nobody uses is still collected.
    const self = new WeakRef(this)
    const timer = setInterval(() => {
      const index = self.deref()
      if (!index) return clearInterval(timer)
      index.#native.reload(undefined).catch(() => {})
    }, ms)
    timer.unref()
    this.#reloading = timer
  }

  /** The `Retriever` declaration that `retrieve` honours `filter` (in the scan, as `search`). */
  get supportsFilter(): true {
    return true
  }

  /**
   * The `Retriever` contract (so the index composes with `HybridRetriever` and friends):
   * `searchAsync` (off the event loop, coalesced) with the same `filter`, rejecting with an
   * AbortError when `signal` fires.
   */
  retrieve(query: Bm25Query, options: Bm25BatchOptions = {}): Promise<Bm25Hit[]> {
    return this.searchAsync(query, options)
  }

  #tokenize(text: string): string[] {
    const tokens = (this.#tokenizer as (t: string) => unknown)(text)
    return stringArray(tokens, 'tokenizer result')
  }

  /** The query as it crosses to Rust: text, or tokens joined by U+0000 (flagged). */
  #query(query: unknown, name: string): [string, boolean] {
    if (typeof query === 'string')
      return this.#tokenizer ? [joinTokens(this.#tokenize(query), name), true] : [query, false]
    if (isArray(query)) return [joinTokens(stringArray(query, name), name), true]
    throw typeError(`${name} must be a string or an array of token strings`)
  }

  /** `docs[from..to]` as they cross to Rust. */
  #toNative(docs: readonly Bm25Document[], from = 0, to = docs?.length): NativeDoc[] {
    if (!isArray(docs)) throw typeError('docs must be an array of { id, text | tokens, meta? }')
    return Array.from({ length: to - from }, (_, k) => {
      const i = from + k
      const d: unknown = docs[i]
      const where = `docs[${i}]`
      if (!isPlainObject(d)) throw typeError(`${where} must be an object`)
      const id = documentId(d.id, where)
      if (d.text !== undefined && typeof d.text !== 'string') throw typeError(`${where}.text must be a string`)
      if (d.meta !== undefined && !isPlainObject(d.meta)) throw typeError(`${where}.meta must be a plain object`)
      if (d.meta !== undefined) jsonValue(d.meta, `${where}.meta`)
      let tokens = d.tokens === undefined ? undefined : stringArray(d.tokens, `${where}.tokens`)
      if (tokens === undefined && d.text === undefined) throw typeError(`${where} needs text or tokens`)
      if (tokens === undefined && this.#tokenizer) tokens = this.#tokenize(d.text as string)
      // U+0000 inside a token is found in Rust from `tokenCount` (one pass over bytes there, not a call per token here).
      const joined = tokens?.join('\0')
      return { id, text: d.text as string | undefined, tokens: joined, tokenCount: tokens?.length, meta: d.meta }
    })
  }
}

/** From this many documents a sync `add` crosses in parts (`#addInParts`); smaller adds cross in one call. */
const PARTED_ADD_DOCS = 65_536
/** Parts a big `add` is cut into: enough to overlap conversion and analysis, few enough that the refresh maps few batch vocabularies. */
const ADD_PARTS = 8

const NUL_IN_TOKENS = (where: string) => `${where}: tokens must not contain U+0000`

/** Tokens cross to Rust as one string joined by U+0000, so they may not contain it. */
function joinTokens(tokens: readonly string[], where: string): string {
  if (tokens.some((t) => t.includes('\0'))) throw rangeError(NUL_IN_TOKENS(where))
  return tokens.join('\0')
}

/** One `searchAsync` call: the query as it crosses (see `#query`). */
type BatchCall = SearchCall<[string, boolean]>

/** Queries per part of a batch (see `pipeline`): big enough that a part's fixed cost (a pool task, a promise) is small. */
const BATCH_PART_QUERIES = 256
const MAX_BATCH_PARTS = 16

/** Queries `from..to` as they cross to Rust: one string, cut by their lengths there (one crossing, not one per query). */
function crossing(qs: readonly [string, boolean][], from: number, to: number) {
  const lengths = new Uint32Array(to - from)
  const areTokens = new Uint8Array(to - from)
  const texts = new Array<string>(to - from)
  for (let i = from; i < to; i++) {
    texts[i - from] = qs[i][0]
    lengths[i - from] = qs[i][0].length
    areTokens[i - from] = qs[i][1] ? 1 : 0
  }
  return { joined: texts.join(''), lengths, areTokens }
}

/** `searchBatch`'s `threads`: an integer >= 1 (beyond 2^32 - 1 it caps nothing more). */
function threadsOption(v: unknown): number | undefined {
  return v === undefined ? undefined : Math.min(integer(v, 'options.threads', 1), 0xffffffff)
}

function upsertOption(options: unknown, known: ReadonlySet<string>): boolean {
  return booleanOption(optionsObject(options, 'options', known).upsert, 'options.upsert', false)
}
