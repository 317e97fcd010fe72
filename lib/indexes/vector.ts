import { native, type NativeVectorIndex } from '../internal/native.js'
import { callNative, rangeError, typeError } from '../errors.js'
import {
  checkSignal,
  runCancellable,
  runCancellableChange,
  saveCancellable,
  throwIfAborted,
} from '../internal/abort.js'
import { Batcher, type CoalesceOptions } from '../internal/batcher.js'
import {
  anyInteger,
  booleanOption,
  checkKeys,
  documentId,
  integer,
  isArray,
  jsonValue,
  isPlainObject,
  optionalString,
  optionKeys,
  optionsObject,
  readValue,
  removalIds,
  stringArray,
} from '../internal/validate.js'
import { type Filter, type MetaFilter, parseMetaFilter } from './filter.js'
import { fieldOptions, type FieldsOption } from './fields.js'
import {
  allHits,
  batchKey,
  coalescing,
  HitBuffer,
  type IndexHit,
  type SearchCall,
  type StoredDocument,
  searchOptions,
} from './hits.js'

/**
 * How a hit is scored (higher is better for all three):
 * - `'cosine'`: cosine similarity. Vectors are normalised when added (and stored normalised),
 *   queries when searched; zero vectors are rejected.
 * - `'dot'`: inner product.
 * - `'l2'`: minus the squared Euclidean distance (0 for an identical vector).
 */
export type VectorMetric = 'cosine' | 'dot' | 'l2'

/**
 * How rows are stored:
 * - `'f32'` (default): 4 bytes per value, exact.
 * - `'f16'`: 2 bytes per value; scores are computed in f32 from the stored halves.
 * - `'int8'`: per-row scaled int8 codes (1 byte per value) are scanned for a shortlist of
 *   `max(4 * topK, topK + 32)` rows (see `shortlist`), which is rescored exactly from f32
 *   originals that are kept too (5 bytes per value in memory, but a scan reads 1). Scores
 *   returned are exact f32 scores; recall against f32 is reported by the benchmark.
 * - `'binary'` (approximate): one sign bit per value; a scan ranks every row by Hamming
 *   distance to the query's signs (popcount; AVX-512 VPOPCNTDQ where the CPU has it) for a
 *   shortlist of `max(40 * topK, 400)` rows, rescored exactly from the f32 originals. Memory
 *   is 4.125 bytes per value (bits + f32 copy), but a scan reads 1/32 of what f32 reads
 *   (48 bytes per 384-d row instead of 1,536): 14.9x the f32 query rate at 1M x 384 here.
 *   A true top-k vector whose signs disagree with the query's more than the shortlist's last
 *   row is missed: recall@10 against f32 was 0.993 on 57k real all-MiniLM-L6-v2 embeddings
 *   (docs/VECTOR-STORAGE.md has the recall per shortlist); raise `shortlist` for more. With
 *   `rescore: 'int8'` the shortlist is rescored from int8 codes instead of f32 (no f32 copy:
 *   about 1.14 bytes per value), and the scores returned are int8 approximations too.
 */
export type VectorStorage = 'f32' | 'f16' | 'int8' | 'binary'

/**
 * What storage `'binary'` rescores its Hamming shortlist from (the `rescore` option):
 * - `'f32'` (default): the f32 originals, kept beside the bits (4.125 bytes per value). Scores
 *   returned are exact f32 scores.
 * - `'int8'`: per-row scaled int8 codes, kept instead of the f32 copy: 1/8 + 1 bytes per value
 *   plus a 4-byte scale per row (436 bytes per 384-d row against 1,584 with f32; 1M x 384: 436 MB
 *   against 1.58 GB). **Approximate scores**: a returned score is the int8 inner product (of
 *   the query's codes and the row's, with the metric applied), off the exact cosine by 4e-4 on
 *   average and 2e-3 at most on real all-MiniLM-L6-v2 embeddings, so rows whose exact scores are
 *   that close may swap places. The shortlist is the same as with `'f32'`; recall@10 against
 *   exact f32 was 0.988 at the default shortlist there (0.993 with `'f32'`; docs/VECTOR-STORAGE.md).
 */
export type VectorRescore = 'f32' | 'int8'

