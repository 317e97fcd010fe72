/**
 * Vercel AI SDK adapters (`ragrank/ai-sdk`): an `Embedder` as an embedding model and a
 * ranker as a reranking model (the `@ai-sdk/provider` v3 specs that `embed`, `embedMany`
 * and `rerank` from `ai` 6 take), a provider over both, a retriever as a tool, and any AI
 * SDK language model as a `ChatGenerator`. Needs `ai` and `@ai-sdk/provider` (optional peers).
 * @packageDocumentation
 */
export { RagrankEmbeddingModel } from './frameworks/ai-sdk/embedding-model.js';
export type { InputType, RagrankEmbeddingModelSettings } from './frameworks/ai-sdk/embedding-model.js';
export { RagrankRerankingModel } from './frameworks/ai-sdk/reranking-model.js';
export type { RagrankRerankingModelSettings } from './frameworks/ai-sdk/reranking-model.js';
export { createRagrank } from './frameworks/ai-sdk/provider.js';
export type { RagrankProvider, RagrankProviderSettings } from './frameworks/ai-sdk/provider.js';
export { retrievalTool } from './frameworks/ai-sdk/retrieval-tool.js';
export type { RetrievalToolInput, RetrievalToolOptions, RetrievedDocument } from './frameworks/ai-sdk/retrieval-tool.js';
export { AiSdkChatGenerator } from './frameworks/ai-sdk/chat-generator.js';
export type { AiSdkChatGeneratorOptions } from './frameworks/ai-sdk/chat-generator.js';
