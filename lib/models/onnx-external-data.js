/**
 * The external data files an ONNX graph reads tensors from (every export over 2 GB keeps its weights outside
 * the protobuf: `model.onnx_data`, `model.onnx.data`, or one file per tensor), found by walking the protobuf.
 * Every place onnx.proto allows a TensorProto is walked:
 *
 *   ModelProto         graph 7, training_info 20, functions 25
 *   TrainingInfoProto  initialization 1, algorithm 2 (graphs)
 *   FunctionProto      node 7, attribute_proto 11
 *   GraphProto         node 1, initializer 5, sparse_initializer 15
 *   NodeProto          attribute 5
 *   AttributeProto     t 5, g 6, tensors 10, graphs 11, sparse_tensor 22, sparse_tensors 23
 *   SparseTensorProto  values 1, indices 2
 *   TensorProto        external_data 13 (StringStringEntryProto: key 1, value 2)
 *
 * Everything else, raw weights included, is skipped by its length (groups, wire types 3/4, to their end tag),
 * so a 2 GB single-file model costs a few thousand small reads, never its size: a protobuf library would
 * decode whole messages into memory. A file that cannot be walked to its end is refused, never taken as
 * naming nothing: ONNX Runtime before 1.30 reads whatever file a tensor names.
 */
import { closeSync, readSync, realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AbortError, RagrankError } from '../errors.js';
import { packageRequire } from '../internal/package-require.js';
import { GRAPH_MAX_BYTES, openRegularSync } from './model-file.js';
/** Per message kind, the fields on a path to a TensorProto. */
const CHILDREN = {
    model: { 7: 'graph', 20: 'training', 25: 'function' },
    training: { 1: 'graph', 2: 'graph' },
    function: { 7: 'node', 11: 'attribute' },
    graph: { 1: 'node', 5: 'tensor', 15: 'sparse' },
    node: { 5: 'attribute' },
    attribute: { 5: 'tensor', 6: 'graph', 10: 'tensor', 11: 'graph', 22: 'sparse', 23: 'sparse' },
    sparse: { 1: 'tensor', 2: 'tensor' },
    tensor: {},
};
/** protobuf's default recursion limit: ONNX Runtime's parser refuses deeper messages too. */
const MAX_DEPTH = 100;
/** An external_data key or value longer than this is no file name or number. */
const MAX_ENTRY_BYTES = 1 << 16;
const WINDOW = 1 << 16;
class Unwalkable extends Error {
}
/** Positional reads through a 64 KiB window. */
class FileBytes {
    fd;
    size;
    buf = Buffer.alloc(0);
    start = 0;
    constructor(fd, size) {
        this.fd = fd;
        this.size = size;
    }
    byte(pos) {
        if (pos < this.start || pos >= this.start + this.buf.length) {
            if (pos >= this.size)
                throw new Unwalkable('the file ends inside a field');
            this.buf = Buffer.alloc(Math.min(WINDOW, this.size - pos));
            this.start = pos;
            if (readSync(this.fd, this.buf, 0, this.buf.length, pos) !== this.buf.length) {
                throw new Unwalkable('the file shrank while read');
            }
        }
        return this.buf[pos - this.start];
    }
    slice(pos, next) {
        const out = Buffer.alloc(next - pos);
        if (readSync(this.fd, out, 0, out.length, pos) !== out.length)
            throw new Unwalkable('the file shrank while read');
        return out;
    }
}
/** A varint at `pos` (before `end`): its value and where the next field starts. */
function varint(f, pos, end) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10 && pos + i < end; i++) {
        const b = f.byte(pos + i);
        value += (b & 0x7f) * scale;
        if (b < 0x80)
            return [value, pos + i + 1];
        scale *= 128;
    }
    throw new Unwalkable('a varint cut short or longer than 10 bytes');
}
/**
 * Walks the message of `kind` in `[start, end)`, or a group (`group`: its field number) up to its end tag;
 * length-delimited fields that are not on a path to a tensor go to `onBytes`. Returns where it ended.
 */
