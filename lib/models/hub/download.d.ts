/** Downloads into `blobs/`: resumable partial files, the bounds of a body, sha256 checks, one request per blob. */
import { createHash } from 'node:crypto';
import { type Context, type Metadata } from './context.js';
export declare const SAFE_BLOB_RE: RegExp;
/** The etag as a blob file name, if it is a safe one (else the blob is named by its sha256). */
export declare const safeEtag: (meta: Metadata) => string | undefined;
/** Blob downloads running in this process, by blob path: concurrent resolves of one file share one. */
export declare const inFlight: Map<string, Promise<string>>;
/** Downloads `meta.location` into `blobs/`, verified, and returns the blob's path. */
export declare function download(ctx: Context, name: string, meta: Metadata): Promise<string>;
/** Bytes and sha256 of what an earlier, interrupted download left in `path` (none if absent). */
export declare function partial(path: string): Promise<{
    bytes: number;
    hash: ReturnType<typeof createHash>;
}>;
/** Whether a 206 answers the range asked for: `content-range: bytes {from}-{end}/{total}`. */
export declare function resumes(res: Response, from: number): boolean;
/**
 * Downloads into `tmp` and renames the verified file into place. With `resumable`, `tmp` is the
 * blob's one `.incomplete` file: a network failure, a timeout or an abort keep it, and the next
 * download continues it with a Range request (restarting when the server answers 200, or 416).
 * Otherwise `tmp` is private and always removed on failure.
 */
export declare function downloadOnce(ctx: Context, name: string, meta: Metadata, tmp: string, resumable: boolean): Promise<string>;
export declare const oversize: (ctx: Context, name: string, url: string, total: number, got: string) => string;
/** The size of the whole file from a 200's content-length, or a 206's `start + content-length`. */
export declare function contentLength(res: Response, start: number): number | undefined;
/** Reports download progress; a throwing callback fails the download (the partial file is kept). */
export declare function progress(ctx: Context, file: string, loaded: number, total: number | undefined): void;
