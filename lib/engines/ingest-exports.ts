// The ingestion types every engine entry point (ragrank/elasticsearch, /opensearch, /pgvector) exports.
export type {
  DocumentEmbedder,
  IngestDocument,
  IngestOptions,
  IngestProgress,
  IngestReport,
  RejectedDocument,
} from './ingest.js'
