import { RagrankError, typeError } from '../errors.js'
import { fuse, type FuseOptions } from '../retrieval/fusion.js'
import { DEFAULT_CANDIDATES } from '../retrieval/hybrid.js'
import {
  checkQuery,
  RETRIEVE_KEYS,
  retrieveOptions,
  type RetrieveOptions,
  type Retriever,
  type ScoredDocument,
} from '../retrieval/retriever.js'
import type { EmbedFunction, QueryEmbedder } from '../retrieval/vector-retriever.js'
import type { NodeStore, StoredNode } from '../splitting/auto-merging.js'
import {
  booleanOption,
  finiteNumber,
  hasMethod,
  integer,
  isArray,
  isPlainObject,
  oneOf,
  optionKeys,
  positiveInteger,
} from '../internal/validate.js'
import {
  type AnalysisRecord,
  analysisRecord,
  DEFAULT_TOKENS_FIELD,
  type TextAnalysis,
  tokenJoiner,
} from './analysis.js'
import { CLIENT_KEYS } from './client.js'
import { EMBEDDING_PROBE, type EmbeddingRecord, probeCosine, SAME_MODEL_COSINE } from './embedding-record.js'
import { filterClauses, type MetaLayout, parsedFilter, type QueryClause } from './filter-dsl.js'
import {
  documentEmbedder,
  INGEST_KEYS,
  type IngestOptions,
  type IngestRecord,
  type IngestSink,
  type PrepareInfo,
  type RejectedDocument,
} from './ingest.js'
import { embedQuery, queryEmbedding, vectorArray } from './query-vector.js'
import { type EngineJson, type EngineTransport, statusError } from './transport.js'
import { TYPED_LAYOUT, TYPED_META_SUFFIX, typedMeta, typedMetaMapping } from './typed-meta.js'

/** What differs between Elasticsearch and OpenSearch for ragrank: the client, the kNN query and the vector mapping. */
export interface Dialect {
  readonly engine: EngineTransport['engine']
  /** The official client package, loaded by `loadClient` only when options give a `node` URL. */
  readonly clientPackage: string
  loadClient(): new (o: { node: string; requestTimeout: number; maxRetries: number }) => unknown
  /** The mapping type of a vector field. */
  readonly vectorType: 'dense_vector' | 'knn_vector'
  knnSearch(
    field: string,
    vector: number[],
    k: number,
    numCandidates: number,
    filters: QueryClause[],
  ): Record<string, unknown>
  /** `vectorIndex`: the engine's own HNSW options (Elasticsearch `index_options`, OpenSearch `method.parameters`). */
  vectorMapping(dims: number, vectorIndex?: Record<string, unknown>): Record<string, unknown>
  vectorDims(mapping: Record<string, unknown>): number | undefined
  indexSettings(): Record<string, unknown>
}

/** How an engine retriever searches: BM25 on text, kNN on vectors, or both fused in ragrank. */
export type EngineMode = 'bm25' | 'knn' | 'hybrid'

/** The fields of an index as ragrank's adapters use them (the defaults match `createIndex` and ingestion). */
export interface EngineFields {
  /** The text: returned with hits, matched by BM25 unless `analysis` is given (default `text`). */
  textField?: string
  /** The metadata object filters read (default `meta`). */
  metaField?: string
  /** The vector field (default `embedding`). */
  vectorField?: string
  /** The whitespace-analyzed field holding ragrank's tokens, with `analysis` (default `tokens`). */
  tokensField?: string
}

/** Options of the Elasticsearch and OpenSearch retrievers (with `client` or `node`). */
export interface EngineRetrieverOptions extends EngineFields {
  /** The index to search. */
  index: string
  /** `bm25` (default), `knn`, or `hybrid`: both in one `_msearch` request, fused in ragrank. */
  mode?: EngineMode
  /** Embeds queries for `knn` / `hybrid` (an `Embedder`, or a function). */
  embed?: QueryEmbedder | EmbedFunction
  /** Analyze queries as the documents were (ragrank's analyzer into `tokensField`), e.g. `{ cjk: 'bigram' }`. */
  analysis?: TextAnalysis
  /** kNN candidates per shard (default max(100, 2 * topK)); more is slower and closer to exact. */
  numCandidates?: number
  /** For `hybrid`: hits each side fetches before fusion (default 50, and at least `topK`: as `HybridRetriever`). */
  candidates?: number
  /** For `hybrid`: how the two lists are fused (default RRF, k 60). */
  fusion?: FuseOptions
  /** Check the mapping (index, fields, vector dimension) once before the first search (default true). */
  checkMapping?: boolean
}

