import { AbortError, describe, RagrankError, typeError } from '../errors.js'
import { abortable } from '../internal/abort.js'
import { hasMethod } from '../internal/validate.js'

/** A result row: its columns are read one by one and checked. */
// biome-ignore lint/suspicious/noExplicitAny: column values are dynamic; each is converted where it is read
export type PgRow = Record<string, any>

/** What ragrank needs of `pg`: a `Pool` (or a connected `Client`) with `query(text, values)`. */
export interface PgQueryable {
  /** Runs one parameterised statement. */
  query(
    text: string,
    values?: unknown[],
  ): Promise<{
    /** The result rows. */
    rows: PgRow[]
  }>
}
/** A `pg.Pool`: ingestion takes a client of its own for each transaction. */
export interface PgPool extends PgQueryable {
  /** A client checked out of the pool. */
  connect(): Promise<
    PgQueryable & {
      /** Returns the client to the pool (an error discards it). */
      release(error?: unknown): void
    }
  >
}

/** SQL identifiers are never taken from values: only plain (optionally schema-qualified) names, quoted. */
export function identifier(v: unknown, name: string): string {
  if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/.test(v))
    throw typeError(`${name} must be a SQL name such as documents or app.documents, got ${describe(v)}`)
  return v
    .split('.')
    .map((p) => `"${p}"`)
    .join('.')
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH'])

/** A `pg` error as a RagrankError with an engine code (SQLSTATE kept in `sqlState`). */
export function pgError(e: unknown, what: string): Error {
  if (e instanceof RagrankError || e instanceof AbortError) return e
  const err = (e ?? {}) as { code?: string; message?: string }
  const code = typeof err.code === 'string' ? err.code : ''
  const message = typeof err.message === 'string' ? err.message : describe(e)
  let rcode: RagrankError['code'] = 'ERR_ENGINE'
  // Class 08 (connection), 57P01-03 (shutdown, crash, starting up) and lost sockets: a restart cures them.
  if (
    UNREACHABLE.has(code) ||
    code.startsWith('08') ||
    /^57P0[123]$/.test(code) ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(
      message,
    )
  )
    rcode = 'ERR_ENGINE_UNREACHABLE'
  else if (code.startsWith('53')) rcode = 'ERR_ENGINE_OVERLOADED'
  else if (code === '42P01') rcode = 'ERR_ENGINE_INDEX_NOT_FOUND'
  else if (code === '42703') rcode = 'ERR_ENGINE_MAPPING'
  else if (/dimensions/.test(message)) rcode = 'ERR_ENGINE_DIMENSION'
  return Object.assign(new RagrankError(rcode, `PostgreSQL ${what} failed: ${message}`), {
    cause: e,
    sqlState: code || undefined,
  })
}

export function checkPool(v: unknown): PgQueryable {
  if (!hasMethod(v, 'query')) throw typeError('options.pool must be a pg Pool or a connected pg Client')
  return v as PgQueryable
}

/** Runs `fn` on one connection (a transaction's `SET LOCAL` must share it): a pooled client, or the client itself. */
export async function onConnection<T>(db: PgQueryable, fn: (c: PgQueryable) => Promise<T>): Promise<T> {
  const pool = db as Partial<PgPool>
  // pg's Pool has totalCount; a Client's connect() opens the connection instead of lending one.
  if (typeof pool.connect === 'function' && 'totalCount' in pool) {
    let client: PgQueryable & { release(error?: unknown): void }
    try {
      client = await pool.connect!()
    } catch (e) {
      throw pgError(e, 'connect')
    }
    // A lost connection also emits 'error' on a checked-out client: without a listener that crashes the
    // process, while the failed query already rejects with the same error.
    const ignore = () => {}
    const events = client as unknown as { on?(e: string, f: () => void): void; off?(e: string, f: () => void): void }
    events.on?.('error', ignore)
    let broken: unknown
    try {
      return await fn(client)
    } catch (e) {
      broken = e
      throw e
    } finally {
      // A connection that failed mid-transaction is dropped rather than returned to the pool.
      events.off?.('error', ignore)
      client.release(broken instanceof RagrankError && broken.code === 'ERR_ENGINE_UNREACHABLE' ? broken : undefined)
    }
  }
  return fn(db)
}

export async function transaction<T>(db: PgQueryable, fn: (c: PgQueryable) => Promise<T>): Promise<T> {
  return onConnection(db, async (c) => {
    await run(c, 'BEGIN', [], 'BEGIN')
    try {
      const out = await fn(c)
      await run(c, 'COMMIT', [], 'COMMIT')
      return out
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {})
      throw e
    }
  })
}

/** A query with errors translated and the caller's signal honoured (pg cannot cancel: the result is dropped). */
export async function run(db: PgQueryable, sql: string, params: unknown[], what: string, signal?: AbortSignal) {
  try {
    return await abortable(db.query(sql, params), signal)
  } catch (e) {
    throw pgError(e, what)
  }
}

/** The columns of a table with their SQL types (`vector(384)`), or undefined when it does not exist. */
export async function tableColumns(
  db: PgQueryable,
  table: string,
  signal?: AbortSignal,
): Promise<Map<string, string> | undefined> {
  const exists = await run(db, 'SELECT to_regclass($1) IS NOT NULL AS ok', [table], 'table lookup', signal)
  if (!exists.rows[0]?.ok) return undefined
  const { rows } = await run(
    db,
    `SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
    [table],
    'column lookup',
    signal,
  )
  return new Map(rows.map((r) => [String(r.attname), String(r.type)]))
}

/** A vector as pgvector's text form, `[1,2,3]` (what `pgvector.toSql` makes). */
export const vectorLiteral = (v: readonly number[]) => `[${v.join(',')}]`

export function jsonOrNull(v: unknown): string | null {
  return v === undefined || v === null ? null : JSON.stringify(v)
}
