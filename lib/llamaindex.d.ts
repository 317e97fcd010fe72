/**
 * LlamaIndex.TS adapters (`ragrank/llamaindex`): any ragrank retriever as a `BaseRetriever`,
 * any ragrank ranker as a node postprocessor (reranker), and an `Embedder` as a
 * `BaseEmbedding`. Built on `@llamaindex/core` (an optional peer), whose classes the
 * `llamaindex` package re-exports, so they fit `llamaindex`'s query engines and indexes.
 * @packageDocumentation
 */
export { RagrankRetriever } from './frameworks/llamaindex/retriever.js';
export type { RagrankRetrieverOptions } from './frameworks/llamaindex/retriever.js';
export { RagrankReranker } from './frameworks/llamaindex/reranker.js';
export type { RagrankRerankerOptions } from './frameworks/llamaindex/reranker.js';
export { RagrankEmbedding } from './frameworks/llamaindex/embedding.js';
export type { RagrankEmbeddingOptions } from './frameworks/llamaindex/embedding.js';
export { fromMetadataFilters } from './frameworks/llamaindex/filters.js';
