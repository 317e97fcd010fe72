import { RagrankError, rangeError, typeError } from '../errors.js';
import { EncoderModel } from './encoder-model.js';
import { BATCH_CALL_KEYS, batchOptions, checkString, LOAD_KEYS, loadEncoder, NATIVE_POOLINGS, runUnlessEmpty, } from './encoder.js';
import { documentPrompt, POOLINGS, queryPrompt, } from './sentence-transformers.js';
import { booleanOption, hasMethod, oneOf, optionKeys, optionsObject, stringArray } from '../internal/validate.js';
import { Batcher, coalesceOption } from '../internal/batcher.js';
import { checkSignal, runCancellable, throwIfAborted } from '../internal/abort.js';
const EMBEDDER_KEYS = optionKeys(...LOAD_KEYS, 'pooling', 'normalize', 'queryPrefix', 'documentPrefix', 'coalesce');
/** Texts per coalesced batch: the default batch size. */
const COALESCE_DEFAULTS = { maxBatch: 32, maxWaitMs: 0 };
const EMBED_KEYS = optionKeys(...BATCH_CALL_KEYS, 'pooling', 'normalize');
/**
 * A bi-encoder producing one vector per text, batched off the event loop.
 *
 * @example
 * ```ts
 * import { Embedder, VectorIndex } from 'ragrank'
 *
 * const embedder = await Embedder.load('sentence-transformers/all-MiniLM-L6-v2') // or a local folder
 * const { data, dim, count } = await embedder.embedDocuments(['first text', 'second text']) // count x dim values
 * const index = new VectorIndex({ dim })
 * index.add(['a', 'b'], data)
 * index.search(await embedder.embedQuery('a question'), { topK: 1 })
 * ```
 */
