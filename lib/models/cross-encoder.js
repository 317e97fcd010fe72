import { RagrankError, typeError } from '../errors.js';
import { checkCandidates, dedupe } from '../retrieval/dedupe.js';
import { EncoderModel } from './encoder-model.js';
import { BATCH_CALL_KEYS, batchOptions, checkString, LOAD_KEYS, loadEncoder, runUnlessEmpty, } from './encoder.js';
import { finiteNumber, isArray, isPlainObject, oneOf, optionKeys, optionsObject, stringArray, topK, } from '../internal/validate.js';
import { Batcher, coalesceOption } from '../internal/batcher.js';
import { runCancellable, throwIfAborted, checkSignal } from '../internal/abort.js';
const sigmoid = (x) => 1 / (1 + Math.exp(-x));
const CROSS_ENCODER_KEYS = optionKeys(...LOAD_KEYS, ...['topK', 'scoreThreshold', 'activation', 'queryPrefix', 'documentPrefix', 'metaFields', 'metaSeparator'], 'coalesce');
const RERANK_KEYS = optionKeys(...BATCH_CALL_KEYS, 'topK', 'scoreThreshold', 'activation');
/** Rerank calls per coalesced batch: 16 calls of tens of documents fill every session. */
const COALESCE_DEFAULTS = { maxBatch: 16, maxWaitMs: 0 };
/**
 * A cross-encoder reranker on ONNX Runtime. Tokenisation and inference run off the event
 * loop, in length-sorted batches padded per batch; concurrent calls are safe.
 *
 * 1-label models score with their logit, 2-label models with the positive label
 * (`logit[1] - logit[0]`, whose sigmoid is the softmax probability).
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 *
 * const ranker = await CrossEncoder.load('cross-encoder/ms-marco-MiniLM-L6-v2') // or a local folder
 * const top = await ranker.rerank('what is bm25?', [
 *   { id: 'a', text: 'BM25 ranks documents by term frequency and rarity.' },
 *   { id: 'b', text: 'Cats sleep most of the day.' },
 * ], { topK: 1 }) // [{ id: 'a', text, score, index: 0 }]
 * ranker.dispose() // frees the sessions once running calls finish
 * ```
 */
