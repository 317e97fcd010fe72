import { EncoderModel } from './encoder-model.js';
import { type BatchCallOptions, type LoadOptions } from './encoder.js';
import { type Pooling } from './sentence-transformers.js';
import { type CoalesceOptions } from '../internal/batcher.js';
export type { PaddingSide, Pooling } from './sentence-transformers.js';
/**
 * Each option left out is read from the model's sentence-transformers files when it has them
 * (see docs/MODELS.md, "Loading"); an option given always wins.
 */
export interface EmbedderOptions extends LoadOptions {
    /**
     * Pooling of token vectors: `'mean'` (masked), `'cls'`, `'max'`, `'meansqrt'` (sum / sqrt(length)),
     * `'weightedmean'` (position-weighted) or `'lasttoken'`. Default: `1_Pooling/config.json`, else
     * `'mean'`. Ignored when the model outputs pooled vectors.
     */
    pooling?: Pooling;
    /** L2-normalise vectors, so dot product is cosine. Default: whether `modules.json` has a Normalize module, else true. */
    normalize?: boolean;
    /**
     * Prepended to queries by `embedQuery`, e.g. `'query: '` (e5) or a bge instruction. Default: the
     * `query` prompt of `config_sentence_transformers.json`, else its `default_prompt_name` prompt.
     */
    queryPrefix?: string;
    /**
     * Prepended to passages by `embedDocuments`, e.g. `'passage: '` (e5). Default: the `document`,
     * `passage` or `corpus` prompt of `config_sentence_transformers.json`, else the default prompt.
     */
    documentPrefix?: string;
    /**
     * How concurrent single-text `embed`/`embedQuery` calls are joined into shared native
     * batches: default `{ maxBatch: 32, maxWaitMs: 0 }` (adaptive: no wait when idle); `false`
     * runs each call alone. Calls of several texts are never coalesced. See docs/CONCURRENCY.md.
     */
    coalesce?: CoalesceOptions | false;
}
/** Options of `Embedder.embed`: override the load options for this call. */
export interface EmbedOptions extends BatchCallOptions {
    /** Default: the model's pooling. */
    pooling?: Pooling;
    /** Default: the model's setting. */
    normalize?: boolean;
}
/** Vectors of `count` texts, row-major in one Float32Array of `count * dim`. */
export interface Embeddings {
    /** `count * dim` values, one row per text, in input order. */
    data: Float32Array;
    /** Values per vector. */
    dim: number;
    /** Number of vectors (the number of texts). */
    count: number;
}
/**
 * A bi-encoder producing one vector per text, batched off the event loop.
 *
 * @example
 * ```ts
 * import { Embedder, VectorIndex } from 'ragrank'
 *
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2') // or a local folder
 * const { data, dim, count } = await embedder.embedDocuments(['first text', 'second text']) // count x dim values
 * const index = new VectorIndex({ dim })
 * index.add(['a', 'b'], data)
 * index.search(await embedder.embedQuery('a question'), { topK: 1 })
 * ```
 */
export declare class Embedder extends EncoderModel {
    #private;
    private constructor();
    /**
     * Loads a model folder or hub id (`onnx/model.onnx` or `model.onnx`, `tokenizer.json`, configs,
     * and the sentence-transformers files: `modules.json`, `sentence_bert_config.json`,
     * `1_Pooling/config.json`, `config_sentence_transformers.json`).
     */
    static load(model: string, options?: EmbedderOptions): Promise<Embedder>;
    /** Vector width. */
    get dim(): number;
    /**
     * Embeds texts as given (no prefix; lowercased when `sentence_bert_config.json` says `do_lower_case`).
     * Concurrent calls of one text share native batches (see the `coalesce` option); an aborted
     * `signal` rejects only this call.
     */
    embed(texts: readonly string[], options?: EmbedOptions): Promise<Embeddings>;
    /** Coalesced calls already accepted finish before `dispose` frees the sessions. */
    protected acceptedWork(): Promise<void> | undefined;
    /** One query vector, with the query prefix. */
    embedQuery(text: string, options?: EmbedOptions): Promise<Float32Array>;
    /** Passage vectors, with the document prefix. */
    embedDocuments(texts: readonly string[], options?: EmbedOptions): Promise<Embeddings>;
}
/**
 * An adapter's embedder option: an object with `embedDocuments` and `embedQuery` (an `Embedder`, or one of its
 * shape); a TypeError naming `name` otherwise.
 */
export declare function embedderOption<E>(v: unknown, name: string): E;