function walk(f, start, end, kind, depth, found, onBytes, group) {
    if (depth > MAX_DEPTH)
        throw new Unwalkable(`messages nested deeper than ${MAX_DEPTH}`);
    const children = kind === undefined ? undefined : CHILDREN[kind];
    let pos = start;
    while (pos < end) {
        const [key, p] = varint(f, pos, end);
        const field = Math.floor(key / 8);
        const wire = key % 8;
        if (field === 0 || field >= 2 ** 29)
            throw new Unwalkable(`field number ${field}`);
        const child = children?.[field];
        if (child !== undefined && wire !== 2)
            throw new Unwalkable(`field ${field} of a ${kind} with wire type ${wire}`);
        if (wire === 0)
            pos = varint(f, p, end)[1];
        else if (wire === 1)
            pos = p + 8;
        else if (wire === 5)
            pos = p + 4;
        else if (wire === 2) {
            const [len, at] = varint(f, p, end);
            pos = at + len;
            if (pos > end)
                throw new Unwalkable('a length past the end of its message');
            if (child === 'tensor')
                tensor(f, at, pos, depth + 1, found);
            else if (child !== undefined)
                walk(f, at, pos, child, depth + 1, found);
            else
                onBytes?.(field, at, pos);
        }
        else if (wire === 3)
            pos = walk(f, p, end, undefined, depth + 1, found, undefined, field);
        else if (wire === 4) {
            if (field !== group)
                throw new Unwalkable('an end-group tag without its start');
            return p;
        }
        else
            throw new Unwalkable(`wire type ${wire}`);
    }
    if (pos > end)
        throw new Unwalkable('a fixed-size field past the end of its message');
    if (group !== undefined)
        throw new Unwalkable('a group without its end tag');
    return pos;
}
const utf8 = new TextDecoder('utf-8', { fatal: true });
function text(f, at, next) {
    if (next - at > MAX_ENTRY_BYTES)
        throw new Unwalkable(`an external_data entry longer than ${MAX_ENTRY_BYTES} bytes`);
    try {
        return utf8.decode(f.slice(at, next));
    }
    catch {
        throw new Unwalkable('an external_data entry that is not UTF-8');
    }
}
/** A TensorProto: every `location` of its external_data entries, with the bytes the tensor needs. */
function tensor(f, start, end, depth, found) {
    const locations = [];
    let offset;
    let length;
    walk(f, start, end, 'tensor', depth, found, (field, at, next) => {
        if (field !== 13)
            return;
        let key;
        let value = '';
        walk(f, at, next, undefined, depth + 1, found, (k, a, n) => {
            if (k === 1)
                key = text(f, a, n);
            else if (k === 2)
                value = text(f, a, n);
        });
        if (key === 'location')
            locations.push(value);
        else if (key === 'offset')
            offset = value;
        else if (key === 'length')
            length = value;
    });
    const sum = Number(offset ?? 0) + (length === undefined ? Number.NaN : Number(length));
    const needs = Number.isFinite(sum) ? sum : undefined;
    for (const location of locations) {
        const known = found.has(location) ? found.get(location) : 0;
        found.set(location, known === undefined || needs === undefined ? undefined : Math.max(known, needs));
    }
}
/**
 * The external data files `model` refers to (none for a self-contained graph). `model` must be a regular
 * file of at most 2 GiB; one that cannot be walked as an ONNX protobuf is ERR_MODEL_LOAD.
 */
export function externalDataOf(model) {
    const { fd, size } = openRegularSync(model, 'the ONNX graph', GRAPH_MAX_BYTES);
    try {
        const found = new Map();
        try {
            walk(new FileBytes(fd, size), 0, size, 'model', 0, found);
        }
        catch (e) {
            if (!(e instanceof Unwalkable))
                throw e;
            throw new RagrankError('ERR_MODEL_LOAD', `${model} cannot be read as an ONNX graph (${e.message}); it is refused, since the external data it may name cannot be checked`);
        }
        return [...found].map(([location, needs]) => ({ location, needs }));
    }
    finally {
        closeSync(fd);
    }
}
/**
 * Graphs up to this size are walked on the calling thread (at most some 100,000 fields, a few milliseconds);
 * larger ones on a worker thread, since a crafted graph of millions of tiny tensors takes seconds to walk.
 */
