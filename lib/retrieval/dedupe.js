import { typeError } from '../errors.js';
import { isPlainObject, isArray, oneOf } from '../internal/validate.js';
import { mergeCopies } from './merge-fields.js';
export const DEDUPE_RULES = Object.freeze(['id-or-content', 'content', 'none']);
/** A `dedupeBy` option: one of `DEDUPE_RULES` (a TypeError / RangeError naming `name` otherwise). */
export const dedupeRule = (v, name) => oneOf(v, DEDUPE_RULES, name);
/** Checks a ranker's input: an array of strings or `{ text }` objects whose `id`, if any, is a string. */
export function checkCandidates(documents, name) {
    if (!isArray(documents))
        throw typeError(`${name} must be an array of strings or { text } objects`);
    documents.forEach((d, i) => {
        if (typeof d === 'string')
            return;
        if (!isPlainObject(d) || typeof d.text !== 'string')
            throw typeError(`${name}[${i}] must be a string or have a string text`);
        if (d.id !== undefined && typeof d.id !== 'string')
            throw typeError(`${name}[${i}].id must be a string`);
    });
    return documents;
}
const prior = (d) => typeof d !== 'string' && typeof d.score === 'number' && !Number.isNaN(d.score) ? d.score : -Infinity;
const textOf = (d) => (typeof d === 'string' ? d : d.text);
/**
 * Drops duplicate candidates: the one rule of every ranker (`CrossEncoder`, `LLMRanker`,
 * `rerankPooled`). Two candidates are the same document when they have the same `id`; a
 * candidate without an `id` (a string, or an object with no id) is the same as another
 * without an id and with the identical text. An id'd candidate never matches an id-less
 * one. Of a group of duplicates the copy with the highest prior `score` is kept (ties: the
 * first), at the position of the first copy, so the order the sources gave still decides
 * where the group sits. The kept copy gets the fields its duplicates add (`mergeCopies`,
 * the kept copy first, then the others in input order): a copy with meta is not lost to a
 * higher-scored copy without it. Returns the kept documents and, for each, the input
 * position of that kept copy (so a result's `index` points at the document whose fields win).
 *
 * `by` is for the pooled rerank's override: `'content'` ignores ids (sources that id the
 * same text differently), `'none'` keeps every copy.
 */
export function dedupe(documents, by = 'id-or-content') {
    const docs = [];
    const indices = [];
    const slot = new Map();
    // Groups with duplicates: every copy of the group, the first one first.
    const groups = new Map();
    documents.forEach((d, i) => {
        if (by !== 'none') {
            const id = typeof d === 'string' ? undefined : d.id;
            // Ids and texts live in one map; the prefixes keep an id from matching a text.
            const key = by === 'id-or-content' && id !== undefined ? `i:${id}` : `t:${textOf(d)}`;
            const at = slot.get(key);
            if (at !== undefined) {
                const group = groups.get(at) ?? [docs[at]];
                group.push(d);
                groups.set(at, group);
                if (prior(d) > prior(docs[at])) {
                    docs[at] = d;
                    indices[at] = i;
                }
                return;
            }
            slot.set(key, docs.length);
        }
        docs.push(d);
        indices.push(i);
    });
    for (const [at, group] of groups) {
        const kept = docs[at];
        if (typeof kept === 'string')
            continue; // strings are grouped by text: nothing to add
        const others = group.filter((c) => c !== kept && typeof c !== 'string');
        docs[at] = mergeCopies([kept, ...others]);
    }
    return { docs, indices };
}
