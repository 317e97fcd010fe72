/**
 * `ragrank/pgvector`: PostgreSQL + pgvector as a dense first stage (kNN over an HNSW index, filters as SQL
 * over a jsonb metadata column), a node store for `AutoMergingRetriever`, and bulk ingestion. Needs the
 * optional peer dependency `pg` only when you pass `connectionString` instead of a `pool`. PostgreSQL's
 * full-text `ts_rank` has no IDF, so it is not offered as BM25: pair this retriever with a `Bm25Index` or an
 * engine's BM25 in a `HybridRetriever`.
 * @packageDocumentation
 */
import { RagrankError, typeError } from '../errors.js'
import { packageRequire } from '../internal/package-require.js'
import { isArray, isPlainObject, optionKeys, optionsObject, positiveInteger } from '../internal/validate.js'
import {
  checkQuery,
  retrieveOptions,
  type RetrieveOptions,
  type Retriever,
  type ScoredDocument,
} from '../retrieval/retriever.js'
import type { EmbedFunction, QueryEmbedder } from '../retrieval/vector-retriever.js'
import type { NodeStore, StoredNode } from '../splitting/auto-merging.js'
import { filterSql } from './filter-sql.js'
import {
  INGEST_KEYS,
  type IngestOptions,
  type IngestRecord,
  type IngestReport,
  type IngestSink,
  ingestInto,
} from './ingest.js'
import {
  checkPool,
  identifier,
  jsonOrNull,
  onConnection,
  type PgQueryable,
  run,
  tableColumns,
  transaction,
  vectorLiteral,
} from './postgres.js'
import { embedQuery, queryEmbedding, vectorArray } from './query-vector.js'

/** `pool` (a `pg.Pool` or connected `pg.Client`) or `connectionString`. */
export interface PgConnectionOptions {
  /** A `pg.Pool` or connected `pg.Client` you configured (it stays open on `close()`). */
  pool?: PgQueryable
  /** e.g. `postgres://user@127.0.0.1:5432/db`: a `pg.Pool` is made (needs the `pg` package). */
  connectionString?: string
  /**
   * For the pool made from `connectionString`: connecting, and each query, fail with `ERR_ENGINE_UNREACHABLE`
   * after this long without an answer (default 30,000 ms). A `pool` you pass keeps its own settings.
   */
  timeoutMs?: number
}

/** The table layout `createPgvectorTable` makes and ingestion writes. */
export interface PgColumns {
  /** Default `documents`. */
  table?: string
  /** Defaults: `id`, `text`, `meta` (jsonb), `embedding` (vector). */
  idColumn?: string
  /** See `idColumn`. */
  textColumn?: string
  /** See `idColumn`. */
  metaColumn?: string
  /** See `idColumn`. */
  vectorColumn?: string
}

/** The pool made from `connectionString`: ragrank's to close (a pool you pass stays yours). */
const OWNED = new WeakSet<object>()

async function release(db: PgQueryable): Promise<void> {
  if (OWNED.has(db)) await (db as { end?: () => Promise<void> }).end?.()
}

function connection(o: Record<string, unknown>): PgQueryable {
  if (o.pool !== undefined) {
    if (o.connectionString !== undefined) throw typeError('give options.pool or options.connectionString, not both')
    if (o.timeoutMs !== undefined) throw typeError('options.timeoutMs applies to the pool made from connectionString')
    return checkPool(o.pool)
  }
  if (typeof o.connectionString !== 'string')
    throw typeError('options.pool (a pg Pool) or options.connectionString (postgres://...) is required')
  const timeoutMs = o.timeoutMs === undefined ? 30_000 : positiveInteger(o.timeoutMs, 'options.timeoutMs')
  let Pool: new (c: { connectionString: string; connectionTimeoutMillis: number; query_timeout: number }) => PgQueryable
  try {
    Pool = packageRequire('pg').Pool
  } catch (e) {
    throw Object.assign(
      new RagrankError('ERR_ENGINE', 'options.connectionString needs the optional peer dependency pg: npm install pg'),
      { cause: e },
    )
  }
  const pool = new Pool({
    connectionString: o.connectionString,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  })
  // Idle connections lost to a server restart emit 'error' on the pool; the next query reconnects.
  ;(pool as unknown as { on?(e: string, f: () => void): void }).on?.('error', () => {})
  OWNED.add(pool)
  return pool
}

interface Columns {
  table: string
  tableName: string
  id: string
  text: string
  meta: string
  vector: string
  vectorName: string
}

function columns(o: Record<string, unknown>): Columns {
  const tableName = (o.table as string | undefined) ?? 'documents'
  const vectorName = (o.vectorColumn as string | undefined) ?? 'embedding'
  return {
    table: identifier(tableName, 'options.table'),
    tableName,
    id: identifier(o.idColumn ?? 'id', 'options.idColumn'),
    text: identifier(o.textColumn ?? 'text', 'options.textColumn'),
    meta: identifier(o.metaColumn ?? 'meta', 'options.metaColumn'),
    vector: identifier(vectorName, 'options.vectorColumn'),
    vectorName,
  }
}

