import type { ProviderV3 } from '@ai-sdk/provider';
import type { Embedder } from '../../models/embedder.js';
import { type Ranker } from '../../retrieval/pool.js';
import { RagrankEmbeddingModel, type RagrankEmbeddingModelSettings } from './embedding-model.js';
import { RagrankRerankingModel, type RagrankRerankingModelSettings } from './reranking-model.js';
/** The models a ragrank provider serves; at least one. */
export interface RagrankProviderSettings {
    /** The model behind `embedding()` / `embeddingModel()`. */
    embedder?: Embedder;
    /** The model behind `reranking()` / `rerankingModel()`: a `CrossEncoder` or an `LLMRanker`. */
    ranker?: Ranker;
}
/**
 * An AI SDK provider (`ProviderV3`) over loaded ragrank models: usable directly or in
 * `createProviderRegistry`. ragrank runs no language or image models, so `languageModel`
 * and `imageModel` throw `NoSuchModelError`, as they do for a model a provider lacks.
 */
export interface RagrankProvider extends ProviderV3 {
    /** The embedder as an embedding model; `modelId` is a label (default: the model folder's name). */
    embedding(modelId?: string, settings?: RagrankEmbeddingModelSettings): RagrankEmbeddingModel;
    embeddingModel(modelId?: string, settings?: RagrankEmbeddingModelSettings): RagrankEmbeddingModel;
    /** The ranker as a reranking model; `modelId` is a label (default: the model folder's name). */
    reranking(modelId?: string, settings?: RagrankRerankingModelSettings): RagrankRerankingModel;
    rerankingModel(modelId?: string, settings?: RagrankRerankingModelSettings): RagrankRerankingModel;
}
/**
 * Creates the ragrank provider for the Vercel AI SDK from loaded models. Asking for a model
 * it was not given throws `NoSuchModelError`.
 *
 * @example
 * ```ts
 * import { embed, rerank } from 'ai'
 * import { CrossEncoder, Embedder } from 'ragrank'
 * import { createRagrank } from 'ragrank/ai-sdk'
 *
 * const ragrank = createRagrank({
 *   embedder: await Embedder.load('models/bge-small-en-v1.5'),
 *   ranker: await CrossEncoder.load('models/ms-marco-MiniLM-L-6-v2'),
 * })
 * const { embedding } = await embed({ model: ragrank.embedding(), value: 'the cat sat' })
 * const { ranking } = await rerank({ model: ragrank.reranking(), query: 'cat', documents: ['a cat', 'a road'] })
 * ```
 */
export declare function createRagrank(settings: RagrankProviderSettings): RagrankProvider;
