import type { ProviderV3 } from '@ai-sdk/provider'
// From `ai`, which re-exports it: at run time the adapters need only `ai` (`@ai-sdk/provider` gives the types).
import { NoSuchModelError } from 'ai'
import { typeError } from '../../errors.js'
import { optionKeys, optionsObject } from '../../internal/validate.js'
import type { Embedder } from '../../models/embedder.js'
import { isRanker, type Ranker } from '../../retrieval/pool.js'
import { RagrankEmbeddingModel, type RagrankEmbeddingModelSettings } from './embedding-model.js'
import { RagrankRerankingModel, type RagrankRerankingModelSettings } from './reranking-model.js'

/** The models a ragrank provider serves; at least one. */
export interface RagrankProviderSettings {
  /** The model behind `embedding()` / `embeddingModel()`. */
  embedder?: Embedder
  /** The model behind `reranking()` / `rerankingModel()`: a `CrossEncoder` or an `LLMRanker`. */
  ranker?: Ranker
}

/**
 * An AI SDK provider (`ProviderV3`) over loaded ragrank models: usable directly or in
 * `createProviderRegistry`. ragrank runs no language or image models, so `languageModel`
 * and `imageModel` throw `NoSuchModelError`, as they do for a model a provider lacks.
 */
export interface RagrankProvider extends ProviderV3 {
  /** The embedder as an embedding model; `modelId` is a label (default: the model folder's name). */
  embedding(modelId?: string, settings?: RagrankEmbeddingModelSettings): RagrankEmbeddingModel
  embeddingModel(modelId?: string, settings?: RagrankEmbeddingModelSettings): RagrankEmbeddingModel
  /** The ranker as a reranking model; `modelId` is a label (default: the model folder's name). */
  reranking(modelId?: string, settings?: RagrankRerankingModelSettings): RagrankRerankingModel
  rerankingModel(modelId?: string, settings?: RagrankRerankingModelSettings): RagrankRerankingModel
}

const PROVIDER_KEYS = optionKeys('embedder', 'ranker')

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
export function createRagrank(settings: RagrankProviderSettings): RagrankProvider {
  const o = optionsObject(settings, 'settings', PROVIDER_KEYS)
  if (o.embedder === undefined && o.ranker === undefined)
    throw typeError('settings needs an embedder, a ranker, or both')
  // Checked now by building once: a wrong model fails here, not on the first call.
  if (o.embedder !== undefined) new RagrankEmbeddingModel(o.embedder as Embedder)
  if (o.ranker !== undefined && !isRanker(o.ranker))
    throw typeError('settings.ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker')
  const embedder = o.embedder as Embedder | undefined
  const ranker = o.ranker as Ranker | undefined
  const embedding = (modelId?: string, s?: RagrankEmbeddingModelSettings) => {
    if (!embedder) throw noSuchModel(modelId, 'embeddingModel', 'an embedder')
    return new RagrankEmbeddingModel(embedder, modelId, s)
  }
  const reranking = (modelId?: string, s?: RagrankRerankingModelSettings) => {
    if (!ranker) throw noSuchModel(modelId, 'rerankingModel', 'a ranker')
    return new RagrankRerankingModel(ranker, modelId, s)
  }
  return {
    specificationVersion: 'v3',
    embedding,
    embeddingModel: embedding,
    reranking,
    rerankingModel: reranking,
    languageModel: (modelId: string) => {
      throw noSuchModel(modelId, 'languageModel')
    },
    imageModel: (modelId: string) => {
      throw noSuchModel(modelId, 'imageModel')
    },
  }
}

function noSuchModel(modelId: string | undefined, modelType: NoSuchModelError['modelType'], missing?: string) {
  const id = modelId ?? '(default)'
  const message = missing
    ? `the ragrank provider was created without ${missing}, so it has no ${modelType} ${JSON.stringify(id)}`
    : `ragrank has no ${modelType}s (it runs embedders and rankers only): ${JSON.stringify(id)}`
  return new NoSuchModelError({ modelId: id, modelType, message })
}
