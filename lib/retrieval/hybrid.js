import { typeError } from '../errors.js';
import { checkWeights, fuse, listWeight, rrfConstant, } from './fusion.js';
import { throwIfAborted } from '../internal/abort.js';
import { retrieveAll } from './fan-out.js';
import { checkFilterSupport, checkQuery, isRetriever, retrieveOptions, supportsFilter, } from './retriever.js';
import { checkKeys, isArray, isPlainObject, oneOf, optionKeys, optionsObject, positiveInteger, } from '../internal/validate.js';
const DEFAULT_CANDIDATES = 50;
const HYBRID_KEYS = optionKeys('retrievers', 'method', 'rrfK', 'scoreNormalization', 'candidates', 'onError', 'onSkip');
const SOURCE_KEYS = optionKeys('retriever', 'topK', 'weight');
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
export class HybridRetriever {
    #sources;
    #weights;
    #fusion;
    #candidates;
    #skipFailures;
    #onSkip;
    constructor(options) {
        const o = optionsObject(options, 'options', HYBRID_KEYS);
        if (!isArray(o.retrievers) || o.retrievers.length === 0) {
            throw typeError('options.retrievers must be a non-empty array of retrievers or { retriever, topK?, weight? }');
        }
        const sources = o.retrievers.map(source);
        this.#sources = sources.map(({ retriever, topK }) => ({ retriever, topK }));
        this.#weights = checkWeights(sources.map((s) => s.weight), sources.length, 'options.retrievers weights');
        const scoreNormalization = o.scoreNormalization;
        const method = (o.method ?? 'rrf');
        this.#fusion = { method, rrfK: rrfConstant(o, method), scoreNormalization };
        fuse([], this.#fusion); // validates method and the normalisation now rather than on the first query
        this.#candidates =
            o.candidates === undefined ? DEFAULT_CANDIDATES : positiveInteger(o.candidates, 'options.candidates');
        this.#skipFailures = oneOf(o.onError ?? 'reject', ['reject', 'skip'], 'options.onError') === 'skip';
        if (o.onSkip !== undefined && typeof o.onSkip !== 'function')
            throw typeError('options.onSkip must be a function (error, index) => void');
        this.#onSkip = o.onSkip;
    }
    /** True when every source honours filters. */
    get supportsFilter() {
        return this.#sources.every((s) => supportsFilter(s.retriever));
    }
    /** Runs every retriever on `query` (with the call's `filter`) and fuses their lists into the best `topK`. */
    async retrieve(query, options = {}) {
        const text = checkQuery(query);
        const { topK, signal, filter } = retrieveOptions(options);
        if (filter !== undefined)
            checkFilterSupport(filter, this.#sources.map((s, i) => ({ retriever: s.retriever, who: `retrievers[${i}]` })));
        throwIfAborted(signal);
        if (topK === 0)
            return [];
        const failures = [];
        const skip = (e, i) => {
            failures.push(e);
            this.#onSkip?.(e, i);
            return []; // an empty list keeps list indices equal to retriever indices
        };
        const calls = this.#sources.map((s, i) => ({
            retriever: s.retriever,
            query: text,
            depth: s.topK ?? Math.max(this.#candidates, topK),
            filter,
            who: `retrievers[${i}].retrieve`,
        }));
        const lists = await retrieveAll(calls, calls.length, signal, this.#skipFailures ? skip : undefined);
        if (failures.length === this.#sources.length) {
            const all = new AggregateError(failures, 'every retriever of the HybridRetriever failed');
            throw Object.assign(all, { code: 'ERR_ALL_SOURCES_FAILED' });
        }
        return fuse(lists, { ...this.#fusion, weights: this.#weights, topK });
    }
}
function source(v, i) {
    if (isRetriever(v))
        return { retriever: v, weight: 1 };
    const where = `options.retrievers[${i}]`;
    if (!isPlainObject(v) || !isRetriever(v.retriever)) {
        throw typeError(`${where} must be a retriever (with retrieve(query, options)) or { retriever, topK?, weight? }`);
    }
    checkKeys(v, SOURCE_KEYS, where);
    return {
        retriever: v.retriever,
        topK: v.topK === undefined ? undefined : positiveInteger(v.topK, `${where}.topK`),
        weight: listWeight(v.weight, `${where}.weight`),
    };
}
