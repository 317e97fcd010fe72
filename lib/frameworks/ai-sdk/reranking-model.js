import { callbackError, describe, typeError } from '../../errors.js';
import { abortable, checkSignal, throwIfAborted } from '../../internal/abort.js';
import { isArray, isPlainObject, optionKeys, optionsObject, topK } from '../../internal/validate.js';
import { isRanker } from '../../retrieval/pool.js';
import { modelName } from './model-name.js';
import { NO_OPTIONS, ragrankOptions } from './provider-options.js';
const SETTINGS_KEYS = optionKeys('documentText');
/**
 * A ragrank ranker (`CrossEncoder`, `LLMRanker`) as an AI SDK reranking model
 * (`RerankingModelV3`), for `rerank` from `ai`. Documents may be texts or JSON objects; an
 * object with a string `id` counts as that document for duplicates (ranked once, by the
 * rankers' one rule). `topN` and the call's `abortSignal` reach the ranker.
 *
 * @example
 * ```ts
 * import { rerank } from 'ai'
 * import { CrossEncoder } from 'ragrank'
 * import { RagrankRerankingModel } from 'ragrank/ai-sdk'
 *
 * const model = new RagrankRerankingModel(await CrossEncoder.load('models/ms-marco-MiniLM-L-6-v2'))
 * const { ranking } = await rerank({ model, query: 'cat', documents: ['a cat sat', 'roads'], topN: 1 })
 * console.log(ranking[0]) // { originalIndex: 0, score: 0.9..., document: 'a cat sat' }
 * ```
 */
export class RagrankRerankingModel {
    specificationVersion = 'v3';
    provider = 'ragrank.reranking';
    modelId;
    /** The ragrank ranker behind every call. */
    ranker;
    #documentText;
    /** `modelId` is a label for the SDK's logs and telemetry (default: the model folder's name). */
    constructor(ranker, modelId, settings = {}) {
        if (!isRanker(ranker))
            throw typeError('ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker');
        const o = optionsObject(settings, 'settings', SETTINGS_KEYS);
        if (o.documentText !== undefined && typeof o.documentText !== 'function')
            throw typeError('settings.documentText must be a function (document) => string');
        this.ranker = ranker;
        this.modelId = modelName(modelId, ranker, 'modelId');
        this.#documentText = o.documentText ?? defaultText;
    }
    /** The spec's call: the documents' ranking, best first. Called by `rerank`, not by users. */
    async doRerank(options) {
        if (!isPlainObject(options))
            throw typeError('doRerank takes the call options { documents, query, ... }');
        const { documents, query, abortSignal, providerOptions } = options;
        ragrankOptions(providerOptions, NO_OPTIONS);
        const signal = checkSignal(abortSignal);
        const n = topK(options.topN, undefined, 'topN', 1);
        if (!isPlainObject(documents) ||
            (documents.type !== 'text' && documents.type !== 'object') ||
            !isArray(documents.values))
            throw typeError("documents must be { type: 'text' | 'object', values: [...] }");
        // Array.from visits holes too: a missing document is an error, not skipped.
        const candidates = documents.type === 'text'
            ? Array.from(documents.values, (v, i) => {
                if (typeof v !== 'string')
                    throw typeError(`documents.values[${i}] must be a string, got ${describe(v)}`);
                return v;
            })
            : Array.from(documents.values, this.#candidate);
        throwIfAborted(signal);
        if (candidates.length === 0)
            return { ranking: [] };
        const call = Promise.resolve()
            .then(() => this.ranker.rerank(query, candidates, { ...(n === undefined ? {} : { topK: n }), signal }))
            .catch((e) => {
            throw callbackError(e, 'ranker.rerank');
        });
        // A ranker that ignores the signal cannot hold the caller.
        const ranked = await abortable(call, signal);
        if (!isArray(ranked))
            throw typeError('ranker.rerank must resolve to an array');
        const ranking = Array.from(ranked, (r, i) => {
            const { index, score } = (isPlainObject(r) ? r : {});
            if (!Number.isInteger(index) || index < 0 || index >= candidates.length)
                throw typeError(`ranker.rerank result ${i} must carry the index of an input document`);
            if (typeof score !== 'number')
                throw typeError(`ranker.rerank result ${i} must carry a score`);
            return { index: index, relevanceScore: score };
        });
        return { ranking };
    }
    #candidate = (document, i) => {
        if (!isPlainObject(document))
            throw typeError(`documents.values[${i}] must be a JSON object, got ${describe(document)}`);
        const text = this.#documentText(document);
        if (typeof text !== 'string')
            throw typeError(`settings.documentText must return a string (document ${i})`);
        return typeof document.id === 'string' && document.id !== '' ? { id: document.id, text } : { text };
    };
}
function defaultText(document) {
    if (typeof document.text === 'string')
        return document.text;
    try {
        return JSON.stringify(document);
    }
    catch (e) {
        // A BigInt or a cycle: not the JSON object the spec promises.
        throw Object.assign(typeError(`a document is not JSON: ${e.message}`), { cause: e });
    }
}
