export * from './ingest-exports.js';
