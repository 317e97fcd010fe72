import type { Retriever } from '../retrieval/retriever.js';
import { type CoalesceOptions } from '../internal/batcher.js';
import type { Filter } from './filter.js';
import { type IndexHit } from './hits.js';
/** The names `variant` takes (`'bm25plus'` is also accepted, as `'bm25+'`); docs/BM25.md gives their formulas. */
export declare const BM25_VARIANTS: readonly ["lucene", "robertson", "atire", "bm25l", "bm25l-lvzhai", "bm25+"];
/** BM25 variants, with the formulas of bm25s. */
export type Bm25Variant = (typeof BM25_VARIANTS)[number];
/** How text becomes index terms (the analysis runs in Rust). */
export interface AnalyzerOptions {
    /** `'unicode'` (default): UAX #29 word boundaries. `'regex'`: runs of `\w` of 2+ characters, as bm25s and scikit-learn. */
    segmentation?: 'unicode' | 'regex';
    /** Unicode lowercasing (default true). */
    lowercase?: boolean;
    /** `'en'` (the Lucene English list, as bm25s's `"en"`), your own list, or none (default). */
    stopwords?: 'en' | readonly string[] | null;
    /** A Snowball stemmer language such as `'english'`, or none (default). */
    stemmer?: string | null;
    /**
     * Runs of Hangul, Han, Hiragana and Katakana: `'bigram'` (default) makes overlapping
     * character bigrams (a lone character stays a unigram), `'wordbigram'` also keeps the
     * whole run, `'none'` leaves the word segmenter's cut.
     */
    cjk?: 'bigram' | 'wordbigram' | 'none';
    /** Drop tokens shorter than this many characters (default 1; CJK tokens are kept). */
    minTokenLength?: number;
}
/** Options of `new Bm25Index(options)` (and of `Bm25Index.load` for what is not saved). */
export interface Bm25Options {
    /** Default `'lucene'`. */
    variant?: Bm25Variant;
    /** Term-frequency saturation, default 1.5 (as bm25s). */
    k1?: number;
    /** Length normalisation in [0, 1], default 0.75. */
    b?: number;
    /** BM25L/BM25+ shift, default 0.5. */
    delta?: number;
    /** Rust analyzer settings, or the preset `'bm25s'` (regex words, lowercase, English stopwords, English stemmer). */
    analyzer?: AnalyzerOptions | 'bm25s';
    /**
     * A JS tokenizer used instead of the Rust analyzer for documents given as text and for
     * string queries (e.g. a morphological analyser). It is not saved with the index: pass
     * it again to `Bm25Index.load`.
     */
    tokenizer?: (text: string) => string[];
    /** Keep document text so hits return it (default true). */
    storeText?: boolean;
    /**
     * Milliseconds after which writes staged without a refresh (`add(docs, { refresh: false })`)
     * become searchable on their own, as Elasticsearch's `refresh_interval` (default 1000;
     * `0` or `null`: only on `refresh()` or the next refreshing write). Not saved with the
     * index: pass it again to `Bm25Index.load`.
     */
    refreshInterval?: number | null;
    /**
     * How concurrent `searchAsync` (and `retrieve`) calls are joined into native batches (see
     * docs/CONCURRENCY.md): default `{ maxBatch: 64, maxWaitMs: 0 }` (adaptive: no wait when
     * idle); `false` runs each call as its own batch. Not saved with the index.
     */
    coalesce?: CoalesceOptions | false;
}
/** A document to index. `tokens` bypass analysis; when both are given, tokens are indexed and text is stored. */
export interface Bm25Document {
    /** Unique in the index (`ERR_DUPLICATE_ID` unless `upsert`). */
    id: string;
    /** Analysed into terms, and stored unless `storeText: false`. */
    text?: string;
    /** Terms indexed as they are, without analysis. */
    tokens?: readonly string[];
    /** JSON metadata, returned with hits and matched by `filter.meta`. */
    meta?: Record<string, unknown>;
}
/** Restricts a search: documents must have one of `ids` and match the `meta` filter (see docs/FILTERS.md). */
export type Bm25Filter = Filter;
/** Options of `Bm25Index.search`. */
export interface Bm25SearchOptions {
    /** How many hits at most (default 10). 0 returns none; more than the matches returns all matches. */
    topK?: number;
    /** Only documents that match it are scored (checked inside the scan, so `topK` still fills). */
    filter?: Bm25Filter;
    /** Return each hit's stored `text` and `meta` (default true). */
    includeFields?: boolean;
}
/** Options of `Bm25Index.searchAsync`, `searchBatch` and `retrieve`: the search options plus a signal. */
export interface Bm25BatchOptions extends Bm25SearchOptions {
    /** Cancels the batch; the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
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
    threads?: number;
}
/** A hit of `Bm25Index.search`: its score is the document's BM25 score; ties go to the document added first. */
export type Bm25Hit = IndexHit;
/** What `Bm25Index.stats()` reports. */
export interface Bm25Stats {
    /** Live documents. */
    documents: number;
    /** Distinct terms in live documents. */
    terms: number;
    /** (term, document) pairs. */
    postings: number;
    /** Mean document length in terms, the `avgdl` of the formulas. */
    avgDocLength: number;
    /** Postings (document, tf) plus the forward index (term, tf), per posting. */
    bytesPerPosting: number;
    /** Approximate memory held by the index's segments. */
    memoryBytes: number;
    /**
     * Terms whose precomputed scores are also held as a dense row of one float per document (terms in at least
     * half the documents of a segment below 50,000 documents, built with the other precomputed parts once the index
     * has been quiet for a second; 0 before). Counted in `memoryBytes`, not in `bytesPerPosting`.
     */
    denseTerms: number;
    /** Segments searched (each refresh adds one; background merges join them). */
    segments: number;
    /** Removed documents still held by segments, until a merge rewrites them away. */
    deletedDocs: number;
}
/** A query: text (analysed like documents) or tokens (used as they are). */
export type Bm25Query = string | readonly string[];
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
 * whole scan), `addAsync` (analysis, then resolves once searchable), `refresh` (resolves once every
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
export declare class Bm25Index implements Retriever {
    #private;
    constructor(options?: Bm25Options);
    /** Number of searchable documents (staged writes count once refreshed). */
    get size(): number;
    /** Documents added or removed but not yet searchable (staged, or in a refresh under way). */
    get pending(): number;
    /**
     * Makes every write made before the call searchable (read-your-writes), on the libuv
     * pool. An aborted signal rejects at once with an AbortError; the refresh still completes.
     */
    refresh(options?: {
        signal?: AbortSignal;
    }): Promise<void>;
    /** Whether a document with this id was added (staged writes included) and not removed. */
    has(id: string): boolean;
    /**
     * Runs the segment merges due now, on the libuv pool, and resolves with how many ran.
     * The index's background thread runs them on its own after writes: call this only to
     * reclaim removed documents at a moment of your choosing (searches are not blocked).
     */
    merge(options?: {
        signal?: AbortSignal;
    }): Promise<number>;
    /**
     * Adds documents and returns how many. Ids must be new unless `upsert` is set (then the
     * old document is replaced and counts as newly added for tie order); an id repeated
     * within one call is an error. A call that throws leaves the index unchanged. With
     * `refresh: false` the documents are only staged (see the class comment).
     */
    add(docs: readonly Bm25Document[], options?: {
        upsert?: boolean;
        refresh?: boolean;
    }): number;
    /**
     * `add` with analysis and the refresh on the libuv pool; resolves once the documents are
     * searchable. An aborted call either rejects with an AbortError and adds nothing, or
     * (aborted too late) adds all and resolves.
     */
    addAsync(docs: readonly Bm25Document[], options?: {
        upsert?: boolean;
        signal?: AbortSignal;
    }): Promise<number>;
    /** Removes documents by id; returns how many were present (unknown ids are ignored). */
    remove(ids: readonly string[]): number;
    /** The best `topK` documents containing at least one query term. */
    search(query: Bm25Query, options?: Bm25SearchOptions): Bm25Hit[];
    /**
     * `search` off the event loop, with the same hits: concurrent calls with the same `topK`,
     * `filter` and `includeFields` are joined into one native batch (see the `coalesce`
     * option), so a server awaiting one search per request gets `searchBatch` throughput and
     * its event loop never runs a scan. An aborted `signal` rejects this call at once with an
     * AbortError; the batch stops only when all its calls aborted.
     */
    searchAsync(query: Bm25Query, options?: Bm25BatchOptions): Promise<Bm25Hit[]>;
    /** Many queries at once, in parallel on all cores; results in query order. */
    searchBatch(queries: readonly Bm25Query[], options?: Bm25SearchBatchOptions): Promise<Bm25Hit[][]>;
    /** The terms the index would make of `text` (for debugging analysis). */
    analyze(text: string): string[];
    /** Sizes of the current snapshot: documents, terms, postings, segments, memory. */
    stats(): Bm25Stats;
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
    save(path: string, options?: {
        signal?: AbortSignal;
    }): Promise<void>;
    /**
     * Reads an index written by `save`; a damaged or foreign file rejects with `ERR_CORRUPT_INDEX`,
     * a path that is not a regular file (a directory, a device, a FIFO) with `ERR_IO`.
     */
    static load(path: string, options?: {
        tokenizer?: (text: string) => string[];
        signal?: AbortSignal;
        refreshInterval?: number | null;
    }): Promise<Bm25Index>;
    /** The `Retriever` declaration that `retrieve` honours `filter` (in the scan, as `search`). */
    get supportsFilter(): true;
    /**
     * The `Retriever` contract (so the index composes with `HybridRetriever` and friends):
     * `searchAsync` (off the event loop, coalesced) with the same `filter`, rejecting with an
     * AbortError when `signal` fires.
     */
    retrieve(query: Bm25Query, options?: Bm25BatchOptions): Promise<Bm25Hit[]>;
}
