import { checkSignal } from '../internal/abort.js';
import { typeError } from '../errors.js';
import { hasMethod, isArray, optionKeys, optionsObject, topK } from '../internal/validate.js';
export function isRetriever(v) {
    return hasMethod(v, 'retrieve');
}
export function checkQuery(query) {
    if (typeof query !== 'string')
        throw typeError('query must be a string');
    return query;
}
/** The keys of the `Retriever` contract. */
export const RETRIEVE_KEYS = optionKeys('topK', 'signal', 'filter');
/**
 * Validated `{ topK, signal }` of a `retrieve` call, and its `filter` as given (the indexes
 * validate it); `known` adds a retriever's own keys to the contract's.
 */
export function retrieveOptions(options, known = RETRIEVE_KEYS) {
    const o = optionsObject(options, 'options', known);
    return { topK: topK(o.topK), signal: checkSignal(o.signal), filter: o.filter };
}
/** Whether a retriever declares that it honours filters. */
export function supportsFilter(retriever) {
    return retriever.supportsFilter === true;
}
/**
 * Throws, before any source runs, when a filter is given and a source does not declare
 * `supportsFilter`: a source that ignored it would return documents the filter excludes.
 */
export function checkFilterSupport(filter, sources) {
    if (filter === undefined)
        return;
    for (const { retriever, who } of sources) {
        if (!supportsFilter(retriever)) {
            const name = retriever.constructor?.name && retriever.constructor.name !== 'Object' ? ` (${retriever.constructor.name})` : '';
            throw typeError(`${who}${name} cannot honour options.filter: it does not declare supportsFilter, so it would ignore the filter`);
        }
    }
}
/** `{ filter }` when one is given, else nothing, so sources without filters see the options they always did. */
export function withFilter(filter) {
    return filter === undefined ? {} : { filter };
}
/** Checks that a retriever resolved to an array and keeps at most `topK` of it. */
export function retrievedList(v, topK, who) {
    if (!isArray(v))
        throw typeError(`${who} must resolve to an array of { id, score }, got ${v === null ? 'null' : typeof v}`);
    return v.length > topK ? v.slice(0, topK) : v;
}
