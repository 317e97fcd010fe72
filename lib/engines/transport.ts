import { AbortError, describe, RagrankError, typeError } from '../errors.js'
import { abortable, throwIfAborted } from '../internal/abort.js'
import { hasMethod, isPlainObject } from '../internal/validate.js'

/** A parsed JSON answer of an engine: read field by field, each checked where it is used. */
// biome-ignore lint/suspicious/noExplicitAny: the engines' JSON is dynamic; every field read is checked
export type EngineJson = Record<string, any>

/** One HTTP request to a search engine, through its official client's transport. */
export interface EngineRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD'
  path: string
  body?: unknown
  /** NDJSON lines (`_bulk`, `_msearch`). */
  bulkBody?: unknown[]
  querystring?: Record<string, unknown>
}

/**
 * The one thing the Elasticsearch and OpenSearch adapters need from a client: send a request, get the parsed
 * body or a RagrankError with a code. Built by each entry point from its own client, so the shared modules
 * never import a client.
 */
export interface EngineTransport {
  readonly engine: 'Elasticsearch' | 'OpenSearch'
  request(req: EngineRequest, signal?: AbortSignal): Promise<EngineJson>
  /** Closes the client when ragrank made it (from `node`); a client you passed is yours to close. */
  close(): Promise<void>
}

/** An error a retry may cure: the engine was unreachable, overloaded (429) or unavailable (503). */
export function isRetryable(e: unknown): boolean {
  return e instanceof RagrankError && (e.code === 'ERR_ENGINE_UNREACHABLE' || e.code === 'ERR_ENGINE_OVERLOADED')
}

/** What the clients' errors carry; both clients name their error classes alike. */
interface ClientError {
  name?: string
  message?: string
  meta?: { statusCode?: number; body?: unknown }
  body?: unknown
  statusCode?: number
}

function reasonOf(body: unknown): { type?: string; reason?: string } {
  if (!isPlainObject(body)) return {}
  const error = body.error
  if (typeof error === 'string') return { reason: error }
  if (!isPlainObject(error)) return {}
  const root = Array.isArray(error.root_cause) && isPlainObject(error.root_cause[0]) ? error.root_cause[0] : error
  const caused = isPlainObject(error.caused_by) ? error.caused_by : undefined
  return {
    type: String(root.type ?? error.type ?? ''),
    reason: [root.reason ?? error.reason, caused?.reason].filter((r) => typeof r === 'string').join(': '),
  }
}

/** The most of an engine's error text a message quotes (the whole body stays on `error.body`). */
export const ENGINE_MESSAGE_EXCERPT = 4096

const excerpt = (s: string) =>
  s.length <= ENGINE_MESSAGE_EXCERPT
    ? s
    : `${s.slice(0, ENGINE_MESSAGE_EXCERPT)}... (${s.length - ENGINE_MESSAGE_EXCERPT} more characters)`

/** A status code and error body as the RagrankError users see; `what` says which call failed. */
export function statusError(engine: string, status: number, body: unknown, what: string): RagrankError {
  const { type, reason } = reasonOf(body)
  const detail = excerpt(`${type ? `${type}: ` : ''}${reason || `HTTP ${status}`}`)
  let code: RagrankError['code'] = 'ERR_ENGINE'
  if (status === 429 || status === 503) code = 'ERR_ENGINE_OVERLOADED'
  else if (type === 'index_not_found_exception') code = 'ERR_ENGINE_INDEX_NOT_FOUND'
  else if (/dimension|dims/i.test(detail)) code = 'ERR_ENGINE_DIMENSION'
  return Object.assign(new RagrankError(code, `${engine} ${what} failed (${status}): ${detail}`), {
    status,
    body,
  })
}

/** The headers of an answer or of a client's ResponseError. */
const headersOf = (v: unknown): Record<string, unknown> | undefined => {
  const h = (v as { headers?: unknown } | null)?.headers
  const m = (v as { meta?: { headers?: unknown } } | null)?.meta?.headers
  return isPlainObject(h) ? h : isPlainObject(m) ? m : undefined
}

/**
 * ERR_ENGINE when the server is the other engine. Elasticsearch names itself in `x-elastic-product` on every
 * answer; its client checks that on success only, so a 400 / 404 from OpenSearch would pass for "no such index".
 */
function otherEngine(engine: string, status: number | undefined, headers: Record<string, unknown> | undefined) {
  if (headers === undefined) return undefined
  const elastic = headers['x-elastic-product'] === 'Elasticsearch'
  const wrong =
    engine === 'Elasticsearch' ? !elastic && (status === 400 || status === 404) : engine === 'OpenSearch' && elastic
  return wrong ? wrongEngine(engine, 'it does not answer as one') : undefined
}

/** ERR_ENGINE naming the adapter to use instead. */
function wrongEngine(engine: string, why: string): RagrankError {
  const other = engine === 'Elasticsearch' ? 'OpenSearch' : 'Elasticsearch'
  return new RagrankError(
    'ERR_ENGINE',
    `the server is not ${engine} (${why}): for ${other} use ragrank/${other.toLowerCase()}`,
  )
}

