import { RagrankError } from '../errors.js';
/** A parsed JSON answer of an engine: read field by field, each checked where it is used. */
export type EngineJson = Record<string, any>;
/** One HTTP request to a search engine, through its official client's transport. */
export interface EngineRequest {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
    path: string;
    body?: unknown;
    /** NDJSON lines (`_bulk`, `_msearch`). */
    bulkBody?: unknown[];
    querystring?: Record<string, unknown>;
}
/**
 * The one thing the Elasticsearch and OpenSearch adapters need from a client: send a request, get the parsed
 * body or a RagrankError with a code. Built by each entry point from its own client, so the shared modules
 * never import a client.
 */
export interface EngineTransport {
    readonly engine: 'Elasticsearch' | 'OpenSearch';
    request(req: EngineRequest, signal?: AbortSignal): Promise<EngineJson>;
    /** Closes the client when ragrank made it (from `node`); a client you passed is yours to close. */
    close(): Promise<void>;
}
/** An error a retry may cure: the engine was unreachable, overloaded (429) or unavailable (503). */
export declare function isRetryable(e: unknown): boolean;
/** The most of an engine's error text a message quotes (the whole body stays on `error.body`). */
export declare const ENGINE_MESSAGE_EXCERPT = 4096;
/** A status code and error body as the RagrankError users see; `what` says which call failed. */
export declare function statusError(engine: string, status: number, body: unknown, what: string): RagrankError;
/** A client error as a RagrankError: the caller can tell unreachable, missing index, overload and the rest apart. */
export declare function clientError(e: unknown, engine: string, what: string): Error;
/**
 * The transport of an official client (`@elastic/elasticsearch` 8, `@opensearch-project/opensearch`). The
 * Elasticsearch client takes an AbortSignal; the OpenSearch one returns a promise with `abort()`.
 */
export declare function clientTransport(client: unknown, engine: EngineTransport['engine'], owned?: boolean): EngineTransport;
