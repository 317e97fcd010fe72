import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { native } from '../internal/native.js';
import { fromNative, RagrankError, rangeError, typeError } from '../errors.js';
import { checkSignal, runCancellable, throwIfAborted } from '../internal/abort.js';
import { ensureOnnxRuntime } from './onnx-runtime.js';
import { resolveModelFiles } from './model-files.js';
import { oneOf, positiveInteger } from '../internal/validate.js';
import { readSentenceTransformers } from './sentence-transformers.js';
import { checkTokenizer } from './tokenizer-check.js';
/**
 * Padded tokens per batch. On the MiniLM-L6 cross-encoder benchmark (2 cores, Cranfield pairs), 512
 * scored 1.2x (fp32, max length 256) to 1.7x (int8, 512) more pairs/s than 8192: a smaller batch's
 * activations and attention scores stay in cache, and length-sorted batches pad little anyway.
 */
const DEFAULT_TOKEN_BUDGET = 512;
/** Above this, a second session's copy of the weights costs more memory than it is worth by default. */
const SECOND_SESSION_MAX_BYTES = 512 * 2 ** 20;
/**
 * Two sessions of one thread each, where cores allow: they run two small batches at once with no
 * synchronisation inside an operator (on 2 cores: 1.2x the pairs/s of one 2-thread session for fp32 at
 * max length 256, equal elsewhere). A call that plans a single batch is split across them (`spread`).
 */
function defaultSessions(cores, bytes) {
    return cores >= 2 && bytes <= SECOND_SESSION_MAX_BYTES ? 2 : 1;
}
/** Size of an ONNX file with its external data files. */
function modelBytes(files) {
    let total = 0;
    for (const f of [files.model, ...(files.externalData ?? [])]) {
        try {
            total += statSync(f).size;
        }
        catch {
            // gone since it was resolved: the load reports it
        }
    }
    return total;
}
/** The keys of `LoadOptions`, for the model classes' own key sets. */
export const LOAD_KEYS = [
    ...['maxLength', 'threads', 'sessions', 'ortLibrary', 'batchSize', 'tokenBudget', 'signal'],
    ...['file', 'dtype', 'quantized', 'revision', 'cacheDir', 'endpoint', 'token', 'offline', 'fetch', 'env'],
    ...['onProgress', 'paddingSide', 'maxBytes', 'timeoutMs'],
];
/**
 * What the native encoder of this build implements: a model that asks for anything else fails at
 * load instead of pooling or padding the wrong way.
 */
export const NATIVE_POOLINGS = ['mean', 'cls', 'max', 'meansqrt', 'weightedmean', 'lasttoken'];
export const NATIVE_PADDING_SIDES = ['right', 'left'];
/** The keys of `BatchCallOptions`. */
export const BATCH_CALL_KEYS = ['batchSize', 'maxLength', 'signal'];
/**
 * Validates load options (whose keys the caller checked) and loads the model's files into a native
 * encoder, with the sentence-transformers settings of the folder when `what` asks for them.
 */
export async function loadEncoder(model, o, what = {}) {
    const signal = checkSignal(o.signal);
    const explicitSessions = o.sessions === undefined ? undefined : positiveInteger(o.sessions, 'options.sessions');
    const explicitThreads = o.threads === undefined ? undefined : positiveInteger(o.threads, 'options.threads');
    const explicitMax = o.maxLength === undefined ? undefined : positiveInteger(o.maxLength, 'options.maxLength');
    const explicitSide = o.paddingSide === undefined ? undefined : oneOf(o.paddingSide, ['right', 'left'], 'options.paddingSide');
    const batch = {
        batchSize: o.batchSize === undefined ? 32 : positiveInteger(o.batchSize, 'options.batchSize'),
        tokenBudget: o.tokenBudget === undefined ? DEFAULT_TOKEN_BUDGET : positiveInteger(o.tokenBudget, 'options.tokenBudget'),
    };
    ensureOnnxRuntime(o.ortLibrary);
    const files = await resolveModelFiles(model, o, signal, what);
    await checkTokenizer(files.tokenizer);
    const settings = await readSentenceTransformers(what.sentenceTransformers ? files : {}, files.tokenizerConfig, files.config);
    const paddingSide = explicitSide ?? settings.paddingSide ?? 'right';
    if (!NATIVE_PADDING_SIDES.includes(paddingSide)) {
        const message = `padding on the ${paddingSide} is not supported by this build`;
        if (explicitSide !== undefined)
            throw rangeError(`options.paddingSide: ${message}`);
        throw new RagrankError('ERR_MODEL_LOAD', `${files.tokenizerConfig} asks for padding_side ${paddingSide}: ${message}`);
    }
    const cores = availableParallelism();
    const sessions = explicitSessions ?? (explicitThreads === undefined ? defaultSessions(cores, modelBytes(files)) : 1);
    const threads = explicitThreads ?? Math.max(1, Math.floor(cores / sessions));
    const { model: onnx, tokenizer, tokenizerConfig, config } = files;
    // A call planned as fewer batches than sessions (8 short queries fit one 512-token batch) has its batches split so
    // that every session, and so every core, gets one; calls of many batches are planned as before.
    const options = { maxLength: explicitMax ?? settings.maxSeqLength, threads, sessions, spread: sessions > 1 };
    const encoder = await native.NativeEncoder.load({ model: onnx, tokenizer, tokenizerConfig, config }, options).catch((e) => {
        throw fromNative(e);
    });
    const runtime = Object.freeze({ sessions, threads, paddingSide, ...batch });
    return { encoder, files, runtime, settings };
}
export function batchOptions(defaults, o) {
    return {
        batchSize: o.batchSize === undefined ? defaults.batchSize : positiveInteger(o.batchSize, 'options.batchSize'),
        tokenBudget: defaults.tokenBudget,
        maxLength: o.maxLength === undefined ? undefined : positiveInteger(o.maxLength, 'options.maxLength'),
        paddingSide: defaults.paddingSide,
    };
}
export function run(signal, start) {
    return runCancellable(checkSignal(signal), start);
}
/** `run`, or `empty` for no input; an aborted signal rejects either way (a call never resolves once aborted). */
export function runUnlessEmpty(count, empty, signal, start) {
    if (count > 0)
        return run(signal, start);
    throwIfAborted(checkSignal(signal));
    return Promise.resolve(empty());
}
export function checkString(v, name) {
    if (typeof v !== 'string')
        throw typeError(`${name} must be a string`);
    return v;
}
