/** One turn of a conversation, in the chat-completions shape. */
export interface ChatMessage {
    /** Who speaks. */
    role: 'system' | 'user' | 'assistant';
    /** What is said, as plain text. */
    content: string;
}
/** Token counts of a call, as the server reported them. */
export interface ChatUsage {
    /** Tokens of the messages sent. */
    promptTokens: number;
    /** Tokens of the reply. */
    completionTokens: number;
    /** Both together. */
    totalTokens: number;
}
/** Ask for a JSON reply that matches `schema` (servers without JSON-schema support may ignore it). */
export interface JsonResponseFormat {
    /** The schema's name, as the server's structured-output API wants one. */
    name: string;
    /** A JSON Schema object. */
    schema: Record<string, unknown>;
}
/** One call to a chat model. */
export interface ChatRequest {
    /** The conversation, oldest first. */
    messages: readonly ChatMessage[];
    /** Asks for a JSON reply matching a schema (LLMRanker and QueryRewriter always set it). */
    responseFormat?: JsonResponseFormat;
    /** Cancels the call; a generator should reject with an AbortError (ragrank stops waiting either way). */
    signal?: AbortSignal;
}
/** A chat model's answer. */
export interface ChatReply {
    /** The text of the first choice. */
    text: string;
    /** Token counts, when the server reports them. */
    usage?: ChatUsage;
    /** The model that answered, as the server names it. */
    model?: string;
}
/**
 * What `LLMRanker` and `QueryRewriter` need from a language model: messages in, text out.
 * `OpenAIChatGenerator` is one; wrap any other client in an object with this method.
 */
export interface ChatGenerator {
    /** Sends the messages and resolves with the reply's text. */
    chat(request: ChatRequest): Promise<ChatReply>;
}
/** Whether `v` has a `chat` method, i.e. can be passed where a `ChatGenerator` is taken. */
export declare function isChatGenerator(v: unknown): v is ChatGenerator;