/**
 * How many rows an approximate scan (storage `'int8'` or `'binary'`) keeps for exact rescoring:
 * `max(perTopK * topK, rows)`, never fewer than `topK`. More rows: higher recall, slower
 * rescoring (one f32 row read per shortlisted row).
 */
export interface ShortlistOptions {
  /** A multiple of `topK` (integer, 1 to 10000; default 1 when `rows` is given). */
  perTopK?: number
  /** An absolute count (integer, 0 to 1048576; default 0). */
  rows?: number
}

/** Options of `new VectorIndex(options)`. */
export interface VectorIndexOptions {
  /** Values per vector (1 to 65536). */
  dim: number
  /** Default `'cosine'`. */
  metric?: VectorMetric
  /** Default `'f32'`. */
  storage?: VectorStorage
  /**
   * The shortlist of storage `'int8'` or `'binary'` (a RangeError with the exact storages).
   * Default: `max(4 * topK, topK + 32)` for int8, `max(40 * topK, 400)` for binary. Saved
   * with the index.
   */
  shortlist?: ShortlistOptions
  /**
   * What storage `'binary'` rescores its shortlist from (see `VectorRescore`): default `'f32'`;
   * `'int8'` drops the f32 copy for int8 codes (a quarter of the memory, approximate scores).
   * A RangeError with any other storage. Saved with the index.
   */
  rescore?: VectorRescore
  /**
   * Metadata fields to index, and how (see `FieldsOption` and docs/FILTERS.md): a filter on indexed fields selects
   * its rows from bitmaps instead of reading every row's metadata. Saved with the index.
   */
  fields?: FieldsOption
  /** Index top-level metadata fields not named in `fields` as they come (default true). Saved with the index. */
  dynamicFields?: boolean
  /**
   * How concurrent `searchAsync` calls are joined into native batches (see docs/CONCURRENCY.md):
   * default `{ maxBatch: 64, maxWaitMs: 0 }` (adaptive: no wait when idle); `false` runs each
   * call as its own batch, for callers that batch themselves with `searchBatch`.
   */
  coalesce?: CoalesceOptions | false
}

/** A hit of `VectorIndex.search`: its score is the index's metric; ties go to the vector added first. */
export type VectorHit = IndexHit

/** A vector to add with its id, and optionally metadata (for filters) and a text to return with hits. */
export interface VectorItem {
  /** Unique in the index (`ERR_DUPLICATE_ID` unless `upsert`). */
  id: string
  /** `dim` finite values. */
  vector: VectorInput
  /** JSON metadata, matched by `filter.meta` and returned with hits. */
  meta?: Record<string, unknown>
  /** Returned with hits (for rerankers and LLMs downstream). */
  text?: string
}

/** Options of `VectorIndex.search`. */
export interface VectorSearchOptions {
  /** How many hits at most (default 10). 0 returns none; more than the candidates returns them all. */
  topK?: number
  /**
   * Only vectors with one of `ids` (unknown ids are ignored) and whose metadata passes `meta`
   * (see docs/FILTERS.md) are scored, inside the scan: up to `topK` matching vectors come back.
   */
  filter?: Filter
  /** Return each hit's stored `text` and `meta` (default true). */
  includeFields?: boolean
}

