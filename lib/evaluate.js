import { native } from './internal/native.js';
import { callNative, typeError } from './errors.js';
import { isPlainObject, stringArray, isArray, oneOf, optionKeys, optionsObject } from './internal/validate.js';
const EVALUATE_KEYS = optionKeys('convention');
/**
 * Retrieval metrics with trec_eval's conventions (or the competition's, see `MetricConvention`): `map@k` (and `map`), `mrr@k`, `ndcg@k`
 * (gain = grade, log2 discount), `recall@k`, `p@k`. Queries evaluated are those of `qrels`
 * with a relevant document; a query missing from `run` scores 0.
 *
 * @example
 * ```ts
 * import { Bm25Index, evaluate } from 'ragrank'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'd1', text: 'tides and the moon' }, { id: 'd2', text: 'waves and the wind' }])
 * const run = { q1: index.search('moon tides'), q2: index.search('wind') }
 * const qrels = { q1: { d1: 1 }, q2: { d2: 2, d1: 0 } }
 * const { mean, perQuery } = evaluate(run, qrels, ['ndcg@10', 'map@3', 'mrr@10', 'recall@10'])
 * // mean['ndcg@10'] === 1; perQuery.q1['map@3'] === 1
 * ```
 */
export function evaluate(run, qrels, metrics, options = {}) {
    if (!isPlainObject(run))
        throw typeError('run must be an object: query id -> [{ id, score }]');
    if (!isPlainObject(qrels))
        throw typeError('qrels must be an object: query id -> { docId: grade }');
    const list = stringArray(metrics, 'metrics');
    const o = optionsObject(options, 'options', EVALUATE_KEYS);
    const convention = oneOf(o.convention ?? 'trec_eval', ['trec_eval', 'competition'], 'options.convention');
    // Null-prototype copies: any query or document id, "__proto__" too, stays an own key.
    const ids = Object.create(null);
    for (const [qid, hits] of Object.entries(run)) {
        if (!isArray(hits))
            throw typeError(`run[${JSON.stringify(qid)}] must be an array of { id }`);
        ids[qid] = Array.from(hits, (h, i) => {
            if (!isPlainObject(h) || typeof h.id !== 'string')
                throw typeError(`run[${JSON.stringify(qid)}][${i}].id must be a string`);
            return h.id;
        });
    }
    const judgments = Object.create(null);
    for (const [qid, judged] of Object.entries(qrels)) {
        if (!isPlainObject(judged))
            throw typeError(`qrels[${JSON.stringify(qid)}] must map document ids to finite numbers`);
        const grades = Object.create(null);
        for (const [doc, g] of Object.entries(judged)) {
            if (typeof g !== 'number' || !Number.isFinite(g))
                throw typeError(`qrels[${JSON.stringify(qid)}] must map document ids to finite numbers`);
            grades[doc] = g;
        }
        judgments[qid] = grades;
    }
    const { mean, perQueryJson } = callNative(() => native.nativeEvaluate(ids, judgments, list, convention));
    return { mean, perQuery: JSON.parse(perQueryJson) };
}
