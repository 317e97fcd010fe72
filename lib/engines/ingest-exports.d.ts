export type { DocumentEmbedder, IngestDocument, IngestOptions, IngestProgress, IngestReport, RejectedDocument, } from './ingest.js';