const CONNECTION_KEYS = [
  'pool',
  'connectionString',
  'timeoutMs',
  'table',
  'idColumn',
  'textColumn',
  'metaColumn',
  'vectorColumn',
]

/** The dimension of the vector column: ERR_ENGINE_INDEX_NOT_FOUND / ERR_ENGINE_MAPPING when it is not there. */
async function vectorDims(db: PgQueryable, c: Columns, signal?: AbortSignal): Promise<number> {
  const cols = await tableColumns(db, c.tableName, signal)
  if (!cols) throw new RagrankError('ERR_ENGINE_INDEX_NOT_FOUND', `PostgreSQL table ${c.tableName} does not exist`)
  const type = cols.get(c.vectorName.split('.').pop()!)
  const m = type ? /^vector\((\d+)\)$/.exec(type) : null
  if (!m)
    throw new RagrankError(
      'ERR_ENGINE_MAPPING',
      `PostgreSQL table ${c.tableName} has no vector(n) column ${c.vectorName}${type ? ` (it is ${type})` : ''}`,
    )
  return Number(m[1])
}

/** Options of `new PgvectorRetriever(options)`. */
export interface PgvectorRetrieverOptions extends PgConnectionOptions, PgColumns {
  /** Embeds text queries (an `Embedder`, or a function); `retrieveByVector` needs none. */
  embed?: QueryEmbedder | EmbedFunction
  /** HNSW candidate list (`hnsw.ef_search`, default max(100, 2 * topK)): larger is slower and closer to exact. */
  efSearch?: number
}

/**
 * A `Retriever` over a pgvector table: cosine kNN through the HNSW index, `filter` as a parameterised SQL
 * condition over the id and jsonb metadata columns (with pgvector's iterative scan, so a selective filter
 * still fills `topK`). Scores are cosine similarities.
 *
 * @example
 * ```ts
 * import pg from 'pg'
 * import { Bm25Index, Embedder, HybridRetriever } from 'ragrank'
 * import { ingestPgvector, PgvectorRetriever } from 'ragrank/pgvector'
 *
 * const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' })
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2')
 * await ingestPgvector({ pool, table: 'documents', documents, embedder }) // creates the table and HNSW index
 * const dense = new PgvectorRetriever({ pool, table: 'documents', embed: embedder })
 * // PostgreSQL's ts_rank is not BM25: pair the dense stage with a Bm25Index
 * const hybrid = new HybridRetriever({ retrievers: [bm25, dense] })
 * await hybrid.retrieve('how do tides work', { topK: 5, filter: { meta: { tenant: 'acme' } } })
 * ```
 */
export class PgvectorRetriever implements Retriever {
  readonly supportsFilter = true
  readonly #db: PgQueryable
  readonly #c: Columns
  readonly #embed?: EmbedFunction
  readonly #efSearch?: number
  #dims?: Promise<number>

  constructor(options: PgvectorRetrieverOptions) {
    const o = optionsObject(options, 'options', optionKeys(...CONNECTION_KEYS, 'embed', 'efSearch'))
    this.#db = connection(o)
    this.#c = columns(o)
    this.#embed = queryEmbedding(o.embed)
    this.#efSearch = o.efSearch === undefined ? undefined : positiveInteger(o.efSearch, 'options.efSearch')
  }

