import { RagrankError, typeError } from '../errors.js';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { checkSignal } from '../internal/abort.js';
import { documentId, hasMethod, integer, isPlainObject, optionKeys, optionsObject, positiveInteger, readValue, } from '../internal/validate.js';
import { tokenJoiner } from './analysis.js';
import { vectorArray } from './query-vector.js';
import { isRetryable } from './transport.js';
export const INGEST_KEYS = optionKeys('documents', 'splitter', 'embedder', 'analysis', 'batchSize', 'concurrency', 'retries', 'minDelayMs', 'maxDelayMs', 'onProgress', 'signal');
const sleep = (ms, signal) => abortable(new Promise((resolve) => setTimeout(resolve, ms)), signal);
/**
 * Indexes documents into an engine with bulk requests: bounded concurrency (the input is read only as fast
 * as the engine takes it), retries with exponential backoff on 429 / 503 / lost connections (whole requests
 * and single refused documents), idempotent ids (a re-run replaces, never duplicates), a progress callback,
 * and a report of the refused documents. When a request still fails after its retries, it throws that
 * error (code `ERR_ENGINE_OVERLOADED` / `ERR_ENGINE_UNREACHABLE` ...) with the partial `report` attached:
 * running the same ingestion again completes the job.
 */
export async function ingestInto(sink, options, known = INGEST_KEYS) {
    const o = optionsObject(options, 'options', known);
    const signal = checkSignal(o.signal);
    const batchSize = positiveInteger(o.batchSize ?? 500, 'options.batchSize');
    const concurrency = positiveInteger(o.concurrency ?? 2, 'options.concurrency');
    const retries = integer(o.retries ?? 8, 'options.retries', 0, 100);
    const minDelay = integer(o.minDelayMs ?? 200, 'options.minDelayMs', 0);
    const maxDelay = Math.max(minDelay, integer(o.maxDelayMs ?? 10_000, 'options.maxDelayMs', 0));
    const onProgress = o.onProgress;
    if (onProgress !== undefined && typeof onProgress !== 'function')
        throw typeError('options.onProgress must be a function');
    const splitter = o.splitter;
    if (splitter !== undefined && !hasMethod(splitter, 'split'))
        throw typeError('options.splitter must be a HierarchicalSplitter (an object with split(documents))');
    const embed = documentEmbedder(o.embedder);
    const tokens = o.analysis === undefined ? undefined : tokenJoiner(o.analysis);
    const documents = o.documents;
    const iterable = readValue(() => documents != null && (Symbol.asyncIterator in Object(documents) || Symbol.iterator in Object(documents)));
    if (!iterable || typeof documents === 'string')
        throw typeError('options.documents must be an array or an (async) iterable of { id, text, meta?, vector? }');
    const started = performance.now();
    const report = {
        documents: 0,
        indexed: 0,
        rejected: 0,
        retries: 0,
        batches: 0,
        rejectedDocuments: [],
        ms: 0,
    };
    const progress = () => onProgress?.({
        documents: report.documents,
        indexed: report.indexed,
        rejected: report.rejected,
        retries: report.retries,
    });
    const backoff = (attempt) => {
        const ceiling = Math.min(maxDelay, minDelay * 2 ** attempt);
        return ceiling / 2 + Math.random() * (ceiling / 2);
    };
    let prepared = false;
    const prepare = async (records) => {
        if (prepared)
            return;
        const withVector = records.find((r) => r.vector);
        await withRetries(() => sink.prepare({ dims: withVector?.vector?.length, tokens: tokens !== undefined, nodes: splitter !== undefined }, signal));
        prepared = true;
    };
    /** Runs `fn`, retrying what a retry may cure with backoff; anything else, or the last failure, is thrown. */
    async function withRetries(fn) {
        for (let attempt = 0;; attempt++) {
            try {
                return await fn();
            }
            catch (e) {
                if (!isRetryable(e) || attempt >= retries)
                    throw e;
                report.retries++;
                progress();
                await sleep(backoff(attempt), signal);
            }
        }
    }
    async function writeBatch(records) {
        let pending = records;
        for (let attempt = 0; pending.length > 0; attempt++) {
            const refused = await withRetries(() => sink.write(pending, signal));
            const retry = new Set(refused.filter((r) => r.retryable).map((r) => r.id));
            report.indexed += pending.length - refused.length;
            const final = attempt >= retries ? refused : refused.filter((r) => !r.retryable);
            report.rejected += final.length;
            report.rejectedDocuments.push(...final);
            progress();
            if (attempt >= retries || retry.size === 0)
                return;
            report.retries++;
            await sleep(backoff(attempt), signal);
            pending = pending.filter((r) => retry.has(r.id));
        }
    }
    const inFlight = new Set();
    let failure;
    const launch = (records) => {
        report.batches++;
        const p = writeBatch(records)
            .catch((e) => {
            failure ??= e;
        })
            .finally(() => inFlight.delete(p));
        inFlight.add(p);
    };
    const flush = async (docs) => {
        const records = await toRecords(docs, splitter, embed, tokens, signal);
        await prepare(records);
        for (let i = 0; i < records.length; i += batchSize) {
            // Backpressure: wait for a slot before sending (and before reading more input).
            while (inFlight.size >= concurrency)
                await Promise.race(inFlight);
            if (failure)
                return;
            launch(records.slice(i, i + batchSize));
        }
    };
    let buffer = [];
    try {
        for await (const doc of documents) {
            throwIfAborted(signal);
            buffer.push(checkDocument(doc, report.documents));
            report.documents++;
            if (buffer.length >= batchSize) {
                await flush(buffer);
                buffer = [];
            }
            if (failure)
                break;
        }
        if (!failure && buffer.length > 0)
            await flush(buffer);
        await Promise.all(inFlight);
        if (!failure && prepared)
            await withRetries(() => sink.finish(signal));
    }
    catch (e) {
        await Promise.allSettled(inFlight);
        failure ??= e;
    }
    report.ms = performance.now() - started;
    if (failure) {
        if (failure instanceof Error)
            Object.assign(failure, { report });
        throw failure;
    }
    progress();
    return report;
}
const DOCUMENT_KEYS = optionKeys('id', 'text', 'meta', 'vector');
function checkDocument(doc, i) {
    const where = `documents[${i}]`;
    const d = optionsObject(doc, where, DOCUMENT_KEYS);
    documentId(d.id, `${where}.id`);
    if (typeof d.text !== 'string')
        throw typeError(`${where}.text must be a string`);
    if (d.meta !== undefined && !isPlainObject(d.meta))
        throw typeError(`${where}.meta must be a plain object`);
    return d;
}
function documentEmbedder(e) {
    if (e === undefined)
        return undefined;
    if (typeof e === 'function') {
        return async (texts, signal) => {
            const out = await abortable(Promise.resolve(e(texts, { signal })), signal);
            if (!Array.isArray(out) || out.length !== texts.length)
                throw typeError(`options.embedder must resolve to one vector per text (${texts.length})`);
            return out.map((v, i) => vectorArray(v, `options.embedder's vector ${i}`));
        };
    }
    if (hasMethod(e, 'embedDocuments')) {
        const m = e;
        return async (texts, signal) => {
            const { data, dim } = await m.embedDocuments(texts, { signal });
            return texts.map((_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim)));
        };
    }
    throw typeError('options.embedder must be an Embedder (embedDocuments) or a function (texts, { signal }) => vectors');
}
async function toRecords(docs, splitter, embed, tokens, signal) {
    let records;
    if (splitter) {
        const nodes = splitter.split(docs.map(({ id, text, meta }) => (meta === undefined ? { id, text } : { id, text, meta })));
        records = nodes.map((n) => ({
            id: n.id,
            text: n.text,
            meta: n.meta,
            searchable: n.childrenIds.length === 0,
            node: {
                parentId: n.parentId,
                childrenIds: n.childrenIds,
                level: n.level,
                blockSize: n.blockSize,
                sourceId: n.sourceId,
                start: n.start,
                end: n.end,
            },
        }));
    }
    else {
        records = docs.map((d, i) => {
            const r = { id: d.id, text: d.text, searchable: true };
            if (d.meta !== undefined)
                r.meta = d.meta;
            if (d.vector !== undefined)
                r.vector = vectorArray(d.vector, `documents[${i}].vector`);
            return r;
        });
    }
    const searchable = records.filter((r) => r.searchable);
    if (embed) {
        const vectors = await embed(searchable.map((r) => r.text), signal);
        searchable.forEach((r, i) => {
            r.vector = vectors[i];
        });
    }
    const dims = new Set(searchable.filter((r) => r.vector).map((r) => r.vector.length));
    if (dims.size > 1)
        throw new RagrankError('ERR_ENGINE_DIMENSION', `documents have vectors of different lengths: ${[...dims].join(', ')}`);
    if (tokens)
        for (const r of searchable)
            r.tokens = tokens(r.text);
    return records;
}
