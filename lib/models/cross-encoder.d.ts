import { type Candidate } from '../retrieval/dedupe.js';
import { EncoderModel } from './encoder-model.js';
import { type BatchCallOptions, type LoadOptions } from './encoder.js';
import { type CoalesceOptions } from '../internal/batcher.js';
/** A candidate: a string, or a document with text (and optionally id, meta and a prior score); the rankers' one `Candidate`. */
export type RerankInput = Candidate;
/** A reranked document: the input's fields, its new `score`, and its position in the input. */
export type Reranked<D> = (D extends string ? {
    /** The candidate string. */
    text: string;
} : D) & {
    /** The model's score (after `activation`), higher is better. */
    score: number;
    /** The candidate's position in the input. */
    index: number;
};
/** What is applied to a cross-encoder's logit: `'sigmoid'` (a probability) or `'none'` (the raw logit). */
export type Activation = 'sigmoid' | 'none';
export interface CrossEncoderOptions extends LoadOptions {
    /** Default number of documents to return (all when unset). */
    topK?: number;
    /** Drop documents scoring below this (after the activation). */
    scoreThreshold?: number;
    /** `'sigmoid'` (default): probabilities. `'none'`: raw logits (log-odds for 2-label models). */
    activation?: Activation;
    /** Prepended to the query, e.g. an instruction some rerankers expect. */
    queryPrefix?: string;
    /** Prepended to each document text. */
    documentPrefix?: string;
    /** Metadata fields written before the text, joined by `metaSeparator` (as Haystack's meta_fields_to_embed). */
    metaFields?: readonly string[];
    /** Joins the meta fields and the text (default `'\n'`, as Haystack's). */
    metaSeparator?: string;
    /**
     * How concurrent `rerank` calls are joined into shared native batches (pairs still go in
     * batches of `batchSize`): default `{ maxBatch: 16, maxWaitMs: 0 }` (adaptive: no wait when
     * idle); `false` runs each call alone. `rerankMany` is never coalesced. See docs/CONCURRENCY.md.
     */
    coalesce?: CoalesceOptions | false;
}
/** Options of `CrossEncoder.rerank`: override the load options for this call (0 included). */
export interface RerankOptions extends BatchCallOptions {
    /** Documents to return at most (default: the load option, else all). */
    topK?: number;
    /** Drop documents scoring below this (default: the load option). */
    scoreThreshold?: number;
    /** Default: the load option. */
    activation?: Activation;
}
/**
 * A cross-encoder reranker on ONNX Runtime. Tokenisation and inference run off the event
 * loop, in length-sorted batches padded per batch; concurrent calls are safe.
 *
 * 1-label models score with their logit, 2-label models with the positive label
 * (`logit[1] - logit[0]`, whose sigmoid is the softmax probability).
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 *
 * const ranker = await CrossEncoder.load('cross-encoder/ms-marco-MiniLM-L6-v2') // or a local folder
 * const top = await ranker.rerank('what is bm25?', [
 *   { id: 'a', text: 'BM25 ranks documents by term frequency and rarity.' },
 *   { id: 'b', text: 'Cats sleep most of the day.' },
 * ], { topK: 1 }) // [{ id: 'a', text, score, index: 0 }]
 * ranker.dispose() // frees the sessions once running calls finish
 * ```
 */
export declare class CrossEncoder extends EncoderModel {
    #private;
    private constructor();
    /** Loads a model folder (`model.onnx` or `onnx/model.onnx`, `tokenizer.json`, configs) or a hub id. */
    static load(model: string, options?: CrossEncoderOptions): Promise<CrossEncoder>;
    /**
     * Scores each document against the query and returns them best first (ties keep input
     * order). Duplicates are scored once, by the rankers' one rule (`dedupe`: the same `id`,
     * or without ids the same text): the copy with the highest prior `score` is kept, and
     * the result's `index` is that copy's input position. Concurrent calls share native
     * batches (see the `coalesce` option); an aborted `signal` rejects only this call.
     */
    rerank<D extends RerankInput>(query: string, documents: readonly D[], options?: RerankOptions): Promise<Reranked<D>[]>;
    /** Coalesced calls already accepted finish before `dispose` frees the sessions. */
    protected acceptedWork(): Promise<void> | undefined;
    /** Many queries in one call: all pairs are batched and scheduled together. */
    rerankMany<D extends RerankInput>(requests: ReadonlyArray<{
        query: string;
        documents: readonly D[];
    }>, options?: RerankOptions): Promise<Reranked<D>[][]>;
}