const ENGINE_KEYS = [...CLIENT_KEYS, 'index', 'textField', 'metaField', 'vectorField', 'tokensField'] as const
export const RETRIEVER_KEYS = optionKeys(
  ...ENGINE_KEYS,
  'mode',
  'embed',
  'analysis',
  'numCandidates',
  'candidates',
  'fusion',
  'checkMapping',
)

/** `retrieveByVector` takes the contract's options and the `query` of the hybrid mode's BM25 side. */
const BY_VECTOR_KEYS = optionKeys(...RETRIEVE_KEYS, 'query')

function fieldName(v: unknown, name: string, fallback: string): string {
  if (v === undefined) return fallback
  if (typeof v !== 'string' || v.length === 0) throw typeError(`${name} must be a non-empty string`)
  return v
}

/**
 * An index name as Elasticsearch and OpenSearch accept it: lower case, no space or `\ / * ? " < > | , # :`, not
 * starting with `-`, `_` or `+`, not `.` or `..`, at most 255 bytes. Checked here, so a bad name is a TypeError
 * before any request rather than the engine's 400.
 */
export function indexName(v: unknown, name = 'options.index'): string {
  const bad = typeof v !== 'string' ? 'it is not a string' : INDEX_NAME_RULES.find(([breaks]) => breaks(v))?.[1]
  if (bad) throw typeError(`${name} must be an index name (${bad}), got ${JSON.stringify(v)}`)
  return v as string
}

