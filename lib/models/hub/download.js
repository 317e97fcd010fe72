/** Downloads into `blobs/`: resumable partial files, the bounds of a body, sha256 checks, one request per blob. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AbortError, describe, RagrankError } from '../../errors.js';
import { isFile, tempSuffix } from './cache.js';
import { hubError, ioError, transientError } from './context.js';
import { lockFile } from './lock.js';
import { requestHeaders, statusError, Watchdog } from './request.js';
export const SAFE_BLOB_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;
/** The etag as a blob file name, if it is a safe one (else the blob is named by its sha256). */
export const safeEtag = (meta) => meta.etag !== undefined && SAFE_BLOB_RE.test(meta.etag) ? meta.etag : undefined;
/** Blob downloads running in this process, by blob path: concurrent resolves of one file share one. */
export const inFlight = new Map();
/** Downloads `meta.location` into `blobs/`, verified, and returns the blob's path. */
export async function download(ctx, name, meta) {
    const blobs = join(ctx.repoDir, 'blobs');
    const etag = safeEtag(meta);
    try {
        await mkdir(blobs, { recursive: true });
    }
    catch (e) {
        throw ioError(e, `Cannot create the hub cache folder ${blobs}`);
    }
    if (!etag)
        return downloadOnce(ctx, name, meta, join(blobs, `download${tempSuffix()}.incomplete`), false);
    const blob = join(blobs, etag);
    const running = inFlight.get(blob);
    if (running)
        return running;
    const job = (async () => {
        const lock = await lockFile(`${blob}.lock`);
        // Another process holds the resumable file: download a private copy instead of sharing it.
        if (!lock)
            return downloadOnce(ctx, name, meta, join(blobs, `${etag}${tempSuffix()}.incomplete`), false);
        try {
            return await downloadOnce(ctx, name, meta, `${blob}.incomplete`, true);
        }
        finally {
            await rm(`${blob}.lock`, { force: true }).catch(() => { });
        }
    })();
    inFlight.set(blob, job);
    try {
        return await job;
    }
    finally {
        inFlight.delete(blob);
    }
}
/** Bytes and sha256 of what an earlier, interrupted download left in `path` (none if absent). */
export async function partial(path) {
    const hash = createHash('sha256');
    let bytes = 0;
    try {
        for await (const chunk of createReadStream(path)) {
            hash.update(chunk);
            bytes += chunk.byteLength;
        }
    }
    catch (e) {
        if (e.code !== 'ENOENT')
            throw ioError(e, `Cannot read ${path}`);
        return { bytes: 0, hash: createHash('sha256') };
    }
    return { bytes, hash };
}
/** Whether a 206 answers the range asked for: `content-range: bytes {from}-{end}/{total}`. */
export function resumes(res, from) {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get('content-range')?.trim() ?? '');
    return res.status === 206 && m !== null && Number(m[1]) === from;
}
/**
 * Downloads into `tmp` and renames the verified file into place. With `resumable`, `tmp` is the
 * blob's one `.incomplete` file: a network failure, a timeout or an abort keep it, and the next
 * download continues it with a Range request (restarting when the server answers 200, or 416).
 * Otherwise `tmp` is private and always removed on failure.
 */
