/**
 * `ragrank/opensearch`: OpenSearch 2.x as a first stage (BM25, kNN with the k-NN plugin's Lucene engine,
 * both), a node store for `AutoMergingRetriever`, and bulk ingestion. Needs the optional peer dependency
 * `@opensearch-project/opensearch` only when you pass `node` instead of a `client`.
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

const OPENSEARCH_DIALECT: Dialect = {
  engine: 'OpenSearch',
  vectorType: 'knn_vector',
  // The k-NN query with its filter inside: the Lucene engine filters while it searches, so k matching
  // documents come back. ef_search plays num_candidates' part.
  knnSearch: (field, vector, k, numCandidates, filters) => ({
    query: {
      knn: {
        [field]: {
          vector,
          k,
          method_parameters: { ef_search: numCandidates },
          ...(filters.length ? { filter: { bool: { filter: filters } } } : {}),
        },
      },
    },
  }),
  // The Lucene engine: faiss and nmslib need native libraries a minimal install may lack.
  vectorMapping: (dims, vectorIndex) => ({
    type: 'knn_vector',
    dimension: dims,
    method: {
      name: 'hnsw',
      engine: 'lucene',
      space_type: 'cosinesimil',
      ...(vectorIndex ? { parameters: vectorIndex } : {}),
    },
  }),
  vectorDims: (m) => (typeof m.dimension === 'number' ? m.dimension : undefined),
  indexSettings: () => ({ 'index.knn': true }),
}

const transport = (o: unknown) =>
  transportFor(
    o,
    'OpenSearch',
    '@opensearch-project/opensearch',
    () => packageRequire('@opensearch-project/opensearch').Client,
  )

/** Options of `new OpenSearchRetriever(options)`: a `client` or `node`, and the retriever's. */
export type OpenSearchRetrieverOptions = ClientOptions & EngineRetrieverOptions

/**
 * A `Retriever` over an OpenSearch index: `mode: 'bm25'` (match on the text field, or on ragrank's tokens
 * with `analysis`), `'knn'` (the query embedded with `embed`), `'hybrid'` (both in one `_msearch`, fused in
 * ragrank: the engine's hybrid query needs the neural-search plugin). `filter` becomes OpenSearch filter clauses.
 *
 * @example
 * ```ts
 * import { AutoMergingRetriever, HierarchicalSplitter } from 'ragrank'
 * import { ingestOpenSearch, OpenSearchNodeStore, OpenSearchRetriever } from 'ragrank/opensearch'
 *
 * const node = 'http://127.0.0.1:9200'
 * // Korean analysed by ragrank (character bigrams), leaves indexed, every node stored in docs-nodes
 * const splitter = new HierarchicalSplitter({ blockSizes: [512, 128] })
 * await ingestOpenSearch({ node, index: 'docs', documents, splitter, analysis: { cjk: 'bigram' } })
 * const leaves = new OpenSearchRetriever({ node, index: 'docs', analysis: { cjk: 'bigram' } }) // mode 'bm25'
 * const merged = new AutoMergingRetriever({ retriever: leaves, store: new OpenSearchNodeStore({ node, index: 'docs-nodes' }) })
 * await merged.retrieve('조석은 왜 생기나', { topK: 5 })
 * ```
 */
export class OpenSearchRetriever extends EngineRetriever {
  constructor(options: OpenSearchRetrieverOptions) {
    const o = optionsObject(options, 'options', RETRIEVER_KEYS)
    super(transport(o), OPENSEARCH_DIALECT, withoutClient(o))
  }
}

/** The nodes ingestion stored (`<index>-nodes` by default), fetched by id in one `_mget`. */
export class OpenSearchNodeStore extends EngineNodeStore {
  constructor(options: ClientOptions & { index: string }) {
    const o = optionsObject(options, 'options', optionKeys('client', 'node', 'index'))
    super(transport(o), o.index as string)
  }
}

/** Options of `createOpenSearchIndex`: a `client` or `node`, and the index's. */
export type OpenSearchIndexOptions = ClientOptions & CreateIndexOptions

/** Creates an index with the mapping the adapters expect (text, keyword metadata, a cosine knn_vector on the Lucene engine). */
export async function createOpenSearchIndex(options: OpenSearchIndexOptions): Promise<void> {
  const o = optionsObject(options, 'options', CREATE_INDEX_KEYS)
  const t = transport(o)
  await closing(t, () => createIndex(t, OPENSEARCH_DIALECT, withoutClient(o)))
}

/** Deletes an index; a missing one is not an error. */
export async function deleteOpenSearchIndex(options: ClientOptions & { index: string }): Promise<void> {
  const o = optionsObject(options, 'options', optionKeys('client', 'node', 'index'))
  const t = transport(o)
  await closing(t, () => deleteIndex(t, o.index as string))
}

/**
 * Indexes documents into OpenSearch (see `IngestOptions`): the index is created with the adapters'
 * mapping when missing; an existing one must have a vector field of the documents' dimension.
 */
export function ingestOpenSearch(options: ClientOptions & EngineIngestOptions): Promise<IngestReport> {
  const o = optionsObject(options, 'options', ENGINE_INGEST_KEYS)
  return ingestEngine(transport(o), OPENSEARCH_DIALECT, o)
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
