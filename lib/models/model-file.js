/**
 * The one check every file of a model load goes through: after symlinks it must be a regular file (a FIFO
 * would block the read forever, a device such as /dev/zero never ends, a directory is a mistake), no larger
 * than its bound. The type is checked with stat before opening, so no device is ever opened, and again with
 * fstat on the descriptor, which is opened non-blocking: a FIFO swapped in between cannot block the open.
 */
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { RagrankError } from '../errors.js';
const MiB = 2 ** 20;
/** `tokenizer.json`: a 250k-token SentencePiece vocabulary is about 17 MB, Gemma's 262k about 33 MB. */
export const TOKENIZER_MAX_BYTES = 64 * MiB;
/** Every other JSON file (configs, `modules.json`, the pooling config). */
export const CONFIG_MAX_BYTES = 16 * MiB;
/** An ONNX graph: protobuf's own limit (a larger model keeps its weights in external data files). */
export const GRAPH_MAX_BYTES = 2048 * MiB;
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const kindOf = (s) => s.isDirectory()
    ? 'a directory'
    : s.isFIFO()
        ? 'a FIFO'
        : s.isCharacterDevice()
            ? 'a character device'
            : s.isBlockDevice()
                ? 'a block device'
                : s.isSocket()
                    ? 'a socket'
                    : 'not a regular file';
const bytes = (n) => (n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`);
/** Throws unless `s` is a regular file of at most `max` bytes. */
function checkStats(path, what, s, max) {
    if (!s.isFile()) {
        throw new RagrankError('ERR_MODEL_LOAD', `${path} (${what}) is ${kindOf(s)}; the files of a model must be regular files (symlinks are followed)`);
    }
    if (s.size > max) {
        throw new RagrankError('ERR_MODEL_LOAD', `${path} (${what}) is larger than ${bytes(max)} (${s.size} bytes); it is not read`);
    }
    return s.size;
}
function openError(path, what, e) {
    const code = e?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
        return new RagrankError('ERR_MODEL_NOT_FOUND', `${path} (${what}) does not exist`);
    }
    return new RagrankError('ERR_MODEL_LOAD', `${path} (${what}) cannot be read: ${e?.message ?? e}`);
}
/** Opens `path` for reading if it is a regular file of at most `max` bytes: its descriptor and size. */
export function openRegularSync(path, what, max) {
    let fd;
    try {
        checkStats(path, what, statSync(path), max);
        fd = openSync(path, FLAGS);
    }
    catch (e) {
        throw e instanceof RagrankError ? e : openError(path, what, e);
    }
    try {
        return { fd, size: checkStats(path, what, fstatSync(fd), max) };
    }
    catch (e) {
        closeSync(fd);
        throw e;
    }
}
/** Checks that `path` is a regular file of at most `max` bytes, without reading it: its size. */
export async function checkRegular(path, what, max) {
    const handle = await openRegular(path, what, max);
    try {
        return checkStats(path, what, await handle.stat(), max);
    }
    finally {
        await handle.close();
    }
}
async function openRegular(path, what, max) {
    try {
        checkStats(path, what, await stat(path), max);
        return await open(path, FLAGS);
    }
    catch (e) {
        throw e instanceof RagrankError ? e : openError(path, what, e);
    }
}
/** Reads a UTF-8 file of at most `max` bytes (a regular file, checked as above). */
export async function readTextFile(path, what, max) {
    const handle = await openRegular(path, what, max);
    try {
        const size = checkStats(path, what, await handle.stat(), max);
        // One byte more than the file had: a file that grew since fstat is refused rather than read without bound.
        const buf = Buffer.alloc(Math.min(size, max) + 1);
        let got = 0;
        for (;;) {
            const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
            if (bytesRead === 0)
                break;
            got += bytesRead;
            if (got > max)
                throw new RagrankError('ERR_MODEL_LOAD', `${path} (${what}) grew past ${bytes(max)} while read`);
            if (got === buf.length)
                break;
        }
        if (got > size)
            throw new RagrankError('ERR_MODEL_LOAD', `${path} (${what}) changed while it was read`);
        return buf.toString('utf8', 0, got);
    }
    catch (e) {
        throw e instanceof RagrankError ? e : openError(path, what, e);
    }
    finally {
        await handle.close();
    }
}
/** Reads a JSON file of at most `max` bytes (a regular file, checked as above); invalid JSON is ERR_MODEL_LOAD. */
export async function readJsonFile(path, what, max = CONFIG_MAX_BYTES) {
    const text = await readTextFile(path, what, max);
    try {
        return JSON.parse(text);
    }
    catch (e) {
        // V8's message quotes the text around the error: keep only where it is, so an error never echoes a file.
        const at = /position (\d+)/.exec(e.message)?.[1];
        throw new RagrankError('ERR_MODEL_LOAD', `${path} (${what}): not valid JSON${at ? ` (at character ${at})` : ''}`);
    }
}
