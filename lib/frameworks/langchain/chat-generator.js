import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { typeError } from '../../errors.js';
import { hasMethod, isArray, isPlainObject } from '../../internal/validate.js';
/**
 * A LangChain chat model (`ChatOpenAI`, `ChatAnthropic`, `ChatOllama`, a `FakeListChatModel`
 * in tests: any `BaseChatModel`) as a ragrank `ChatGenerator`, for `LLMRanker` and
 * `QueryRewriter`. Messages become LangChain messages, the signal is passed to `invoke`, and
 * the reply's text parts are joined into `text` (with the token usage when the model reports
 * it). A request's `responseFormat` is not sent: models differ in how they take a JSON
 * schema, and ragrank's prompts ask for JSON and parse it from the text.
 *
 * @example
 * ```ts
 * import { LLMRanker } from 'ragrank'
 * import { LangChainChatGenerator } from 'ragrank/langchain'
 * import { ChatOpenAI } from '@langchain/openai'
 *
 * const ranker = new LLMRanker({ chatGenerator: new LangChainChatGenerator(new ChatOpenAI({ model: 'gpt-4o-mini' })) })
 * ```
 */
export class LangChainChatGenerator {
    /** The wrapped chat model. */
    model;
    constructor(model) {
        if (!hasMethod(model, 'invoke'))
            throw typeError('model must be a LangChain chat model (a BaseChatModel, with invoke(messages, options))');
        this.model = model;
    }
    /** One model call: the request's messages in, the reply's text out. */
    async chat(request) {
        if (!isPlainObject(request) || !isArray(request.messages))
            throw typeError('request must be { messages: [{ role, content }] }');
        const messages = request.messages.map(toMessage);
        const reply = await this.model.invoke(messages, request.signal ? { signal: request.signal } : {});
        if (!isPlainObject(reply))
            throw typeError('the chat model must resolve to a message');
        const usage = usageOf(reply.usage_metadata);
        const meta = isPlainObject(reply.response_metadata) ? reply.response_metadata : {};
        const model = typeof meta.model_name === 'string' ? meta.model_name : typeof meta.model === 'string' ? meta.model : undefined;
        return { text: textOf(reply.content), ...(usage ? { usage } : {}), ...(model ? { model } : {}) };
    }
}
function toMessage(m, i) {
    if (!isPlainObject(m) || typeof m.content !== 'string')
        throw typeError(`request.messages[${i}] must be { role, content: string }`);
    if (m.role === 'system')
        return new SystemMessage(m.content);
    if (m.role === 'user')
        return new HumanMessage(m.content);
    if (m.role === 'assistant')
        return new AIMessage(m.content);
    throw typeError(`request.messages[${i}].role must be 'system', 'user' or 'assistant'`);
}
/** A message's content as text: a string as it is, content blocks' text parts joined. */
function textOf(content) {
    if (typeof content === 'string')
        return content;
    if (!isArray(content))
        throw typeError('the chat model reply has no text content');
    return content
        .map((part) => (typeof part === 'string' ? part : isPlainObject(part) && part.type === 'text' ? part.text : ''))
        .filter((t) => typeof t === 'string')
        .join('');
}
function usageOf(u) {
    if (!isPlainObject(u))
        return undefined;
    const { input_tokens: prompt, output_tokens: completion, total_tokens: total } = u;
    if (typeof prompt !== 'number' || typeof completion !== 'number')
        return undefined;
    return {
        promptTokens: prompt,
        completionTokens: completion,
        totalTokens: typeof total === 'number' ? total : prompt + completion,
    };
}