export async function downloadOnce(ctx, name, meta, tmp, resumable) {
    const blobs = dirname(tmp);
    const etag = safeEtag(meta);
    const url = meta.location;
    let { bytes, hash } = resumable ? await partial(tmp) : { bytes: 0, hash: createHash('sha256') };
    if (meta.size !== undefined && bytes > meta.size)
        ({ bytes, hash } = { bytes: 0, hash: createHash('sha256') });
    const dog = new Watchdog(ctx, ctx.downloadTimeout); // after hashing the partial file: that is no stall
    let keep = false;
    let renamed = false;
    try {
        const get = async (from) => {
            const headers = requestHeaders(ctx, url);
            if (from > 0)
                headers.range = `bytes=${from}-`;
            try {
                return await ctx.fetch(url, { headers, signal: dog.controller.signal });
            }
            catch (e) {
                throw dog.translate(e, url);
            }
        };
        let res = await get(bytes);
        if (bytes > 0 && res.status === 416) {
            await res.body?.cancel().catch(() => { });
            bytes = 0;
            hash = createHash('sha256');
            res = await get(0);
        }
        if (!res.ok || !res.body) {
            await res.body?.cancel().catch(() => { });
            throw statusError(ctx, res, name, meta.commit);
        }
        // The body would be decoded before it is counted (fetch inflates gzip): 10 MB on the wire can
        // be gigabytes on disk. identity was asked for; anything else is refused unread.
        const encoding = res.headers.get('content-encoding')?.trim().toLowerCase();
        if (encoding && encoding !== 'identity') {
            await res.body.cancel().catch(() => { });
            throw hubError('ERR_NETWORK', `Download of ${name} of ${ctx.repoId} from ${url} was sent with content-encoding ${JSON.stringify(encoding)}; ` +
                'only identity is accepted (a proxy that compresses must pass hub downloads through unchanged)');
        }
        if (bytes > 0 && !resumes(res, bytes)) {
            bytes = 0; // the server sent the whole file: start over
            hash = createHash('sha256');
        }
        const start = bytes;
        const sent = contentLength(res, start);
        const total = meta.size ?? sent;
        if (total !== undefined && sent !== undefined && sent > total) {
            await res.body.cancel().catch(() => { });
            throw hubError('ERR_NETWORK', oversize(ctx, name, url, total, `a content-length of ${sent}`));
        }
        // A size announced by the hub or the download bounds the body; else the cap of options.maxBytes.
        const limit = total ?? ctx.maxBytes;
        const file = await open(tmp, start > 0 ? 'a' : resumable ? 'w' : 'wx').catch((e) => {
            throw ioError(e, `Cannot write to the hub cache folder ${blobs}`);
        });
        keep = resumable;
        const reader = res.body.getReader();
        try {
            progress(ctx, name, bytes, total);
            for (;;) {
                let chunk;
                try {
                    chunk = await reader.read();
                }
                catch (e) {
                    throw dog.translate(e, url);
                }
                if (chunk.done)
                    break;
                dog.kick();
                if (bytes + chunk.value.byteLength > limit) {
                    keep = false; // nothing past the bound is resumed from
                    const received = `received ${bytes + chunk.value.byteLength} bytes`;
                    throw hubError('ERR_NETWORK', total === undefined
                        ? `Download of ${name} of ${ctx.repoId} from ${url} has no announced size and passed the cap of ` +
                            `${limit} bytes (${received}): raise options.maxBytes for a file this large`
                        : oversize(ctx, name, url, total, received));
                }
                hash.update(chunk.value);
                bytes += chunk.value.byteLength;
                await file.write(chunk.value).catch((e) => {
                    throw ioError(e, `Cannot write ${tmp}`);
                });
                progress(ctx, name, bytes, total);
            }
        }
        finally {
            reader.cancel().catch(() => { });
            await file.close().catch(() => { });
        }
        if (ctx.signal?.aborted)
            throw new AbortError();
        const digest = hash.digest('hex');
        if (total !== undefined && Number.isFinite(total) && bytes !== total) {
            keep = resumable && bytes < total; // a short read resumes; too many bytes cannot
            throw transientError(`Download of ${name} of ${ctx.repoId} from ${url} is incomplete: got ${bytes} bytes, expected ${total}`);
        }
        if (meta.linked && etag && /^[0-9a-f]{64}$/.test(etag) && digest !== etag) {
            keep = false;
            throw transientError(`Download of ${name} of ${ctx.repoId} from ${url} is corrupted: sha256 ${digest}, expected ${etag}`);
        }
        const blob = join(blobs, etag ?? digest);
        try {
            await rename(tmp, blob);
            renamed = true;
        }
        catch (e) {
            // Another process may hold a finished copy (renaming over it can fail on Windows): keep that.
            if (!(await isFile(blob)))
                throw ioError(e, `Cannot store ${blob}`);
            keep = false;
        }
        return blob;
    }
    finally {
        dog.dispose();
        if (!renamed && !keep)
            await rm(tmp, { force: true }).catch(() => { });
    }
}
export const oversize = (ctx, name, url, total, got) => `Download of ${name} of ${ctx.repoId} from ${url} is larger than announced: announced ${total} bytes, ${got}; stopped`;
/** The size of the whole file from a 200's content-length, or a 206's `start + content-length`. */
export function contentLength(res, start) {
    const n = Number(res.headers.get('content-length') ?? Number.NaN);
    return Number.isFinite(n) ? start + n : undefined;
}
/** Reports download progress; a throwing callback fails the download (the partial file is kept). */
export function progress(ctx, file, loaded, total) {
    if (!ctx.onProgress)
        return;
    try {
        ctx.onProgress({ file, loaded, total });
    }
    catch (e) {
        throw Object.assign(new RagrankError('ERR_CALLBACK', `options.onProgress threw: ${describe(e)}`), { cause: e });
    }
}
