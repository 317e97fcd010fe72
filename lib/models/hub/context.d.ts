/** What the hub modules share: one call's context, file metadata, the hub's errors and its bounds. */
import { RagrankError } from '../../errors.js';
/**
 * Codes of hub failures (a part of `ErrorCode`):
 * - `ERR_MODEL_NOT_FOUND`: the repo, revision or a required file does not exist (HTTP 404, or
 *   401 with the hub's `RepoNotFound`), or offline mode and it is not in the cache.
 * - `ERR_UNAUTHORIZED`: the hub refused access (gated repo, bad or insufficient token).
 * - `ERR_NETWORK`: the endpoint could not be reached, timed out, answered 5xx/429 or not like a
 *   hub, or the download arrived corrupted (size or sha256 mismatch), larger than announced, larger
 *   than `maxBytes` when no size was announced, compressed, or not within `timeoutMs`.
 */
export type HubErrorCode = Extract<import('../../errors.js').ErrorCode, 'ERR_MODEL_NOT_FOUND' | 'ERR_UNAUTHORIZED' | 'ERR_NETWORK'>;
/** One report of {@link HubOptions.onProgress}. */
export interface DownloadProgress {
    /** The file's path in the repo, e.g. `onnx/model.onnx_data`. */
    file: string;
    /** Bytes on disk so far. */
    loaded: number;
    /** The file's size, when the server says it. */
    total: number | undefined;
}
/** The cap of {@link HubOptions.maxBytes}: a file of unknown size stops past 2 GiB. */
export declare const DEFAULT_HUB_MAX_BYTES: number;
/** The default of {@link HubOptions.timeoutMs}: one hour for one call, every file included. */
export declare const DEFAULT_HUB_TIMEOUT_MS = 3600000;
export declare function hubError(code: HubErrorCode, message: string, extra?: {
    status?: number;
    cause?: unknown;
}): RagrankError;
/** Failures after which a cached copy may be used instead (unreachable, timed out, 5xx). */
export declare const transient: WeakSet<Error>;
export declare const transientError: (message: string, extra?: {
    status?: number;
    cause?: unknown;
}) => RagrankError;
export interface Context {
    repoId: string;
    revision: string;
    endpoint: string;
    cacheDir: string;
    repoDir: string;
    signal: AbortSignal | undefined;
    fetch: typeof fetch;
    token: () => string | undefined;
    metadataTimeout: number;
    downloadTimeout: number;
    maxBytes: number;
    deadline: HubDeadline;
    onProgress: ((progress: DownloadProgress) => void) | undefined;
}
export interface Metadata {
    commit: string;
    etag: string | undefined;
    /** The etag came from `x-linked-etag`: an LFS file, whose 64-hex etag is the content's sha256. */
    linked: boolean;
    size: number | undefined;
    /** Where to GET the bytes (the hub URL, or the CDN URL it redirected to). */
    location: string;
}
export declare function ioError(err: unknown, what: string): Error;
/** When one call (or one model load) must be done: `at` in `Date.now()` time, `ms` the timeout it came from. */
export interface HubDeadline {
    readonly at: number;
    readonly ms: number;
}
export declare function timeoutOption(v: unknown): number;
/** The deadline of `options.timeoutMs` from now: one for every `resolveHubFiles` of a model load. */
export declare function hubDeadline(timeoutMs: unknown): HubDeadline;
export declare function maxBytesOption(v: unknown): number;
