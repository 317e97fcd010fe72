import type { JSONObject, RerankingModelV3, RerankingModelV3CallOptions } from '@ai-sdk/provider';
import { type Ranker } from '../../retrieval/pool.js';
type RerankResult = Awaited<ReturnType<RerankingModelV3['doRerank']>>;
/** Settings of a `RagrankRerankingModel`. */
export interface RagrankRerankingModelSettings {
    /**
     * The text an object document is ranked on. Default: its `text` field when that is a
     * string, else the whole object as JSON (as the hosted rerankers take objects).
     */
    documentText?: (document: JSONObject) => string;
}
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
export declare class RagrankRerankingModel implements RerankingModelV3 {
    #private;
    readonly specificationVersion = "v3";
    readonly provider = "ragrank.reranking";
    readonly modelId: string;
    /** The ragrank ranker behind every call. */
    readonly ranker: Ranker;
    /** `modelId` is a label for the SDK's logs and telemetry (default: the model folder's name). */
    constructor(ranker: Ranker, modelId?: string, settings?: RagrankRerankingModelSettings);
    /** The spec's call: the documents' ranking, best first. Called by `rerank`, not by users. */
    doRerank(options: RerankingModelV3CallOptions): Promise<RerankResult>;
}
export {};
