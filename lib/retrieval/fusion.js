import { describe, rangeError, typeError } from '../errors.js';
import { finiteNumber, isArray, isPlainObject, oneOf, optionKeys, optionsObject, topK } from '../internal/validate.js';
import { mergeCopies } from './merge-fields.js';
/**
 * Fuses ranked lists of scored documents into one ranking.
 *
 * - `'rrf'`: `score = Σ w_i / (rrfK + rank_i)` over the lists containing the document, ranks 1-based.
 * - `'weighted'`: `score = Σ w_i * norm_i(score_i)`. `'minmax'` maps a list's best score to 1 and
 *   its worst to 0; a list whose scores are all equal (one item included) gives each 1.
 *   `'zscore'` is `(s - mean) / std` (population std); zero variance gives each 0. `'none'`
 *   uses raw scores.
 *
 * A document missing from a list gets 0 from it; a document only in zero-weight lists is still
 * returned, with score 0. Each list is taken in the given order (scores
 * are not re-sorted), and a repeated document within one list counts once, at its first
 * position; later items move up. The output merges the fields of every list's copy, so a
 * document keeps the text and meta one source returned when another returned only its id:
 * copies take precedence by rank (lowest first; on equal ranks the earliest list), the first
 * non-empty `text` is kept, `meta` objects are merged with the keys of the higher copy
 * winning, and any other field comes from the highest copy that has it. `score` is replaced
 * by the fused score and a `fusion` field lists each list's share.
 *
 * Order: fused score descending; ties by best rank, then by the list it was reached in. A
 * document's contributions are summed in ascending order, so its score does not depend on
 * the order of the lists. O(total items + d log d) for d distinct documents.
 *
 * @example
 * ```ts
 * import { fuse } from 'ragrank'
 *
 * const lexical = [{ id: 'a', score: 12.1 }, { id: 'b', score: 9.4 }]
 * const dense = [{ id: 'b', score: 0.82 }, { id: 'c', score: 0.79 }]
 * fuse([lexical, dense]) // RRF: b first (in both lists), then a, then c; each with `fusion: [{ list, rank, ... }]`
 * fuse([lexical, dense], { method: 'weighted', weights: [0.3, 0.7], scoreNormalization: 'minmax', topK: 2 })
 * ```
 */
export function fuse(lists, options = {}) {
    if (!isArray(lists))
        throw typeError('lists must be an array of arrays of { id, score }');
    const o = fuseOptions(options, lists.length);
    let capacity = 0;
    for (let i = 0; i < lists.length; i++) {
        if (!isArray(lists[i]))
            throw typeError(`lists[${i}] must be an array of { id, score }`);
        capacity += lists[i].length;
    }
    const tally = new Tally(capacity, lists.length);
    for (let i = 0; i < lists.length; i++) {
        const from = tally.items;
        collect(lists[i], i, o, tally);
        const w = o.weights[i];
        if (o.method === 'rrf') {
            for (let j = from; j < tally.items; j++)
                tally.itemContribution[j] = w / (o.k + tally.itemRank[j]);
        }
        else {
            const norm = normalizer(tally.itemScore.subarray(from, tally.items), o.normalize);
            for (let j = from; j < tally.items; j++)
                tally.itemContribution[j] = w * norm(tally.itemScore[j]);
        }
    }
    return tally.ranked(o.topK);
}
/**
 * The fusion state as parallel arrays rather than an object per item, so a million items
 * cost a few buffers, not a million small objects for the garbage collector. An item is a
 * document's first copy in one list; each document chains its items in list order.
 */