/** Options of `VectorIndex.searchAsync`: the search options plus a signal. */
export interface VectorSearchAsyncOptions extends VectorSearchOptions {
  /** Cancels the call; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
}

/** Options of `VectorIndex.searchBatch`. */
export interface VectorBatchOptions {
  /** As in `search` (default 10). */
  topK?: number
  /** As in `search`; one filter for every query. */
  filter?: Filter
  /** As in `search` (default true). */
  includeFields?: boolean
  /** Cancels the batch; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
}

/** Options of `VectorIndex.load`. */
export interface VectorLoadOptions {
  /**
   * Read the rows through a read-only memory map instead of copying them (default false):
   * processes that map the same file share one copy in the page cache, and loading costs
   * one checksum pass. Adds and removes leave the mapped rows mapped (new rows go to memory,
   * removals are tombstones) until a background merge copies them; the file is never written.
   *
   * Deploy a new file under a mapped path by writing it elsewhere in the same folder and
   * renaming it over the old one (as `save` does): mapped readers keep the old file until
   * they load again. A file changed in place (`cp new old`) is detected before each call
   * that reads it (size and mtime), which then throws `ERR_INDEX_CHANGED`; a truncation
   * during a running scan can still kill the process with SIGBUS (see docs/VECTOR.md).
   */
  mmap?: boolean
  /** As in the constructor's options. */
  coalesce?: CoalesceOptions | false
  /** Cancels the load; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
}

/**
 * The embedding model an index's vectors come from, recorded with a directory-bound index
 * (`VectorIndex.open`) so a later open knows it without being told: JSON values, such as
 * `{ model: 'Xenova/all-MiniLM-L6-v2', pooling: 'mean' }`.
 */
export interface EmbedderSettings {
  /** A hub model id or a local folder. */
  model?: string
  /** How token embeddings are pooled (`'mean'`, `'cls'`, ...). */
  pooling?: string
  [key: string]: unknown
}

/**
 * Options of `VectorIndex.open(dir, options)`: the constructor's options (all optional for a
 * directory that holds an index already: they are recorded at creation, and any given must
 * agree with the recorded ones, else an `ERR_INVALID_ARG` RangeError names those that differ), plus how the
 * index is bound to the directory. docs/STORAGE.md has the layout and the guarantees.
 */
export interface VectorOpenOptions extends Partial<VectorIndexOptions> {
  /** The embedding model, recorded with the index (see `EmbedderSettings`). */
  embedder?: EmbedderSettings
  /**
   * When a write that returned survives a crash: `'commit'` (default) once `commit()` returned
   * after it; `'sync'` each write is logged and fsync'd before it returns; `'async'` logged at
   * once and fsync'd every `syncInterval` ms (a process crash loses nothing, a power loss up to
   * that interval).
   */
  durability?: 'commit' | 'sync' | 'async'
  /** Milliseconds between fsyncs of the log with durability `'async'` (default 1000). */
  syncInterval?: number
  /**
   * Open without the writer lock, to read what the writer committed (any number of processes):
   * writes throw `ERR_READ_ONLY`; `refresh()` (and the automatic refresh) read newer commits.
   */
  readOnly?: boolean
  /**
   * With `readOnly`: milliseconds between looks for a newer commit (default 1000; 0 turns the
   * automatic refresh off). The timer never keeps the process alive.
   */
  refreshInterval?: number
  /** Cancels the open; the promise rejects with an `AbortError`. */
  signal?: AbortSignal
}

/** What `commit()` resolved with. */
export interface VectorCommitResult {
  /** The generation of the directory's newest commit (its `manifest-<generation>`). */
  generation: number
}

/** A vector: a Float32Array, or an array of numbers (copied into one). */
export type VectorInput = Float32Array | readonly number[]

const FROM_NATIVE = Symbol('fromNative')

const INDEX_KEYS = optionKeys('dim', 'metric', 'storage', 'shortlist', 'rescore', 'fields', 'dynamicFields', 'coalesce')
const SHORTLIST_KEYS = optionKeys('perTopK', 'rows')
const ADD_KEYS = optionKeys('upsert')
const ITEM_KEYS = optionKeys('id', 'vector', 'meta', 'text')
const SEARCH_KEYS = optionKeys('topK', 'filter', 'includeFields')
const SEARCH_ASYNC_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal')
const BATCH_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal')
const LOAD_KEYS = optionKeys('mmap', 'coalesce', 'signal')
const OPEN_KEYS = optionKeys(
  'dim',
  'metric',
  'storage',
  'shortlist',
  'rescore',
  'fields',
  'dynamicFields',
  'coalesce',
  'embedder',
  'durability',
  'syncInterval',
  'readOnly',
  'refreshInterval',
  'signal',
)
const COMMIT_KEYS = optionKeys('signal')
const DURABILITIES = new Set(['commit', 'sync', 'async'])
const REMOVE_MATCHING_KEYS = optionKeys('signal')

/**
 * `options.shortlist` checked for its shape (TypeError): its ranges, and which storages take
 * one, are Rust's (RangeError).
 */
function shortlistOption(v: unknown): { perTopK?: number; rows?: number } | undefined {
  if (v === undefined || v === null) return undefined
  const o = optionsObject(v, 'options.shortlist', SHORTLIST_KEYS)
  const out: { perTopK?: number; rows?: number } = {}
  for (const key of ['perTopK', 'rows'] as const) {
    if (o[key] !== undefined) out[key] = anyInteger(o[key], `options.shortlist.${key}`)
  }
  return out
}

/**
 * Exact (brute-force) vector top-k whose scans run in Rust with SIMD kernels chosen for the
 * CPU at run time (AVX-512, AVX2/FMA, NEON or scalar).
 *
 * Synchronous: `add`, `remove`, `search` (a large index is scanned on all cores, on a pool
 * of its own: never behind other work), the getters and `has`. Reads run on an immutable
 * snapshot and never wait for a writer, a save or a batch; writes are visible at once.
 * Off the event loop (Promises on the libuv pool): `searchAsync` (concurrent calls coalesced
 * into batches), `searchBatch` (cancellable), `removeMatching` (removes what a metadata filter
 * matches), `save` (of the snapshot at the call), `load`.
 * A call that throws leaves the index unchanged. See docs/CONCURRENCY.md.
 *
 * @example
 * ```ts
 * import { VectorIndex } from 'ragrank'
 *
 * const index = new VectorIndex({ dim: 3, metric: 'cosine', storage: 'f32' })
 * index.add(['a', 'b'], new Float32Array([1, 0, 0, 0, 1, 0])) // rows one after another
 * index.add([{ id: 'c', vector: [0, 0, 1], meta: { tenant: 't1' }, text: 'third' }])
 * index.search([1, 0.1, 0], { topK: 2 }) // [{ id: 'a', score }, { id: 'b', score }]
 * index.search([0, 0, 1], { filter: { meta: { tenant: 't1' } } }) // [{ id: 'c', score, meta, text }]
 * await index.searchBatch(new Float32Array([1, 0, 0, 0, 0, 1]), { topK: 1 }) // one list per query
 * await index.save('vectors.rgv')
 * const mapped = await VectorIndex.load('vectors.rgv', { mmap: true })
 * ```
 */
export class VectorIndex {
  readonly #native: NativeVectorIndex
  readonly #dim: number
  readonly #out = new HitBuffer()
  readonly #batcher: Batcher<SearchCall<Float32Array>, VectorHit[]> | undefined
  /** The refresh under way (a reader's `refresh` and its timer share it). */
  #refreshing: Promise<boolean> | undefined
  #refreshTimer: ReturnType<typeof setInterval> | undefined

