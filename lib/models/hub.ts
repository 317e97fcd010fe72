/**
 * Hugging Face hub downloads, sharing the cache of Python's `huggingface_hub`:
 *
 *   <cache>/models--{org}--{name}/
 *     refs/{revision}              the commit hash a branch or tag pointed to when last fetched
 *     blobs/{etag}                 file contents, named by the hub's etag (sha256 for LFS files)
 *     snapshots/{commit}/{path}    relative symlinks to ../../blobs/{etag} (or plain files)
 *     .no_exist/{commit}/{path}    empty markers for files known to be missing at that commit
 *
 * so a model fetched once by Python (or by ragrank) is found again without a download.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, existsSync, readFileSync } from 'node:fs'
import { copyFile, link, mkdir, open, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { AbortError, describe, RagrankError, rangeError, typeError } from '../errors.js'
import { checkSignal } from '../internal/abort.js'
import { optionKeys, optionsObject, readValue, stringArray } from '../internal/validate.js'

/**
 * Codes of hub failures (to be added to `ErrorCode`):
 * - `ERR_MODEL_NOT_FOUND`: the repo, revision or a required file does not exist (HTTP 404, or
 *   401 with the hub's `RepoNotFound`), or offline mode and it is not in the cache.
 * - `ERR_UNAUTHORIZED`: the hub refused access (gated repo, bad or insufficient token).
 * - `ERR_NETWORK`: the endpoint could not be reached, timed out, answered 5xx/429 or not like a
 *   hub, or the download arrived corrupted (size or sha256 mismatch), larger than announced, larger
 *   than `maxBytes` when no size was announced, compressed, or not within `timeoutMs`.
 */
export type HubErrorCode = Extract<
  import('../errors.js').ErrorCode,
  'ERR_MODEL_NOT_FOUND' | 'ERR_UNAUTHORIZED' | 'ERR_NETWORK'
>

/** How a Hugging Face hub id is resolved and downloaded. */
export interface HubOptions {
  /** Branch, tag or 40-hex commit hash. Default `'main'`. */
  revision?: string
  /** Hub cache folder. Default {@link hubCacheDir}. */
  cacheDir?: string
  /** Hub base URL. Default `HF_ENDPOINT`, else `https://huggingface.co`. */
  endpoint?: string
  /** Access token for private or gated repos. Default `HF_TOKEN`, else the token saved by `hf auth login`. */
  token?: string
  /** Never use the network; resolve from the cache only. Default `HF_HUB_OFFLINE`. */
  offline?: boolean
  /** Cancels the downloads; the promise rejects with an `AbortError` (a partial file resumes next time). */
  signal?: AbortSignal
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch
  /**
   * The most bytes a file whose size neither the hub nor the download announces may have
   * (default {@link DEFAULT_HUB_MAX_BYTES}, 2 GiB; `Infinity` for no cap). A file of announced
   * size stops at that size whatever this says.
   */
  maxBytes?: number
  /**
   * Total time for the requests and downloads of one call (of one model load), in milliseconds
   * (default {@link DEFAULT_HUB_TIMEOUT_MS}, one hour; `Infinity` for none). On top of the
   * per-request no-progress timeouts (`HF_HUB_ETAG_TIMEOUT`, `HF_HUB_DOWNLOAD_TIMEOUT`), which a
   * server sending a byte now and then never trips. A resumable partial file is kept.
   */
  timeoutMs?: number
  /** Environment variables to read instead of `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * Called as a file downloads: its repo path, the bytes so far (a resumed download starts at what
   * an earlier one left) and the size when known. Not called for files already in the cache.
   */
  onProgress?: (progress: DownloadProgress) => void
}

/** One report of {@link HubOptions.onProgress}. */
export interface DownloadProgress {
  /** The file's path in the repo, e.g. `onnx/model.onnx_data`. */
  file: string
  /** Bytes on disk so far. */
  loaded: number
  /** The file's size, when the server says it. */
  total: number | undefined
}

/** What `resolveHubFiles` found in the cache (after any download). */
export interface HubFiles {
  /** The snapshot folder: `<cache>/models--{org}--{name}/snapshots/{commit}`. */
  dir: string
  /** Requested name -> absolute path inside `dir`; `undefined` for a missing optional file. */
  files: Record<string, string | undefined>
  /** The commit the files belong to. */
  commit: string
}

const DEFAULT_ENDPOINT = 'https://huggingface.co'
/** The cap of {@link HubOptions.maxBytes}: a file of unknown size stops past 2 GiB. */
export const DEFAULT_HUB_MAX_BYTES = 2 ** 31
/** The default of {@link HubOptions.timeoutMs}: one hour for one call, every file included. */
export const DEFAULT_HUB_TIMEOUT_MS = 3_600_000
const COMMIT_RE = /^[0-9a-f]{40}$/
const SEGMENT = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?'
const HUB_ID_RE = new RegExp(`^${SEGMENT}/${SEGMENT}$`)
const REPO_ID_RE = new RegExp(`^(?:${SEGMENT}/)?${SEGMENT}$`)
const SAFE_BLOB_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/
const MAX_REDIRECTS = 10

