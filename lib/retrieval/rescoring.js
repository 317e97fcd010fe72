import { typeError } from '../errors.js';
import { throwIfAborted } from '../internal/abort.js';
import { isArray, isPlainObject, optionKeys, optionsObject, positiveInteger } from '../internal/validate.js';
import { fuse, listWeight } from './fusion.js';
import { retrieveAll } from './fan-out.js';
import { checkFilterSupport, checkQuery, isRetriever, retrieveOptions, supportsFilter, } from './retriever.js';
const RESCORING_KEYS = optionKeys('candidates', 'rescorers', 'scoreNormalization');
const CANDIDATE_KEYS = optionKeys('retriever', 'topK', 'weight');
const RESCORER_KEYS = optionKeys('retriever', 'weight');
/**
 * Candidates from one retriever, scores from several: the source's top `topK` are rescored
 * by each rescorer restricted to exactly those ids (e.g. a `VectorRetriever` computing the
 * dense similarity of BM25's top 10), and ranked by `Σ w_i * norm_i(score_i)`, the source's
 * own score included. Unlike `HybridRetriever`, no document a rescorer alone would find can
 * enter (see docs/FUSION.md, "Fuse or rescore"). A candidate a rescorer does not return
 * gets 0 from it. In each result, `fusion[].list` is 0 for the source, then 1, 2, ... for
 * the rescorers. A call's `filter` goes to the source and, with the candidate ids, to
 * every rescorer.
 */
export class RescoringRetriever {
    #source;
    #depth;
    #rescorers;
    #weights;
    #normalization;
    constructor(options) {
        const o = optionsObject(options, 'options', RESCORING_KEYS);
        const c = isRetriever(o.candidates)
            ? { retriever: o.candidates }
            : optionsObject(o.candidates, 'options.candidates', CANDIDATE_KEYS);
        if (!isRetriever(c.retriever))
            throw typeError('options.candidates must be a retriever or { retriever, topK?, weight? }');
        this.#source = c.retriever;
        this.#depth = c.topK === undefined ? 10 : positiveInteger(c.topK, 'options.candidates.topK');
        if (!isArray(o.rescorers) || o.rescorers.length === 0)
            throw typeError('options.rescorers must be a non-empty array of retrievers or { retriever, weight? }');
        const rescorers = o.rescorers.map((r, i) => {
            const s = isRetriever(r) ? { retriever: r } : optionsObject(r, `options.rescorers[${i}]`, RESCORER_KEYS);
            if (!isRetriever(s.retriever) || !supportsFilter(s.retriever))
                throw typeError(`options.rescorers[${i}] must be a retriever that declares supportsFilter: it is asked for the candidates by filter.ids`);
            return { retriever: s.retriever, weight: listWeight(s.weight, `options.rescorers[${i}].weight`) };
        });
        this.#rescorers = rescorers.map((r) => r.retriever);
        this.#weights = [listWeight(c.weight, 'options.candidates.weight'), ...rescorers.map((r) => r.weight)];
        if (!this.#weights.some((w) => w > 0))
            throw typeError('at least one weight must be > 0');
        this.#normalization = (o.scoreNormalization ?? 'minmax');
        fuse([], { method: 'weighted', scoreNormalization: this.#normalization }); // validates it now
    }
    /** True when the candidate source honours filters (the rescorers always do). */
    get supportsFilter() {
        return supportsFilter(this.#source);
    }
    /** Picks candidates, scores them with every rescorer, and returns the best `topK` by the weighted sum. */
    async retrieve(query, options = {}) {
        const text = checkQuery(query);
        const { topK, signal, filter } = retrieveOptions(options);
        checkFilterSupport(filter, [{ retriever: this.#source, who: 'candidates' }]);
        throwIfAborted(signal);
        if (topK === 0)
            return [];
        const depth = Math.max(this.#depth, topK);
        const [candidates] = await retrieveAll([{ retriever: this.#source, query: text, depth, filter, who: 'candidates.retrieve' }], 1, signal);
        if (candidates.length === 0)
            return [];
        const ids = [...new Set(candidates.map((d, i) => candidateId(d, i)))];
        const only = { ...(isPlainObject(filter) ? filter : {}), ids };
        const scored = await retrieveAll(this.#rescorers.map((retriever, i) => ({
            retriever,
            query: text,
            depth: ids.length,
            filter: only,
            who: `rescorers[${i}].retrieve`,
        })), this.#rescorers.length, signal);
        // A rescorer must not bring in a document that is not a candidate (a custom one may ignore ids).
        const allowed = new Set(ids);
        const lists = [candidates, ...scored.map((l) => l.filter((d) => allowed.has(d.id)))];
        return fuse(lists, {
            method: 'weighted',
            scoreNormalization: this.#normalization,
            weights: this.#weights,
            topK,
        });
    }
}
/** A candidate's id, checked here because the rescorers are asked for these ids before fusion checks the lists. */
function candidateId(d, i) {
    if (!isPlainObject(d) || typeof d.id !== 'string' || d.id === '')
        throw typeError(`candidates.retrieve must resolve to { id: non-empty string, score }[]; item ${i} is not`);
    return d.id;
}
