import { native } from '../internal/native.js';
import { callNative, rangeError, typeError } from '../errors.js';
import { checkSignal, runCancellable, saveCancellable, throwIfAborted } from '../internal/abort.js';
import { Batcher } from '../internal/batcher.js';
import { anyInteger, booleanOption, checkKeys, documentId, isArray, jsonValue, isPlainObject, optionalString, optionKeys, optionsObject, readValue, stringArray, } from '../internal/validate.js';
import { allHits, batchKey, coalescing, HitBuffer, searchOptions } from './hits.js';
const FROM_NATIVE = Symbol('fromNative');
const INDEX_KEYS = optionKeys('dim', 'metric', 'storage', 'shortlist', 'rescore', 'coalesce');
const SHORTLIST_KEYS = optionKeys('perTopK', 'rows');
const ADD_KEYS = optionKeys('upsert');
const ITEM_KEYS = optionKeys('id', 'vector', 'meta', 'text');
const SEARCH_KEYS = optionKeys('topK', 'filter', 'includeFields');
const SEARCH_ASYNC_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal');
const BATCH_KEYS = optionKeys('topK', 'filter', 'includeFields', 'signal');
const LOAD_KEYS = optionKeys('mmap', 'coalesce', 'signal');
/**
 * `options.shortlist` checked for its shape (TypeError): its ranges, and which storages take
 * one, are Rust's (RangeError).
 */
