import type { EmbeddingModelV3, EmbeddingModelV3CallOptions, EmbeddingModelV3Result } from '@ai-sdk/provider';
import { type Embedder } from '../../models/embedder.js';
/** Which prefix the Embedder applies: its document prefix (`embedDocuments`) or its query prefix (`embedQuery`). */
export type InputType = 'document' | 'query';
/** Settings of a `RagrankEmbeddingModel`. */
export interface RagrankEmbeddingModelSettings {
    /** Default `'document'`; a call overrides it with `providerOptions: { ragrank: { inputType: 'query' } }`. */
    inputType?: InputType;
}
/**
 * A ragrank `Embedder` as an AI SDK embedding model (`EmbeddingModelV3`), for `embed` and
 * `embedMany` from `ai`. The SDK has no query/document distinction, so asymmetric models
 * (e5, bge) get one from `inputType`: documents by default, queries when a call's
 * `providerOptions.ragrank.inputType` or the model's setting says `'query'`. All values of a
 * call go to the Embedder at once (it batches them itself); the call's `abortSignal` cancels it.
 *
 * @example
 * ```ts
 * import { embed, embedMany } from 'ai'
 * import { Embedder } from 'ragrank'
 * import { RagrankEmbeddingModel } from 'ragrank/ai-sdk'
 *
 * const model = new RagrankEmbeddingModel(await Embedder.load('models/bge-small-en-v1.5'))
 * const { embeddings } = await embedMany({ model, values: ['the cat sat', 'a dog ran'] })
 * const { embedding } = await embed({ model, value: 'cat', providerOptions: { ragrank: { inputType: 'query' } } })
 * ```
 */
export declare class RagrankEmbeddingModel implements EmbeddingModelV3 {
    #private;
    readonly specificationVersion = "v3";
    readonly provider = "ragrank.embedding";
    readonly modelId: string;
    /** No limit: the Embedder splits a call into batches itself. */
    readonly maxEmbeddingsPerCall: number;
    readonly supportsParallelCalls = true;
    /** The ragrank Embedder behind every vector. */
    readonly embedder: Embedder;
    /** The prefix calls get unless their `providerOptions.ragrank.inputType` says otherwise. */
    readonly inputType: InputType;
    /** `modelId` is a label for the SDK's logs and telemetry (default: the model folder's name). */
    constructor(embedder: Embedder, modelId?: string, settings?: RagrankEmbeddingModelSettings);
    /** The spec's call: the values' vectors, in order. Called by `embed` and `embedMany`, not by users. */
    doEmbed(options: EmbeddingModelV3CallOptions): Promise<EmbeddingModelV3Result>;
}
