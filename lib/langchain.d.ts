/**
 * LangChain.js adapters (`ragrank/langchain`), for `@langchain/core` 0.3 and 1.x (an optional peer):
 * - `RagrankRetriever`: any ragrank retriever as a `BaseRetriever` (with a `filter`, and every
 *   hit's fields in the Documents' metadata);
 * - `RankerCompressor`: a `CrossEncoder` or `LLMRanker` as a `BaseDocumentCompressor`;
 * - `RagrankEmbeddings`: an `Embedder` as LangChain `Embeddings` (`number[][]`, with its prompts);
 * - `RagrankVectorStore`: a `VectorStore` over `VectorIndex` (filters, MMR, `asRetriever`);
 * - `LangChainChatGenerator`: a LangChain chat model as the `ChatGenerator` of `LLMRanker`
 *   and `QueryRewriter`.
 * See docs/ECOSYSTEM.md.
 * @packageDocumentation
 */
export { RagrankRetriever } from './frameworks/langchain/retriever.js';
export type { RagrankRetrieverInput } from './frameworks/langchain/retriever.js';
export { RankerCompressor } from './frameworks/langchain/compressor.js';
export type { RankerCompressorInput } from './frameworks/langchain/compressor.js';
export { RagrankEmbeddings } from './frameworks/langchain/embeddings.js';
export type { DocumentQueryEmbedder, RagrankEmbeddingsInput } from './frameworks/langchain/embeddings.js';
export { RagrankVectorStore } from './frameworks/langchain/vector-store.js';
export type { RagrankAddOptions, RagrankVectorStoreArgs } from './frameworks/langchain/vector-store.js';
export { LangChainChatGenerator } from './frameworks/langchain/chat-generator.js';
export type { LangChainChatModel } from './frameworks/langchain/chat-generator.js';
export { hitToDocument } from './frameworks/langchain/document.js';