function shortlistOption(v) {
    if (v === undefined || v === null)
        return undefined;
    const o = optionsObject(v, 'options.shortlist', SHORTLIST_KEYS);
    const out = {};
    for (const key of ['perTopK', 'rows']) {
        if (o[key] !== undefined)
            out[key] = anyInteger(o[key], `options.shortlist.${key}`);
    }
    return out;
}
/**
 * Exact (brute-force) vector top-k whose scans run in Rust with SIMD kernels chosen for the
 * CPU at run time (AVX-512, AVX2/FMA, NEON or scalar).
 *
 * Synchronous: `add`, `remove`, `search` (a large index is scanned on all cores, on a pool
 * of its own: never behind other work), the getters and `has`. Reads run on an immutable
 * snapshot and never wait for a writer, a save or a batch; writes are visible at once.
 * Off the event loop (Promises on the libuv pool): `searchAsync` (concurrent calls coalesced
 * into batches), `searchBatch` (cancellable), `save` (of the snapshot at the call), `load`.
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
    #native;
    #dim;
    #out = new HitBuffer();
    #batcher;
    constructor(options) {
        const restored = readValue(() => options?.[FROM_NATIVE]);
        let coalesce;
        if (restored) {
            this.#native = restored;
            coalesce = coalescing(options.coalesce);
        }
        else {
            // Types only: the range of dim and the shortlist, the metric, storage and rescore names, which
            // storages take a shortlist or rescore, and the defaults are Rust's.
            if (!isPlainObject(options))
                throw typeError('options must be an object such as { dim: 384 }');
            checkKeys(options, INDEX_KEYS, 'options');
            if (options.dim === undefined)
                throw typeError('options.dim is required (the number of values per vector)');
            const dim = anyInteger(options.dim, 'options.dim');
            // null means the default, as it always has.
            const metric = options.metric ?? undefined;
            const storage = options.storage ?? undefined;
            optionalString(metric, 'options.metric');
            optionalString(storage, 'options.storage');
            const shortlist = shortlistOption(options.shortlist);
            const rescore = options.rescore ?? undefined;
            optionalString(rescore, 'options.rescore');
            coalesce = coalescing(options.coalesce);
            this.#native = callNative(() => new native.NativeVectorIndex(dim, metric, storage, shortlist, rescore));
        }
        this.#dim = this.#native.dim;
        this.#batcher = coalesce ? new Batcher((calls, signal) => this.#runBatch(calls, signal), coalesce) : undefined;
    }
    /** The declaration that `search` and `searchBatch` honour `filter` inside the scan (see `VectorRetriever`). */
    get supportsFilter() {
        return true;
    }
    /** Number of vectors. */
    get size() {
        return this.#native.size;
    }
    /** Values per vector. */
    get dim() {
        return this.#dim;
    }
    /** The metric hits are scored with. */
    get metric() {
        return this.#native.metric;
    }
    /** How rows are stored. */
    get storage() {
        return this.#native.storage;
    }
    /**
     * What the shortlist of an approximate storage is rescored from: `'f32'` for `'int8'` and
     * `'binary'` (the default), `'int8'` for `'binary'` built with `rescore: 'int8'`; undefined for
     * the exact storages.
     */
    get rescore() {
        return (this.#native.rescore ?? undefined);
    }
    /** The shortlist given at construction (or saved in the loaded file); undefined: the storage's default. */
    get shortlist() {
        const s = this.#native.shortlist;
        return s ? { perTopK: s.perTopK ?? 1, rows: s.rows ?? 0 } : undefined;
    }
    /** Whether the rows are still read from a memory-mapped file (see `load`). */
    get mapped() {
        return this.#native.mapped;
    }
    /** Whether a vector with this id is in the index. */
    has(id) {
        return typeof id === 'string' && this.#native.has(id);
    }
    add(ids, vectors, options = {}) {
        if (!isArray(ids))
            throw typeError('ids must be an array of strings, or items an array of { id, vector }');
        // Items unless a vectors argument follows ids (a Float32Array, a number array, or ids of strings).
        const items = vectors === undefined ||
            (!ArrayBuffer.isView(vectors) && !isArray(vectors) && !ids.some((x) => typeof x === 'string'));
        if (items)
            return this.#addItems(ids, vectors);
        const list = ids.map((id, i) => documentId(id, `ids[${i}]`));
        const values = toFloat32(vectors, 'vectors');
        if (values.length !== list.length * this.#dim) {
            throw rangeError(`vectors has ${values.length} values; ${list.length} ids x dim ${this.#dim} need ${list.length * this.#dim}`);
        }
        return callNative(() => this.#native.add(list, values, upsertOption(options)));
    }
    #addItems(items, options) {
        const upsert = upsertOption(options);
        const d = this.#dim;
        const ids = new Array(items.length);
        const values = new Float32Array(items.length * d);
        let metas;
        let texts;
        items.forEach((item, i) => {
            const where = `items[${i}]`;
            if (!isPlainObject(item))
                throw typeError(`${where} must be an object { id, vector, meta?, text? }`);
            checkKeys(item, ITEM_KEYS, where);
            ids[i] = documentId(item.id, where);
            const v = toFloat32(item.vector, `${where}.vector`);
            if (v.length !== d)
                throw rangeError(`${where}.vector has ${v.length} values; the index needs dim ${d}`);
            values.set(v, i * d);
            if (item.meta !== undefined) {
                if (!isPlainObject(item.meta))
                    throw typeError(`${where}.meta must be a plain object`);
                jsonValue(item.meta, `${where}.meta`);
                metas ??= new Array(items.length).fill(null);
                metas[i] = item.meta;
            }
            if (item.text !== undefined) {
                if (typeof item.text !== 'string')
                    throw typeError(`${where}.text must be a string`);
                texts ??= new Array(items.length).fill(null);
                texts[i] = item.text;
            }
        });
        return callNative(() => this.#native.add(ids, values, upsert, metas, texts));
    }
    /**
     * Removes vectors by id; returns how many were present (unknown ids are ignored). Costs a
     * copy of one bit per row of the chunks touched; the rows are reclaimed by background merges.
     */
    remove(ids) {
        const list = stringArray(ids, 'ids');
        return callNative(() => this.#native.remove(list));
    }
    /** The best `topK` vectors for one query (a scan of every vector, or of the filter's). */
    search(query, options = {}) {
        const q = this.#vectors(query, 'query', false);
        const { topK, native: opts } = searchOptions(options, SEARCH_KEYS);
        const out = this.#out.forTopK(topK);
        return this.#out.hits(callNative(() => this.#native.search(q, topK, opts, out)));
    }
    /**
     * `search` off the event loop: concurrent calls with the same `topK`, `filter` and
     * `includeFields` are joined into one native batch (see the `coalesce` option), so a
     * server awaiting one search per request gets `searchBatch` throughput. An aborted
     * `signal` rejects this call at once with an AbortError; the batch stops only when all
     * its calls aborted.
     */
    searchAsync(query, options = {}) {
        try {
            const q = this.#vectors(query, 'query', false);
            const { topK, native: opts, options: o } = searchOptions(options, SEARCH_ASYNC_KEYS);
            const signal = checkSignal(o.signal);
            throwIfAborted(signal);
            if (!this.#batcher)
                return this.#runBatch([{ query: q, topK, opts }], signal).then((r) => r[0]);
            // Copied: the caller may reuse its array before the batch starts.
            return this.#batcher.submit(batchKey(topK, opts), { query: Float32Array.from(q), topK, opts }, signal);
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    /** One native batch of `searchAsync` calls, which share their options. */
    #runBatch(calls, signal) {
        const { topK, opts } = calls[0];
        const d = this.#dim;
        const q = new Float32Array(calls.length * d);
        calls.forEach((c, i) => {
            q.set(c.query, i * d);
        });
        return runCancellable(signal, (token) => this.#native.searchBatch(q, topK, opts, token)).then(allHits);
    }
    /**
     * Many queries (`queries` holds m x dim values, row after row) in one pass per block of
     * the index, on all cores off the event loop; one hit list per query, in query order.
     * Scores equal `search`'s bit for bit.
     */
    searchBatch(queries, options = {}) {
        try {
            const q = this.#vectors(queries, 'queries', true);
            const { topK, native: opts, options: o } = searchOptions(options, BATCH_KEYS);
            const signal = checkSignal(o.signal);
            throwIfAborted(signal); // even with no queries: an aborted call never resolves
            if (q.length === 0)
                return Promise.resolve([]);
            return runCancellable(signal, (token) => this.#native.searchBatch(q, topK, opts, token)).then(allHits);
        }
        catch (e) {
            return Promise.reject(e);
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
    save(path, options = {}) {
        return saveCancellable(path, options, (p, token) => this.#native.save(p, token));
    }
    /**
     * Reads an index written by `save`; a damaged or foreign file rejects with `ERR_CORRUPT_INDEX`,
     * a path that is not a regular file (a directory, a device, a FIFO) with `ERR_IO`.
     */
    static async load(path, options = {}) {
        if (typeof path !== 'string' || path === '')
            throw typeError('path must be a non-empty string');
        const o = optionsObject(options, 'options', LOAD_KEYS);
        const mmap = booleanOption(o.mmap, 'options.mmap', false);
        const signal = checkSignal(o.signal);
        coalescing(o.coalesce);
        const inner = await runCancellable(signal, (token) => native.NativeVectorIndex.load(path, mmap, token));
        return new VectorIndex({ [FROM_NATIVE]: inner, coalesce: o.coalesce });
    }
    #vectors(v, name, many) {
        const values = toFloat32(v, name);
        if (many ? values.length % this.#dim !== 0 : values.length !== this.#dim) {
            const want = many ? `a multiple of dim ${this.#dim}` : `dim ${this.#dim}`;
            throw rangeError(`${name} has ${values.length} values; the index needs ${want}`);
        }
        return values;
    }
}
function toFloat32(v, name) {
    if (readValue(() => v instanceof Float32Array))
        return v;
    if (isArray(v) && v.every((x) => typeof x === 'number'))
        return Float32Array.from(v);
    throw typeError(`${name} must be a Float32Array (or an array of numbers)`);
}
function upsertOption(options) {
    return booleanOption(optionsObject(options, 'options', ADD_KEYS).upsert, 'options.upsert', false);
}
