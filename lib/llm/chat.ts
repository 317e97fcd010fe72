import { hasMethod } from '../internal/validate.js'

/** One turn of a conversation, in the chat-completions shape. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** Token counts of a call, as the server reported them. */
export interface ChatUsage {
  promptTokens: number
  completionTokens: number
  totalTokens: number
}

/** Ask for a JSON reply that matches `schema` (servers without JSON-schema support may ignore it). */
export interface JsonResponseFormat {
  name: string
  schema: Record<string, unknown>
}

export interface ChatRequest {
  messages: readonly ChatMessage[]
  responseFormat?: JsonResponseFormat
  signal?: AbortSignal
}

export interface ChatReply {
  /** The text of the first choice. */
  text: string
  usage?: ChatUsage
  model?: string
}

/**
 * What `LLMRanker` and `QueryRewriter` need from a language model: messages in, text out.
 * `OpenAIChatGenerator` is one; wrap any other client in an object with this method.
 */
export interface ChatGenerator {
  chat(request: ChatRequest): Promise<ChatReply>
}

export function isChatGenerator(v: unknown): v is ChatGenerator {
  return hasMethod(v, 'chat')
}
