/**
 * ragrank: fast local retrieval for Node.js, with a Rust core.
 * @packageDocumentation
 */
export { BM25_VARIANTS, Bm25Index } from './indexes/bm25.js'
export type {
  AnalyzerOptions,
  Bm25BatchOptions,
  Bm25Document,
  Bm25Filter,
  Bm25Hit,
  Bm25Options,
  Bm25OpenOptions,
  Durability,
  Bm25Query,
  Bm25SearchBatchOptions,
  Bm25SearchOptions,
  Bm25Stats,
  Bm25Variant,
} from './indexes/bm25.js'
export type { FieldOperators, Filter, FilterValue, MetaFilter } from './indexes/filter.js'
export type { FieldsOption, FieldType } from './indexes/fields.js'
export type { IndexHit, StoredDocument } from './indexes/hits.js'
export { fuse } from './retrieval/fusion.js'
export type { FuseOptions, Fused, FusionContribution, FusionMethod, ScoreNormalization } from './retrieval/fusion.js'
export type { RetrieveFilter, RetrieveOptions, Retriever, ScoredDocument } from './retrieval/retriever.js'
export { VectorRetriever } from './retrieval/vector-retriever.js'
export type {
  DocumentFields,
  DocumentLookup,
  EmbedFunction,
  QueryEmbedder,
  VectorRetrieverOptions,
  VectorSearchIndex,
} from './retrieval/vector-retriever.js'
export { HybridRetriever } from './retrieval/hybrid.js'
export type { HybridRetrieverOptions, HybridSource } from './retrieval/hybrid.js'
export { MultiQueryRetriever } from './retrieval/multi-query.js'
export { RescoringRetriever } from './retrieval/rescoring.js'
export type { CandidateSource, Rescorer, RescoringRetrieverOptions } from './retrieval/rescoring.js'
export type {
  MultiQueryMerge,
  MultiQueryRetrieveOptions,
  MultiQueryRetrieverOptions,
  QueryVariantSource,
  QueryVariantsFunction,
} from './retrieval/multi-query.js'
export { VectorIndex } from './indexes/vector.js'
export type {
  VectorBatchOptions,
  VectorCommitResult,
  EmbedderSettings,
  VectorHit,
  VectorIndexOptions,
  VectorInput,
  VectorItem,
  VectorLoadOptions,
  VectorMetric,
  VectorOpenOptions,
  VectorSearchAsyncOptions,
  VectorSearchOptions,
  VectorStorage,
  VectorRescore,
  ShortlistOptions,
} from './indexes/vector.js'
export type { CoalesceOptions } from './internal/batcher.js'
export { evaluate } from './evaluate.js'
export type { EvaluateOptions, Evaluation, MetricConvention, Qrels, Run } from './evaluate.js'
export { AbortError, RagrankError } from './errors.js'
export type { ErrorCode } from './errors.js'
export { CrossEncoder } from './models/cross-encoder.js'
export type { Activation, CrossEncoderOptions, RerankInput, RerankOptions, Reranked } from './models/cross-encoder.js'
export { Embedder } from './models/embedder.js'
export type { EmbedOptions, EmbedderOptions, Embeddings, PaddingSide, Pooling } from './models/embedder.js'
export type { BatchCallOptions, EncoderRuntime, LoadOptions } from './models/encoder.js'
export type { Dtype, ModelFiles, ModelSourceOptions } from './models/model-files.js'
export { ensureOnnxRuntime, onnxRuntimePath } from './models/onnx-runtime.js'
export { hubCacheDir, isHubId, resolveHubFiles } from './models/hub.js'
export type { DownloadProgress, HubFiles, HubOptions } from './models/hub.js'
export { HierarchicalSplitter, NodeTree } from './splitting/splitter.js'
export type { HierarchyNode, SplitAsyncOptions, SplitBy, SplitDocument, SplitterOptions } from './splitting/splitter.js'
export { AutoMergingRetriever } from './splitting/auto-merging.js'
export type { AutoMergedHit, AutoMergingOptions, NodeStore, ParentScore, StoredNode } from './splitting/auto-merging.js'
export { isChatGenerator } from './llm/chat.js'
export type { ChatGenerator, ChatMessage, ChatReply, ChatRequest, ChatUsage, JsonResponseFormat } from './llm/chat.js'
export { OpenAIChatGenerator, DEFAULT_CHAT_MODEL } from './llm/openai-chat.js'
export type { OpenAIChatGeneratorOptions } from './llm/openai-chat.js'
export { LLMRanker, DEFAULT_LLM_RANKER_PROMPT } from './llm/llm-ranker.js'
export type { LLMRanked, LLMRankerOptions, LLMRerankOptions, SlidingWindow } from './llm/llm-ranker.js'
export type { Candidate, DedupeBy } from './retrieval/dedupe.js'
export { rerankPooled, CompressionRetriever } from './retrieval/pool.js'
export type {
  CompressionRetrieveOptions,
  CompressionRetrieverOptions,
  PoolRerankOptions,
  Pooled,
  Ranker,
} from './retrieval/pool.js'
export { QueryRewriter, REWRITE_STRATEGIES } from './llm/query-rewriter.js'
export type { QueryRewriterOptions, Rewrite, RewriteStrategy } from './llm/query-rewriter.js'
