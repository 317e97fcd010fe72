import { rangeError, typeError } from '../errors.js';
import { abortable } from '../internal/abort.js';
import { hasMethod, isArray, readValue } from '../internal/validate.js';
/** `embed` as given to an engine retriever: an Embedder (anything with embedQuery) or a function. */
export function queryEmbedding(embed, name = 'options.embed') {
    if (embed === undefined)
        return undefined;
    if (typeof embed === 'function')
        return embed;
    if (hasMethod(embed, 'embedQuery')) {
        const e = embed;
        return (text, { signal }) => e.embedQuery(text, { signal });
    }
    throw typeError(`${name} must be an Embedder (an object with embedQuery) or a function (text, { signal }) => vector`);
}
/** A query vector as plain finite numbers, the form both engines' JSON and pgvector take. */
export function vectorArray(v, name) {
    const isTyped = readValue(() => v instanceof Float32Array || v instanceof Float64Array);
    if (!isTyped && !isArray(v))
        throw typeError(`${name} must be a Float32Array or an array of numbers`);
    const out = Array.from(v, (x) => x);
    if (out.length === 0)
        throw rangeError(`${name} is an empty vector`);
    if (!out.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw rangeError(`${name} has a value that is not a finite number`);
    return out;
}
export async function embedQuery(embed, query, signal) {
    return vectorArray(await abortable(embed(query, { signal }), signal), 'the query embedding');
}
