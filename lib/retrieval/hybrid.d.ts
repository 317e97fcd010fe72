import { type Fused, type FusionMethod, type ScoreNormalization } from './fusion.js';
import { type RetrieveOptions, type Retriever } from './retriever.js';
/** One retriever of a hybrid, with its own candidate depth and weight. */
export interface HybridSource {
    /** The retriever. */
    retriever: Retriever;
    /** Candidates it fetches (default: the hybrid's `candidates`, and at least the call's `topK`). */
    topK?: number;
    /** Its weight in the fusion, finite and >= 0 (default 1). */
    weight?: number;
}
/** Options of `new HybridRetriever(options)`. */
export interface HybridRetrieverOptions {
    /** Retrievers, bare or as `{ retriever, topK, weight }`. */
    retrievers: readonly (Retriever | HybridSource)[];
    /** Default `'rrf'`. */
    method?: FusionMethod;
    /** RRF constant (default 60). */
    rrfK?: number;
    /** Score normalisation for `'weighted'` (default `'minmax'`). */
    scoreNormalization?: ScoreNormalization;
    /** Default candidate depth per retriever (default 50). */
    candidates?: number;
    /**
     * A retriever that fails makes the call reject with its error (`'reject'`, default; the
     * others are aborted), or is left out of the fusion (`'skip'`; the call rejects with an
     * AggregateError, code `ERR_ALL_SOURCES_FAILED`, holding every error in `errors`, only when
     * every retriever failed). An abort always rejects.
     */
    onError?: 'reject' | 'skip';
    /** Called with each error `'skip'` leaves out, and the retriever's index (for logging). */
    onSkip?: (error: unknown, index: number) => void;
}
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
export declare class HybridRetriever implements Retriever {
    #private;
    constructor(options: HybridRetrieverOptions);
    /** True when every source honours filters. */
    get supportsFilter(): boolean;
    /** Runs every retriever on `query` (with the call's `filter`) and fuses their lists into the best `topK`. */
    retrieve(query: string, options?: RetrieveOptions): Promise<Fused[]>;
}
