import { RagrankError, typeError } from '../errors.js'
import { isPlainObject, positiveInteger } from '../internal/validate.js'
import { clientTransport, type EngineTransport } from './transport.js'

/** An official client: only its transport is used, so any version with `transport.request` works. */
export interface EngineClient {
  /** The client's transport, through which ragrank sends its requests. */
  transport: {
    /** One HTTP request, as the official clients' `transport.request`. */
    request(params: unknown, options?: unknown): Promise<unknown>
  }
}

/** `client` or `node` (a URL) as the options of every Elasticsearch / OpenSearch adapter take them. */
export interface ClientOptions {
  /** A client you configured (auth, TLS, pools): `new Client({ node })` of the engine's official package. */
  client?: EngineClient
  /** Or the engine's URL, e.g. `http://127.0.0.1:9200`: a client is made with the official package. */
  node?: string
  /**
   * A request without an answer after this long fails with `ERR_ENGINE_UNREACHABLE` (default 30,000 ms for the
   * client made from `node`; a `client` you pass keeps its own timeout unless you set this).
   */
  timeoutMs?: number
}

/** The request timeout of the clients ragrank makes. */
export const DEFAULT_TIMEOUT_MS = 30_000

/** The option keys of `ClientOptions`. */
export const CLIENT_KEYS = ['client', 'node', 'timeoutMs'] as const

/**
 * The transport for `options`: the given client's, or one of a client made from `node` by `load()`, which
 * requires the optional peer dependency only then (so the rest of ragrank never loads a client).
 */
export function transportFor(
  options: unknown,
  engine: EngineTransport['engine'],
  pkg: string,
  load: () => new (o: { node: string; requestTimeout: number; maxRetries: number }) => unknown,
): EngineTransport {
  if (!isPlainObject(options)) throw typeError('options must be an object')
  const timeoutMs =
    options.timeoutMs === undefined ? undefined : positiveInteger(options.timeoutMs, 'options.timeoutMs')
  if (options.client !== undefined) {
    if (options.node !== undefined) throw typeError('give options.client or options.node, not both')
    return clientTransport(options.client, engine, false, { timeoutMs })
  }
  if (typeof options.node !== 'string' || !/^https?:\/\//.test(options.node))
    throw typeError(
      `options.client (a ${engine} client) or options.node (a URL such as http://127.0.0.1:9200) is required`,
    )
  let Client: new (o: { node: string; requestTimeout: number; maxRetries: number }) => unknown
  try {
    Client = load()
  } catch (e) {
    throw Object.assign(
      new RagrankError('ERR_ENGINE', `options.node needs the optional peer dependency ${pkg}: npm install ${pkg}`),
      { cause: e },
    )
  }
  const bounded = timeoutMs ?? DEFAULT_TIMEOUT_MS
  // No retries in the client: ingestion retries with its own backoff and budget, and a search fails fast (the
  // clients' own retries cost 7-9 s a call against a dead Elasticsearch).
  // The client's own timeout a second later: ragrank's fires first, so one abort ends the request.
  const client = new Client({ node: options.node, requestTimeout: bounded + 1_000, maxRetries: 0 })
  return clientTransport(client, engine, true, { timeoutMs: bounded })
}
