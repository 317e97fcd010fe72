import { type Fused, type ScoreNormalization } from './fusion.js';
import { type RetrieveOptions, type Retriever } from './retriever.js';
/** The retriever that picks the candidates, how many it picks, and the weight of its own score. */
export interface CandidateSource {
    /** Picks the candidates. */
    retriever: Retriever;
    /** Candidates per call (default 10, and at least the call's `topK`). */
    topK?: number;
    /** Weight of its score in the final one, finite and >= 0 (default 1). */
    weight?: number;
}
/** A retriever that scores the candidates, asked only for them (`filter.ids`), so it must declare `supportsFilter`. */
export interface Rescorer {
    /** Scores the candidates it is given as `filter.ids`. */
    retriever: Retriever;
    /** Finite and >= 0 (default 1). */
    weight?: number;
}
/** Options of `new RescoringRetriever(options)`. */
export interface RescoringRetrieverOptions {
    /** The first stage: a retriever, or `{ retriever, topK, weight }`. */
    candidates: Retriever | CandidateSource;
    /** The retrievers that score the candidates, bare or `{ retriever, weight }`. */
    rescorers: readonly (Retriever | Rescorer)[];
    /**
     * How each list's scores are put on one scale before weighting, over the candidates only
     * (default `'minmax'`; `'none'` weights the raw scores, right only when they share a scale).
     */
    scoreNormalization?: ScoreNormalization;
}
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
export declare class RescoringRetriever implements Retriever {
    #private;
    constructor(options: RescoringRetrieverOptions);
    /** True when the candidate source honours filters (the rescorers always do). */
    get supportsFilter(): boolean;
    /** Picks candidates, scores them with every rescorer, and returns the best `topK` by the weighted sum. */
    retrieve(query: string, options?: RetrieveOptions): Promise<Fused[]>;
}
