/**
 * `ragrank/elasticsearch`: Elasticsearch 8.x / 9.x as a first stage (BM25, kNN, both), a node store for
 * `AutoMergingRetriever`, and bulk ingestion. Needs the optional peer dependency `@elastic/elasticsearch`
 * (8.19.x runs on Node 20) only when you pass `node` instead of a `client`.
 * @packageDocumentation
 */
import { packageRequire } from '../internal/package-require.js'
import { optionKeys, optionsObject } from '../internal/validate.js'
import { type ClientOptions, transportFor, withoutClient } from './client.js'
import type { IngestReport } from './ingest.js'
import {
  CREATE_INDEX_KEYS,
  type CreateIndexOptions,
  createIndex,
  type Dialect,
  deleteIndex,
  EngineNodeStore,
  EngineRetriever,
  ENGINE_INGEST_KEYS,
  type EngineIngestOptions,
  type EngineRetrieverOptions,
  ingestEngine,
  RETRIEVER_KEYS,
  closing,
} from './search-engine.js'

const ELASTICSEARCH_DIALECT: Dialect = {
  engine: 'Elasticsearch',
  vectorType: 'dense_vector',
  // Top-level knn with its filter inside: a pre-filter, so k matching documents come back.
  knnSearch: (field, vector, k, numCandidates, filters) => ({
    knn: {
      field,
      query_vector: vector,
      k,
      num_candidates: numCandidates,
      ...(filters.length ? { filter: filters } : {}),
    },
  }),
  // Float HNSW unless told otherwise: the default int8_hnsw quantization costs recall (bench/suites/engines.mjs).
  vectorMapping: (dims, vectorIndex) => ({
    type: 'dense_vector',
    dims,
    index: true,
    similarity: 'cosine',
    index_options: vectorIndex ?? { type: 'hnsw' },
  }),
  vectorDims: (m) => (typeof m.dims === 'number' ? m.dims : undefined),
  indexSettings: () => ({}),
}

const transport = (o: unknown) =>
  transportFor(o, 'Elasticsearch', '@elastic/elasticsearch', () => packageRequire('@elastic/elasticsearch').Client)

/** Options of `new ElasticsearchRetriever(options)`: a `client` or `node`, and the retriever's. */
export type ElasticsearchRetrieverOptions = ClientOptions & EngineRetrieverOptions

/**
 * A `Retriever` over an Elasticsearch index: `mode: 'bm25'` (match on the text field, or on ragrank's tokens
 * with `analysis`), `'knn'` (the query embedded with `embed`), `'hybrid'` (both in one `_msearch`, fused in
 * ragrank: the engine's RRF retriever needs a paid licence). `filter` becomes Elasticsearch filter clauses.
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { ElasticsearchRetriever, ingestElasticsearch } from 'ragrank/elasticsearch'
 *
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2')
 * await ingestElasticsearch({ node: 'http://127.0.0.1:9200', index: 'docs', documents, embedder }) // [{ id, text, meta }]
 * const retriever = new ElasticsearchRetriever({ node: 'http://127.0.0.1:9200', index: 'docs', mode: 'hybrid', embed: embedder })
 * const hits = await retriever.retrieve('how do tides work', { topK: 5, filter: { meta: { tenant: 'acme' } } })
 * await retriever.close()
 * ```
 */
export class ElasticsearchRetriever extends EngineRetriever {
  constructor(options: ElasticsearchRetrieverOptions) {
    const o = optionsObject(options, 'options', RETRIEVER_KEYS)
    super(transport(o), ELASTICSEARCH_DIALECT, withoutClient(o))
  }
}

/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export class ElasticsearchNodeStore extends EngineNodeStore {
  constructor(options: ClientOptions & { index: string }) {
    const o = optionsObject(options, 'options', optionKeys('client', 'node', 'index'))
    super(transport(o), o.index as string)
  }
}

/** Options of `createElasticsearchIndex`: a `client` or `node`, and the index's. */
export type ElasticsearchIndexOptions = ClientOptions & CreateIndexOptions

/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine dense_vector). */
export async function createElasticsearchIndex(options: ElasticsearchIndexOptions): Promise<void> {
  const o = optionsObject(options, 'options', CREATE_INDEX_KEYS)
  const t = transport(o)
  await closing(t, () => createIndex(t, ELASTICSEARCH_DIALECT, withoutClient(o)))
}

/** Deletes an index; a missing one is not an error. */
export async function deleteElasticsearchIndex(options: ClientOptions & { index: string }): Promise<void> {
  const o = optionsObject(options, 'options', optionKeys('client', 'node', 'index'))
  const t = transport(o)
  await closing(t, () => deleteIndex(t, o.index as string))
}

/**
 * Indexes documents into Elasticsearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export function ingestElasticsearch(options: ClientOptions & EngineIngestOptions): Promise<IngestReport> {
  const o = optionsObject(options, 'options', ENGINE_INGEST_KEYS)
  return ingestEngine(transport(o), ELASTICSEARCH_DIALECT, o)
}

export type {
  EngineMode,
  EngineFields,
  EngineIngestOptions,
  CreateIndexOptions,
  EngineRetrieverOptions,
} from './search-engine.js'
export type { ClientOptions, EngineClient } from './client.js'
export type {
  IngestDocument,
  IngestOptions,
  IngestProgress,
  IngestReport,
  RejectedDocument,
  DocumentEmbedder,
} from './ingest.js'
export type { TextAnalysis } from './analysis.js'
