import { callbackError, describe, typeError } from '../errors.js';
import { abortable, checkSignal, throwIfAborted } from '../internal/abort.js';
import { isArray, isPlainObject } from '../internal/validate.js';
import { withFilter } from '../retrieval/retriever.js';
/** Reads hit `i` of `who`'s result; a hit without a string id and a number score is a TypeError. */
export function hitDocument(hit, i, who) {
    if (!isPlainObject(hit) || typeof hit.id !== 'string' || typeof hit.score !== 'number')
        throw typeError(`${who} result ${i} must be an object { id, score }, got ${describe(hit)}`);
    const node = isPlainObject(hit.node) ? hit.node : undefined;
    const text = typeof hit.text === 'string' ? hit.text : typeof node?.text === 'string' ? node.text : '';
    const meta = isPlainObject(hit.meta) ? hit.meta : isPlainObject(node?.meta) ? node.meta : {};
    const out = { id: hit.id, score: hit.score, text, meta: { ...meta } };
    if (node) {
        out.node = {
            sourceId: typeof node.sourceId === 'string' ? node.sourceId : undefined,
            parentId: typeof node.parentId === 'string' ? node.parentId : null,
            start: typeof node.start === 'number' ? node.start : undefined,
            end: typeof node.end === 'number' ? node.end : undefined,
        };
    }
    if (isArray(hit.leafIds))
        out.leafIds = hit.leafIds.filter((x) => typeof x === 'string');
    return out;
}
/**
 * One `retrieve` call of a user's retriever, its result checked and read as `HitDocument`s.
 * `abortable`, so a retriever that ignores the signal cannot hold the caller.
 */
export async function retrieveHits(retriever, query, options) {
    const { topK, filter } = options;
    const signal = checkSignal(options.signal);
    throwIfAborted(signal);
    const call = Promise.resolve()
        .then(() => retriever.retrieve(query, { topK, ...withFilter(filter), ...(signal ? { signal } : {}) }))
        .catch((e) => {
        throw callbackError(e, 'retriever.retrieve');
    });
    const hits = await abortable(call, signal);
    if (!isArray(hits))
        throw typeError('retriever.retrieve must resolve to an array');
    // Array.from visits the holes of a sparse array too: each is a bad hit, never a hole in the result.
    return Array.from(hits, (h, i) => hitDocument(h, i, 'retriever.retrieve'));
}