  constructor(options: VectorIndexOptions) {
    const restored = readValue(
      () => (options as { [FROM_NATIVE]?: NativeVectorIndex; coalesce?: unknown } | undefined)?.[FROM_NATIVE],
    )
    let coalesce: ReturnType<typeof coalescing>
    if (restored) {
      this.#native = restored
      coalesce = coalescing((options as { coalesce?: unknown }).coalesce)
    } else {
      // Types only: the range of dim and the shortlist, the metric, storage and rescore names, which
      // storages take a shortlist or rescore, and the defaults are Rust's.
      if (!isPlainObject(options)) throw typeError('options must be an object such as { dim: 384 }')
      checkKeys(options, INDEX_KEYS, 'options')
      if (options.dim === undefined) throw typeError('options.dim is required (the number of values per vector)')
      const dim = anyInteger(options.dim, 'options.dim')
      // null means the default, as it always has.
      const metric = options.metric ?? undefined
      const storage = options.storage ?? undefined
      optionalString(metric, 'options.metric')
      optionalString(storage, 'options.storage')
      const shortlist = shortlistOption(options.shortlist)
      const rescore = options.rescore ?? undefined
      optionalString(rescore, 'options.rescore')
      const fields = fieldOptions(options.fields, options.dynamicFields)
      coalesce = coalescing(options.coalesce)
      const fieldsJson = fields && JSON.stringify(fields)
      this.#native = callNative(
        () => new native.NativeVectorIndex(dim, metric, storage, shortlist, rescore, fieldsJson),
      )
    }
    this.#dim = this.#native.dim
    this.#batcher = coalesce ? new Batcher((calls, signal) => this.#runBatch(calls, signal), coalesce) : undefined
  }