  /** Ends the pool ragrank made from `connectionString` (a `pool` you passed stays open). */
  close(): Promise<void> {
    return release(this.#db)
  }

  /** Embeds `query` with `embed` and returns the `topK` nearest rows that match `filter`. */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredDocument[]> {
    checkQuery(query)
    const { topK, signal, filter } = retrieveOptions(options)
    const where = filterSql(filter, { id: this.#c.id, meta: this.#c.meta }, 3)
    if (!this.#embed) throw typeError('options.embed is needed to search with a text query (or use retrieveByVector)')
    return this.#search(await embedQuery(this.#embed, query, signal), topK, where, signal)
  }

  /** The `topK` nearest rows to a vector you computed, that match `filter`. */
  async retrieveByVector(
    vector: Float32Array | readonly number[],
    options?: RetrieveOptions,
  ): Promise<ScoredDocument[]> {
    const { topK, signal, filter } = retrieveOptions(options)
    const where = filterSql(filter, { id: this.#c.id, meta: this.#c.meta }, 3)
    return this.#search(vectorArray(vector, 'vector'), topK, where, signal)
  }

  async #search(vector: number[], topK: number, where: { sql: string; params: unknown[] }, signal?: AbortSignal) {
    this.#dims ??= vectorDims(this.#db, this.#c, signal)
    this.#dims.catch(() => {
      this.#dims = undefined
    })
    const dims = await this.#dims
    if (dims !== vector.length)
      throw new RagrankError(
        'ERR_ENGINE_DIMENSION',
        `PostgreSQL column ${this.#c.vectorName} holds ${dims}-dimensional vectors, the query vector has ${vector.length}`,
      )
    const { table, id, text, meta, vector: v } = this.#c
    const sql = `SELECT ${id} AS id, ${text} AS text, ${meta} AS meta, ${v} <=> $1::vector AS distance FROM ${table}
      WHERE ${v} IS NOT NULL AND ${where.sql} ORDER BY ${v} <=> $1::vector LIMIT $2`
    const ef = Math.max(topK, this.#efSearch ?? Math.max(100, 2 * topK))
    const { rows } = await onConnection(this.#db, (c) =>
      transactionRows(c, sql, [vectorLiteral(vector), topK, ...where.params], ef, signal),
    )
    return rows.map((r) => {
      const out: ScoredDocument = { id: String(r.id), score: 1 - Number(r.distance) }
      if (typeof r.text === 'string') out.text = r.text
      if (isPlainObject(r.meta)) out.meta = r.meta
      return out
    })
  }
}

/** ef_search and the iterative scan hold for this query only (SET LOCAL inside its own transaction). */
async function transactionRows(c: PgQueryable, sql: string, params: unknown[], ef: number, signal?: AbortSignal) {
  return transaction(c, async (t) => {
    await run(
      t,
      `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'strict_order', true)`,
      [String(ef)],
      'search settings',
      signal,
    )
    return run(t, sql, params, 'kNN search', signal)
  })
}

/** The nodes ingestion stored (table `<table>_nodes` by default), fetched by id in one query. */
export class PgvectorNodeStore implements NodeStore {
  readonly #db: PgQueryable
  readonly #table: string
  constructor(options: PgConnectionOptions & { table?: string }) {
    const o = optionsObject(options, 'options', optionKeys('pool', 'connectionString', 'timeoutMs', 'table'))
    this.#db = connection(o)
    this.#table = identifier(o.table ?? 'documents_nodes', 'options.table')
  }

  /** Ends the pool ragrank made from `connectionString`. */
  close(): Promise<void> {
    return release(this.#db)
  }

  /** The stored nodes for `ids`, in order; undefined where an id is unknown. */
  async get(ids: string[]): Promise<(StoredNode | undefined)[]> {
    if (!isArray(ids) || !ids.every((id) => typeof id === 'string')) throw typeError('ids must be an array of strings')
    if (ids.length === 0) return []
    const { rows } = await run(
      this.#db,
      `SELECT id, text, meta, node FROM ${this.#table} WHERE id = ANY($1::text[])`,
      [ids],
      'node lookup',
    )
    const byId = new Map<string, StoredNode>(
      rows.map((r) => [String(r.id), { id: String(r.id), text: r.text, meta: r.meta ?? {}, ...r.node } as StoredNode]),
    )
    return ids.map((id) => byId.get(id))
  }
}

export interface PgvectorTableOptions extends PgConnectionOptions, PgColumns {
  /** Vector dimension of the `vector(dims)` column and its HNSW (cosine) index. */
  dims: number
  /** Also a node table for split documents (default false; named `<table>_nodes`). */
  nodes?: boolean
  /** The node table's name (default `<table>_nodes`). */
  nodeTable?: string
}

async function createTable(db: PgQueryable, c: Columns, dims: number, signal?: AbortSignal) {
  const { table, id, text, meta, vector } = c
  const base = c.tableName.replace(/\W/g, '_')
  await run(db, 'CREATE EXTENSION IF NOT EXISTS vector', [], 'CREATE EXTENSION vector', signal)
  await run(
    db,
    `CREATE TABLE IF NOT EXISTS ${table} (${id} text PRIMARY KEY, ${text} text NOT NULL, ${meta} jsonb, ${vector} vector(${dims}))`,
    [],
    'CREATE TABLE',
    signal,
  )
  await run(
    db,
    `CREATE INDEX IF NOT EXISTS "${base}_hnsw" ON ${table} USING hnsw (${vector} vector_cosine_ops)`,
    [],
    'CREATE INDEX',
    signal,
  )
  // No GIN index on meta: the filters test fields (`meta -> 'f' @> v`, which keeps ragrank's array semantics), a
  // form such an index does not serve; filtered kNN walks the HNSW index (iterative scan) instead.
}

async function createNodeTable(db: PgQueryable, nodeTable: string, signal?: AbortSignal) {
  await run(
    db,
    `CREATE TABLE IF NOT EXISTS ${nodeTable} (id text PRIMARY KEY, text text NOT NULL, meta jsonb, node jsonb NOT NULL)`,
    [],
    'CREATE TABLE',
    signal,
  )
}

/** Creates (if missing) the table, its HNSW and jsonb indexes, and optionally the node table. */
export async function createPgvectorTable(options: PgvectorTableOptions): Promise<void> {
  const o = optionsObject(options, 'options', optionKeys(...CONNECTION_KEYS, 'dims', 'nodes', 'nodeTable'))
  const c = columns(o)
  const dims = positiveInteger(o.dims, 'options.dims')
  const nodeTable =
    o.nodes === true || o.nodeTable !== undefined
      ? identifier(o.nodeTable ?? `${c.tableName}_nodes`, 'options.nodeTable')
      : undefined
  const db = connection(o)
  try {
    await createTable(db, c, dims)
    if (nodeTable) await createNodeTable(db, nodeTable)
  } finally {
    await release(db)
  }
}

/** Where ingestion writes in PostgreSQL: one transaction per batch, `ON CONFLICT (id) DO UPDATE` (idempotent). */
class PgSink implements IngestSink {
  readonly engine = 'PostgreSQL'
  readonly #db: PgQueryable
  readonly #c: Columns
  readonly #nodeTable: string
  constructor(db: PgQueryable, c: Columns, nodeTable: string) {
    this.#db = db
    this.#c = c
    this.#nodeTable = nodeTable
  }

  async prepare(info: { dims?: number; nodes: boolean }, signal?: AbortSignal) {
    const cols = await tableColumns(this.#db, this.#c.tableName, signal)
    if (!cols) {
      if (info.dims === undefined)
        throw typeError('ingestPgvector needs vectors (documents[].vector or options.embedder) to create a table')
      await createTable(this.#db, this.#c, info.dims, signal)
    } else if (info.dims !== undefined) {
      const dims = await vectorDims(this.#db, this.#c, signal)
      if (dims !== info.dims)
        throw new RagrankError(
          'ERR_ENGINE_DIMENSION',
          `PostgreSQL column ${this.#c.vectorName} holds ${dims}-dimensional vectors, the documents have ${info.dims}`,
        )
    }
    if (info.nodes) await createNodeTable(this.#db, this.#nodeTable, signal)
  }

  async write(records: IngestRecord[], signal?: AbortSignal) {
    const docs = records.filter((r) => r.searchable)
    const nodes = records.filter((r) => r.node)
    const { table, id, text, meta, vector } = this.#c
    await transaction(this.#db, async (t) => {
      if (docs.length > 0)
        await run(
          t,
          `INSERT INTO ${table} (${id}, ${text}, ${meta}, ${vector})
           SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::vector[])
           ON CONFLICT (${id}) DO UPDATE SET ${text} = EXCLUDED.${text}, ${meta} = EXCLUDED.${meta}, ${vector} = EXCLUDED.${vector}`,
          [
            docs.map((r) => r.id),
            docs.map((r) => r.text),
            docs.map((r) => jsonOrNull(r.meta)),
            docs.map((r) => (r.vector ? vectorLiteral(r.vector) : null)),
          ],
          'bulk insert',
          signal,
        )
      if (nodes.length > 0)
        await run(
          t,
          `INSERT INTO ${this.#nodeTable} (id, text, meta, node) SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[])
           ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, meta = EXCLUDED.meta, node = EXCLUDED.node`,
          [
            nodes.map((r) => r.id),
            nodes.map((r) => r.text),
            nodes.map((r) => jsonOrNull(r.meta)),
            nodes.map((r) => JSON.stringify(r.node)),
          ],
          'bulk insert of nodes',
          signal,
        )
    })
    // A statement is all or nothing: a bad row fails the batch (thrown), never a part of it.
    return []
  }

  async finish() {}
}

export interface PgvectorIngestOptions extends IngestOptions, PgConnectionOptions, PgColumns {
  /** Where the nodes of split documents go (default `<table>_nodes`). */
  nodeTable?: string
}

/**
 * Indexes documents into a pgvector table (see `IngestOptions`; `analysis` does not apply): the table is
 * created when missing, an existing one must have a vector column of the documents' dimension.
 */
export async function ingestPgvector(options: PgvectorIngestOptions): Promise<IngestReport> {
  const keys = optionKeys(...[...INGEST_KEYS].filter((k) => k !== 'analysis'), ...CONNECTION_KEYS, 'nodeTable')
  const o = optionsObject(options, 'options', keys)
  const c = columns(o)
  const nodeTable = identifier(o.nodeTable ?? `${c.tableName}_nodes`, 'options.nodeTable')
  const db = connection(o)
  try {
    return await ingestInto(new PgSink(db, c, nodeTable), o as unknown as IngestOptions, keys)
  } finally {
    await release(db)
  }
}

export * from './ingest-exports.js'
export type { PgQueryable, PgPool, PgRow } from './postgres.js'
