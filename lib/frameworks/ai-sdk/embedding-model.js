import { typeError } from '../../errors.js';
import { checkSignal } from '../../internal/abort.js';
import { isPlainObject, oneOf, optionKeys, optionsObject } from '../../internal/validate.js';
import { embedderOption } from '../../models/embedder.js';
import { modelName } from './model-name.js';
import { ragrankOptions } from './provider-options.js';
const INPUT_TYPES = ['document', 'query'];
const SETTINGS_KEYS = optionKeys('inputType');
const CALL_KEYS = optionKeys('inputType');
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
export class RagrankEmbeddingModel {
    specificationVersion = 'v3';
    provider = 'ragrank.embedding';
    modelId;
    /** No limit: the Embedder splits a call into batches itself. */
    maxEmbeddingsPerCall = Number.POSITIVE_INFINITY;
    supportsParallelCalls = true;
    /** The ragrank Embedder behind every vector. */
    embedder;
    /** The prefix calls get unless their `providerOptions.ragrank.inputType` says otherwise. */
    inputType;
    /** `modelId` is a label for the SDK's logs and telemetry (default: the model folder's name). */
    constructor(embedder, modelId, settings = {}) {
        embedderOption(embedder, 'embedder');
        const o = optionsObject(settings, 'settings', SETTINGS_KEYS);
        this.embedder = embedder;
        this.modelId = modelName(modelId, embedder, 'modelId');
        this.inputType = o.inputType === undefined ? 'document' : oneOf(o.inputType, INPUT_TYPES, 'settings.inputType');
    }
    /** The spec's call: the values' vectors, in order. Called by `embed` and `embedMany`, not by users. */
    async doEmbed(options) {
        if (!isPlainObject(options))
            throw typeError('doEmbed takes the call options { values, ... }');
        const { values, abortSignal, providerOptions } = options;
        const o = ragrankOptions(providerOptions, CALL_KEYS);
        const inputType = o.inputType === undefined ? this.inputType : oneOf(o.inputType, INPUT_TYPES, 'providerOptions.ragrank.inputType');
        const signal = checkSignal(abortSignal);
        const embeddings = inputType === 'document'
            ? rows(await this.embedder.embedDocuments(values, { signal }))
            : await this.#queries(values, signal);
        return { embeddings, warnings: [] };
    }
    /** Queries one by one: `embedQuery` takes one text; concurrent ones share native batches (the Embedder coalesces). */
    async #queries(values, signal) {
        if (!Array.isArray(values))
            throw typeError('values must be an array of strings');
        const vectors = await Promise.all(values.map((v) => this.embedder.embedQuery(v, { signal })));
        return vectors.map((v) => Array.from(v));
    }
}
/** An `Embeddings` block as the spec's arrays of numbers, one per value. */
function rows({ data, dim, count }) {
    return Array.from({ length: count }, (_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim)));
}