const isTrue = (v: string | undefined) => v !== undefined && ['1', 'ON', 'YES', 'TRUE'].includes(v.trim().toUpperCase())
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v)

function hubError(code: HubErrorCode, message: string, extra: { status?: number; cause?: unknown } = {}): RagrankError {
  const err = new RagrankError(code, message)
  if (extra.status !== undefined) Object.assign(err, { status: extra.status })
  if (extra.cause !== undefined) err.cause = extra.cause
  return err
}

/** Failures after which a cached copy may be used instead (unreachable, timed out, 5xx). */
const transient = new WeakSet<Error>()
const transientError = (message: string, extra: { status?: number; cause?: unknown } = {}) => {
  const err = hubError('ERR_NETWORK', message, extra)
  transient.add(err)
  return err
}

function homeDir(env: NodeJS.ProcessEnv): string {
  const fromEnv = process.platform === 'win32' ? env.USERPROFILE : env.HOME
  return nonEmpty(fromEnv) ?? homedir()
}

function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  if (p === '~') return homeDir(env)
  if (p.startsWith('~/') || (process.platform === 'win32' && p.startsWith('~\\'))) return join(homeDir(env), p.slice(2))
  return p
}

function hfHome(env: NodeJS.ProcessEnv): string {
  const home = nonEmpty(env.HF_HOME)
  if (home) return expandHome(home, env)
  const xdg = nonEmpty(env.XDG_CACHE_HOME)
  return join(xdg ? expandHome(xdg, env) : join(homeDir(env), '.cache'), 'huggingface')
}

/**
 * The hub cache folder, as `huggingface_hub` picks it: `HF_HUB_CACHE`, else (legacy)
 * `HUGGINGFACE_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
 * else `~/.cache/huggingface/hub`. A leading `~` is expanded.
 */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (typeof env !== 'object' || env === null)
    throw typeError(`env must be an object like process.env, got ${describe(env)}`)
  return readValue(() => {
    const explicit = nonEmpty(env.HF_HUB_CACHE) ?? nonEmpty(env.HUGGINGFACE_HUB_CACHE)
    return explicit ? expandHome(explicit, env) : join(hfHome(env), 'hub')
  })
}

/**
 * Whether `s` reads as a hub model id `org/name` (such as `cross-encoder/ms-marco-MiniLM-L-6-v2`)
 * rather than a local path: exactly two segments of letters, digits, `_`, `.` and `-`, and no
 * file or folder of that name exists relative to the working directory.
 */
export function isHubId(s: string): boolean {
  if (typeof s !== 'string' || s.length > 96 || !HUB_ID_RE.test(s) || s.includes('--') || s.includes('..')) return false
  return !existsSync(s)
}

function checkRepoId(repoId: unknown): string {
  if (typeof repoId !== 'string') throw typeError('repoId must be a string such as "org/name"')
  if (repoId.length > 96 || !REPO_ID_RE.test(repoId) || repoId.includes('--') || repoId.includes('..')) {
    throw typeError(`invalid hub repo id ${JSON.stringify(repoId)}: expected "org/name" (letters, digits, _ . -)`)
  }
  return repoId
}