export class Embedder extends EncoderModel {
    #pooling;
    #normalize;
    #queryPrefix;
    #documentPrefix;
    #lowercase;
    #batcher;
    constructor(encoder, files, runtime, o, st) {
        super(encoder, files, runtime);
        const coalesce = coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS);
        this.#batcher = coalesce ? new Batcher((calls, signal) => this.#embedCalls(calls, signal), coalesce) : undefined;
        this.#pooling = o.pooling ?? st.pooling ?? 'mean';
        this.#normalize = o.normalize ?? st.normalize ?? true;
        this.#queryPrefix = o.queryPrefix ?? queryPrompt(st) ?? '';
        this.#documentPrefix = o.documentPrefix ?? documentPrompt(st) ?? '';
        this.#lowercase = st.doLowerCase === true;
    }
    /**
     * Loads a model folder or hub id (`onnx/model.onnx` or `model.onnx`, `tokenizer.json`, configs,
     * and the sentence-transformers files: `modules.json`, `sentence_bert_config.json`,
     * `1_Pooling/config.json`, `config_sentence_transformers.json`).
     */
    static async load(model, options = {}) {
        const o = optionsObject(options, 'options', EMBEDDER_KEYS);
        if (o.pooling !== undefined)
            nativePooling(pooling(o.pooling), 'options.pooling');
        booleanOption(o.normalize, 'options.normalize', true);
        coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS);
        if (o.queryPrefix !== undefined)
            checkString(o.queryPrefix, 'options.queryPrefix');
        if (o.documentPrefix !== undefined)
            checkString(o.documentPrefix, 'options.documentPrefix');
        const { encoder, files, runtime, settings } = await loadEncoder(model, o, { sentenceTransformers: true });
        try {
            if (encoder.outputRank !== 2 && encoder.outputRank !== 3) {
                throw new RagrankError('ERR_MODEL_LOAD', `${files.model} does not output token or sentence vectors`);
            }
            if (encoder.outputRank === 3 && settings.otherModules.length > 0) {
                throw new RagrankError('ERR_MODEL_LOAD', `${files.modules} lists ${settings.otherModules.join(', ')} after pooling, which ragrank does not apply to ` +
                    `the token vectors of ${files.model}: export the model with its sentence_embedding output`);
            }
            if (o.pooling === undefined && settings.pooling !== undefined && encoder.outputRank === 3) {
                nativePooling(settings.pooling, files.pooling);
            }
        }
        catch (e) {
            encoder.dispose();
            throw e;
        }
        const embedder = new Embedder(encoder, files, runtime, o, settings);
        if (settings.excludesPrompt && (embedder.#queryPrefix !== '' || embedder.#documentPrefix !== '')) {
            // sentence-transformers masks the prompt's tokens out of pooling; ragrank pools them too.
            process.emitWarning(`${files.pooling} sets include_prompt: false, which ragrank does not apply: the prompt's tokens are pooled ` +
                'with the text, so vectors differ from sentence-transformers (most for mean pooling)', 'RagrankWarning');
        }
        return embedder;
    }
    /** Vector width. */
    get dim() {
        return this.encoder.width;
    }
    /**
     * Embeds texts as given (no prefix; lowercased when `sentence_bert_config.json` says `do_lower_case`).
     * Concurrent calls of one text share native batches (see the `coalesce` option); an aborted
     * `signal` rejects only this call.
     */
    async embed(texts, options = {}) {
        this.checkOpen();
        const list = stringArray(texts, 'texts');
        const o = optionsObject(options, 'options', EMBED_KEYS);
        const pool = o.pooling === undefined ? this.#pooling : nativePooling(pooling(o.pooling), 'options.pooling');
        const normalize = booleanOption(o.normalize, 'options.normalize', this.#normalize);
        const batch = batchOptions(this.runtime, o);
        const input = this.#lowercase ? list.map((t) => t.toLowerCase()) : list; // as sentence-transformers' do_lower_case
        if (list.length === 1 && this.#batcher) {
            const signal = checkSignal(o.signal);
            throwIfAborted(signal);
            const key = `${pool}|${normalize}|${batch.batchSize}|${batch.maxLength}`;
            const data = await this.#batcher.submit(key, { text: input[0], pool, normalize, batch }, signal);
            return { data, dim: this.dim, count: 1 };
        }
        const data = await runUnlessEmpty(list.length, () => new Float32Array(0), o.signal, (token) => this.encoder.embed(input, pool, normalize, batch, token));
        return { data, dim: this.dim, count: list.length };
    }
    /** Coalesced calls already accepted finish before `dispose` frees the sessions. */
    acceptedWork() {
        return this.#batcher?.idle();
    }
    /** Single-text calls of one batch key embedded in one native call, split back per call. */
    async #embedCalls(calls, signal) {
        const { pool, normalize, batch } = calls[0];
        const texts = calls.map((c) => c.text);
        const data = await runCancellable(signal, (token) => this.encoder.embed(texts, pool, normalize, batch, token));
        const d = this.dim;
        return calls.map((_, i) => data.slice(i * d, (i + 1) * d));
    }
    /** One query vector, with the query prefix. */
    async embedQuery(text, options = {}) {
        const { data } = await this.embed([this.#queryPrefix + checkString(text, 'text')], options);
        return data;
    }
    /** Passage vectors, with the document prefix. */
    async embedDocuments(texts, options = {}) {
        return this.embed(stringArray(texts, 'texts').map((t) => this.#documentPrefix + t), options);
    }
}
const pooling = (p) => oneOf(p, POOLINGS, 'pooling');
/** `p` if the native encoder of this build implements it; `from` names the option or file that asked for it. */
function nativePooling(p, from) {
    if (NATIVE_POOLINGS.includes(p))
        return p;
    const message = `pooling '${p}' (${from}) is not supported by this build (it has ${NATIVE_POOLINGS.join(', ')})`;
    throw from.startsWith('options.') ? rangeError(message) : new RagrankError('ERR_MODEL_LOAD', message);
}
/**
 * An adapter's embedder option: an object with `embedDocuments` and `embedQuery` (an `Embedder`, or one of its
 * shape); a TypeError naming `name` otherwise.
 */
export function embedderOption(v, name) {
    if (!hasMethod(v, 'embedDocuments') || !hasMethod(v, 'embedQuery'))
        throw typeError(`${name} must be a ragrank Embedder (with embedDocuments and embedQuery)`);
    return v;
}
