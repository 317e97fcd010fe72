/**
 * The hub cache folder and its layout, shared with Python's `huggingface_hub`:
 *
 *   <cache>/models--{org}--{name}/
 *     refs/{revision}              the commit hash a branch or tag pointed to when last fetched
 *     blobs/{etag}                 file contents, named by the hub's etag (sha256 for LFS files)
 *     snapshots/{commit}/{path}    relative symlinks to ../../blobs/{etag} (or plain files)
 *     .no_exist/{commit}/{path}    empty markers for files known to be missing at that commit
 *
 * so a model fetched once by Python (or by ragrank) is found again without a download.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, typeError } from '../../errors.js';
import { readValue } from '../../internal/validate.js';
import { ioError } from './context.js';
export const COMMIT_RE = /^[0-9a-f]{40}$/;
export const nonEmpty = (v) => (v === undefined || v === '' ? undefined : v);
export function homeDir(env) {
    const fromEnv = process.platform === 'win32' ? env.USERPROFILE : env.HOME;
    return nonEmpty(fromEnv) ?? homedir();
}
export function expandHome(p, env) {
    if (p === '~')
        return homeDir(env);
    if (p.startsWith('~/') || (process.platform === 'win32' && p.startsWith('~\\')))
        return join(homeDir(env), p.slice(2));
    return p;
}
export function hfHome(env) {
    const home = nonEmpty(env.HF_HOME);
    if (home)
        return expandHome(home, env);
    const xdg = nonEmpty(env.XDG_CACHE_HOME);
    return join(xdg ? expandHome(xdg, env) : join(homeDir(env), '.cache'), 'huggingface');
}
/**
 * The hub cache folder, as `huggingface_hub` picks it: `HF_HUB_CACHE`, else (legacy)
 * `HUGGINGFACE_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
 * else `~/.cache/huggingface/hub`. A leading `~` is expanded.
 */
export function hubCacheDir(env = process.env) {
    if (typeof env !== 'object' || env === null)
        throw typeError(`env must be an object like process.env, got ${describe(env)}`);
    return readValue(() => {
        const explicit = nonEmpty(env.HF_HUB_CACHE) ?? nonEmpty(env.HUGGINGFACE_HUB_CACHE);
        return explicit ? expandHome(explicit, env) : join(hfHome(env), 'hub');
    });
}
export const snapshotDir = (ctx, commit) => join(ctx.repoDir, 'snapshots', commit);
export const pointerPath = (ctx, commit, name) => join(snapshotDir(ctx, commit), ...name.split('/'));
export const noExistPath = (ctx, commit, name) => join(ctx.repoDir, '.no_exist', commit, ...name.split('/'));
export const refPath = (ctx, revision) => join(ctx.repoDir, 'refs', ...revision.split('/'));
export const tempSuffix = () => `.${process.pid}-${randomBytes(6).toString('hex')}`;
export async function isFile(p) {
    try {
        return (await stat(p)).isFile();
    }
    catch {
        return false;
    }
}
export async function readRef(ctx, revision) {
    if (COMMIT_RE.test(revision))
        return revision;
    try {
        const commit = (await readFile(refPath(ctx, revision), 'utf8')).trim();
        return COMMIT_RE.test(commit) ? commit : undefined;
    }
    catch {
        return undefined;
    }
}
export async function writeFileAtomic(path, data) {
    await mkdir(dirname(path), { recursive: true });
    const tmp = path + tempSuffix();
    try {
        await writeFile(tmp, data);
        await rename(tmp, path);
    }
    catch (e) {
        await rm(tmp, { force: true });
        throw e;
    }
}
/** Points `snapshots/{commit}/{name}` at the blob: relative symlink, else hard link, else copy. */
export async function linkPointer(blob, pointer) {
    try {
        await mkdir(dirname(pointer), { recursive: true });
    }
    catch (e) {
        throw ioError(e, `Cannot create the snapshot folder ${dirname(pointer)}`);
    }
    const attempts = [
        (tmp) => symlink(relative(dirname(pointer), blob), tmp, 'file'),
        (tmp) => link(blob, tmp),
        (tmp) => copyFile(blob, tmp),
    ];
    let last;
    for (const make of attempts) {
        const tmp = pointer + tempSuffix();
        try {
            await make(tmp);
            await rename(tmp, pointer); // atomic: concurrent writers leave one valid pointer
            return;
        }
        catch (e) {
            last = e;
            await rm(tmp, { force: true }).catch(() => { });
        }
    }
    throw ioError(last, `Cannot create ${pointer}`);
}