const INLINE_WALK_BYTES = 1 << 20;
/**
 * `externalDataOf` off the event loop for a graph over 1 MiB (the exports with external data keep a graph of
 * a few MB; a single-file model may hold 2 GB): the same result and errors. The signal stops the walk.
 */
export async function walkExternalData(model, signal) {
    const size = await stat(model).then((s) => s.size, () => 0);
    if (signal?.aborted)
        throw new AbortError();
    if (size <= INLINE_WALK_BYTES)
        return externalDataOf(model);
    const worker = new Worker(packageRequire.resolve('../models/external-data-worker.js'), { workerData: model });
    return new Promise((resolve, reject) => {
        const onAbort = () => {
            void worker.terminate();
            reject(new AbortError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const settle = (done) => {
            signal?.removeEventListener('abort', onAbort);
            done();
        };
        worker.once('message', (m) => settle(() => {
            if (m.refs)
                resolve(m.refs);
            else
                reject(new RagrankError(m.error?.code ?? 'ERR_INTERNAL', m.error?.message ?? ''));
        }));
        worker.once('error', (e) => settle(() => reject(new RagrankError('ERR_INTERNAL', `the graph walk failed: ${e.message}`))));
        worker.once('exit', () => settle(() => reject(new RagrankError('ERR_INTERNAL', 'the graph walk stopped without a result'))));
    });
}
/** ONNX Runtime's marker for weights in memory: its offset is an address. Never from a file. */
const ORT_MEMORY_TAG = '*/_ORT_MEM_ADDR_/*';
/** A relative path below the graph's folder (a location is written by an exporter, but read from any download). */
export const isPlainLocation = (location) => location !== ORT_MEMORY_TAG &&
    !location.includes('*') &&
    ![...location].some((c) => c.charCodeAt(0) < 0x20) &&
    !location.startsWith('/') &&
    !/^[A-Za-z]:/.test(location) &&
    !location.split(/[\\/]/).some((s) => s === '' || s === '.' || s === '..');
const inside = (root, path) => {
    const rel = relative(root, path);
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};
/**
 * Checks every external data file of `model` at load: a plain relative location, that after symlinks is a
 * regular file inside the graph's folder, or inside the folder of the graph's own target when the graph is a
 * symlink (the hub cache: both point into `blobs/`). That is the rule of the bundled ONNX Runtime 1.30, applied
 * whatever the runtime. It must hold the bytes the graph needs: a missing or truncated download is a clear error
 * now rather than ONNX Runtime's (or a read past the end of a mapped file) later. Returns their paths.
 */
export function checkExternalData(model, refs = externalDataOf(model)) {
    if (refs.length === 0)
        return [];
    const roots = [realpathSync(dirname(model)), dirname(realpathSync(model))];
    return refs.map(({ location, needs }) => {
        if (!isPlainLocation(location)) {
            throw new RagrankError('ERR_MODEL_LOAD', `${model} names an external data file outside its folder: ${JSON.stringify(location)}`);
        }
        const path = join(dirname(model), ...location.split('/'));
        let real;
        try {
            real = realpathSync(path);
        }
        catch (e) {
            const code = e.code;
            if (code !== 'ENOENT' && code !== 'ENOTDIR')
                throw e;
            throw new RagrankError('ERR_MODEL_NOT_FOUND', `${model} keeps its weights in the external data file ${location}, which is missing (expected at ${path})`);
        }
        if (!roots.some((root) => inside(root, real))) {
            throw new RagrankError('ERR_MODEL_LOAD', `the external data file ${path} of ${model} is ${real} after symlinks, outside the model folder ${roots[0]}: refused`);
        }
        const { fd, size } = openRegularSync(path, 'an external data file', Number.POSITIVE_INFINITY);
        closeSync(fd);
        if (needs !== undefined && size < needs) {
            throw new RagrankError('ERR_MODEL_LOAD', `the external data file ${path} of ${model} is truncated: ${size} bytes, the graph needs ${needs}`);
        }
        return path;
    });
}
