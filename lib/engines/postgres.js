import { AbortError, describe, RagrankError, typeError } from '../errors.js';
import { abortable } from '../internal/abort.js';
import { hasMethod } from '../internal/validate.js';
/** SQL identifiers are never taken from values: only plain (optionally schema-qualified) names, quoted. */
export function identifier(v, name) {
    if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/.test(v))
        throw typeError(`${name} must be a SQL name such as documents or app.documents, got ${describe(v)}`);
    return v
        .split('.')
        .map((p) => `"${p}"`)
        .join('.');
}
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);
/** A `pg` error as a RagrankError with an engine code (SQLSTATE kept in `sqlState`). */
export function pgError(e, what) {
    if (e instanceof RagrankError || e instanceof AbortError)
        return e;
    const err = (e ?? {});
    const code = typeof err.code === 'string' ? err.code : '';
    const message = typeof err.message === 'string' ? err.message : describe(e);
    let rcode = 'ERR_ENGINE';
    // Class 08 (connection), 57P01-03 (shutdown, crash, starting up) and lost sockets: a restart cures them.
    if (UNREACHABLE.has(code) ||
        code.startsWith('08') ||
        /^57P0[123]$/.test(code) ||
        /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message))
        rcode = 'ERR_ENGINE_UNREACHABLE';
    else if (code.startsWith('53'))
        rcode = 'ERR_ENGINE_OVERLOADED';
    else if (code === '42P01')
        rcode = 'ERR_ENGINE_INDEX_NOT_FOUND';
    else if (code === '42703')
        rcode = 'ERR_ENGINE_MAPPING';
    else if (/dimensions/.test(message))
        rcode = 'ERR_ENGINE_DIMENSION';
    return Object.assign(new RagrankError(rcode, `PostgreSQL ${what} failed: ${message}`), {
        cause: e,
        sqlState: code || undefined,
    });
}
export function checkPool(v) {
    if (!hasMethod(v, 'query'))
        throw typeError('options.pool must be a pg Pool or a connected pg Client');
    return v;
}
/** Runs `fn` on one connection (a transaction's `SET LOCAL` must share it): a pooled client, or the client itself. */
export async function onConnection(db, fn) {
    const pool = db;
    // pg's Pool has totalCount; a Client's connect() opens the connection instead of lending one.
    if (typeof pool.connect === 'function' && 'totalCount' in pool) {
        let client;
        try {
            client = await pool.connect();
        }
        catch (e) {
            throw pgError(e, 'connect');
        }
        // A lost connection also emits 'error' on a checked-out client: without a listener that crashes the
        // process, while the failed query already rejects with the same error.
        const ignore = () => { };
        const events = client;
        events.on?.('error', ignore);
        let broken;
        try {
            return await fn(client);
        }
        catch (e) {
            broken = e;
            throw e;
        }
        finally {
            // A connection that failed mid-transaction is dropped rather than returned to the pool.
            events.off?.('error', ignore);
            client.release(broken instanceof RagrankError && broken.code === 'ERR_ENGINE_UNREACHABLE' ? broken : undefined);
        }
    }
    return fn(db);
}
export async function transaction(db, fn) {
    return onConnection(db, async (c) => {
        await run(c, 'BEGIN', [], 'BEGIN');
        try {
            const out = await fn(c);
            await run(c, 'COMMIT', [], 'COMMIT');
            return out;
        }
        catch (e) {
            await c.query('ROLLBACK').catch(() => { });
            throw e;
        }
    });
}
/** A query with errors translated and the caller's signal honoured (pg cannot cancel: the result is dropped). */
export async function run(db, sql, params, what, signal) {
    try {
        return await abortable(db.query(sql, params), signal);
    }
    catch (e) {
        throw pgError(e, what);
    }
}
/** The columns of a table with their SQL types (`vector(384)`), or undefined when it does not exist. */
export async function tableColumns(db, table, signal) {
    const exists = await run(db, 'SELECT to_regclass($1) IS NOT NULL AS ok', [table], 'table lookup', signal);
    if (!exists.rows[0]?.ok)
        return undefined;
    const { rows } = await run(db, `SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`, [table], 'column lookup', signal);
    return new Map(rows.map((r) => [String(r.attname), String(r.type)]));
}
/** A vector as pgvector's text form, `[1,2,3]` (what `pgvector.toSql` makes). */
export const vectorLiteral = (v) => `[${v.join(',')}]`;
export function jsonOrNull(v) {
    return v === undefined || v === null ? null : JSON.stringify(v);
}
