/**
 * ragrank: fast local retrieval for Node.js, with a Rust core.
 * @packageDocumentation
 */
export { Bm25Index } from './bm25'
export type {
  AnalyzerOptions,
  Bm25BatchOptions,
  Bm25Document,
  Bm25Filter,
  Bm25Hit,
  Bm25Options,
  Bm25Query,
  Bm25SearchOptions,
  Bm25Stats,
  Bm25Variant,
} from './bm25'
export { fuse } from './fusion'
export type { FuseOptions, Fused, FusionContribution, FusionMethod, ScoreNormalization } from './fusion'
export type { RetrieveOptions, Retriever, ScoredDocument } from './retriever'
export { VectorRetriever } from './vector-retriever'
export type { DocumentFields, DocumentLookup, EmbedFunction, QueryEmbedder, VectorRetrieverOptions, VectorSearchIndex } from './vector-retriever'
export { HybridRetriever } from './hybrid'
export type { HybridRetrieverOptions, HybridSource } from './hybrid'
export { MultiQueryRetriever } from './multi-query'
export type { MultiQueryRetrieveOptions, MultiQueryRetrieverOptions, QueryVariantSource, QueryVariantsFunction } from './multi-query'
export { VectorIndex } from './vector'
export type {
  VectorBatchOptions,
  VectorHit,
  VectorIndexOptions,
  VectorInput,
  VectorLoadOptions,
  VectorMetric,
  VectorSearchOptions,
  VectorStorage,
} from './vector'
export { evaluate } from './evaluate'
export type { Evaluation, Qrels, Run } from './evaluate'
export { AbortError, RagrankError } from './errors'
export type { ErrorCode } from './errors'
export { CrossEncoder } from './cross-encoder'
export type { Activation, CrossEncoderOptions, RerankInput, RerankOptions, Reranked } from './cross-encoder'
export { Embedder } from './embedder'
export type { EmbedOptions, EmbedderOptions, Embeddings, Pooling } from './embedder'
export type { BatchCallOptions, EncoderRuntime, LoadOptions } from './encoder'
export type { ModelFiles, ModelSourceOptions } from './model-files'
export { ensureOnnxRuntime, onnxRuntimePath } from './onnx-runtime'
export { hubCacheDir, isHubId, resolveHubFiles } from './hub'
export type { HubFiles, HubOptions } from './hub'
export { HierarchicalSplitter, NodeTree } from './splitter'
export type { HierarchyNode, SplitAsyncOptions, SplitBy, SplitDocument, SplitterOptions } from './splitter'
export { AutoMergingRetriever } from './auto-merging'
export type { AutoMergedHit, AutoMergingOptions, NodeStore, ParentScore, StoredNode } from './auto-merging'
export { isChatGenerator } from './chat'
export type { ChatGenerator, ChatMessage, ChatReply, ChatRequest, ChatUsage, JsonResponseFormat } from './chat'
export { OpenAIChatGenerator, DEFAULT_CHAT_MODEL } from './openai-chat'
export type { OpenAIChatGeneratorOptions } from './openai-chat'
export { LLMRanker, DEFAULT_LLM_RANKER_PROMPT } from './llm-ranker'
export type { LLMRanked, LLMRankerOptions, LLMRerankOptions, SlidingWindow } from './llm-ranker'
export type { Candidate, DedupeBy } from './dedupe'
export { rerank, CompressionRetriever } from './pool'
export type { CompressionRetrieveOptions, CompressionRetrieverOptions, PoolRerankOptions, Pooled, Ranker } from './pool'
export { QueryRewriter, REWRITE_STRATEGIES } from './query-rewriter'
export type { QueryRewriterOptions, Rewrite, RewriteStrategy } from './query-rewriter'
