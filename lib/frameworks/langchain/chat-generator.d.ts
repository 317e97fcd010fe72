import { type BaseMessage } from '@langchain/core/messages';
import type { ChatGenerator, ChatReply, ChatRequest } from '../../llm/chat.js';
/** What `LangChainChatGenerator` needs of a LangChain chat model (`BaseChatModel` has it). */
export interface LangChainChatModel {
    /** One call: the messages in, an AI message (with `content`, and `usage_metadata` when reported) out. */
    invoke(input: BaseMessage[], options?: {
        signal?: AbortSignal;
    }): Promise<unknown>;
}
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
export declare class LangChainChatGenerator implements ChatGenerator {
    /** The wrapped chat model. */
    readonly model: LangChainChatModel;
    constructor(model: LangChainChatModel);
    /** One model call: the request's messages in, the reply's text out. */
    chat(request: ChatRequest): Promise<ChatReply>;
}