/** A client error as a RagrankError: the caller can tell unreachable, missing index, overload and the rest apart. */
export function clientError(e: unknown, engine: string, what: string): Error {
  if (e instanceof RagrankError) return e
  const err = (e ?? {}) as ClientError
  if (err.name === 'RequestAbortedError') return new AbortError()
  if (err.name === 'ProductNotSupportedError') {
    return Object.assign(wrongEngine(engine, err.message ?? 'the client refused it'), { cause: e })
  }
  if (err.name === 'ConnectionError' || err.name === 'NoLivingConnectionsError' || err.name === 'TimeoutError') {
    return Object.assign(
      new RagrankError(
        'ERR_ENGINE_UNREACHABLE',
        `${engine} is unreachable during ${what}: ${err.message ?? describe(e)}`,
      ),
      { cause: e },
    )
  }
  const status = err.meta?.statusCode ?? err.statusCode
  if (err.name === 'ResponseError' && typeof status === 'number') {
    const wrong = otherEngine(engine, status, headersOf(e))
    if (wrong) return Object.assign(wrong, { cause: e })
    return Object.assign(statusError(engine, status, err.meta?.body ?? err.body, what), { cause: e })
  }
  if (e instanceof Error) return e
  return new RagrankError('ERR_ENGINE', `${engine} ${what} failed with ${describe(e)}`)
}

/** Bounds of a transport's requests. */
export interface TransportBounds {
  /** A request without an answer after this long fails with ERR_ENGINE_UNREACHABLE (undefined: the client's own). */
  timeoutMs?: number
}

/** The first wait after an unreachable engine, doubled while it stays so, up to the longest. */
const FAST_FAIL_MS = { first: 500, longest: 5_000 }

/**
 * The transport of an official client (`@elastic/elasticsearch` 8, `@opensearch-project/opensearch`). The
 * Elasticsearch client takes an AbortSignal; the OpenSearch one returns a promise with `abort()`.
 *
 * A circuit breaker keeps a dead engine cheap: after a request finds it unreachable (refused, reset, timed out),
 * requests fail at once with ERR_ENGINE_UNREACHABLE for a wait (0.5 s, doubled while it stays down, at most 5 s);
 * the first request after the wait tries again, and an answer closes the breaker.
 */
export function clientTransport(
  client: unknown,
  engine: EngineTransport['engine'],
  owned = false,
  bounds: TransportBounds = {},
): EngineTransport {
  const transport = (client as { transport?: unknown } | null)?.transport
  if (!hasMethod(transport, 'request')) {
    throw typeError(`options.client must be a ${engine} client (an object with transport.request)`)
  }
  const t = transport as {
    request(params: unknown, options: unknown): Promise<{ body: unknown; statusCode?: number }> & { abort?: () => void }
  }
  let wait = 0
  let openUntil = 0
  let lastFailure: RagrankError | undefined
  return {
    engine,
    async close() {
      if (owned) await (client as { close?: () => Promise<void> }).close?.()
    },
    async request(req, signal) {
      throwIfAborted(signal)
      const { method, path, body, bulkBody, querystring } = req
      const now = Date.now()
      if (now < openUntil && lastFailure) {
        throw Object.assign(
          new RagrankError(
            'ERR_ENGINE_UNREACHABLE',
            `${engine} is unreachable (failing fast for ${openUntil - now} ms more): ${lastFailure.message}`,
          ),
          { cause: lastFailure },
        )
      }
      const params = { method, path, body, bulkBody, querystring }
      // The caller's signal and the timeout as one signal, its listener and timer removed when the request ends
      // (AbortSignal.any would leave a listener on a long-lived caller signal per request).
      const bound = bounds.timeoutMs === undefined ? undefined : new AbortController()
      let timedOut = false
      const timer =
        bound &&
        setTimeout(() => {
          timedOut = true
          bound.abort()
        }, bounds.timeoutMs)
      const forward = () => bound?.abort()
      if (bound) signal?.addEventListener('abort', forward, { once: true })
      const bounded = bound?.signal ?? signal
      let pending: ReturnType<typeof t.request> | undefined
      // On a timeout the client ends the request itself a second later (aborting it here makes the OpenSearch
      // client throw an uncaught RequestAbortedError).
      const onAbort = () => {
        if (!timedOut) pending?.abort?.()
      }
      bounded?.addEventListener('abort', onAbort, { once: true })
      try {
        // meta: true makes the Elasticsearch client return { body, statusCode } like the OpenSearch one.
        pending = t.request(params, { meta: true, signal: bounded })
        const res = await abortable(pending, bounded)
        const wrong = otherEngine(engine, res.statusCode, headersOf(res))
        if (wrong) throw wrong
        wait = 0
        openUntil = 0
        // Every answer ragrank asks for is a JSON object; anything else reads as an empty one.
        return (isPlainObject(res.body) ? res.body : {}) as EngineJson
      } catch (e) {
        const error =
          timedOut && signal?.aborted !== true
            ? Object.assign(
                new RagrankError(
                  'ERR_ENGINE_UNREACHABLE',
                  `${engine} did not answer ${method} ${path} within ${bounds.timeoutMs} ms (options.timeoutMs)`,
                ),
                { cause: e },
              )
            : clientError(e, engine, `${method} ${path}`)
        if (error instanceof RagrankError && error.code === 'ERR_ENGINE_UNREACHABLE') {
          wait = Math.min(FAST_FAIL_MS.longest, wait === 0 ? FAST_FAIL_MS.first : wait * 2)
          openUntil = Date.now() + wait
          lastFailure = error
        }
        throw error
      } finally {
        clearTimeout(timer)
        signal?.removeEventListener('abort', forward)
        bounded?.removeEventListener('abort', onAbort)
      }
    },
  }
}