class Tally {
    ids = new Map();
    docs = [];
    // Per document.
    bestRank;
    bestList;
    lastList;
    firstItem;
    lastItem;
    score;
    // Per item.
    items = 0;
    itemList;
    itemRank;
    itemNext;
    itemScore;
    itemContribution;
    /** The copy each item saw, for documents found by several lists. */
    itemDoc = [];
    #scratch;
    constructor(capacity, lists) {
        this.bestRank = new Int32Array(capacity);
        this.bestList = new Int32Array(capacity);
        this.lastList = new Int32Array(capacity);
        this.firstItem = new Int32Array(capacity);
        this.lastItem = new Int32Array(capacity);
        this.score = new Float64Array(capacity);
        this.itemList = new Int32Array(capacity);
        this.itemRank = new Int32Array(capacity);
        this.itemNext = new Int32Array(capacity).fill(-1);
        this.itemScore = new Float64Array(capacity);
        this.itemContribution = new Float64Array(capacity);
        this.#scratch = new Float64Array(lists);
    }
    /** Records `doc` at `rank` in `list`, unless its key already appeared in that list. */
    add(key, doc, list, rank) {
        let d = this.ids.get(key);
        if (d !== undefined && this.lastList[d] === list)
            return false;
        const item = this.items++;
        this.itemList[item] = list;
        this.itemRank[item] = rank;
        this.itemScore[item] = doc.score;
        this.itemDoc[item] = doc;
        if (d === undefined) {
            d = this.docs.length;
            this.ids.set(key, d);
            this.docs.push(doc);
            this.bestRank[d] = rank;
            this.bestList[d] = list;
            this.firstItem[d] = item;
        }
        else {
            this.itemNext[this.lastItem[d]] = item;
            if (rank < this.bestRank[d]) {
                this.docs[d] = doc;
                this.bestRank[d] = rank;
                this.bestList[d] = list;
            }
        }
        this.lastList[d] = list;
        this.lastItem[d] = item;
        return true;
    }
    /** The fused documents, best first, at most `topK`. */
    ranked(topK) {
        const n = this.docs.length;
        for (let d = 0; d < n; d++)
            this.score[d] = this.#sumAscending(d);
        const order = Array.from({ length: n }, (_, d) => d);
        const { score, bestRank, bestList } = this;
        order.sort((a, b) => score[b] - score[a] || bestRank[a] - bestRank[b] || bestList[a] - bestList[b]);
        const kept = topK === undefined || topK >= n ? order : order.slice(0, topK);
        return kept.map((d) => ({ ...this.#fields(d), score: score[d], fusion: this.#contributions(d) }));
    }
    /** The document's copies merged, best-ranked first (see `fuse`); its only copy when it has one. */
    #fields(d) {
        const first = this.firstItem[d];
        const second = this.itemNext[first];
        if (second === -1)
            return this.docs[d];
        const { itemRank, itemDoc } = this;
        if (this.itemNext[second] === -1) {
            const [a, b] = itemRank[second] < itemRank[first] ? [second, first] : [first, second];
            return mergeCopies([itemDoc[a], itemDoc[b]]);
        }
        const items = [];
        for (let j = first; j !== -1; j = this.itemNext[j])
            items.push(j);
        // The chain is in list order, so a stable sort by rank leaves equal ranks in list order.
        items.sort((a, b) => itemRank[a] - itemRank[b]);
        return mergeCopies(items.map((j) => itemDoc[j]));
    }
    /** Sums in ascending order, so the result depends only on the multiset of contributions. */
    #sumAscending(d) {
        const first = this.firstItem[d];
        const second = this.itemNext[first];
        if (second === -1)
            return this.itemContribution[first];
        if (this.itemNext[second] === -1)
            return this.itemContribution[first] + this.itemContribution[second];
        let m = 0;
        for (let j = first; j !== -1; j = this.itemNext[j])
            this.#scratch[m++] = this.itemContribution[j];
        const values = this.#scratch.subarray(0, m).sort();
        let sum = 0;
        for (let j = 0; j < m; j++)
            sum += values[j];
        return sum;
    }
    #contributions(d) {
        const out = [];
        for (let j = this.firstItem[d]; j !== -1; j = this.itemNext[j]) {
            out.push({
                list: this.itemList[j],
                rank: this.itemRank[j],
                score: this.itemScore[j],
                contribution: this.itemContribution[j],
            });
        }
        return out;
    }
}
const FUSE_KEYS = optionKeys('method', 'rrfK', 'weights', 'scoreNormalization', 'keyBy', 'topK');
function fuseOptions(options, count) {
    const o = optionsObject(options, 'options', FUSE_KEYS);
    const method = oneOf(o.method ?? 'rrf', ['rrf', 'weighted'], 'options.method');
    if (method === 'rrf' && o.scoreNormalization !== undefined) {
        throw rangeError(`options.scoreNormalization applies to method 'weighted' only`);
    }
    const k = rrfConstant(o, method) ?? 60;
    return {
        method,
        k,
        weights: o.weights === undefined ? new Array(count).fill(1) : checkWeights(o.weights, count, 'options.weights'),
        normalize: oneOf(o.scoreNormalization ?? 'minmax', ['minmax', 'zscore', 'none'], 'options.scoreNormalization'),
        key: documentKey(o.keyBy, 'options.keyBy'),
        topK: topK(o.topK, undefined),
    };
}
/**
 * The RRF constant `rrfK` of `fuse` and of the composite retrievers' options (undefined when
 * left out). Not `k`: elsewhere `k` means how many results, so `{ k: 5 }` is an unknown key
 * whose error points at `topK`.
 */
