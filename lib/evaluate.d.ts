/** Query id -> ranked hits (read in the order given; `score` is not used). */
export type Run = Record<string, ReadonlyArray<{
    /** A retrieved document's id. */
    id: string;
    /** Its score (ignored: the order of the list is the ranking). */
    score?: number;
}>>;
/** Query id -> document id -> relevance grade (> 0 is relevant; negative counts as 0). */
export type Qrels = Record<string, Record<string, number>>;
/** What `evaluate` returns. */
export interface Evaluation {
    /** Metric -> mean over the evaluated queries. */
    mean: Record<string, number>;
    /** Query id -> metric -> value. */
    perQuery: Record<string, Record<string, number>>;
}
/**
 * Which conventions `evaluate` follows. `trec_eval` (the default) is described on
 * `evaluate`. `competition` is how the Korean science QA competition scored runs, where
 * some queries must retrieve nothing: `map@k` divides by the relevant documents found in
 * the top k (not by all relevant ones), and every query of `qrels` is averaged, one
 * without a relevant document (`{}`) scoring 1 on every metric when the run retrieved
 * nothing for it and 0 otherwise.
 */
export type MetricConvention = 'trec_eval' | 'competition';
/** Options of `evaluate`. */
export interface EvaluateOptions {
    /** Default `'trec_eval'`. */
    convention?: MetricConvention;
}
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
export declare function evaluate(run: Run, qrels: Qrels, metrics: readonly string[], options?: EvaluateOptions): Evaluation;
