import { generateText, jsonSchema, NoObjectGeneratedError, Output } from 'ai';
import { typeError } from '../../errors.js';
import { nonNegativeInteger, optionKeys, optionsObject } from '../../internal/validate.js';
const OPTIONS_KEYS = optionKeys('maxRetries', 'providerOptions');
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
export class AiSdkChatGenerator {
    /** The SDK language model every request goes to. */
    model;
    #options;
    constructor(model, options = {}) {
        if (typeof model !== 'string' && (typeof model !== 'object' || model === null || !('doGenerate' in model)))
            throw typeError('model must be an AI SDK language model (or a gateway model id string)');
        const o = optionsObject(options, 'options', OPTIONS_KEYS);
        if (o.maxRetries !== undefined)
            nonNegativeInteger(o.maxRetries, 'options.maxRetries');
        this.model = model;
        this.#options = o;
    }
    /** One `generateText` call with the request's messages; its text, usage and model id. */
    async chat(request) {
        const { messages, responseFormat, signal } = request;
        const output = responseFormat
            ? Output.object({ schema: jsonSchema(responseFormat.schema), name: responseFormat.name })
            : undefined;
        try {
            const result = await generateText({
                model: this.model,
                // ragrank's own prompts: their system messages are meant.
                messages: messages.map((m) => ({ role: m.role, content: m.content })),
                allowSystemInMessages: true,
                abortSignal: signal,
                ...this.#options,
                ...(output ? { output } : {}),
            });
            return { text: result.text, usage: usage(result.usage), model: result.response?.modelId };
        }
        catch (e) {
            // The SDK checks the reply against the schema itself; ragrank's parser is more forgiving
            // (a fenced block, prose around the object) and owns the fallback, so it gets the text.
            if (NoObjectGeneratedError.isInstance(e) && typeof e.text === 'string')
                return { text: e.text };
            throw e;
        }
    }
}
function usage(u) {
    if (!u || typeof u.inputTokens !== 'number' || typeof u.outputTokens !== 'number')
        return undefined;
    const total = typeof u.totalTokens === 'number' ? u.totalTokens : u.inputTokens + u.outputTokens;
    return { promptTokens: u.inputTokens, completionTokens: u.outputTokens, totalTokens: total };
}