export function rrfConstant(o, method) {
    if (o.rrfK === undefined)
        return undefined;
    if (method === 'weighted')
        throw rangeError(`options.rrfK applies to method 'rrf' only`);
    const k = finiteNumber(o.rrfK, 'options.rrfK', 0);
    if (k === 0)
        throw rangeError(`options.rrfK must be > 0, got 0`);
    return k;
}
/** A list's weight option (a source of a hybrid or rescoring retriever): finite and >= 0, 1 when left out. */
export function listWeight(v, name) {
    return v === undefined ? 1 : finiteNumber(v, name, 0);
}
/** Weights: one finite number >= 0 per list, at least one positive (unless there are no lists). */
export function checkWeights(v, count, name) {
    if (!isArray(v))
        throw typeError(`${name} must be an array of numbers`);
    if (v.length !== count)
        throw rangeError(`${name} must have one weight per list: got ${v.length} for ${count}`);
    const weights = v.map((w, i) => finiteNumber(w, `${name}[${i}]`, 0));
    if (count > 0 && !weights.some((w) => w > 0))
        throw rangeError(`${name}: at least one weight must be > 0`);
    return weights;
}
function documentKey(v, name) {
    if (v === undefined || v === 'id')
        return (doc) => doc.id;
    if (typeof v === 'function')
        return v;
    throw rangeError(`${name} must be 'id' or a function (doc) => string, got ${describe(v)}`);
}
/** Registers list `i`'s items; a repeat within the list is skipped and takes no rank. */
function collect(list, i, o, tally) {
    let rank = 0;
    for (let j = 0; j < list.length; j++) {
        const doc = list[j];
        if (!isPlainObject(doc))
            throw typeError(`lists[${i}][${j}] must be an object { id, score }`);
        if (typeof doc.id !== 'string' || doc.id === '')
            throw typeError(`lists[${i}][${j}].id must be a non-empty string`);
        if (typeof doc.score !== 'number')
            throw typeError(`lists[${i}][${j}].score must be a number`);
        if (o.method === 'weighted' && !Number.isFinite(doc.score)) {
            throw rangeError(`lists[${i}][${j}].score must be finite for weighted fusion, got ${doc.score}`);
        }
        const key = o.key(doc);
        if (typeof key !== 'string')
            throw typeError(`options.keyBy must return a string, got ${typeof key} for lists[${i}][${j}]`);
        if (tally.add(key, doc, i, rank + 1))
            rank++;
    }
}
/** The per-list score map of `'weighted'` fusion. */
export function normalizer(scores, method) {
    if (method === 'none' || scores.length === 0)
        return (s) => s;
    let min = Infinity;
    let max = -Infinity;
    for (const s of scores) {
        if (s < min)
            min = s;
        if (s > max)
            max = s;
    }
    // All equal (one item included): for minmax each is the list's best, so each gets full
    // credit; for zscore each sits at the mean. Tested directly, as a computed variance of
    // equal values can come out a rounding error above 0.
    if (min === max)
        return method === 'minmax' ? () => 1 : () => 0;
    if (method === 'minmax') {
        // Halved when max - min overflows; halving is exact, so the ratio is unchanged.
        const h = Number.isFinite(max - min) ? 1 : 0.5;
        const range = max * h - min * h;
        return (s) => (s * h - min * h) / range;
    }
    // z-scores do not change when every score is divided by the same c. A power of two near
    // the largest magnitude divides exactly and keeps the sums below from overflowing or
    // underflowing.
    const c = 2 ** Math.floor(Math.log2(Math.max(Math.abs(min), Math.abs(max))));
    let mean = 0;
    for (const s of scores)
        mean += s / c / scores.length;
    let variance = 0;
    for (const s of scores)
        variance += (s / c - mean) ** 2 / scores.length;
    const std = Math.sqrt(variance);
    return std > 0 ? (s) => (s / c - mean) / std : () => 0;
}