/** A relative `/`-separated path that stays inside its folder. */
function checkRelPath(v: unknown, what: string): string {
  if (typeof v !== 'string') throw typeError(`${what} must be a string, got ${describe(v)}`)
  const segments = v.split('/')
  const bad =
    v.length === 0 ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
    /[\\\0-\x1f]/.test(v) ||
    segments.some((s) => s === '' || s === '.' || s === '..') ||
    (process.platform === 'win32' && /[:*?"<>|]/.test(v))
  if (bad) throw typeError(`invalid ${what} ${JSON.stringify(v)}: expected a relative path without . or .. segments`)
  return v
}

function checkEndpoint(v: string): string {
  let url: URL
  try {
    url = new URL(v)
  } catch {
    throw typeError(`invalid hub endpoint ${JSON.stringify(v)}: expected an http(s) URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw typeError(`invalid hub endpoint ${JSON.stringify(v)}: expected an http(s) URL`)
  }
  return v.replace(/\/+$/, '')
}

function seconds(v: string | undefined, fallback: number): number {
  const n = Number(v)
  return v !== undefined && v !== '' && Number.isFinite(n) && n > 0 ? n * 1000 : fallback * 1000
}

function readTokenFile(env: NodeJS.ProcessEnv): string | undefined {
  const file = nonEmpty(env.HF_TOKEN_PATH) ? expandHome(env.HF_TOKEN_PATH!, env) : join(hfHome(env), 'token')
  try {
    return nonEmpty(readFileSync(file, 'utf8').trim())
  } catch {
    return undefined
  }
}

interface Context {
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

interface Metadata {
  commit: string
  etag: string | undefined
  /** The etag came from `x-linked-etag`: an LFS file, whose 64-hex etag is the content's sha256. */
  linked: boolean
  size: number | undefined
  /** Where to GET the bytes (the hub URL, or the CDN URL it redirected to). */
  location: string
}

const fileUrl = (ctx: Context, revision: string, name: string) =>
  `${ctx.endpoint}/${ctx.repoId}/resolve/${encodeURIComponent(revision)}/${name.split('/').map(encodeURIComponent).join('/')}`
const snapshotDir = (ctx: Context, commit: string) => join(ctx.repoDir, 'snapshots', commit)
const pointerPath = (ctx: Context, commit: string, name: string) => join(snapshotDir(ctx, commit), ...name.split('/'))
const noExistPath = (ctx: Context, commit: string, name: string) =>
  join(ctx.repoDir, '.no_exist', commit, ...name.split('/'))
const refPath = (ctx: Context, revision: string) => join(ctx.repoDir, 'refs', ...revision.split('/'))
const tempSuffix = () => `.${process.pid}-${randomBytes(6).toString('hex')}`

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile()
  } catch {
    return false
  }
}

async function readRef(ctx: Context, revision: string): Promise<string | undefined> {
  if (COMMIT_RE.test(revision)) return revision
  try {
    const commit = (await readFile(refPath(ctx, revision), 'utf8')).trim()
    return COMMIT_RE.test(commit) ? commit : undefined
  } catch {
    return undefined
  }
}

function ioError(err: unknown, what: string): Error {
  if (err instanceof RagrankError) return err
  const e = err as NodeJS.ErrnoException
  return new RagrankError('ERR_IO', `${what}: ${e?.message ?? String(err)}`)
}

async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const tmp = path + tempSuffix()
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    throw e
  }
}

/** When one call (or one model load) must be done: `at` in `Date.now()` time, `ms` the timeout it came from. */
export interface HubDeadline {
  readonly at: number
  readonly ms: number
}

function timeoutOption(v: unknown): number {
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

function maxBytesOption(v: unknown): number {
  if (v === undefined) return DEFAULT_HUB_MAX_BYTES
  if (typeof v !== 'number') throw typeError(`options.maxBytes must be a number, got ${describe(v)}`)
  if (!(v === Infinity || (Number.isSafeInteger(v) && v > 0)))
    throw rangeError(`options.maxBytes must be a positive integer (or Infinity), got ${v}`)
  return v
}

/**
 * Aborts a request when the caller's signal fires, when no progress is made for `ms`, or at the
 * call's deadline (progress does not move that one).
 */
class Watchdog {
  readonly controller = new AbortController()
  timedOut = false
  pastDeadline = false
  private readonly timer: NodeJS.Timeout
  private readonly deadlineTimer: NodeJS.Timeout | undefined
  private readonly onAbort = () => this.controller.abort()
  private readonly signal: AbortSignal | undefined
  constructor(
    private readonly ctx: Context,
    readonly ms: number,
  ) {
    this.signal = ctx.signal
    this.timer = setTimeout(() => {
      this.timedOut = true
      this.controller.abort()
    }, ms)
    const left = ctx.deadline.at - Date.now()
    if (left <= 0) {
      this.pastDeadline = true
      this.controller.abort()
    } else if (Number.isFinite(left)) {
      // Past 2^31 - 1 ms setTimeout fires at once; a deadline that far away is no deadline.
      if (left < 2 ** 31 - 1)
        this.deadlineTimer = setTimeout(() => {
          this.pastDeadline = true
          this.controller.abort()
        }, left)
    }
    this.signal?.addEventListener('abort', this.onAbort, { once: true })
  }
  kick() {
    this.timer.refresh()
  }
  dispose() {
    clearTimeout(this.timer)
    clearTimeout(this.deadlineTimer)
    this.signal?.removeEventListener('abort', this.onAbort)
  }
  /** The error to report for a failed request `url`. */
  translate(err: unknown, url: string): Error {
    const ctx = this.ctx
    if (this.signal?.aborted) return new AbortError()
    if (err instanceof RagrankError) return err
    if (this.pastDeadline)
      return transientError(
        `The hub downloads of ${ctx.repoId} did not finish within ${ctx.deadline.ms} ms (options.timeoutMs) ` +
          `waiting for ${url} (hub endpoint ${ctx.endpoint})`,
      )
    if (this.timedOut)
      return transientError(`Timed out after ${this.ms / 1000}s waiting for ${url} (hub endpoint ${ctx.endpoint})`)
    const cause = (err as { cause?: { code?: string; message?: string } })?.cause
    const detail = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err)
    return transientError(`Could not reach the Hugging Face hub at ${ctx.endpoint} (${detail}) fetching ${url}`, {
      cause: err,
    })
  }
}

function requestHeaders(ctx: Context, url: string): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': `ragrank; node/${process.versions.node}`,
    'accept-encoding': 'identity',
  }
  const token = ctx.token()
  // The token goes to the hub only, never to the CDN it redirects downloads to.
  if (token && new URL(url).origin === new URL(ctx.endpoint).origin) headers.authorization = `Bearer ${token}`
  return headers
}

const normalizeEtag = (v: string | null) => (v ? v.trim().replace(/^W\//, '').replace(/^"|"$/g, '') : undefined)

/** `"main"`, or `"main" (commit abc…)` when the request was pinned to the commit main resolved to. */
const revisionLabel = (ctx: Context, used: string) =>
  used === ctx.revision ? JSON.stringify(ctx.revision) : `${JSON.stringify(ctx.revision)} (commit ${used})`

function statusError(ctx: Context, res: Response, name: string, used: string): RagrankError {
  const revision = revisionLabel(ctx, used)
  const status = res.status
  const hubCode = res.headers.get('x-error-code')
  const hubMessage = res.headers.get('x-error-message')
  const said = hubMessage ? ` The hub said: ${hubMessage}` : ''
  const hadToken = ctx.token() !== undefined
  if (hubCode === 'RepoNotFound') {
    const hint = hadToken
      ? ' Check the id, and that the token (HF_TOKEN or options.token) can read it.'
      : ' Check the id; if the repo is private or gated, set HF_TOKEN (or pass options.token).'
    const message = `Model repo ${ctx.repoId} was not found on ${ctx.endpoint} (HTTP ${status}).${hint}${said}`
    return hubError('ERR_MODEL_NOT_FOUND', message, { status })
  }
  if (hubCode === 'RevisionNotFound') {
    const message = `Revision ${revision} of model repo ${ctx.repoId} was not found on ${ctx.endpoint} (HTTP ${status}).${said}`
    return hubError('ERR_MODEL_NOT_FOUND', message, { status })
  }
  if (status === 401 || status === 403) {
    const what =
      hubCode === 'GatedRepo'
        ? `Model repo ${ctx.repoId} is gated: accept its terms on the hub, then use a token of that account`
        : `Access to ${name} of model repo ${ctx.repoId} was denied`
    const hint = hadToken
      ? 'check the token given by HF_TOKEN or options.token'
      : 'set HF_TOKEN (or pass options.token) to a Hugging Face access token'
    return hubError('ERR_UNAUTHORIZED', `${what} (HTTP ${status}): ${hint}.${said}`, { status })
  }
  if (status === 404) {
    const message = `File ${name} was not found in model repo ${ctx.repoId} at revision ${revision} (${ctx.endpoint}).${said}`
    return hubError('ERR_MODEL_NOT_FOUND', message, { status })
  }
  const message = `Unexpected HTTP ${status} from the Hugging Face hub at ${ctx.endpoint} for ${name} of ${ctx.repoId}.${said}`
  return status >= 500 || status === 429
    ? transientError(message, { status })
    : hubError('ERR_NETWORK', message, { status })
}

type Head = { found: true; meta: Metadata } | { found: false; commit: string | undefined; error: RagrankError }

/**
 * HEAD the file: follows same-origin redirects (renamed repos) and stops at a redirect to another
 * origin (the CDN holding LFS files), whose URL becomes the download location. Commit and etag
 * come from the last hub response that carries them.
 */
async function headFile(ctx: Context, name: string, revision: string): Promise<Head> {
  let url = fileUrl(ctx, revision, name)
  let commit: string | undefined
  let etag: string | undefined
  let linked = false
  let size: number | undefined
  let crossOrigin = false
  const dog = new Watchdog(ctx, ctx.metadataTimeout)
  try {
    for (let hop = 0; ; hop++) {
      const init = {
        method: 'HEAD',
        redirect: 'manual',
        headers: requestHeaders(ctx, url),
        signal: dog.controller.signal,
      } as const
      const res = await ctx.fetch(url, init)
      await res.body?.cancel().catch(() => {})
      // Metadata comes from hub responses (they carry x-repo-commit), not from a CDN's.
      const hubCommit = res.headers.get('x-repo-commit')?.trim()
      if (hubCommit) {
        commit = hubCommit
        const linkedEtag = normalizeEtag(res.headers.get('x-linked-etag'))
        etag = linkedEtag ?? normalizeEtag(res.headers.get('etag'))
        linked = linkedEtag !== undefined
        const length =
          res.headers.get('x-linked-size') ?? (res.status === 200 ? res.headers.get('content-length') : null)
        size = length ? Number(length) : undefined
      }
      const location = res.headers.get('location')
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, url)
        if (next.origin === new URL(url).origin) {
          if (hop >= MAX_REDIRECTS) {
            throw transientError(
              `Too many redirects from the Hugging Face hub at ${ctx.endpoint} for ${name} of ${ctx.repoId}`,
            )
          }
          url = next.href
          continue
        }
        url = next.href
        crossOrigin = true
      } else if (
        res.status === 404 &&
        !['RepoNotFound', 'RevisionNotFound'].includes(res.headers.get('x-error-code') ?? '')
      ) {
        return {
          found: false,
          commit: commit && COMMIT_RE.test(commit) ? commit : undefined,
          error: statusError(ctx, res, name, revision),
        }
      } else if (res.status < 200 || res.status >= 300) {
        throw statusError(ctx, res, name, revision)
      }
      if (!commit || !COMMIT_RE.test(commit)) {
        throw transientError(
          `The response of ${ctx.endpoint} for ${name} of ${ctx.repoId} has no valid x-repo-commit header: ` +
            `is ${ctx.endpoint} a Hugging Face hub (check HF_ENDPOINT and any proxy)?`,
        )
      }
      if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) size = undefined
      // Bytes on the hub itself are fetched at the commit, so a branch moving meanwhile cannot mix commits.
      return {
        found: true,
        meta: { commit, etag, linked, size, location: crossOrigin ? url : fileUrl(ctx, commit, name) },
      }
    }
  } catch (e) {
    throw dog.translate(e, url)
  } finally {
    dog.dispose()
  }
}

/** The etag as a blob file name, if it is a safe one (else the blob is named by its sha256). */
const safeEtag = (meta: Metadata) => (meta.etag !== undefined && SAFE_BLOB_RE.test(meta.etag) ? meta.etag : undefined)

/** Blob downloads running in this process, by blob path: concurrent resolves of one file share one. */
const inFlight = new Map<string, Promise<string>>()

/** Downloads `meta.location` into `blobs/`, verified, and returns the blob's path. */
async function download(ctx: Context, name: string, meta: Metadata): Promise<string> {
  const blobs = join(ctx.repoDir, 'blobs')
  const etag = safeEtag(meta)
  try {
    await mkdir(blobs, { recursive: true })
  } catch (e) {
    throw ioError(e, `Cannot create the hub cache folder ${blobs}`)
  }
  if (!etag) return downloadOnce(ctx, name, meta, join(blobs, `download${tempSuffix()}.incomplete`), false)
  const blob = join(blobs, etag)
  const running = inFlight.get(blob)
  if (running) return running
  const job = (async () => {
    const lock = await lockFile(`${blob}.lock`)
    // Another process holds the resumable file: download a private copy instead of sharing it.
    if (!lock) return downloadOnce(ctx, name, meta, join(blobs, `${etag}${tempSuffix()}.incomplete`), false)
    try {
      return await downloadOnce(ctx, name, meta, `${blob}.incomplete`, true)
    } finally {
      await rm(`${blob}.lock`, { force: true }).catch(() => {})
    }
  })()
  inFlight.set(blob, job)
  try {
    return await job
  } finally {
    inFlight.delete(blob)
  }
}

/** Takes `path` as a lock file holding our pid; `false` if a live process holds it (a dead one's is taken over). */
async function lockFile(path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' })
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim())
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) return false
      await rm(path, { force: true }).catch(() => {})
    }
  }
  return false
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Bytes and sha256 of what an earlier, interrupted download left in `path` (none if absent). */
async function partial(path: string): Promise<{ bytes: number; hash: ReturnType<typeof createHash> }> {
  const hash = createHash('sha256')
  let bytes = 0
  try {
    for await (const chunk of createReadStream(path)) {
      hash.update(chunk as Buffer)
      bytes += (chunk as Buffer).byteLength
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, `Cannot read ${path}`)
    return { bytes: 0, hash: createHash('sha256') }
  }
  return { bytes, hash }
}

/** Whether a 206 answers the range asked for: `content-range: bytes {from}-{end}/{total}`. */
function resumes(res: Response, from: number): boolean {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get('content-range')?.trim() ?? '')
  return res.status === 206 && m !== null && Number(m[1]) === from
}

/**
 * Downloads into `tmp` and renames the verified file into place. With `resumable`, `tmp` is the
 * blob's one `.incomplete` file: a network failure, a timeout or an abort keep it, and the next
 * download continues it with a Range request (restarting when the server answers 200, or 416).
 * Otherwise `tmp` is private and always removed on failure.
 */
async function downloadOnce(ctx: Context, name: string, meta: Metadata, tmp: string, resumable: boolean) {
  const blobs = dirname(tmp)
  const etag = safeEtag(meta)
  const url = meta.location
  let { bytes, hash } = resumable ? await partial(tmp) : { bytes: 0, hash: createHash('sha256') }
  if (meta.size !== undefined && bytes > meta.size) ({ bytes, hash } = { bytes: 0, hash: createHash('sha256') })
  const dog = new Watchdog(ctx, ctx.downloadTimeout) // after hashing the partial file: that is no stall
  let keep = false
  let renamed = false
  try {
    const get = async (from: number) => {
      const headers = requestHeaders(ctx, url)
      if (from > 0) headers.range = `bytes=${from}-`
      try {
        return await ctx.fetch(url, { headers, signal: dog.controller.signal })
      } catch (e) {
        throw dog.translate(e, url)
      }
    }
    let res = await get(bytes)
    if (bytes > 0 && res.status === 416) {
      await res.body?.cancel().catch(() => {})
      bytes = 0
      hash = createHash('sha256')
      res = await get(0)
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {})
      throw statusError(ctx, res, name, meta.commit)
    }
    // The body would be decoded before it is counted (fetch inflates gzip): 10 MB on the wire can
    // be gigabytes on disk. identity was asked for; anything else is refused unread.
    const encoding = res.headers.get('content-encoding')?.trim().toLowerCase()
    if (encoding && encoding !== 'identity') {
      await res.body.cancel().catch(() => {})
      throw hubError(
        'ERR_NETWORK',
        `Download of ${name} of ${ctx.repoId} from ${url} was sent with content-encoding ${JSON.stringify(encoding)}; ` +
          'only identity is accepted (a proxy that compresses must pass hub downloads through unchanged)',
      )
    }
    if (bytes > 0 && !resumes(res, bytes)) {
      bytes = 0 // the server sent the whole file: start over
      hash = createHash('sha256')
    }
    const start = bytes
    const sent = contentLength(res, start)
    const total = meta.size ?? sent
    if (total !== undefined && sent !== undefined && sent > total) {
      await res.body.cancel().catch(() => {})
      throw hubError('ERR_NETWORK', oversize(ctx, name, url, total, `a content-length of ${sent}`))
    }
    // A size announced by the hub or the download bounds the body; else the cap of options.maxBytes.
    const limit = total ?? ctx.maxBytes
    const file = await open(tmp, start > 0 ? 'a' : resumable ? 'w' : 'wx').catch((e: unknown) => {
      throw ioError(e, `Cannot write to the hub cache folder ${blobs}`)
    })
    keep = resumable
    const reader = res.body.getReader()
    try {
      progress(ctx, name, bytes, total)
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>
        try {
          chunk = await reader.read()
        } catch (e) {
          throw dog.translate(e, url)
        }
        if (chunk.done) break
        dog.kick()
        if (bytes + chunk.value.byteLength > limit) {
          keep = false // nothing past the bound is resumed from
          const received = `received ${bytes + chunk.value.byteLength} bytes`
          throw hubError(
            'ERR_NETWORK',
            total === undefined
              ? `Download of ${name} of ${ctx.repoId} from ${url} has no announced size and passed the cap of ` +
                  `${limit} bytes (${received}): raise options.maxBytes for a file this large`
              : oversize(ctx, name, url, total, received),
          )
        }
        hash.update(chunk.value)
        bytes += chunk.value.byteLength
        await file.write(chunk.value).catch((e: unknown) => {
          throw ioError(e, `Cannot write ${tmp}`)
        })
        progress(ctx, name, bytes, total)
      }
    } finally {
      reader.cancel().catch(() => {})
      await file.close().catch(() => {})
    }
    if (ctx.signal?.aborted) throw new AbortError()
    const digest = hash.digest('hex')
    if (total !== undefined && Number.isFinite(total) && bytes !== total) {
      keep = resumable && bytes < total // a short read resumes; too many bytes cannot
      throw transientError(
        `Download of ${name} of ${ctx.repoId} from ${url} is incomplete: got ${bytes} bytes, expected ${total}`,
      )
    }
    if (meta.linked && etag && /^[0-9a-f]{64}$/.test(etag) && digest !== etag) {
      keep = false
      throw transientError(
        `Download of ${name} of ${ctx.repoId} from ${url} is corrupted: sha256 ${digest}, expected ${etag}`,
      )
    }
    const blob = join(blobs, etag ?? digest)
    try {
      await rename(tmp, blob)
      renamed = true
    } catch (e) {
      // Another process may hold a finished copy (renaming over it can fail on Windows): keep that.
      if (!(await isFile(blob))) throw ioError(e, `Cannot store ${blob}`)
      keep = false
    }
    return blob
  } finally {
    dog.dispose()
    if (!renamed && !keep) await rm(tmp, { force: true }).catch(() => {})
  }
}

const oversize = (ctx: Context, name: string, url: string, total: number, got: string) =>
  `Download of ${name} of ${ctx.repoId} from ${url} is larger than announced: announced ${total} bytes, ${got}; stopped`

/** The size of the whole file from a 200's content-length, or a 206's `start + content-length`. */
function contentLength(res: Response, start: number): number | undefined {
  const n = Number(res.headers.get('content-length') ?? Number.NaN)
  return Number.isFinite(n) ? start + n : undefined
}

/** Reports download progress; a throwing callback fails the download (the partial file is kept). */
function progress(ctx: Context, file: string, loaded: number, total: number | undefined): void {
  if (!ctx.onProgress) return
  try {
    ctx.onProgress({ file, loaded, total })
  } catch (e) {
    throw Object.assign(new RagrankError('ERR_CALLBACK', `options.onProgress threw: ${describe(e)}`), { cause: e })
  }
}

/** Points `snapshots/{commit}/{name}` at the blob: relative symlink, else hard link, else copy. */
async function linkPointer(blob: string, pointer: string): Promise<void> {
  try {
    await mkdir(dirname(pointer), { recursive: true })
  } catch (e) {
    throw ioError(e, `Cannot create the snapshot folder ${dirname(pointer)}`)
  }
  const attempts: Array<(tmp: string) => Promise<void>> = [
    (tmp) => symlink(relative(dirname(pointer), blob), tmp, 'file'),
    (tmp) => link(blob, tmp),
    (tmp) => copyFile(blob, tmp),
  ]
  let last: unknown
  for (const make of attempts) {
    const tmp = pointer + tempSuffix()
    try {
      await make(tmp)
      await rename(tmp, pointer) // atomic: concurrent writers leave one valid pointer
      return
    } catch (e) {
      last = e
      await rm(tmp, { force: true }).catch(() => {})
    }
  }
  throw ioError(last, `Cannot create ${pointer}`)
}

function notCachedError(ctx: Context, revision: string, why: string, missing?: string): RagrankError {
  const what = missing ? `File ${missing} of model ${ctx.repoId}` : `Model ${ctx.repoId}`
  return hubError(
    'ERR_MODEL_NOT_FOUND',
    `${what} (revision ${JSON.stringify(revision)}) is not in the Hugging Face cache at ${ctx.cacheDir}, and ${why}. ` +
      'Download it once with network access (without HF_HUB_OFFLINE / options.offline), ' +
      'or pass the path of a local model folder instead of a hub id.',
  )
}

/** Resolves from the cache alone; `why` says why the network is not used. */
async function resolveFromCache(ctx: Context, required: string[], optional: string[], why: string): Promise<HubFiles> {
  const commit = await readRef(ctx, ctx.revision)
  if (!commit) throw notCachedError(ctx, ctx.revision, why)
  const files: Record<string, string | undefined> = {}
  for (const name of required) {
    const p = pointerPath(ctx, commit, name)
    if (!(await isFile(p))) throw notCachedError(ctx, ctx.revision, why, name)
    files[name] = p
  }
  for (const name of optional) {
    const p = pointerPath(ctx, commit, name)
    files[name] = (await isFile(p)) ? p : undefined
  }
  return { dir: snapshotDir(ctx, commit), files, commit }
}

async function resolveOnline(ctx: Context, required: string[], optional: string[]): Promise<HubFiles> {
  const files: Record<string, string | undefined> = {}
  const requiredSet = new Set(required)
  // A commit-hash revision is immutable: cached files need no request. Otherwise the first HEAD
  // learns the revision's current commit and every later file is fetched at that commit, so all
  // files come from one snapshot even if the branch moves meanwhile.
  let commit = COMMIT_RE.test(ctx.revision) ? ctx.revision : undefined
  for (const name of [...required, ...optional]) {
    if (ctx.signal?.aborted) throw new AbortError()
    const isRequired = requiredSet.has(name)
    if (commit) {
      const cached = pointerPath(ctx, commit, name)
      if (await isFile(cached)) {
        files[name] = cached
        continue
      }
      if (!isRequired && (await isFile(noExistPath(ctx, commit, name)))) {
        files[name] = undefined
        continue
      }
    }
    let head: Head
    try {
      head = await headFile(ctx, name, commit ?? ctx.revision)
    } catch (e) {
      if (commit === undefined && e instanceof Error && transient.has(e)) {
        // Unreachable hub: use the cached snapshot of the revision, as huggingface_hub does.
        try {
          return await resolveFromCache(ctx, required, optional, 'the hub could not be used')
        } catch {
          throw hubError(
            'ERR_NETWORK',
            `${e.message}. Model ${ctx.repoId} (revision ${JSON.stringify(ctx.revision)}) ` +
              `is not fully in the Hugging Face cache at ${ctx.cacheDir} either; ` +
              'retry with network access, or pass the path of a local model folder instead of a hub id.',
            { status: (e as { status?: number }).status, cause: e },
          )
        }
      }
      throw e
    }
    if (!head.found) {
      if (head.commit) {
        commit ??= head.commit
        if (head.commit === commit) {
          const marker = noExistPath(ctx, commit, name)
          await mkdir(dirname(marker), { recursive: true })
            .then(() => writeFile(marker, ''))
            .catch(() => {})
        }
      }
      if (isRequired) throw head.error
      files[name] = undefined
      continue
    }
    const { meta } = head
    if (commit && meta.commit !== commit) {
      const message = `The hub at ${ctx.endpoint} answered commit ${meta.commit} for ${name} of ${ctx.repoId}, asked for ${commit}`
      throw hubError('ERR_NETWORK', message)
    }
    commit = meta.commit
    const pointer = pointerPath(ctx, commit, name)
    if (!(await isFile(pointer))) {
      // A blob of that etag (same content, another commit or file) needs no download.
      const etag = safeEtag(meta)
      const known = etag ? join(ctx.repoDir, 'blobs', etag) : undefined
      const blob = known && (await isFile(known)) ? known : await download(ctx, name, meta)
      if (ctx.signal?.aborted) throw new AbortError()
      await linkPointer(blob, pointer)
    }
    files[name] = pointer
  }
  if (!commit) {
    const names = [...required, ...optional].join(', ')
    const message = `None of ${names} exist in model repo ${ctx.repoId} at revision ${JSON.stringify(ctx.revision)} (${ctx.endpoint})`
    throw hubError('ERR_MODEL_NOT_FOUND', message)
  }
  if (commit !== ctx.revision) {
    const ref = refPath(ctx, ctx.revision)
    const current = await readFile(ref, 'utf8').catch(() => undefined)
    if (current?.trim() !== commit) {
      await writeFileAtomic(ref, commit).catch((e: unknown) => {
        throw ioError(e, `Cannot write ${ref}`)
      })
    }
  }
  return { dir: snapshotDir(ctx, commit), files, commit }
}

const HUB_KEYS = optionKeys(
  'revision',
  'cacheDir',
  'endpoint',
  'token',
  'offline',
  'signal',
  'fetch',
  'env',
  'onProgress',
  'maxBytes',
  'timeoutMs',
)

/**
 * Resolves files of a hub model repo to local paths in the Hugging Face cache, downloading what
 * is missing. `optional` files may be absent from the repo (their path is then `undefined`).
 *
 * Online, a branch or tag costs one HEAD request to learn its current commit; files already in
 * that commit's snapshot are not downloaded again, and a commit-hash revision whose files are
 * cached makes no request at all. If the hub cannot be reached (or answers 5xx), the cached
 * snapshot of the revision is used when it has every required file. Offline
 * (`HF_HUB_OFFLINE=1` or `options.offline`), only the cache is read.
 */
export async function resolveHubFiles(
  repoId: string,
  required: string[],
  optional: string[] = [],
  options: HubOptions = {},
): Promise<HubFiles> {
  return resolveHubFilesBy(repoId, required, optional, options, undefined)
}

/** {@link resolveHubFiles} under a given deadline (one model load's calls share one), else `options.timeoutMs` from now. */
export async function resolveHubFilesBy(
  repoId: string,
  required: string[],
  optional: string[],
  options: HubOptions,
  deadline: HubDeadline | undefined,
): Promise<HubFiles> {
  checkRepoId(repoId)
  const req = stringArray(required, 'required').map((f) => checkRelPath(f, 'file name'))
  const opt = stringArray(optional ?? [], 'optional').map((f) => checkRelPath(f, 'file name'))
  const o = optionsObject(options, 'options', HUB_KEYS) as HubOptions
  const env = o.env ?? process.env
  if (typeof env !== 'object' || env === null) throw typeError('options.env must be an object')
  const revision = checkRelPath(o.revision ?? 'main', 'revision')
  checkSignal(o.signal)
  if (o.fetch !== undefined && typeof o.fetch !== 'function') throw typeError('options.fetch must be a function')
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw typeError('options.onProgress must be a function')
  }
  const maxBytes = maxBytesOption(o.maxBytes)
  const timeout = hubDeadline(o.timeoutMs) // checked even when a deadline is given
  for (const k of ['cacheDir', 'endpoint', 'token'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'string') throw typeError(`options.${k} must be a string`)
  }
  const requiredSet = new Set(req)
  const requiredList = [...requiredSet]
  const optionalList = [...new Set(opt)].filter((f) => !requiredSet.has(f))
  if (requiredList.length + optionalList.length === 0) throw rangeError('resolveHubFiles needs at least one file name')
  if (o.signal?.aborted) throw new AbortError()

  const cacheDir = resolve(o.cacheDir ?? hubCacheDir(env))
  let token: string | undefined
  let tokenLoaded = false
  const ctx: Context = {
    repoId,
    revision,
    endpoint: checkEndpoint(o.endpoint ?? nonEmpty(env.HF_ENDPOINT) ?? DEFAULT_ENDPOINT),
    cacheDir,
    repoDir: join(cacheDir, ['models', ...repoId.split('/')].join('--')),
    signal: o.signal,
    fetch: o.fetch ?? globalThis.fetch,
    token: () => {
      if (!tokenLoaded) {
        tokenLoaded = true
        if (o.token !== undefined) token = nonEmpty(o.token.trim())
        else if (isTrue(env.HF_HUB_DISABLE_IMPLICIT_TOKEN)) token = undefined
        else
          token = nonEmpty(env.HF_TOKEN?.trim()) ?? nonEmpty(env.HUGGING_FACE_HUB_TOKEN?.trim()) ?? readTokenFile(env)
      }
      return token
    },
    metadataTimeout: seconds(env.HF_HUB_ETAG_TIMEOUT, 10),
    downloadTimeout: seconds(env.HF_HUB_DOWNLOAD_TIMEOUT, 10),
    maxBytes,
    deadline: deadline ?? timeout,
    onProgress: o.onProgress,
  }
  const offline = o.offline ?? isTrue(env.HF_HUB_OFFLINE || env.TRANSFORMERS_OFFLINE)
  if (offline) return resolveFromCache(ctx, requiredList, optionalList, 'offline mode is on')
  return resolveOnline(ctx, requiredList, optionalList)
}
