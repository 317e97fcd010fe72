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
export { evaluate } from './evaluate'
export type { Evaluation, Qrels, Run } from './evaluate'
export { AbortError, RagrankError } from './errors'
export type { ErrorCode } from './errors'
