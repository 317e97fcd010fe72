/**
 * ragrank: fast local retrieval for Node.js, with a Rust core.
 * @packageDocumentation
 */
export { BM25_VARIANTS, Bm25Index } from './indexes/bm25.js';
export { fuse } from './retrieval/fusion.js';
export { VectorRetriever } from './retrieval/vector-retriever.js';
export { HybridRetriever } from './retrieval/hybrid.js';
export { MultiQueryRetriever } from './retrieval/multi-query.js';
export { RescoringRetriever } from './retrieval/rescoring.js';
export { VectorIndex } from './indexes/vector.js';
export { evaluate } from './evaluate.js';
export { AbortError, RagrankError } from './errors.js';
export { CrossEncoder } from './models/cross-encoder.js';
export { Embedder } from './models/embedder.js';
export { ensureOnnxRuntime, onnxRuntimePath } from './models/onnx-runtime.js';
export { hubCacheDir, isHubId, resolveHubFiles } from './models/hub.js';
export { HierarchicalSplitter, NodeTree } from './splitting/splitter.js';
export { AutoMergingRetriever } from './splitting/auto-merging.js';
export { isChatGenerator } from './llm/chat.js';
export { OpenAIChatGenerator, DEFAULT_CHAT_MODEL } from './llm/openai-chat.js';
export { LLMRanker, DEFAULT_LLM_RANKER_PROMPT } from './llm/llm-ranker.js';
export { rerankPooled, CompressionRetriever } from './retrieval/pool.js';
export { QueryRewriter, REWRITE_STRATEGIES } from './llm/query-rewriter.js';
