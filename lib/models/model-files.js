import { existsSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { RagrankError, typeError } from '../errors.js';
import { oneOf } from '../internal/validate.js';
import { hubDeadline, isHubId, resolveHubFilesBy } from './hub.js';
import { CONFIG_MAX_BYTES, checkRegular, GRAPH_MAX_BYTES, TOKENIZER_MAX_BYTES } from './model-file.js';
import { checkExternalData, isPlainLocation, walkExternalData } from './onnx-external-data.js';
import { poolingPath, readModules } from './sentence-transformers.js';
/** transformers.js' `dtype` names: which ONNX file of `onnx/` to load. */
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'];
/** The file names of each dtype, first found wins (transformers.js' suffixes; `int8` also takes Optimum's `model_quantized`). */
const DTYPE_FILES = {
    fp32: ['model'],
    fp16: ['model_fp16'],
    q8: ['model_quantized'],
    int8: ['model_int8', 'model_quantized'],
    uint8: ['model_uint8'],
    q4: ['model_q4'],
    q4f16: ['model_q4f16'],
    bnb4: ['model_bnb4'],
};
function modelCandidates(o) {
    if (o.file !== undefined) {
        if (typeof o.file !== 'string' || o.file === '')
            throw typeError('options.file must be a non-empty string');
        if (!isPlainLocation(o.file))
            throw typeError('options.file must be a relative path inside the model folder');
        if (o.dtype !== undefined)
            throw typeError('options.file and options.dtype both choose the ONNX file: pass one');
        return o.file.includes('/') ? [o.file] : [`onnx/${o.file}`, o.file];
    }
    let dtype = o.dtype === undefined ? undefined : oneOf(o.dtype, DTYPES, 'options.dtype');
    if (o.quantized === true) {
        if (dtype !== undefined && dtype !== 'q8') {
            throw typeError(`options.quantized means dtype 'q8'; it contradicts options.dtype '${dtype}'`);
        }
        dtype = 'q8';
    }
    const names = DTYPE_FILES[dtype ?? 'fp32'];
    return [...names.map((n) => `onnx/${n}.onnx`), ...names.map((n) => `${n}.onnx`)];
}
const ST_FILES = ['modules.json', 'sentence_bert_config.json', 'config_sentence_transformers.json'];
const DEFAULT_POOLING = '1_Pooling/config.json';
/**
 * Resolves a model folder in the Hugging Face / Optimum / transformers.js / sentence-transformers
 * layout, or a hub id (`org/name`) through the Hugging Face cache (downloading when needed and
 * allowed), with the external data files its graph names. Missing or truncated files are errors
 * here, at load.
 */
export async function resolveModelFiles(source, o = {}, signal, what = {}) {
    if (typeof source !== 'string' || source === '')
        throw typeError('model must be a folder path or a hub id (org/name)');
    const candidates = modelCandidates(o);
    const [files, refs] = isHubId(source)
        ? await fromHub(source, candidates, o, signal, what)
        : [await fromFolder(source, candidates, what), undefined];
    await checkFiles(files);
    // The graph is walked once: a hub load walked it already to fetch the files it names.
    return {
        ...files,
        externalData: checkExternalData(files.model, refs ?? (await walkExternalData(files.model, signal))),
    };
}
/**
 * Every file the load reads, after symlinks a regular file within its bound (the JSON files are read, the
 * graph walked, later): a FIFO, a device or a directory is ERR_MODEL_LOAD naming what it is.
 */
async function checkFiles(files) {
    const configs = [files.tokenizerConfig, files.config, files.modules, files.sentenceBertConfig];
    await checkRegular(files.model, 'the ONNX graph', GRAPH_MAX_BYTES);
    await checkRegular(files.tokenizer, 'the tokenizer', TOKENIZER_MAX_BYTES);
    for (const f of [...configs, files.pooling, files.sentenceTransformersConfig]) {
        if (f !== undefined)
            await checkRegular(f, 'a config file', CONFIG_MAX_BYTES);
    }
}
async function fromFolder(source, candidates, what) {
    const dir = resolve(source);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new RagrankError('ERR_MODEL_NOT_FOUND', `model folder ${dir} does not exist (nor is ${JSON.stringify(source)} a hub id org/name)`);
    }
    const pick = (...names) => names.map((n) => join(dir, ...n.split('/'))).find((p) => existsSync(p));
    const model = pick(...candidates);
    const tokenizer = pick('tokenizer.json');
    if (!model || !tokenizer) {
        const missing = [!model && `one of ${candidates.join(', ')}`, !tokenizer && 'tokenizer.json'].filter(Boolean);
        throw new RagrankError('ERR_MODEL_NOT_FOUND', `model folder ${dir} lacks ${missing.join(' and ')}`);
    }
    const files = {
        model,
        tokenizer,
        tokenizerConfig: pick('tokenizer_config.json'),
        config: pick('config.json'),
    };
    if (!what.sentenceTransformers)
        return files;
    const modules = pick('modules.json');
    const pooling = poolingPath(await readModules(modules), modules);
    return {
        ...files,
        modules,
        sentenceBertConfig: pick('sentence_bert_config.json'),
        sentenceTransformersConfig: pick('config_sentence_transformers.json'),
        pooling: pick(pooling === undefined ? DEFAULT_POOLING : posix.join(pooling, 'config.json')),
    };
}
async function fromHub(source, candidates, o, signal, what) {
    const { revision, cacheDir, endpoint, token, offline, fetch, env, onProgress, maxBytes, timeoutMs } = o; // the hub's options only
    const hubOptions = {
        revision,
        cacheDir,
        endpoint,
        token,
        offline,
        fetch,
        env,
        onProgress,
        maxBytes,
        timeoutMs,
        signal,
    };
    // One deadline for the whole load, not one per call below.
    const deadline = hubDeadline(timeoutMs);
    const resolveHubFiles = (id, required, optional, options) => resolveHubFilesBy(id, required, optional, options, deadline);
    const st = what.sentenceTransformers ? [...ST_FILES, DEFAULT_POOLING] : [];
    const hub = await resolveHubFiles(source, ['tokenizer.json'], ['tokenizer_config.json', 'config.json', ...st], hubOptions);
    // Everything else comes from the same commit, and once cached (or known missing) costs no request.
    const pinned = { ...hubOptions, revision: hub.commit };
    // One candidate at a time: a repo with both onnx/model.onnx and model.onnx downloads only the first.
    let chosen;
    let model;
    let unreachable;
    for (const c of candidates) {
        try {
            model = (await resolveHubFiles(source, [], [c], pinned)).files[c];
        }
        catch (e) {
            // The hub went away (or the tokenizer came from the cache for that reason): a later candidate may be cached.
            if (e?.code !== 'ERR_NETWORK')
                throw e;
            unreachable ??= e;
            continue;
        }
        if (model !== undefined) {
            chosen = c;
            break;
        }
    }
    if (model === undefined || chosen === undefined) {
        if (unreachable !== undefined)
            throw unreachable;
        throw new RagrankError('ERR_MODEL_NOT_FOUND', `hub model ${source} has none of ${candidates.join(', ')}`);
    }
    const files = {
        model,
        tokenizer: hub.files['tokenizer.json'],
        tokenizerConfig: hub.files['tokenizer_config.json'],
        config: hub.files['config.json'],
    };
    // The weights of a large export live next to its graph: fetch the files the graph names.
    const folder = posix.dirname(chosen);
    const refs = await walkExternalData(model, signal);
    const external = refs.map((r) => r.location);
    const bad = external.find((l) => !isPlainLocation(l));
    if (bad !== undefined) {
        throw new RagrankError('ERR_MODEL_LOAD', `${model} names an external data file outside its folder: ${bad}`);
    }
    const extra = external.map((l) => (folder === '.' ? l : `${folder}/${l}`));
    let pooling = hub.files[DEFAULT_POOLING];
    const stModules = hub.files['modules.json'];
    const custom = what.sentenceTransformers ? poolingPath(await readModules(stModules), stModules) : undefined;
    const customFile = custom === undefined ? undefined : posix.join(custom, 'config.json');
    if (customFile !== undefined && customFile !== DEFAULT_POOLING) {
        pooling = (await resolveHubFiles(source, [], [customFile], pinned)).files[customFile];
    }
    if (extra.length > 0)
        await resolveHubFiles(source, extra, [], pinned);
    if (!what.sentenceTransformers)
        return [files, refs];
    const withSt = {
        ...files,
        modules: hub.files['modules.json'],
        sentenceBertConfig: hub.files['sentence_bert_config.json'],
        sentenceTransformersConfig: hub.files['config_sentence_transformers.json'],
        pooling,
    };
    return [withSt, refs];
}
