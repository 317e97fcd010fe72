/**
 * ragrank: fast local retrieval for Node.js, with a Rust core.
 * @packageDocumentation
 */
export { Bm25Index } from './indexes/bm25'
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
} from './indexes/bm25'
export type { FieldOperators, Filter, FilterValue, MetaFilter } from './indexes/filter'
export { fuse } from './retrieval/fusion'
export type { FuseOptions, Fused, FusionContribution, FusionMethod, ScoreNormalization } from './retrieval/fusion'
export type { RetrieveFilter, RetrieveOptions, Retriever, ScoredDocument } from './retrieval/retriever'
export { VectorRetriever } from './retrieval/vector-retriever'
export type {
  DocumentFields,
  DocumentLookup,
  EmbedFunction,
  QueryEmbedder,
  VectorRetrieverOptions,
  VectorSearchIndex,
} from './retrieval/vector-retriever'
export { HybridRetriever } from './retrieval/hybrid'
export type { HybridRetrieverOptions, HybridSource } from './retrieval/hybrid'
export { MultiQueryRetriever } from './retrieval/multi-query'
export { RescoringRetriever } from './retrieval/rescoring'
export type { CandidateSource, Rescorer, RescoringRetrieverOptions } from './retrieval/rescoring'
export type {
  MultiQueryMerge,
  MultiQueryRetrieveOptions,
  MultiQueryRetrieverOptions,
  QueryVariantSource,
  QueryVariantsFunction,
} from './retrieval/multi-query'
export { VectorIndex } from './indexes/vector'
export type {
  VectorBatchOptions,
  VectorHit,
  VectorIndexOptions,
  VectorInput,
  VectorItem,
  VectorLoadOptions,
  VectorMetric,
  VectorSearchOptions,
  VectorStorage,
  ShortlistOptions,
} from './indexes/vector'
export { evaluate } from './evaluate'
export type { EvaluateOptions, Evaluation, MetricConvention, Qrels, Run } from './evaluate'
export { AbortError, RagrankError } from './errors'
export type { ErrorCode } from './errors'
export { CrossEncoder } from './models/cross-encoder'
export type { Activation, CrossEncoderOptions, RerankInput, RerankOptions, Reranked } from './models/cross-encoder'
export { Embedder } from './models/embedder'
export type { EmbedOptions, EmbedderOptions, Embeddings, PaddingSide, Pooling } from './models/embedder'
export type { BatchCallOptions, EncoderRuntime, LoadOptions } from './models/encoder'
export type { Dtype, ModelFiles, ModelSourceOptions } from './models/model-files'
export { ensureOnnxRuntime, onnxRuntimePath } from './models/onnx-runtime'
export { hubCacheDir, isHubId, resolveHubFiles } from './models/hub'
export type { DownloadProgress, HubFiles, HubOptions } from './models/hub'
export { HierarchicalSplitter, NodeTree } from './splitting/splitter'
export type { HierarchyNode, SplitAsyncOptions, SplitBy, SplitDocument, SplitterOptions } from './splitting/splitter'
export { AutoMergingRetriever } from './splitting/auto-merging'
export type { AutoMergedHit, AutoMergingOptions, NodeStore, ParentScore, StoredNode } from './splitting/auto-merging'
export { isChatGenerator } from './llm/chat'
export type { ChatGenerator, ChatMessage, ChatReply, ChatRequest, ChatUsage, JsonResponseFormat } from './llm/chat'
export { OpenAIChatGenerator, DEFAULT_CHAT_MODEL } from './llm/openai-chat'
export type { OpenAIChatGeneratorOptions } from './llm/openai-chat'
export { LLMRanker, DEFAULT_LLM_RANKER_PROMPT } from './llm/llm-ranker'
export type { LLMRanked, LLMRankerOptions, LLMRerankOptions, SlidingWindow } from './llm/llm-ranker'
export type { Candidate, DedupeBy } from './retrieval/dedupe'
export { rerankPooled, rerank, CompressionRetriever } from './retrieval/pool'
export type {
  CompressionRetrieveOptions,
  CompressionRetrieverOptions,
  PoolRerankOptions,
  Pooled,
  Ranker,
} from './retrieval/pool'
export { QueryRewriter, REWRITE_STRATEGIES } from './llm/query-rewriter'
export type { QueryRewriterOptions, Rewrite, RewriteStrategy } from './llm/query-rewriter'
