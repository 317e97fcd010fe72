/** A result row: its columns are read one by one and checked. */
export type PgRow = Record<string, any>;
/** What ragrank needs of `pg`: a `Pool` (or a connected `Client`) with `query(text, values)`. */
export interface PgQueryable {
    /** Runs one parameterised statement. */
    query(text: string, values?: unknown[]): Promise<{
        /** The result rows. */
        rows: PgRow[];
    }>;
}
/** A `pg.Pool`: ingestion takes a client of its own for each transaction. */
export interface PgPool extends PgQueryable {
    /** A client checked out of the pool. */
    connect(): Promise<PgQueryable & {
        /** Returns the client to the pool (an error discards it). */
        release(error?: unknown): void;
    }>;
}
/** SQL identifiers are never taken from values: only plain (optionally schema-qualified) names, quoted. */
export declare function identifier(v: unknown, name: string): string;
/** A `pg` error as a RagrankError with an engine code (SQLSTATE kept in `sqlState`). */
export declare function pgError(e: unknown, what: string): Error;
export declare function checkPool(v: unknown): PgQueryable;
/** Runs `fn` on one connection (a transaction's `SET LOCAL` must share it): a pooled client, or the client itself. */
export declare function onConnection<T>(db: PgQueryable, fn: (c: PgQueryable) => Promise<T>): Promise<T>;
export declare function transaction<T>(db: PgQueryable, fn: (c: PgQueryable) => Promise<T>): Promise<T>;
/** A query with errors translated and the caller's signal honoured (pg cannot cancel: the result is dropped). */
export declare function run(db: PgQueryable, sql: string, params: unknown[], what: string, signal?: AbortSignal): Promise<{
    /** The result rows. */
    rows: PgRow[];
}>;
/** The columns of a table with their SQL types (`vector(384)`), or undefined when it does not exist. */
export declare function tableColumns(db: PgQueryable, table: string, signal?: AbortSignal): Promise<Map<string, string> | undefined>;
/** A vector as pgvector's text form, `[1,2,3]` (what `pgvector.toSql` makes). */
export declare const vectorLiteral: (v: readonly number[]) => string;
export declare function jsonOrNull(v: unknown): string | null;
