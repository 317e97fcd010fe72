import { typeError } from '../errors.js';
import { fuse, rrfConstant } from './fusion.js';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { retrieveAll } from './fan-out.js';
import { checkFilterSupport, checkQuery, isRetriever, RETRIEVE_KEYS, retrieveOptions, supportsFilter, } from './retriever.js';
import { booleanOption, hasMethod, oneOf, optionKeys, optionsObject, positiveInteger, stringArray, } from '../internal/validate.js';
const MULTI_QUERY_KEYS = optionKeys('retriever', 'queries', 'includeOriginal', 'concurrency', 'merge', 'rrfK', 'candidates');
const MULTI_QUERY_RETRIEVE_KEYS = optionKeys(...RETRIEVE_KEYS, 'queries');
/**
 * Retrieves with several variants of a query and fuses the lists with RRF, so a document
 * found by several variants, or ranked high by one, rises (unlike a plain union).
 * Variants are trimmed, and ones equal up to whitespace are run once; empty ones are
 * dropped. If none is left (and the original is excluded), the original query is used.
 * In each result, `fusion[].list` indexes the variants as run: the original first when
 * included, then the rewrites in their order.
 */
export class MultiQueryRetriever {
    #retriever;
    #rewrite;
    #includeOriginal;
    #concurrency;
    #rrfK;
    #merge;
    #candidates;
    constructor(options) {
        const o = optionsObject(options, 'options', MULTI_QUERY_KEYS);
        if (!isRetriever(o.retriever))
            throw typeError('options.retriever must be a retriever (with retrieve(query, options))');
        this.#retriever = o.retriever;
        const source = o.queries;
        this.#rewrite =
            o.queries === undefined || typeof o.queries === 'function'
                ? o.queries
                : hasMethod(source, 'variants')
                    ? (q, opts) => source.variants(q, opts)
                    : [...stringArray(o.queries, 'options.queries')];
        this.#includeOriginal = booleanOption(o.includeOriginal, 'options.includeOriginal', true);
        this.#concurrency = o.concurrency === undefined ? 4 : positiveInteger(o.concurrency, 'options.concurrency');
        this.#merge = oneOf(o.merge ?? 'rrf', ['rrf', 'max', 'sum'], 'options.merge');
        this.#rrfK = rrfConstant(o, this.#merge === 'rrf' ? 'rrf' : 'weighted'); // rrfK only means something to RRF
        this.#candidates = o.candidates === undefined ? 50 : positiveInteger(o.candidates, 'options.candidates');
    }
    /** True when its retriever honours filters. */
    get supportsFilter() {
        return supportsFilter(this.#retriever);
    }
    /** Retrieves for every variant and merges the lists (`merge`). */
    async retrieve(query, options = {}) {
        const original = checkQuery(query);
        const { topK, signal, filter } = retrieveOptions(options, MULTI_QUERY_RETRIEVE_KEYS);
        checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }]);
        const given = options?.queries === undefined ? undefined : stringArray(options.queries, 'options.queries');
        throwIfAborted(signal);
        if (topK === 0)
            return [];
        const variants = distinctQueries(original, given ?? (await this.#rewrites(original, signal)), this.#includeOriginal);
        const depth = Math.max(this.#candidates, topK);
        const calls = variants.map((q, i) => ({
            retriever: this.#retriever,
            query: q,
            depth,
            filter,
            who: `retriever.retrieve (query ${i})`,
        }));
        const lists = await retrieveAll(calls, this.#concurrency, signal);
        if (this.#merge === 'rrf')
            return fuse(lists, { rrfK: this.#rrfK, topK });
        const summed = fuse(lists, { method: 'weighted', scoreNormalization: 'none' });
        return (this.#merge === 'sum' ? summed : byBestScore(summed)).slice(0, topK);
    }
    async #rewrites(query, signal) {
        const r = this.#rewrite;
        if (r === undefined)
            return [];
        if (typeof r !== 'function')
            return r;
        const out = await abortable(Promise.resolve().then(() => r(query, { signal })), signal);
        return stringArray(out, 'the queries function result');
    }
}
/**
 * Re-scores summed results by each document's best score: the list that gave it keeps its
 * contribution, the others contribute 0. Stable, so ties keep the fused order (best rank).
 */
function byBestScore(fused) {
    return fused
        .map((d) => {
        const best = d.fusion.reduce((a, b) => (b.score > a.score ? b : a));
        return {
            ...d,
            score: best.score,
            fusion: d.fusion.map((c) => ({ ...c, contribution: c === best ? c.score : 0 })),
        };
    })
        .sort((a, b) => b.score - a.score);
}
/** The original (optionally) and the rewrites, trimmed, empty and whitespace-equal ones dropped. */
export function distinctQueries(original, rewrites, includeOriginal) {
    const seen = new Set();
    const out = [];
    const add = (q) => {
        const key = q.trim().replace(/\s+/g, ' ');
        if (key === '' || seen.has(key))
            return;
        seen.add(key);
        out.push(q.trim());
    };
    if (includeOriginal)
        add(original);
    for (const q of rewrites)
        add(q);
    return out.length > 0 ? out : [original];
}