/** What the engines refuse in an index name, and how a message says it. */
const INDEX_NAME_RULES: [(v: string) => boolean, string][] = [
  [(v) => v.length === 0, 'it is empty'],
  [(v) => v !== v.toLowerCase(), 'the engines take lower case only'],
  [(v) => /[\s\\/*?"<>|,#:]/.test(v), 'no spaces or \\ / * ? " < > | , # :'],
  [(v) => /^[-_+]/.test(v), 'it may not start with -, _ or +'],
  [(v) => v === '.' || v === '..', 'it may not be . or ..'],
  [(v) => Buffer.byteLength(v) > 255, 'at most 255 bytes'],
]

export function engineFields(o: Record<string, unknown>): Required<EngineFields> {
  return {
    textField: fieldName(o.textField, 'options.textField', 'text'),
    metaField: fieldName(o.metaField, 'options.metaField', 'meta'),
    vectorField: fieldName(o.vectorField, 'options.vectorField', 'embedding'),
    tokensField: fieldName(o.tokensField, 'options.tokensField', DEFAULT_TOKENS_FIELD),
  }
}

/** The mapping of `a.b` in a `properties` tree. */
function fieldMapping(properties: unknown, path: string): Record<string, unknown> | undefined {
  let node: unknown = { properties }
  for (const part of path.split('.')) {
    const props = isPlainObject(node) ? node.properties : undefined
    if (!isPlainObject(props) || !isPlainObject(props[part])) return undefined
    node = props[part]
  }
  return node as Record<string, unknown>
}

/** What ragrank records in an index's mapping (`_meta.ragrank`) when it creates the index or ingests into it. */
export interface RagrankIndexMeta {
  /** `typed-meta-1`: metadata has its typed copy (`typed-meta.ts`). */
  layout?: string
  /** The analysis of the tokens field. */
  analysis?: AnalysisRecord
  /** The model of the vectors (its probe embedding). */
  embedding?: EmbeddingRecord
}

/** An index's mapping: its `properties` and ragrank's record, if any. */
export interface IndexMapping {
  properties: Record<string, unknown>
  /** The whole `_meta` (yours and ragrank's). */
  meta: Record<string, unknown>
  ragrank?: RagrankIndexMeta
}

/** The mapping of an index (or of the one index behind an alias); 404 becomes ERR_ENGINE_INDEX_NOT_FOUND. */
export async function indexMapping(t: EngineTransport, index: string, signal?: AbortSignal): Promise<IndexMapping> {
  const body = await t.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_mapping` }, signal)
  const first = isPlainObject(body) ? Object.values(body)[0] : undefined
  const mappings = isPlainObject(first) && isPlainObject(first.mappings) ? first.mappings : {}
  const meta = isPlainObject(mappings._meta) ? mappings._meta : {}
  const ragrank = meta.ragrank
  return {
    properties: isPlainObject(mappings.properties) ? mappings.properties : {},
    meta,
    ragrank: isPlainObject(ragrank) ? (ragrank as RagrankIndexMeta) : undefined,
  }
}

const layoutOf = (m: IndexMapping): MetaLayout => (m.ragrank?.layout === TYPED_LAYOUT ? 'typed' : 'mapped')

/** ERR_ENGINE_MAPPING when the analysis `ours` differs from the one the index's tokens were made with. */
function checkAnalysis(engine: string, index: string, recorded: AnalysisRecord | undefined, ours: AnalysisRecord) {
  if (!recorded || recorded.probe === ours.probe) return
  throw new RagrankError(
    'ERR_ENGINE_MAPPING',
    `${engine} index ${JSON.stringify(index)} was ingested with analysis ${recorded.description}, ` +
      `this one is ${ours.description}: their tokens differ (${JSON.stringify(recorded.probe)} vs ` +
      `${JSON.stringify(ours.probe)}), so queries would not match what was indexed`,
  )
}

/** ERR_ENGINE_MAPPING when the embedder of `probe` is not the model the index's vectors came from. */
function checkEmbedding(engine: string, index: string, recorded: EmbeddingRecord | undefined, probe: number[]) {
  if (!recorded) return
  const cosine = probeCosine(recorded.probe, probe)
  if (cosine >= SAME_MODEL_COSINE) return
  throw new RagrankError(
    'ERR_ENGINE_MAPPING',
    `${engine} index ${JSON.stringify(index)} holds vectors of another model than this embedder's: ` +
      `${recorded.dims}-dimensional then, ${probe.length} now, and the two embed a probe text at cosine ` +
      `${cosine.toFixed(3)} (the same model gives at least ${SAME_MODEL_COSINE})`,
  )
}

/**
 * Checks that `index` has a vector field of the dialect's type and returns its dimension:
 * ERR_ENGINE_MAPPING when the field is missing or of another type.
 */
export function vectorFieldDims(d: Dialect, properties: Record<string, unknown>, index: string, field: string): number {
  const m = fieldMapping(properties, field)
  if (!m || m.type !== d.vectorType) {
    throw new RagrankError(
      'ERR_ENGINE_MAPPING',
      `${d.engine} index ${JSON.stringify(index)} has no ${d.vectorType} field ${JSON.stringify(field)}` +
        (m ? ` (it is a ${String(m.type)})` : ''),
    )
  }
  const dims = d.vectorDims(m)
  if (dims === undefined)
    throw new RagrankError(
      'ERR_ENGINE_MAPPING',
      `${d.engine} field ${JSON.stringify(field)} has no dimension in its mapping`,
    )
  return dims
}

function checkDims(d: Dialect, index: string, expected: number, got: number): void {
  if (expected !== got) {
    throw new RagrankError(
      'ERR_ENGINE_DIMENSION',
      `${d.engine} index ${JSON.stringify(index)} holds ${expected}-dimensional vectors, the query vector has ${got}`,
    )
  }
}

/** Hits of a search response as ragrank's `{ id, score, text, meta }`. */
function hitsOf(body: unknown, fields: Required<EngineFields>, engine: string): ScoredDocument[] {
  const hits = isPlainObject(body) && isPlainObject(body.hits) ? body.hits.hits : undefined
  if (!isArray(hits)) throw new RagrankError('ERR_ENGINE', `${engine} returned a search response without hits`)
  return hits.map((h: EngineJson) => {
    const source = isPlainObject(h._source) ? h._source : {}
    const out: ScoredDocument = { id: String(h._id), score: Number(h._score ?? 0) }
    const text = readPath(source, fields.textField)
    if (typeof text === 'string') out.text = text
    const meta = readPath(source, fields.metaField)
    if (isPlainObject(meta)) out.meta = meta
    return out
  })
}

function readPath(o: Record<string, unknown>, path: string): unknown {
  if (path in o) return o[path]
  let v: unknown = o
  for (const part of path.split('.')) v = isPlainObject(v) ? v[part] : undefined
  return v
}

/**
 * A `Retriever` over an Elasticsearch or OpenSearch index: BM25 `match`, kNN, or both in one `_msearch`
 * request fused in ragrank (the engines' own hybrid / RRF need a licence or a plugin). Filters become the
 * engine's filter clauses (pre-filtering, so `topK` best matching documents come back).
 */
export class EngineRetriever implements Retriever {
  readonly supportsFilter = true
  readonly #t: EngineTransport
  readonly #d: Dialect
  readonly #index: string
  readonly #mode: EngineMode
  readonly #fields: Required<EngineFields>
  readonly #embed?: EmbedFunction
  /** `embed`'s document side, when it has one (an Embedder): checked against the index's record of its model. */
  readonly #embedDocuments?: (texts: string[], signal?: AbortSignal) => Promise<number[][]>
  readonly #analyze?: (text: string) => string
  readonly #analysis?: AnalysisRecord
  readonly #numCandidates?: number
  readonly #candidates?: number
  readonly #fusion?: FuseOptions
  readonly #checkMapping: boolean
  #info?: Promise<{ dims?: number; layout: MetaLayout }>

  constructor(transport: EngineTransport, dialect: Dialect, o: Record<string, unknown>) {
    this.#t = transport
    this.#d = dialect
    this.#index = indexName(o.index)
    this.#fields = engineFields(o)
    this.#mode = o.mode === undefined ? 'bm25' : oneOf(o.mode, ['bm25', 'knn', 'hybrid'], 'options.mode')
    this.#embed = queryEmbedding(o.embed)
    if (hasMethod(o.embed, 'embedDocuments')) this.#embedDocuments = documentEmbedder(o.embed)
    this.#analyze = o.analysis === undefined ? undefined : tokenJoiner(o.analysis)
    this.#analysis = this.#analyze && analysisRecord(o.analysis, this.#analyze)
    this.#numCandidates =
      o.numCandidates === undefined ? undefined : positiveInteger(o.numCandidates, 'options.numCandidates')
    this.#candidates = o.candidates === undefined ? undefined : positiveInteger(o.candidates, 'options.candidates')
    if (o.fusion !== undefined && !isPlainObject(o.fusion))
      throw typeError('options.fusion must be fuse options such as { method: "rrf" }')
    this.#fusion = o.fusion as FuseOptions | undefined
    this.#checkMapping = booleanOption(o.checkMapping, 'options.checkMapping', true)
  }

  /** The search mode in use. */
  get mode(): EngineMode {
    return this.#mode
  }

  /** Closes the client ragrank made from `node` (a `client` you passed stays open). */
  close(): Promise<void> {
    return this.#t.close()
  }

  /** The best `topK` documents for `query` in the retriever's `mode`, with the call's `filter` as engine filter clauses. */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]> {
    checkQuery(query)
    const { topK, signal, filter } = retrieveOptions(options)
    const parsed = parsedFilter(filter)
    if (this.#mode !== 'bm25' && !this.#embed)
      throw typeError(`options.embed is needed to search ${this.#mode} with a text query (or use retrieveByVector)`)
    const filters = await this.#filters(parsed, signal)
    if (this.#mode === 'bm25') return this.#search([this.#bm25Body(query, topK, filters)], signal).then((r) => r[0])
    const vector = await embedQuery(this.#embed as EmbedFunction, query, signal)
    return this.#byVector(query, vector, topK, filters, signal)
  }

  /** kNN (or hybrid, with `query` for the BM25 side) with a vector you computed. */
  async retrieveByVector(
    vector: Float32Array | readonly number[],
    options?: RetrieveOptions & { query?: string },
  ): Promise<ScoredDocument[]> {
    const { topK, signal, filter } = retrieveOptions(options, BY_VECTOR_KEYS)
    const query = (options as { query?: unknown } | undefined)?.query
    if (this.#mode === 'hybrid') checkQuery(query)
    const parsed = parsedFilter(filter)
    const array = vectorArray(vector, 'vector')
    return this.#byVector(query as string, array, topK, await this.#filters(parsed, signal), signal)
  }

  /** The filter as clauses for the index's metadata layout (typed unless the mapping says otherwise). */
  async #filters(parsed: ReturnType<typeof parsedFilter>, signal?: AbortSignal): Promise<QueryClause[]> {
    if (parsed === undefined) return []
    const { layout } = await this.#mapping(signal)
    return filterClauses(parsed, this.#d.engine, this.#fields.metaField, layout)
  }

  async #byVector(query: string, vector: number[], topK: number, filters: QueryClause[], signal?: AbortSignal) {
    const { dims } = await this.#mapping(signal)
    if (dims !== undefined) checkDims(this.#d, this.#index, dims, vector.length)
    if (this.#mode !== 'hybrid') return (await this.#search([this.#knnBody(vector, topK, filters)], signal))[0]
    const depth = Math.max(topK, this.#candidates ?? DEFAULT_CANDIDATES)
    const [sparse, dense] = await this.#search(
      [this.#bm25Body(query, depth, filters), this.#knnBody(vector, depth, filters)],
      signal,
    )
    return fuse([sparse, dense], this.#fusion).slice(0, topK)
  }

  #bm25Body(query: string, size: number, filters: QueryClause[]) {
    const field = this.#analyze ? this.#fields.tokensField : this.#fields.textField
    const text = this.#analyze ? this.#analyze(query) : query
    return {
      size,
      _source: [this.#fields.textField, this.#fields.metaField],
      query: { bool: { must: [{ match: { [field]: { query: text } } }], filter: filters } },
    }
  }

  #knnBody(vector: number[], k: number, filters: QueryClause[]) {
    const numCandidates = Math.max(k, this.#numCandidates ?? Math.max(100, 2 * k))
    return {
      size: k,
      _source: [this.#fields.textField, this.#fields.metaField],
      ...this.#d.knnSearch(this.#fields.vectorField, vector, k, numCandidates, filters),
    }
  }

  /** One search, or several in one `_msearch` request. */
  async #search(bodies: Record<string, unknown>[], signal?: AbortSignal): Promise<ScoredDocument[][]> {
    if (this.#checkMapping) await this.#mapping(signal)
    const index = encodeURIComponent(this.#index)
    if (bodies.length === 1) {
      const body = await this.#t.request({ method: 'POST', path: `/${index}/_search`, body: bodies[0] }, signal)
      return [hitsOf(body, this.#fields, this.#d.engine)]
    }
    const res = await this.#t.request(
      { method: 'POST', path: `/${index}/_msearch`, bulkBody: bodies.flatMap((b) => [{}, b]) },
      signal,
    )
    const responses = isPlainObject(res) && isArray(res.responses) ? res.responses : undefined
    if (!responses || responses.length !== bodies.length)
      throw new RagrankError('ERR_ENGINE', `${this.#d.engine} _msearch returned ${responses?.length ?? 'no'} responses`)
    return responses.map((r: EngineJson) => {
      if (r.error) throw statusError(this.#d.engine, Number(r.status ?? 500), r, `search of ${this.#index}`)
      return hitsOf(r, this.#fields, this.#d.engine)
    })
  }

  /**
   * The mapping, checked once: the index exists, the text / tokens field is there (made with this analysis), the
   * vector field's dimension, and how metadata is held. Unchecked (`checkMapping: false`), the layout is the one
   * ragrank writes.
   */
  #mapping(signal?: AbortSignal): Promise<{ dims?: number; layout: MetaLayout }> {
    if (!this.#checkMapping) return Promise.resolve({ layout: 'typed' })
    this.#info ??= (async () => {
      const mapping = await indexMapping(this.#t, this.#index, signal)
      const props = mapping.properties
      if (this.#analysis) checkAnalysis(this.#d.engine, this.#index, mapping.ragrank?.analysis, this.#analysis)
      if (this.#mode !== 'bm25' && this.#embedDocuments && mapping.ragrank?.embedding) {
        const [probe] = await this.#embedDocuments([EMBEDDING_PROBE], signal)
        checkEmbedding(this.#d.engine, this.#index, mapping.ragrank.embedding, probe)
      }
      if (this.#mode !== 'knn') {
        const field = this.#analyze ? this.#fields.tokensField : this.#fields.textField
        const m = fieldMapping(props, field)
        if (!m || (m.type !== 'text' && m.type !== undefined))
          throw new RagrankError(
            'ERR_ENGINE_MAPPING',
            `${this.#d.engine} index ${JSON.stringify(this.#index)} has no text field ${JSON.stringify(field)} for BM25`,
          )
      }
      const dims =
        this.#mode === 'bm25' ? undefined : vectorFieldDims(this.#d, props, this.#index, this.#fields.vectorField)
      return { dims, layout: layoutOf(mapping) }
    })()
    // A failed check (engine down, index created later) is tried again on the next call.
    this.#info.catch(() => {
      this.#info = undefined
    })
    return this.#info
  }
}

/**
 * A `NodeStore` for `AutoMergingRetriever` over the node index ingestion writes: the parents of a result
 * are fetched by id in one `_mget` request.
 */
export class EngineNodeStore implements NodeStore {
  readonly #t: EngineTransport
  readonly #index: string
  constructor(transport: EngineTransport, index: string) {
    this.#t = transport
    this.#index = indexName(index)
  }

  /** Closes the client ragrank made from `node`. */
  close(): Promise<void> {
    return this.#t.close()
  }

  /** The stored nodes for `ids`, in order; undefined where an id is unknown. */
  async get(ids: string[]): Promise<(StoredNode | undefined)[]> {
    if (!isArray(ids) || !ids.every((id) => typeof id === 'string')) throw typeError('ids must be an array of strings')
    if (ids.length === 0) return []
    const body = await this.#t.request({
      method: 'POST',
      path: `/${encodeURIComponent(this.#index)}/_mget`,
      body: { ids },
    })
    const docs = isPlainObject(body) && isArray(body.docs) ? body.docs : []
    const byId = new Map<string, StoredNode>()
    for (const d of docs as EngineJson[]) {
      // A missing index answers 200 with an error per document: a misspelled name must not pass for "no parents".
      if (isPlainObject(d.error)) throw statusError(this.#t.engine, 404, d, `node lookup in ${this.#index}`)
      if (d.found && isPlainObject(d._source))
        byId.set(String(d._id), { id: String(d._id), ...(d._source as object) } as StoredNode)
    }
    return ids.map((id) => byId.get(id))
  }
}

/** Options of `createElasticsearchIndex` and `createOpenSearchIndex` (with `client` or `node`). */
export interface CreateIndexOptions extends EngineFields {
  /** The index to create. */
  index: string
  /** Vector dimension: maps a vector field (cosine) when given. */
  dims?: number
  /** Maps the whitespace-analyzed tokens field for ragrank's analysis (default false). */
  tokens?: boolean
  /** BM25 parameters of the text fields (default k1 1.5, b 0.75, as `Bm25Index`). */
  k1?: number
  /** See `k1`. */
  b?: number
  /** Primary shards (default 1). */
  shards?: number
  /** Default 0, so a single node is green. */
  replicas?: number
  /**
   * The engine's vector index options: Elasticsearch `index_options` (default `{ type: 'hnsw' }`, float: its
   * own default int8_hnsw saves memory and loses recall), OpenSearch `method.parameters` (e.g. `{ m: 16 }`).
   */
  vectorIndex?: Record<string, unknown>
}

/**
 * The index body ragrank's adapters expect: text, metadata stored as given with its typed copy for filters
 * (`typed-meta.ts`: explicit types, no dynamic mapping), vectors, and ragrank's record in `_meta`.
 */
export function indexBody(
  d: Dialect,
  o: Required<EngineFields> & {
    dims?: number
    tokens: boolean
    k1: number
    b: number
    shards: number
    replicas: number
    vectorIndex?: Record<string, unknown>
    analysis?: AnalysisRecord
    embedding?: EmbeddingRecord
  },
) {
  const meta = typedMetaMapping(o.metaField)
  const properties: Record<string, unknown> = {
    [o.textField]: { type: 'text', similarity: 'ragrank_bm25' },
    ...meta.properties,
    parentId: { type: 'keyword' },
  }
  if (o.tokens) properties[o.tokensField] = { type: 'text', analyzer: 'whitespace', similarity: 'ragrank_bm25' }
  if (o.dims !== undefined) properties[o.vectorField] = d.vectorMapping(o.dims, o.vectorIndex)
  return {
    settings: {
      number_of_shards: o.shards,
      number_of_replicas: o.replicas,
      similarity: { ragrank_bm25: { type: 'BM25', k1: o.k1, b: o.b } },
      ...d.indexSettings(),
    },
    mappings: {
      _meta: {
        ragrank: {
          layout: TYPED_LAYOUT,
          ...(o.analysis ? { analysis: o.analysis } : {}),
          ...(o.embedding ? { embedding: o.embedding } : {}),
        },
      },
      // Strings stay strings: nothing ragrank writes is left to the engine's guess.
      date_detection: false,
      numeric_detection: false,
      dynamic_templates: meta.dynamic_templates,
      properties,
    },
  }
}

/** The node index: nodes are only fetched by id, so nothing in it is indexed. */
const NODE_INDEX_BODY = {
  settings: { number_of_shards: 1, number_of_replicas: 0 },
  mappings: { dynamic: false, properties: {} },
}

export async function indexExists(t: EngineTransport, index: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await t.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_mapping` }, signal)
    return true
  } catch (e) {
    if (e instanceof RagrankError && e.code === 'ERR_ENGINE_INDEX_NOT_FOUND') return false
    throw e
  }
}

export async function createIndex(t: EngineTransport, d: Dialect, o: Record<string, unknown>, signal?: AbortSignal) {
  const index = indexName(o.index)
  const body = indexBody(d, {
    ...engineFields(o),
    dims: o.dims === undefined ? undefined : positiveInteger(o.dims, 'options.dims'),
    tokens: o.tokens === true,
    k1: o.k1 === undefined ? 1.5 : finiteNumber(o.k1, 'options.k1', 0),
    b: o.b === undefined ? 0.75 : finiteNumber(o.b, 'options.b', 0, 1),
    shards: o.shards === undefined ? 1 : positiveInteger(o.shards, 'options.shards'),
    replicas: o.replicas === undefined ? 0 : integer(o.replicas, 'options.replicas', 0),
    vectorIndex: vectorIndexOption(o.vectorIndex),
  })
  await t.request({ method: 'PUT', path: `/${encodeURIComponent(index)}`, body }, signal)
}

export async function deleteIndex(t: EngineTransport, index: string, signal?: AbortSignal) {
  try {
    await t.request({ method: 'DELETE', path: `/${encodeURIComponent(indexName(index))}` }, signal)
  } catch (e) {
    if (!(e instanceof RagrankError && e.code === 'ERR_ENGINE_INDEX_NOT_FOUND')) throw e
  }
}

export const CREATE_INDEX_KEYS = optionKeys(
  ...ENGINE_KEYS,
  'dims',
  'tokens',
  'k1',
  'b',
  'shards',
  'replicas',
  'vectorIndex',
)

function vectorIndexOption(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined
  if (!isPlainObject(v)) throw typeError("options.vectorIndex must be an object such as { type: 'int8_hnsw' }")
  return v
}

/** Where ingestion writes in Elasticsearch / OpenSearch: `_bulk` with `index` actions on the documents' ids. */
export class EngineSink implements IngestSink {
  readonly #t: EngineTransport
  readonly #d: Dialect
  readonly #index: string
  readonly #nodeIndex: string
  readonly #fields: Required<EngineFields>
  readonly #create: { k1: number; b: number; vectorIndex?: Record<string, unknown> }
  /** How the index holds metadata (known after `prepare`). */
  #layout: MetaLayout = 'typed'
  constructor(
    t: EngineTransport,
    d: Dialect,
    o: {
      index: string
      nodeIndex?: string
      k1?: number
      b?: number
      vectorIndex?: Record<string, unknown>
    } & EngineFields,
  ) {
    this.#t = t
    this.#d = d
    this.#index = indexName(o.index)
    this.#nodeIndex = o.nodeIndex === undefined ? `${this.#index}-nodes` : indexName(o.nodeIndex, 'options.nodeIndex')
    this.#fields = engineFields(o as unknown as Record<string, unknown>)
    this.#create = { k1: o.k1 ?? 1.5, b: o.b ?? 0.75, vectorIndex: vectorIndexOption(o.vectorIndex) }
  }

  get engine() {
    return this.#d.engine
  }

  async prepare(info: PrepareInfo, signal?: AbortSignal) {
    if (!(await indexExists(this.#t, this.#index, signal))) {
      const body = indexBody(this.#d, {
        ...this.#fields,
        dims: info.dims,
        tokens: info.tokens,
        analysis: info.analysis,
        embedding: info.embedding,
        ...this.#create,
        shards: 1,
        replicas: 0,
      })
      await this.#createIfMissing(this.#index, body, signal)
    }
    // Read back, also after creating it: another ingestion may have won the race with other settings.
    const mapping = await indexMapping(this.#t, this.#index, signal)
    this.#layout = layoutOf(mapping)
    if (this.#layout === 'typed') {
      const recorded = mapping.ragrank
      if (info.analysis) checkAnalysis(this.#d.engine, this.#index, recorded?.analysis, info.analysis)
      if (info.embedding) checkEmbedding(this.#d.engine, this.#index, recorded?.embedding, info.embedding.probe)
      const missing = {
        ...(info.analysis && !recorded?.analysis ? { analysis: info.analysis } : {}),
        ...(info.embedding && !recorded?.embedding ? { embedding: info.embedding } : {}),
      }
      if (Object.keys(missing).length > 0) {
        // `_meta` is replaced whole: keep what else it holds.
        const _meta = { ...mapping.meta, ragrank: { ...recorded, ...missing } }
        await this.#t.request(
          { method: 'PUT', path: `/${encodeURIComponent(this.#index)}/_mapping`, body: { _meta } },
          signal,
        )
      }
    }
    if (info.dims !== undefined) {
      const dims = vectorFieldDims(this.#d, mapping.properties, this.#index, this.#fields.vectorField)
      if (dims !== info.dims) {
        throw new RagrankError(
          'ERR_ENGINE_DIMENSION',
          `${this.#d.engine} index ${JSON.stringify(this.#index)} holds ${dims}-dimensional vectors, the documents have ${info.dims}`,
        )
      }
    }
    if (info.nodes && !(await indexExists(this.#t, this.#nodeIndex, signal)))
      await this.#createIfMissing(this.#nodeIndex, NODE_INDEX_BODY, signal)
  }

  /** Two ingestions may race to create the index: the loser's "already exists" is fine. */
  async #createIfMissing(index: string, body: unknown, signal?: AbortSignal) {
    try {
      await this.#t.request({ method: 'PUT', path: `/${encodeURIComponent(index)}`, body }, signal)
    } catch (e) {
      if (!(e instanceof RagrankError && /resource_already_exists/.test(e.message))) throw e
    }
  }

  async write(records: IngestRecord[], signal?: AbortSignal): Promise<RejectedDocument[]> {
    const lines: unknown[] = []
    for (const r of records) {
      if (r.searchable) {
        const source: Record<string, unknown> = { [this.#fields.textField]: r.text }
        if (r.meta !== undefined) source[this.#fields.metaField] = r.meta
        if (this.#layout === 'typed') source[`${this.#fields.metaField}${TYPED_META_SUFFIX}`] = typedMeta(r.meta)
        if (r.tokens !== undefined) source[this.#fields.tokensField] = r.tokens
        if (r.vector !== undefined) source[this.#fields.vectorField] = r.vector
        if (r.node) source.parentId = r.node.parentId
        lines.push({ index: { _index: this.#index, _id: r.id } }, source)
      }
      if (r.node)
        lines.push({ index: { _index: this.#nodeIndex, _id: r.id } }, { text: r.text, meta: r.meta, ...r.node })
    }
    const body = await this.#t.request({ method: 'POST', path: '/_bulk', bulkBody: lines }, signal)
    if (!isPlainObject(body) || !isArray(body.items))
      throw new RagrankError('ERR_ENGINE', `${this.#d.engine} _bulk returned no items`)
    if (!body.errors) return []
    // A record is refused when any of its actions (search index, node index) is; the worst status wins.
    const refused = new Map<string, RejectedDocument>()
    for (const item of body.items as EngineJson[]) {
      const action = item.index ?? item.create ?? item.update
      if (!action || action.status < 300) continue
      const id = String(action._id)
      const status = Number(action.status)
      const retryable = status === 429 || status === 503
      const reason = action.error ? `${action.error.type}: ${action.error.reason}` : `HTTP ${status}`
      const seen = refused.get(id)
      if (!seen || (seen.retryable && !retryable)) refused.set(id, { id, status, reason, retryable })
    }
    return [...refused.values()]
  }

  async finish(signal?: AbortSignal) {
    await this.#t.request({ method: 'POST', path: `/${encodeURIComponent(this.#index)}/_refresh` }, signal)
    if (await indexExists(this.#t, this.#nodeIndex, signal))
      await this.#t.request({ method: 'POST', path: `/${encodeURIComponent(this.#nodeIndex)}/_refresh` }, signal)
  }
}

/** Options of `ingestElasticsearch` and `ingestOpenSearch` (with `client` or `node`). */
export interface EngineIngestOptions extends IngestOptions, EngineFields {
  /** The index documents go to (created when missing). */
  index: string
  /** Where the nodes of split documents go (default `<index>-nodes`). */
  nodeIndex?: string
  /** BM25 parameters when the index is created (default 1.5 / 0.75, as `Bm25Index`). */
  k1?: number
  /** See `k1`. */
  b?: number
  /** The vector index options when the index is created (see `CreateIndexOptions.vectorIndex`). */
  vectorIndex?: Record<string, unknown>
}

export const ENGINE_INGEST_KEYS = optionKeys(...INGEST_KEYS, ...ENGINE_KEYS, 'nodeIndex', 'k1', 'b', 'vectorIndex')
