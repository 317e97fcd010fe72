import { generateText, type LanguageModel } from 'ai';
import type { ChatGenerator, ChatReply, ChatRequest } from '../../llm/chat.js';
/** Options of `AiSdkChatGenerator`. */
export interface AiSdkChatGeneratorOptions {
    /** Retries of a failed call, the SDK's own (default: the SDK's, 2). */
    maxRetries?: number;
    /** Passed to every `generateText` call, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
    providerOptions?: Parameters<typeof generateText>[0]['providerOptions'];
}
/**
 * An AI SDK language model as a ragrank `ChatGenerator`, for `LLMRanker` and `QueryRewriter`
 * (`chatGenerator` option): any provider's model (`openai('gpt-4o-mini')`, `anthropic(...)`,
 * a gateway id string) with the SDK's retries. A request's JSON schema is sent as the SDK's
 * structured output; the reply's text is returned as is, so ragrank's own reply parsing
 * (and its fallback) decides what a malformed reply means. The request's signal aborts the call.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai'
 * import { LLMRanker } from 'ragrank'
 * import { AiSdkChatGenerator } from 'ragrank/ai-sdk'
 *
 * const ranker = new LLMRanker({ chatGenerator: new AiSdkChatGenerator(openai('gpt-4o-mini')) })
 * const best = await ranker.rerank('cat', [{ id: 'a', text: 'a cat sat' }, { id: 'b', text: 'roads' }])
 * ```
 */
export declare class AiSdkChatGenerator implements ChatGenerator {
    #private;
    /** The SDK language model every request goes to. */
    readonly model: LanguageModel;
    constructor(model: LanguageModel, options?: AiSdkChatGeneratorOptions);
    /** One `generateText` call with the request's messages; its text, usage and model id. */
    chat(request: ChatRequest): Promise<ChatReply>;
}