  /** The declaration that `search` and `searchBatch` honour `filter` inside the scan (see `VectorRetriever`). */
  get supportsFilter(): true {
    return true
  }

  /** Number of vectors. */
  get size(): number {
    return this.#native.size
  }

  /** Values per vector. */
  get dim(): number {
    return this.#dim
  }

  /** The metric hits are scored with. */
  get metric(): VectorMetric {
    return this.#native.metric as VectorMetric
  }

  /** How rows are stored. */
  get storage(): VectorStorage {
    return this.#native.storage as VectorStorage
  }

  /**
   * What the shortlist of an approximate storage is rescored from: `'f32'` for `'int8'` and
   * `'binary'` (the default), `'int8'` for `'binary'` built with `rescore: 'int8'`; undefined for
   * the exact storages.
   */
  get rescore(): VectorRescore | undefined {
    return (this.#native.rescore ?? undefined) as VectorRescore | undefined
  }

  /** The shortlist given at construction (or saved in the loaded file); undefined: the storage's default. */
  get shortlist(): Required<ShortlistOptions> | undefined {
    const s = this.#native.shortlist
    return s ? { perTopK: s.perTopK ?? 1, rows: s.rows ?? 0 } : undefined
  }

  /** Whether the rows are still read from a memory-mapped file (see `load`). */
  get mapped(): boolean {
    return this.#native.mapped
  }

  /** Whether a vector with this id is in the index. */
  has(id: string): boolean {
    return typeof id === 'string' && this.#native.has(id)
  }

  /**
   * Adds vectors and returns how many: `add([{ id, vector, meta?, text? }, ...], options?)`, or
   * `add(ids, vectors, options?)` with `ids.length` vectors given row after row in `vectors`
   * (ids.length x dim values). `meta` (a plain object) is what `filter.meta` tests; `meta` and
   * `text` come back with hits and are saved. An id already present is an error
   * (`ERR_DUPLICATE_ID`) unless `upsert` is set; the replaced vector (and its fields) then
   * counts as newly added for tie order. NaN or Infinity, or a zero vector under cosine, is a RangeError.
   */
  add(items: readonly VectorItem[], options?: { upsert?: boolean }): number
  add(ids: readonly string[], vectors: VectorInput, options?: { upsert?: boolean }): number
  add(ids: readonly (string | VectorItem)[], vectors?: unknown, options: unknown = {}): number {
    if (!isArray(ids)) throw typeError('ids must be an array of strings, or items an array of { id, vector }')
    // Items unless a vectors argument follows ids (a Float32Array, a number array, or ids of strings).
    const items =
      vectors === undefined ||
      (!ArrayBuffer.isView(vectors) && !isArray(vectors) && !ids.some((x) => typeof x === 'string'))
    if (items) return this.#addItems(ids, vectors)
    const list = ids.map((id, i) => documentId(id, `ids[${i}]`))
    const values = toFloat32(vectors, 'vectors')
    if (values.length !== list.length * this.#dim) {
      throw rangeError(
        `vectors has ${values.length} values; ${list.length} ids x dim ${this.#dim} need ${list.length * this.#dim}`,
      )
    }
    return callNative(() => this.#native.add(list, values, upsertOption(options)))
  }

  #addItems(items: readonly unknown[], options: unknown): number {
    const upsert = upsertOption(options)
    const d = this.#dim
    const ids: string[] = new Array(items.length)
    const values = new Float32Array(items.length * d)
    let metas: (Record<string, unknown> | null)[] | undefined
    let texts: (string | null)[] | undefined
    items.forEach((item, i) => {
      const where = `items[${i}]`
      if (!isPlainObject(item)) throw typeError(`${where} must be an object { id, vector, meta?, text? }`)
      checkKeys(item, ITEM_KEYS, where)
      ids[i] = documentId(item.id, where)
      const v = toFloat32(item.vector, `${where}.vector`)
      if (v.length !== d) throw rangeError(`${where}.vector has ${v.length} values; the index needs dim ${d}`)
      values.set(v, i * d)
      if (item.meta !== undefined) {
        if (!isPlainObject(item.meta)) throw typeError(`${where}.meta must be a plain object`)
        jsonValue(item.meta, `${where}.meta`)
        metas ??= new Array(items.length).fill(null)
        metas[i] = item.meta
      }
      if (item.text !== undefined) {
        if (typeof item.text !== 'string') throw typeError(`${where}.text must be a string`)
        texts ??= new Array(items.length).fill(null)
        texts[i] = item.text
      }
    })
    return callNative(() => this.#native.add(ids, values, upsert, metas, texts))
  }

  /**
   * Removes vectors by id; returns how many were present (unknown ids are ignored). Costs a
   * copy of one bit per row of the chunks touched; the rows are reclaimed by background merges.
   */
  remove(ids: readonly string[]): number {
    const list = removalIds(ids)
    return callNative(() => this.#native.remove(list))
  }

  /**
   * Removes every vector whose metadata matches `filter` (what `search` takes as `filter.meta`, with the same
   * semantics: docs/FILTERS.md) and resolves with how many it removed, once searches no longer see them. Off the
   * event loop: the filter is matched on the pool against the index as the call finds it (from the field indexes
   * when they cover it, not a walk of every row's metadata), then the matches are removed by id as `remove` removes
   * them, in one write. A vector added or replaced (upsert) after that snapshot is never removed, and one removed
   * meanwhile by another call counts there, not here. A bad filter rejects as `search` throws (TypeError or
   * RangeError, `ERR_INVALID_ARG`); an aborted `signal` rejects with an AbortError and removes nothing, unless it
   * fired after the removal was made (the promise then resolves).
   *
   * @example
   * ```ts
   * import { VectorIndex } from 'ragrank'
   *
   * const index = new VectorIndex({ dim: 2 })
   * index.add([
   *   { id: 'a', vector: [0.6, 0.8], meta: { tenant: 'acme', year: 2019 } },
   *   { id: 'b', vector: [0.8, 0.6], meta: { tenant: 'globex', year: 2024 } },
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
   * added, or removed). Reads the snapshot searches see: sync, never waits.
   *
   * @example
   * ```ts
   * import { VectorIndex } from 'ragrank'
   *
   * const index = new VectorIndex({ dim: 2 })
   * index.add([{ id: 'a', vector: [0.6, 0.8], text: 'tides and the moon', meta: { tenant: 'acme' } }])
   * const [doc, missing] = index.get(['a', 'b']) // { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme' } }, undefined
   * ```
   */
  get(ids: readonly string[]): (StoredDocument | undefined)[] {
    const list = stringArray(ids, 'ids')
    return callNative(() => this.#native.get(list)).map((d) => d ?? undefined)
  }

  /** The best `topK` vectors for one query (a scan of every vector, or of the filter's). */
  search(query: VectorInput, options: VectorSearchOptions = {}): VectorHit[] {
    const q = this.#vectors(query, 'query', false)
    const { topK, native: opts } = searchOptions(options, SEARCH_KEYS)
    const out = this.#out.forTopK(topK)
    return this.#out.hits(callNative(() => this.#native.search(q, topK, opts, out)))
  }

  /**
   * `search` off the event loop: concurrent calls with the same `topK`, `filter` and
   * `includeFields` are joined into one native batch (see the `coalesce` option), so a
   * server awaiting one search per request gets `searchBatch` throughput. An aborted
   * `signal` rejects this call at once with an AbortError; the batch stops only when all
   * its calls aborted.
   */
  searchAsync(query: VectorInput, options: VectorSearchAsyncOptions = {}): Promise<VectorHit[]> {
    try {
      const q = this.#vectors(query, 'query', false)
      const { topK, native: opts, options: o } = searchOptions(options, SEARCH_ASYNC_KEYS)
      const signal = checkSignal(o.signal)
      throwIfAborted(signal)
      if (!this.#batcher) return this.#runBatch([{ query: q, topK, opts }], signal).then((r) => r[0])
      // Copied: the caller may reuse its array before the batch starts.
      return this.#batcher.submit(batchKey(topK, opts), { query: Float32Array.from(q), topK, opts }, signal)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /** One native batch of `searchAsync` calls, which share their options. */
  #runBatch(calls: SearchCall<Float32Array>[], signal: AbortSignal | undefined): Promise<VectorHit[][]> {
    const { topK, opts } = calls[0]
    const d = this.#dim
    const q = new Float32Array(calls.length * d)
    calls.forEach((c, i) => {
      q.set(c.query, i * d)
    })
    return runCancellable(signal, (token) => this.#native.searchBatch(q, topK, opts, token)).then(allHits)
  }

  /**
   * Many queries (`queries` holds m x dim values, row after row) in one pass per block of
   * the index, on all cores off the event loop; one hit list per query, in query order.
   * Scores equal `search`'s bit for bit.
   */
  searchBatch(queries: VectorInput, options: VectorBatchOptions = {}): Promise<VectorHit[][]> {
    try {
      const q = this.#vectors(queries, 'queries', true)
      const { topK, native: opts, options: o } = searchOptions(options, BATCH_KEYS)
      const signal = checkSignal(o.signal)
      throwIfAborted(signal) // even with no queries: an aborted call never resolves
      if (q.length === 0) return Promise.resolve([])
      return runCancellable(signal, (token) => this.#native.searchBatch(q, topK, opts, token)).then(allHits)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * Writes the index to one file (magic, version, CRC-32), atomically (temporary file +
   * rename). A `signal` that fires stops a running save: its temporary file is removed
   * and an existing file at `path` is left as it was. Temporary files that killed saves of
   * the same `path` left behind are removed first.
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
  static async load(path: string, options: VectorLoadOptions = {}): Promise<VectorIndex> {
    if (typeof path !== 'string' || path === '') throw typeError('path must be a non-empty string')
    const o = optionsObject(options, 'options', LOAD_KEYS)
    const mmap = booleanOption(o.mmap, 'options.mmap', false)
    const signal = checkSignal(o.signal)
    coalescing(o.coalesce)
    const inner = await runCancellable(signal, (token) => native.NativeVectorIndex.load(path, mmap, token))
    return new VectorIndex({ [FROM_NATIVE]: inner, coalesce: o.coalesce } as unknown as VectorIndexOptions)
  }

  /**
   * Opens (or creates) the index bound to directory `dir`: each committed chunk of vectors is one
   * file there, read through a memory map (the page cache holds one copy for every process that
   * opens it), with a manifest naming them and, with durability `'sync'` or `'async'`, a log of
   * the writes since the last commit, replayed here. Writes are visible at once and made
   * durable by `commit()` (or by the log). One writer per directory: a second one, in another
   * process, rejects with `ERR_LOCKED`; readers (`readOnly`) take no lock. A `Bm25Index.open`
   * of the same directory in this process shares it: either's `commit()` commits both.
   * An unknown option is a TypeError; an option that differs from the one the directory records
   * is an `ERR_INVALID_ARG` RangeError naming it (as for `Bm25Index.open`).
   */
  static async open(dir: string, options: VectorOpenOptions = {}): Promise<VectorIndex> {
    if (typeof dir !== 'string' || dir === '') throw typeError('dir must be a non-empty string')
    const o = optionsObject(options, 'options', OPEN_KEYS)
    const given: Record<string, unknown> = {}
    if (o.dim !== undefined) given.dim = anyInteger(o.dim, 'options.dim')
    for (const key of ['metric', 'storage', 'rescore'] as const) {
      const v = o[key] ?? undefined
      optionalString(v, `options.${key}`)
      if (v !== undefined) given[key] = v
    }
    const shortlist = shortlistOption(o.shortlist)
    if (shortlist) given.shortlist = shortlist
    const fields = fieldOptions(o.fields, o.dynamicFields)
    if (fields?.fields !== undefined) given.fields = fields.fields
    if (fields?.dynamicFields !== undefined) given.dynamicFields = fields.dynamicFields
    if (o.embedder !== undefined) {
      if (!isPlainObject(o.embedder)) throw typeError('options.embedder must be a plain object')
      jsonValue(o.embedder, 'options.embedder')
      given.embedder = o.embedder
    }
    const durability = o.durability ?? 'commit'
    if (typeof durability !== 'string' || !DURABILITIES.has(durability)) {
      throw typeError(`options.durability must be 'commit', 'sync' or 'async', got ${String(durability)}`)
    }
    const syncInterval =
      o.syncInterval === undefined ? 1000 : integer(o.syncInterval, 'options.syncInterval', 1, 2 ** 31 - 1)
    const readOnly = booleanOption(o.readOnly, 'options.readOnly', false)
    const refreshInterval =
      o.refreshInterval === undefined ? 1000 : integer(o.refreshInterval, 'options.refreshInterval', 0, 2 ** 31 - 1)
    const signal = checkSignal(o.signal)
    coalescing(o.coalesce)
    const json = Object.keys(given).length > 0 ? JSON.stringify(given) : undefined
    // As a change: the promise waits for the native open, so a directory opened after the
    // signal fired is never left locked by an index nobody got.
    const inner = await runCancellableChange(signal, (token) =>
      native.NativeVectorIndex.open(dir, json, durability, syncInterval, readOnly, token),
    )
    const index = new VectorIndex({ [FROM_NATIVE]: inner, coalesce: o.coalesce } as unknown as VectorIndexOptions)
    if (readOnly && refreshInterval > 0) index.#startRefreshing(refreshInterval)
    return index
  }

  /**
   * Makes every write so far durable (with those of a `Bm25Index` opened on the same directory):
   * writes the chunks and deletions the last commit lacks and a new manifest, off the event
   * loop. An index not opened from a directory, or opened `readOnly`, rejects.
   */
  commit(options: { signal?: AbortSignal } = {}): Promise<VectorCommitResult> {
    try {
      const signal = checkSignal(optionsObject(options, 'options', COMMIT_KEYS).signal)
      return runCancellableChange(signal, (token) => this.#native.commit(token)).then((c) => ({
        generation: Number(c.generation),
      }))
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * A `readOnly` index reads the writer's newest commit, if it is newer than what the index
   * shows; resolves with whether it was. The automatic refresh (`refreshInterval`) does the same.
   * Any other index resolves false: its own writes are searchable at once.
   */
  refresh(): Promise<boolean> {
    this.#refreshing ??= runCancellable(undefined, (token) => this.#native.reload(token)).finally(() => {
      this.#refreshing = undefined
    })
    return this.#refreshing
  }

  /**
   * Lets go of the directory: the index takes no more writes (`ERR_READ_ONLY`), a writer commits (if that fails,
   * the index stays open and writable and the promise rejects), and the directory's lock is released once no
   * `Bm25Index` of this process shares it, so the directory can be opened again here or in another process.
   * Searches go on over what the index holds. An index not bound to a directory has nothing to close.
   */
  async close(): Promise<void> {
    clearInterval(this.#refreshTimer)
    await runCancellableChange(undefined, (token) => this.#native.close(token))
  }

  #startRefreshing(every: number): void {
    // The timer holds the index weakly: an index nobody holds is collected, and its timer stops.
    const ref = new WeakRef(this)
    const timer = setInterval(() => {
      const index = ref.deref()
      if (!index) return clearInterval(timer)
      // A failed automatic refresh is retried on the next tick; `refresh()` reports the error.
      index.refresh().catch(() => {})
    }, every)
    timer.unref()
    this.#refreshTimer = timer
  }

  #vectors(v: unknown, name: string, many: boolean): Float32Array {
    const values = toFloat32(v, name)
    if (many ? values.length % this.#dim !== 0 : values.length !== this.#dim) {
      const want = many ? `a multiple of dim ${this.#dim}` : `dim ${this.#dim}`
      throw rangeError(`${name} has ${values.length} values; the index needs ${want}`)
    }
    return values
  }
}

function toFloat32(v: unknown, name: string): Float32Array {
  if (readValue(() => v instanceof Float32Array)) return v as Float32Array
  if (isArray(v) && v.every((x) => typeof x === 'number')) return Float32Array.from(v)
  throw typeError(`${name} must be a Float32Array (or an array of numbers)`)
}

function upsertOption(options: unknown): boolean {
  return booleanOption(optionsObject(options, 'options', ADD_KEYS).upsert, 'options.upsert', false)
}
