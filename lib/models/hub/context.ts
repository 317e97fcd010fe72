/** What the hub modules share: one call's context, file metadata, the hub's errors and its bounds. */
import { describe, RagrankError, rangeError, typeError } from '../../errors.js'

/**
 * Codes of hub failures (a part of `ErrorCode`):
 * - `ERR_MODEL_NOT_FOUND`: the repo, revision or a required file does not exist (HTTP 404, or
 *   401 with the hub's `RepoNotFound`), or offline mode and it is not in the cache.
 * - `ERR_UNAUTHORIZED`: the hub refused access (gated repo, bad or insufficient token).
 * - `ERR_NETWORK`: the endpoint could not be reached, timed out, answered 5xx/429 or not like a
 *   hub, or the download arrived corrupted (size or sha256 mismatch), larger than announced, larger
 *   than `maxBytes` when no size was announced, compressed, or not within `timeoutMs`.
 */
export type HubErrorCode = Extract<
  import('../../errors.js').ErrorCode,
  'ERR_MODEL_NOT_FOUND' | 'ERR_UNAUTHORIZED' | 'ERR_NETWORK'
>

/** One report of {@link HubOptions.onProgress}. */
export interface DownloadProgress {
  /** The file's path in the repo, e.g. `onnx/model.onnx_data`. */
  file: string
  /** Bytes on disk so far. */
  loaded: number
  /** The file's size, when the server says it. */
  total: number | undefined
}

/** The cap of {@link HubOptions.maxBytes}: a file of unknown size stops past 2 GiB. */
export const DEFAULT_HUB_MAX_BYTES = 2 ** 31
/** The default of {@link HubOptions.timeoutMs}: one hour for one call, every file included. */
export const DEFAULT_HUB_TIMEOUT_MS = 3_600_000

export function hubError(
  code: HubErrorCode,
  message: string,
  extra: { status?: number; cause?: unknown } = {},
): RagrankError {
  const err = new RagrankError(code, message)
  if (extra.status !== undefined) Object.assign(err, { status: extra.status })
  if (extra.cause !== undefined) err.cause = extra.cause
  return err
}

/** Failures after which a cached copy may be used instead (unreachable, timed out, 5xx). */
export const transient = new WeakSet<Error>()
export const transientError = (message: string, extra: { status?: number; cause?: unknown } = {}) => {
  const err = hubError('ERR_NETWORK', message, extra)
  transient.add(err)
  return err
}

export interface Context {
  repoId: string
  revision: string
  endpoint: string
  cacheDir: string
  repoDir: string
  signal: AbortSignal | undefined
  fetch: typeof fetch
  token: () => string | undefined
  metadataTimeout: number
  downloadTimeout: number
  maxBytes: number
  deadline: HubDeadline
  onProgress: ((progress: DownloadProgress) => void) | undefined
}

export interface Metadata {
  commit: string
  etag: string | undefined
  /** The etag came from `x-linked-etag`: an LFS file, whose 64-hex etag is the content's sha256. */
  linked: boolean
  size: number | undefined
  /** Where to GET the bytes (the hub URL, or the CDN URL it redirected to). */
  location: string
}

export function ioError(err: unknown, what: string): Error {
  if (err instanceof RagrankError) return err
  const e = err as NodeJS.ErrnoException
  return new RagrankError('ERR_IO', `${what}: ${e?.message ?? String(err)}`)
}

/** When one call (or one model load) must be done: `at` in `Date.now()` time, `ms` the timeout it came from. */
export interface HubDeadline {
  readonly at: number
  readonly ms: number
}

export function timeoutOption(v: unknown): number {
  if (v === undefined) return DEFAULT_HUB_TIMEOUT_MS
  if (typeof v !== 'number') throw typeError(`options.timeoutMs must be a number, got ${describe(v)}`)
  if (!(v > 0)) throw rangeError(`options.timeoutMs must be a positive number of milliseconds, got ${v}`)
  return v
}

/** The deadline of `options.timeoutMs` from now: one for every `resolveHubFiles` of a model load. */
export function hubDeadline(timeoutMs: unknown): HubDeadline {
  const ms = timeoutOption(timeoutMs)
  return { at: Date.now() + ms, ms }
}

export function maxBytesOption(v: unknown): number {
  if (v === undefined) return DEFAULT_HUB_MAX_BYTES
  if (typeof v !== 'number') throw typeError(`options.maxBytes must be a number, got ${describe(v)}`)
  if (!(v === Infinity || (Number.isSafeInteger(v) && v > 0)))
    throw rangeError(`options.maxBytes must be a positive integer (or Infinity), got ${v}`)
  return v
}
