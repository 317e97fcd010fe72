// The search protocol of both indexes (`src/hits.rs` is its native half): one options parser, one options object
// for the native call, and one decoder of the hits that come back.
import { coalesceOption } from '../internal/batcher.js';
import { booleanOption, optionsObject, topK as parseTopK } from '../internal/validate.js';
import { filterParts } from './filter.js';
/** Queries per coalesced `searchAsync` batch of either index: past 64 a batch gains little per query. */
const COALESCE_DEFAULTS = { maxBatch: 64, maxWaitMs: 0 };
/** An index's `coalesce` option: how its concurrent `searchAsync` calls join native batches (false: they do not). */
export function coalescing(v) {
    return coalesceOption(v, 'options.coalesce', COALESCE_DEFAULTS);
}
/**
 * The options of a search call (`known`: the keys it takes). Types and shapes only (TypeError): the filter's
 * values and the defaults are Rust's. A plain `{ topK }` sends no options object, so the native call reads none.
 */
export function searchOptions(options, known) {
    const o = optionsObject(options, 'options', known);
    const topK = Math.min(parseTopK(o.topK), 0xffffffff);
    if (o.includeFields === undefined && o.filter === undefined)
        return { topK, native: undefined, options: o };
    const native = {};
    if (o.includeFields !== undefined)
        native.includeFields = booleanOption(o.includeFields, 'options.includeFields', true);
    if (o.filter !== undefined) {
        const f = filterParts(o.filter);
        native.filterIds = f.ids;
        native.filterMeta = f.meta;
    }
    return { topK, native, options: o };
}
/** Calls of equal keys may share a native batch. The common call has no options object: its key is just `topK`. */
export function batchKey(topK, native) {
    return native === undefined ? String(topK) : `${topK}|${JSON.stringify(native)}`;
}
/**
 * The reusable output buffer of a synchronous native `search` (`fill_buffer` in `src/hits.rs`), and the decoder of
 * what the search returns: the native side fills `out[0]` = hit count, then the scores, then the UTF-16 end offsets
 * of the ids, and returns the ids joined in one string (or, for hits with fields, `NativeHits`). No typed array is
 * made per query.
 */
export class HitBuffer {
    #out = new Float64Array(1 + 2 * 16);
    /** The buffer, grown for `topK` hits unless that is beyond what is worth keeping. */
    forTopK(topK) {
        if (this.#out.length < 1 + 2 * topK && topK <= MAX_BUFFERED_HITS)
            this.#out = new Float64Array(1 + 2 * topK);
        return this.#out;
    }
    /** The hits of the search that just filled the buffer and returned `r`. */
    hits(r) {
        if (typeof r !== 'string')
            return hitsOf(r, 0, r.idEnds.length, parseMetas(r));
        const out = this.#out;
        const n = out[0];
        const hits = new Array(n);
        let start = 0;
        for (let i = 0; i < n; i++) {
            const end = out[1 + n + i];
            hits[i] = { id: r.slice(start, end), score: out[1 + i] };
            start = end;
        }
        return hits;
    }
}
/** Top-k sizes up to which `search` keeps a reusable output buffer. */
const MAX_BUFFERED_HITS = 1024;
/** A batch's hits, one list per query. */
export function allHits(hits) {
    const out = [];
    batchHits(hits, out);
    return out;
}
/** A batch's hits split per query by `counts` (the columns run over the whole batch), appended to `out`. */
export function batchHits(hits, out) {
    const { counts } = hits;
    const metas = parseMetas(hits);
    if (counts === undefined) {
        out.push(hitsOf(hits, 0, hits.idEnds.length, metas));
        return;
    }
    let at = 0;
    for (let q = 0; q < counts.length; q++) {
        out.push(hitsOf(hits, at, at + counts[q], metas));
        at += counts[q];
    }
}
function parseMetas(h) {
    return h.metasJson === undefined ? undefined : JSON.parse(h.metasJson);
}
/** Hit objects for the rows `from..to` of the columns. */
function hitsOf(h, from, to, metas) {
    const { ids, idEnds, scores, texts } = h;
    const out = new Array(to - from);
    let start = from === 0 ? 0 : idEnds[from - 1];
    for (let i = from; i < to; i++) {
        const hit = { id: ids.slice(start, idEnds[i]), score: scores[i] };
        start = idEnds[i];
        const text = texts?.[i];
        if (text != null)
            hit.text = text;
        const meta = metas?.[i];
        if (meta != null)
            hit.meta = meta;
        out[i - from] = hit;
    }
    return out;
}
