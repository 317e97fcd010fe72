import { Document } from '@langchain/core/documents';
import { describe, typeError } from '../../errors.js';
import { isPlainObject } from '../../internal/validate.js';
// A hit's fields that become `pageContent`, `id` and the score, or that only point into
// ragrank's own inputs (`index` of a pooled hit), so never go to metadata as they are.
const NOT_METADATA = new Set(['id', 'text', 'meta', 'score', 'node', 'index']);
// The fields of an auto-merged hit's node that locate it in its document.
const NODE_FIELDS = ['sourceId', 'level', 'parentId', 'start', 'end'];
/**
 * A ragrank hit as a LangChain `Document`: the hit's text (or its node's) as `pageContent`, its
 * `id`, and as `metadata` everything else it carries, so nothing a retriever returned is lost:
 * its `meta`, the score under `scoreKey`, and its other fields (`fusion` of a fused hit,
 * `leafIds` and the node's place, `sourceId`, `level`, `parentId`, `start`, `end`, of an
 * auto-merged one). On a name clash the hit's `meta` wins over ragrank's own fields, and the
 * score over both.
 */
export function hitToDocument(hit, i, scoreKey) {
    if (!isPlainObject(hit) || typeof hit.id !== 'string')
        throw typeError(`retriever.retrieve result ${i} must be an object { id, score }, got ${describe(hit)}`);
    const node = isPlainObject(hit.node) ? hit.node : undefined;
    const extras = {};
    if (node)
        for (const key of NODE_FIELDS)
            if (node[key] !== undefined)
                extras[key] = node[key];
    for (const [key, value] of Object.entries(hit))
        if (!NOT_METADATA.has(key) && value !== undefined)
            extras[key] = value;
    const meta = isPlainObject(hit.meta) ? hit.meta : isPlainObject(node?.meta) ? node.meta : {};
    const text = typeof hit.text === 'string' ? hit.text : typeof node?.text === 'string' ? node.text : '';
    return new Document({ pageContent: text, metadata: { ...extras, ...meta, [scoreKey]: hit.score }, id: hit.id });
}
/** A metadata key option: a non-empty string, or `fallback` when left out. */
export function scoreKey(v, fallback) {
    if (v === undefined)
        return fallback;
    if (typeof v !== 'string' || v === '')
        throw typeError('scoreKey must be a non-empty string');
    return v;
}
