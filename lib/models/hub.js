/**
 * Hugging Face hub downloads into the cache of Python's `huggingface_hub` (its layout:
 * `hub/cache.ts`): the public client, which resolves a repo's files at one commit, with the
 * downloads (`hub/download.ts`), locks (`hub/lock.ts`) and request plumbing (`hub/request.ts`)
 * in their own modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AbortError, describe, rangeError, typeError } from '../errors.js';
import { checkSignal } from '../internal/abort.js';
import { optionKeys, optionsObject, stringArray } from '../internal/validate.js';
import { COMMIT_RE, expandHome, hfHome, hubCacheDir, isFile, linkPointer, noExistPath, nonEmpty, pointerPath, readRef, refPath, snapshotDir, writeFileAtomic, } from './hub/cache.js';
import { hubDeadline, hubError, ioError, maxBytesOption, transient, transientError, } from './hub/context.js';
import { download, safeEtag } from './hub/download.js';
import { requestHeaders, statusError, Watchdog } from './hub/request.js';
export { hubCacheDir } from './hub/cache.js';
export { DEFAULT_HUB_MAX_BYTES, DEFAULT_HUB_TIMEOUT_MS, hubDeadline } from './hub/context.js';
const DEFAULT_ENDPOINT = 'https://huggingface.co';
const SEGMENT = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?';
const HUB_ID_RE = new RegExp(`^${SEGMENT}/${SEGMENT}$`);
const REPO_ID_RE = new RegExp(`^(?:${SEGMENT}/)?${SEGMENT}$`);
const MAX_REDIRECTS = 10;
const isTrue = (v) => v !== undefined && ['1', 'ON', 'YES', 'TRUE'].includes(v.trim().toUpperCase());
/**
 * Whether `s` reads as a hub model id `org/name` (such as `cross-encoder/ms-marco-MiniLM-L-6-v2`)
 * rather than a local path: exactly two segments of letters, digits, `_`, `.` and `-`, and no
 * file or folder of that name exists relative to the working directory.
 */
