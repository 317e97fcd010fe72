import { type DownloadProgress, type HubDeadline } from './hub/context.js';
export { hubCacheDir } from './hub/cache.js';
export type { DownloadProgress, HubDeadline, HubErrorCode } from './hub/context.js';
export { DEFAULT_HUB_MAX_BYTES, DEFAULT_HUB_TIMEOUT_MS, hubDeadline } from './hub/context.js';
/** How a Hugging Face hub id is resolved and downloaded. */
export interface HubOptions {
    /** Branch, tag or 40-hex commit hash. Default `'main'`. */
    revision?: string;
    /** Hub cache folder. Default {@link hubCacheDir}. */
    cacheDir?: string;
    /** Hub base URL. Default `HF_ENDPOINT`, else `https://huggingface.co`. */
    endpoint?: string;
    /** Access token for private or gated repos. Default `HF_TOKEN`, else the token saved by `hf auth login`. */
    token?: string;
    /** Never use the network; resolve from the cache only. Default `HF_HUB_OFFLINE`. */
    offline?: boolean;
    /** Cancels the downloads; the promise rejects with an `AbortError` (a partial file resumes next time). */
    signal?: AbortSignal;
    /** The `fetch` to use (default the global one). */
    fetch?: typeof fetch;
    /**
     * The most bytes a file whose size neither the hub nor the download announces may have
     * (default 2 GiB; `Infinity` for no cap). A file of announced
     * size stops at that size whatever this says.
     */
    maxBytes?: number;
    /**
     * Total time for the requests and downloads of one call (of one model load), in milliseconds
     * (default one hour; `Infinity` for none). On top of the
     * per-request no-progress timeouts (`HF_HUB_ETAG_TIMEOUT`, `HF_HUB_DOWNLOAD_TIMEOUT`), which a
     * server sending a byte now and then never trips. A resumable partial file is kept.
     */
    timeoutMs?: number;
    /** Environment variables to read instead of `process.env`. */
    env?: NodeJS.ProcessEnv;
    /**
     * Called as a file downloads: its repo path, the bytes so far (a resumed download starts at what
     * an earlier one left) and the size when known. Not called for files already in the cache.
     */
    onProgress?: (progress: DownloadProgress) => void;
}
/** What `resolveHubFiles` found in the cache (after any download). */
export interface HubFiles {
    /** The snapshot folder: `<cache>/models--{org}--{name}/snapshots/{commit}`. */
    dir: string;
    /** Requested name -> absolute path inside `dir`; `undefined` for a missing optional file. */
    files: Record<string, string | undefined>;
    /** The commit the files belong to. */
    commit: string;
}
/**
 * Whether `s` reads as a hub model id `org/name` (such as `cross-encoder/ms-marco-MiniLM-L-6-v2`)
 * rather than a local path: exactly two segments of letters, digits, `_`, `.` and `-`, and no
 * file or folder of that name exists relative to the working directory.
 */
export declare function isHubId(s: string): boolean;
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
export declare function resolveHubFiles(repoId: string, required: string[], optional?: string[], options?: HubOptions): Promise<HubFiles>;
/** {@link resolveHubFiles} under a given deadline (one model load's calls share one), else `options.timeoutMs` from now. */
export declare function resolveHubFilesBy(repoId: string, required: string[], optional: string[], options: HubOptions, deadline: HubDeadline | undefined): Promise<HubFiles>;
