export type { TextAnalysis } from './analysis.js';
export type { ClientOptions, EngineClient } from './client.js';
export * from './ingest-exports.js';
export type { CreateIndexOptions, EngineFields, EngineIngestOptions, EngineMode, EngineRetrieverOptions, } from './search-engine.js';
