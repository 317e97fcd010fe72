import { type EngineTransport } from './transport.js';
/** An official client: only its transport is used, so any version with `transport.request` works. */
export interface EngineClient {
    /** The client's transport, through which ragrank sends its requests. */
    transport: {
        /** One HTTP request, as the official clients' `transport.request`. */
        request(params: unknown, options?: unknown): Promise<unknown>;
    };
}
/** `client` or `node` (a URL) as the options of every Elasticsearch / OpenSearch adapter take them. */
export interface ClientOptions {
    /** A client you configured (auth, TLS, pools): `new Client({ node })` of the engine's official package. */
    client?: EngineClient;
    /** Or the engine's URL, e.g. `http://127.0.0.1:9200`: a client is made with the official package. */
    node?: string;
}
/**
 * The transport for `options`: the given client's, or one of a client made from `node` by `load()`, which
 * requires the optional peer dependency only then (so the rest of ragrank never loads a client).
 */
export declare function transportFor(options: unknown, engine: EngineTransport['engine'], pkg: string, load: () => new (o: {
    node: string;
}) => unknown): EngineTransport;