export class CrossEncoder extends EncoderModel {
    #defaults;
    #batcher;
    constructor(encoder, files, runtime, o) {
        super(encoder, files, runtime);
        const coalesce = coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS);
        this.#batcher = coalesce ? new Batcher((calls, signal) => this.#scoreCalls(calls, signal), coalesce) : undefined;
        this.#defaults = {
            activation: activation(o.activation ?? 'sigmoid'),
            queryPrefix: o.queryPrefix === undefined ? '' : checkString(o.queryPrefix, 'options.queryPrefix'),
            documentPrefix: o.documentPrefix === undefined ? '' : checkString(o.documentPrefix, 'options.documentPrefix'),
            metaSeparator: o.metaSeparator === undefined ? '\n' : checkString(o.metaSeparator, 'options.metaSeparator'),
            topK: topK(o.topK, undefined),
            scoreThreshold: o.scoreThreshold === undefined
                ? undefined
                : finiteNumber(o.scoreThreshold, 'options.scoreThreshold', -Infinity),
            metaFields: o.metaFields === undefined ? undefined : stringArray(o.metaFields, 'options.metaFields'),
        };
    }
    /** Loads a model folder (`model.onnx` or `onnx/model.onnx`, `tokenizer.json`, configs) or a hub id. */
    static async load(model, options = {}) {
        const o = optionsObject(options, 'options', CROSS_ENCODER_KEYS);
        activation(o.activation ?? 'sigmoid');
        coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS);
        const { encoder, files, runtime } = await loadEncoder(model, o);
        if (encoder.outputRank !== 2 || encoder.width > 2) {
            throw new RagrankError('ERR_MODEL_LOAD', `${files.model} is not a 1- or 2-label classifier (output width ${encoder.width})`);
        }
        return new CrossEncoder(encoder, files, runtime, o);
    }
    /**
     * Scores each document against the query and returns them best first (ties keep input
     * order). Duplicates are scored once, by the rankers' one rule (`dedupe`: the same `id`,
     * or without ids the same text): the copy with the highest prior `score` is kept, and
     * the result's `index` is that copy's input position. Concurrent calls share native
     * batches (see the `coalesce` option); an aborted `signal` rejects only this call.
     */
    async rerank(query, documents, options = {}) {
        if (!this.#batcher) {
            const [result] = await this.rerankMany([{ query, documents }], options);
            return result;
        }
        this.checkOpen();
        const o = optionsObject(options, 'options', RERANK_KEYS);
        const finish = this.#finisher(o);
        const batch = batchOptions(this.runtime, o);
        const signal = checkSignal(o.signal);
        const q = this.#defaults.queryPrefix + checkString(query, 'query');
        const p = this.#prepare(documents, 'documents');
        throwIfAborted(signal);
        if (p.texts.length === 0)
            return finish(p, new Float32Array(0), 0);
        // Only calls whose batching and truncation agree share a batch: both can change scores.
        const key = `${batch.batchSize}|${batch.maxLength}`;
        const scores = await this.#batcher.submit(key, { query: q, texts: p.texts, batch }, signal);
        return finish(p, scores, 0);
    }
    /** Coalesced calls already accepted finish before `dispose` frees the sessions. */
    acceptedWork() {
        return this.#batcher?.idle();
    }
    /** The pairs of many rerank calls (of one batch key) scored in one native call. */
    async #scoreCalls(calls, signal) {
        const texts = [];
        const queryOf = [];
        calls.forEach((c, qi) => {
            for (const t of c.texts) {
                texts.push(t);
                queryOf.push(qi);
            }
        });
        const queries = calls.map((c) => c.query);
        const scores = await runCancellable(signal, (token) => this.encoder.scorePairs(queries, texts, queryOf, calls[0].batch, token));
        let at = 0;
        return calls.map((c) => {
            const mine = scores.subarray(at, at + c.texts.length);
            at += c.texts.length;
            return mine;
        });
    }
    /** Turns raw scores into a call's sorted, thresholded results (its options resolved once). */
    #finisher(o) {
        const act = o.activation === undefined ? this.#defaults.activation : activation(o.activation);
        const k = topK(o.topK, this.#defaults.topK);
        const threshold = o.scoreThreshold === undefined
            ? this.#defaults.scoreThreshold
            : finiteNumber(o.scoreThreshold, 'options.scoreThreshold', -Infinity);
        return (p, scores, at) => {
            const scored = p.docs.map((doc, j) => {
                const raw = scores[at + j];
                const score = act === 'sigmoid' ? sigmoid(raw) : raw;
                const base = typeof doc === 'string' ? { text: doc } : doc;
                return { ...base, score, index: p.indices[j] };
            });
            const kept = threshold === undefined ? scored : scored.filter((d) => d.score >= threshold);
            kept.sort((a, b) => b.score - a.score || a.index - b.index);
            return k === undefined ? kept : kept.slice(0, k);
        };
    }
    /** Many queries in one call: all pairs are batched and scheduled together. */
    async rerankMany(requests, options = {}) {
        this.checkOpen();
        if (!isArray(requests))
            throw typeError('requests must be an array of { query, documents }');
        const o = optionsObject(options, 'options', RERANK_KEYS);
        const finish = this.#finisher(o);
        const batch = batchOptions(this.runtime, o);
        const queries = [];
        const texts = [];
        const queryOf = [];
        const prepared = requests.map((r, qi) => {
            if (!isPlainObject(r))
                throw typeError(`requests[${qi}] must be { query, documents }`);
            queries.push(this.#defaults.queryPrefix + checkString(r.query, `requests[${qi}].query`));
            const p = this.#prepare(r.documents, `requests[${qi}].documents`);
            for (const t of p.texts) {
                texts.push(t);
                queryOf.push(qi);
            }
            return p;
        });
        const scores = await runUnlessEmpty(texts.length, () => new Float32Array(0), o.signal, (token) => this.encoder.scorePairs(queries, texts, queryOf, batch, token));
        let at = 0;
        return prepared.map((p) => {
            const out = finish(p, scores, at);
            at += p.docs.length;
            return out;
        });
    }
    #prepare(documents, name) {
        const { docs, indices } = dedupe(checkCandidates(documents, name));
        const texts = docs.map((d) => this.#documentText(d));
        return { docs, indices, texts };
    }
    #documentText(d) {
        const { documentPrefix, metaFields, metaSeparator } = this.#defaults;
        if (typeof d === 'string')
            return documentPrefix + d;
        const parts = (metaFields ?? [])
            .map((f) => d.meta?.[f])
            .filter((v) => v !== undefined && v !== null)
            .map(String);
        return documentPrefix + [...parts, d.text].join(metaSeparator);
    }
}
const activation = (a) => oneOf(a, ['sigmoid', 'none'], 'activation');
