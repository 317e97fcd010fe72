// From `ai`, which re-exports it: at run time the adapters need only `ai` (`@ai-sdk/provider` gives the types).
import { NoSuchModelError } from 'ai';
import { typeError } from '../../errors.js';
import { optionKeys, optionsObject } from '../../internal/validate.js';
import { isRanker } from '../../retrieval/pool.js';
import { RagrankEmbeddingModel } from './embedding-model.js';
import { RagrankRerankingModel } from './reranking-model.js';
const PROVIDER_KEYS = optionKeys('embedder', 'ranker');
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
export function createRagrank(settings) {
    const o = optionsObject(settings, 'settings', PROVIDER_KEYS);
    if (o.embedder === undefined && o.ranker === undefined)
        throw typeError('settings needs an embedder, a ranker, or both');
    // Checked now by building once: a wrong model fails here, not on the first call.
    if (o.embedder !== undefined)
        new RagrankEmbeddingModel(o.embedder);
    if (o.ranker !== undefined && !isRanker(o.ranker))
        throw typeError('settings.ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker');
    const embedder = o.embedder;
    const ranker = o.ranker;
    const embedding = (modelId, s) => {
        if (!embedder)
            throw noSuchModel(modelId, 'embeddingModel', 'an embedder');
        return new RagrankEmbeddingModel(embedder, modelId, s);
    };
    const reranking = (modelId, s) => {
        if (!ranker)
            throw noSuchModel(modelId, 'rerankingModel', 'a ranker');
        return new RagrankRerankingModel(ranker, modelId, s);
    };
    return {
        specificationVersion: 'v3',
        embedding,
        embeddingModel: embedding,
        reranking,
        rerankingModel: reranking,
        languageModel: (modelId) => {
            throw noSuchModel(modelId, 'languageModel');
        },
        imageModel: (modelId) => {
            throw noSuchModel(modelId, 'imageModel');
        },
    };
}
function noSuchModel(modelId, modelType, missing) {
    const id = modelId ?? '(default)';
    const message = missing
        ? `the ragrank provider was created without ${missing}, so it has no ${modelType} ${JSON.stringify(id)}`
        : `ragrank has no ${modelType}s (it runs embedders and rankers only): ${JSON.stringify(id)}`;
    return new NoSuchModelError({ modelId: id, modelType, message });
}