export function isHubId(s) {
    if (typeof s !== 'string' || s.length > 96 || !HUB_ID_RE.test(s) || s.includes('--') || s.includes('..'))
        return false;
    return !existsSync(s);
}
function checkRepoId(repoId) {
    if (typeof repoId !== 'string')
        throw typeError('repoId must be a string such as "org/name"');
    if (repoId.length > 96 || !REPO_ID_RE.test(repoId) || repoId.includes('--') || repoId.includes('..')) {
        throw typeError(`invalid hub repo id ${JSON.stringify(repoId)}: expected "org/name" (letters, digits, _ . -)`);
    }
    return repoId;
}
/** A relative `/`-separated path that stays inside its folder. */
function checkRelPath(v, what) {
    if (typeof v !== 'string')
        throw typeError(`${what} must be a string, got ${describe(v)}`);
    const segments = v.split('/');
    const bad = v.length === 0 ||
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
        /[\\\0-\x1f]/.test(v) ||
        segments.some((s) => s === '' || s === '.' || s === '..') ||
        (process.platform === 'win32' && /[:*?"<>|]/.test(v));
    if (bad)
        throw typeError(`invalid ${what} ${JSON.stringify(v)}: expected a relative path without . or .. segments`);
    return v;
}
function checkEndpoint(v) {
    let url;
    try {
        url = new URL(v);
    }
    catch {
        throw typeError(`invalid hub endpoint ${JSON.stringify(v)}: expected an http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw typeError(`invalid hub endpoint ${JSON.stringify(v)}: expected an http(s) URL`);
    }
    return v.replace(/\/+$/, '');
}
function seconds(v, fallback) {
    const n = Number(v);
    return v !== undefined && v !== '' && Number.isFinite(n) && n > 0 ? n * 1000 : fallback * 1000;
}
function readTokenFile(env) {
    const file = nonEmpty(env.HF_TOKEN_PATH) ? expandHome(env.HF_TOKEN_PATH, env) : join(hfHome(env), 'token');
    try {
        return nonEmpty(readFileSync(file, 'utf8').trim());
    }
    catch {
        return undefined;
    }
}
const fileUrl = (ctx, revision, name) => `${ctx.endpoint}/${ctx.repoId}/resolve/${encodeURIComponent(revision)}/${name.split('/').map(encodeURIComponent).join('/')}`;
const normalizeEtag = (v) => (v ? v.trim().replace(/^W\//, '').replace(/^"|"$/g, '') : undefined);
/**
 * HEAD the file: follows same-origin redirects (renamed repos) and stops at a redirect to another
 * origin (the CDN holding LFS files), whose URL becomes the download location. Commit and etag
 * come from the last hub response that carries them.
 */
async function headFile(ctx, name, revision) {
    let url = fileUrl(ctx, revision, name);
    let commit;
    let etag;
    let linked = false;
    let size;
    let crossOrigin = false;
    const dog = new Watchdog(ctx, ctx.metadataTimeout);
    try {
        for (let hop = 0;; hop++) {
            const init = {
                method: 'HEAD',
                redirect: 'manual',
                headers: requestHeaders(ctx, url),
                signal: dog.controller.signal,
            };
            const res = await ctx.fetch(url, init);
            await res.body?.cancel().catch(() => { });
            // Metadata comes from hub responses (they carry x-repo-commit), not from a CDN's.
            const hubCommit = res.headers.get('x-repo-commit')?.trim();
            if (hubCommit) {
                commit = hubCommit;
                const linkedEtag = normalizeEtag(res.headers.get('x-linked-etag'));
                etag = linkedEtag ?? normalizeEtag(res.headers.get('etag'));
                linked = linkedEtag !== undefined;
                const length = res.headers.get('x-linked-size') ?? (res.status === 200 ? res.headers.get('content-length') : null);
                size = length ? Number(length) : undefined;
            }
            const location = res.headers.get('location');
            if (res.status >= 300 && res.status < 400 && location) {
                const next = new URL(location, url);
                if (next.origin === new URL(url).origin) {
                    if (hop >= MAX_REDIRECTS) {
                        throw transientError(`Too many redirects from the Hugging Face hub at ${ctx.endpoint} for ${name} of ${ctx.repoId}`);
                    }
                    url = next.href;
                    continue;
                }
                url = next.href;
                crossOrigin = true;
            }
            else if (res.status === 404 &&
                !['RepoNotFound', 'RevisionNotFound'].includes(res.headers.get('x-error-code') ?? '')) {
                return {
                    found: false,
                    commit: commit && COMMIT_RE.test(commit) ? commit : undefined,
                    error: statusError(ctx, res, name, revision),
                };
            }
            else if (res.status < 200 || res.status >= 300) {
                throw statusError(ctx, res, name, revision);
            }
            if (!commit || !COMMIT_RE.test(commit)) {
                throw transientError(`The response of ${ctx.endpoint} for ${name} of ${ctx.repoId} has no valid x-repo-commit header: ` +
                    `is ${ctx.endpoint} a Hugging Face hub (check HF_ENDPOINT and any proxy)?`);
            }
            if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0))
                size = undefined;
            // Bytes on the hub itself are fetched at the commit, so a branch moving meanwhile cannot mix commits.
            return {
                found: true,
                meta: { commit, etag, linked, size, location: crossOrigin ? url : fileUrl(ctx, commit, name) },
            };
        }
    }
    catch (e) {
        throw dog.translate(e, url);
    }
    finally {
        dog.dispose();
    }
}
function notCachedError(ctx, revision, why, missing) {
    const what = missing ? `File ${missing} of model ${ctx.repoId}` : `Model ${ctx.repoId}`;
    return hubError('ERR_MODEL_NOT_FOUND', `${what} (revision ${JSON.stringify(revision)}) is not in the Hugging Face cache at ${ctx.cacheDir}, and ${why}. ` +
        'Download it once with network access (without HF_HUB_OFFLINE / options.offline), ' +
        'or pass the path of a local model folder instead of a hub id.');
}
/** Resolves from the cache alone; `why` says why the network is not used. */
async function resolveFromCache(ctx, required, optional, why) {
    const commit = await readRef(ctx, ctx.revision);
    if (!commit)
        throw notCachedError(ctx, ctx.revision, why);
    const files = {};
    for (const name of required) {
        const p = pointerPath(ctx, commit, name);
        if (!(await isFile(p)))
            throw notCachedError(ctx, ctx.revision, why, name);
        files[name] = p;
    }
    for (const name of optional) {
        const p = pointerPath(ctx, commit, name);
        files[name] = (await isFile(p)) ? p : undefined;
    }
    return { dir: snapshotDir(ctx, commit), files, commit };
}
async function resolveOnline(ctx, required, optional) {
    const files = {};
    const requiredSet = new Set(required);
    // A commit-hash revision is immutable: cached files need no request. Otherwise the first HEAD
    // learns the revision's current commit and every later file is fetched at that commit, so all
    // files come from one snapshot even if the branch moves meanwhile.
    let commit = COMMIT_RE.test(ctx.revision) ? ctx.revision : undefined;
    for (const name of [...required, ...optional]) {
        if (ctx.signal?.aborted)
            throw new AbortError();
        const isRequired = requiredSet.has(name);
        if (commit) {
            const cached = pointerPath(ctx, commit, name);
            if (await isFile(cached)) {
                files[name] = cached;
                continue;
            }
            if (!isRequired && (await isFile(noExistPath(ctx, commit, name)))) {
                files[name] = undefined;
                continue;
            }
        }
        let head;
        try {
            head = await headFile(ctx, name, commit ?? ctx.revision);
        }
        catch (e) {
            if (commit === undefined && e instanceof Error && transient.has(e)) {
                // Unreachable hub: use the cached snapshot of the revision, as huggingface_hub does.
                try {
                    return await resolveFromCache(ctx, required, optional, 'the hub could not be used');
                }
                catch {
                    throw hubError('ERR_NETWORK', `${e.message}. Model ${ctx.repoId} (revision ${JSON.stringify(ctx.revision)}) ` +
                        `is not fully in the Hugging Face cache at ${ctx.cacheDir} either; ` +
                        'retry with network access, or pass the path of a local model folder instead of a hub id.', { status: e.status, cause: e });
                }
            }
            throw e;
        }
        if (!head.found) {
            if (head.commit) {
                commit ??= head.commit;
                if (head.commit === commit) {
                    const marker = noExistPath(ctx, commit, name);
                    await mkdir(dirname(marker), { recursive: true })
                        .then(() => writeFile(marker, ''))
                        .catch(() => { });
                }
            }
            if (isRequired)
                throw head.error;
            files[name] = undefined;
            continue;
        }
        const { meta } = head;
        if (commit && meta.commit !== commit) {
            const message = `The hub at ${ctx.endpoint} answered commit ${meta.commit} for ${name} of ${ctx.repoId}, asked for ${commit}`;
            throw hubError('ERR_NETWORK', message);
        }
        commit = meta.commit;
        const pointer = pointerPath(ctx, commit, name);
        if (!(await isFile(pointer))) {
            // A blob of that etag (same content, another commit or file) needs no download.
            const etag = safeEtag(meta);
            const known = etag ? join(ctx.repoDir, 'blobs', etag) : undefined;
            const blob = known && (await isFile(known)) ? known : await download(ctx, name, meta);
            if (ctx.signal?.aborted)
                throw new AbortError();
            await linkPointer(blob, pointer);
        }
        files[name] = pointer;
    }
    if (!commit) {
        const names = [...required, ...optional].join(', ');
        const message = `None of ${names} exist in model repo ${ctx.repoId} at revision ${JSON.stringify(ctx.revision)} (${ctx.endpoint})`;
        throw hubError('ERR_MODEL_NOT_FOUND', message);
    }
    if (commit !== ctx.revision) {
        const ref = refPath(ctx, ctx.revision);
        const current = await readFile(ref, 'utf8').catch(() => undefined);
        if (current?.trim() !== commit) {
            await writeFileAtomic(ref, commit).catch((e) => {
                throw ioError(e, `Cannot write ${ref}`);
            });
        }
    }
    return { dir: snapshotDir(ctx, commit), files, commit };
}
const HUB_KEYS = optionKeys('revision', 'cacheDir', 'endpoint', 'token', 'offline', 'signal', 'fetch', 'env', 'onProgress', 'maxBytes', 'timeoutMs');
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
export async function resolveHubFiles(repoId, required, optional = [], options = {}) {
    return resolveHubFilesBy(repoId, required, optional, options, undefined);
}
/** {@link resolveHubFiles} under a given deadline (one model load's calls share one), else `options.timeoutMs` from now. */
export async function resolveHubFilesBy(repoId, required, optional, options, deadline) {
    checkRepoId(repoId);
    const req = stringArray(required, 'required').map((f) => checkRelPath(f, 'file name'));
    const opt = stringArray(optional ?? [], 'optional').map((f) => checkRelPath(f, 'file name'));
    const o = optionsObject(options, 'options', HUB_KEYS);
    const env = o.env ?? process.env;
    if (typeof env !== 'object' || env === null)
        throw typeError('options.env must be an object');
    const revision = checkRelPath(o.revision ?? 'main', 'revision');
    checkSignal(o.signal);
    if (o.fetch !== undefined && typeof o.fetch !== 'function')
        throw typeError('options.fetch must be a function');
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
        throw typeError('options.onProgress must be a function');
    }
    const maxBytes = maxBytesOption(o.maxBytes);
    const timeout = hubDeadline(o.timeoutMs); // checked even when a deadline is given
    for (const k of ['cacheDir', 'endpoint', 'token']) {
        if (o[k] !== undefined && typeof o[k] !== 'string')
            throw typeError(`options.${k} must be a string`);
    }
    const requiredSet = new Set(req);
    const requiredList = [...requiredSet];
    const optionalList = [...new Set(opt)].filter((f) => !requiredSet.has(f));
    if (requiredList.length + optionalList.length === 0)
        throw rangeError('resolveHubFiles needs at least one file name');
    if (o.signal?.aborted)
        throw new AbortError();
    const cacheDir = resolve(o.cacheDir ?? hubCacheDir(env));
    let token;
    let tokenLoaded = false;
    const ctx = {
        repoId,
        revision,
        endpoint: checkEndpoint(o.endpoint ?? nonEmpty(env.HF_ENDPOINT) ?? DEFAULT_ENDPOINT),
        cacheDir,
        repoDir: join(cacheDir, ['models', ...repoId.split('/')].join('--')),
        signal: o.signal,
        fetch: o.fetch ?? globalThis.fetch,
        token: () => {
            if (!tokenLoaded) {
                tokenLoaded = true;
                if (o.token !== undefined)
                    token = nonEmpty(o.token.trim());
                else if (isTrue(env.HF_HUB_DISABLE_IMPLICIT_TOKEN))
                    token = undefined;
                else
                    token = nonEmpty(env.HF_TOKEN?.trim()) ?? nonEmpty(env.HUGGING_FACE_HUB_TOKEN?.trim()) ?? readTokenFile(env);
            }
            return token;
        },
        metadataTimeout: seconds(env.HF_HUB_ETAG_TIMEOUT, 10),
        downloadTimeout: seconds(env.HF_HUB_DOWNLOAD_TIMEOUT, 10),
        maxBytes,
        deadline: deadline ?? timeout,
        onProgress: o.onProgress,
    };
    const offline = o.offline ?? isTrue(env.HF_HUB_OFFLINE || env.TRANSFORMERS_OFFLINE);
    if (offline)
        return resolveFromCache(ctx, requiredList, optionalList, 'offline mode is on');
    return resolveOnline(ctx, requiredList, optionalList);
}
