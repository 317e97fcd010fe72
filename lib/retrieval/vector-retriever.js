import { rangeError, typeError } from '../errors.js';
import { abortable, throwIfAborted } from '../internal/abort.js';
import { checkQuery, retrieveOptions, withFilter, } from './retriever.js';
import { hasMethod, isArray, isPlainObject, optionKeys, optionsObject, readValue } from '../internal/validate.js';
/** Whether an index honours `search(q, { topK, filter })` (`VectorIndex` declares it; a custom index may). */
export function indexSupportsFilter(index) {
    return index.supportsFilter === true;
}
const VECTOR_RETRIEVER_KEYS = optionKeys('index', 'embed', 'documents');
/** Embeds the query, then searches a vector index. */
export class VectorRetriever {
    #index;
    #embed;
    #documents;
    constructor(options) {
        const o = optionsObject(options, 'options', VECTOR_RETRIEVER_KEYS);
        if (!isPlainObject(o.index) || typeof o.index.search !== 'function') {
            throw typeError('options.index must be an object with a search(vector, { topK }) method, such as a VectorIndex');
        }
        this.#index = o.index;
        this.#embed = embedFunction(o.embed);
        if (o.documents !== undefined &&
            !readValue(() => o.documents instanceof Map) &&
            typeof o.documents !== 'function') {
            throw typeError('options.documents must be a Map or a function (id) => { text, meta }');
        }
        this.#documents = o.documents;
    }
    /** True when its index honours filters. */
    get supportsFilter() {
        return indexSupportsFilter(this.#index);
    }
    /** Embeds `query` and returns the `topK` nearest documents, with their fields when `documents` was given. */
    async retrieve(query, options = {}) {
        const text = checkQuery(query);
        const { topK, signal, filter } = retrieveOptions(options);
        if (filter !== undefined && !indexSupportsFilter(this.#index)) {
            throw typeError('options.filter: the index of this VectorRetriever does not declare supportsFilter, so it would ignore the filter');
        }
        throwIfAborted(signal);
        if (topK === 0)
            return [];
        const vector = queryVector(await abortable(this.#embed(text, { signal }), signal));
        throwIfAborted(signal);
        const index = this.#index;
        const hits = await abortable(typeof index.searchAsync === 'function'
            ? index.searchAsync(vector, { topK, ...withFilter(filter), signal })
            : Promise.resolve(index.search(vector, { topK, ...withFilter(filter) })), signal);
        if (!isArray(hits))
            throw typeError('index.search must return an array of { id, score }');
        const out = hits.slice(0, topK).map((h, i) => hit(h, i));
        return this.#documents ? abortable(this.#withFields(out), signal) : out;
    }
    async #withFields(hits) {
        const lookup = this.#documents;
        const fields = await Promise.all(hits.map((h) => (typeof lookup === 'function' ? lookup(h.id) : lookup.get(h.id))));
        return hits.map((h, i) => {
            const f = fields[i];
            if (f === undefined || f === null)
                return h;
            if (!isPlainObject(f))
                throw typeError(`documents lookup for ${JSON.stringify(h.id)} must give an object { text?, meta? }`);
            const out = { ...h };
            if (f.text !== undefined)
                out.text = f.text;
            if (f.meta !== undefined)
                out.meta = f.meta;
            return out;
        });
    }
}
function embedFunction(embed) {
    if (typeof embed === 'function')
        return embed;
    if (hasMethod(embed, 'embedQuery')) {
        const e = embed;
        return (text, { signal }) => e.embedQuery(text, { signal });
    }
    throw typeError('options.embed must be an Embedder (or any object with embedQuery) or a function (text, { signal }) => Promise<Float32Array>');
}
function queryVector(v) {
    const vector = readValue(() => v instanceof Float32Array)
        ? v
        : isArray(v) && v.every((x) => typeof x === 'number')
            ? Float32Array.from(v)
            : undefined;
    if (!vector)
        throw typeError('embed must resolve to a Float32Array or an array of numbers');
    if (vector.length === 0)
        throw rangeError('embed resolved to an empty vector');
    if (!vector.every(Number.isFinite))
        throw rangeError('embed resolved to a vector with a NaN or infinite value');
    return vector;
}
function hit(h, i) {
    if (!isPlainObject(h) || typeof h.id !== 'string' || typeof h.score !== 'number') {
        throw typeError(`index.search result [${i}] must be { id: string, score: number }`);
    }
    return { ...h };
}
