import { abortable, throwIfAborted } from '../internal/abort.js';
import { describe, RagrankError, rangeError, typeError } from '../errors.js';
import { booleanOption, finiteNumber, isArray, isPlainObject, optionKeys, optionsObject, positiveInteger, } from '../internal/validate.js';
import { checkFilterSupport, isRetriever, retrieveOptions, supportsFilter, withFilter, } from '../retrieval/retriever.js';
const AUTO_MERGING_KEYS = optionKeys('retriever', 'store', 'threshold', 'candidates', 'parentScore', 'strict');
/**
 * Retrieves leaves, then replaces groups of sibling hits by their parent when enough of the
 * parent's children matched (Haystack's AutoMergingRetriever rule, recursively up to the root).
 * Unlike Haystack: a leaf hit twice counts once, a missing ancestor stops merging at that
 * level (unless `strict`), and results are ordered by score, a merged parent taking the
 * `parentScore` of its matched children.
 *
 * A `filter` goes to the leaf retriever, and then a parent replaces its children only when
 * every one of them matched: a parent's text is its children's, and a sibling that was not
 * retrieved may be one the filter excludes (another tenant's, or an id not in `filter.ids`).
 * So a merged parent is made only of leaves that passed the filter.
 *
 * A result never contains both a node and one of its descendants (possible when the
 * retriever searches several levels, or when siblings merge up to a node it also returned):
 * the ancestor stays, with the best score of the group and the leaf ids of all of them.
 *
 * @example
 * ```ts
 * import { AutoMergingRetriever, Bm25Index, HierarchicalSplitter, NodeTree } from 'ragrank'
 *
 * const nodes = new HierarchicalSplitter({ blockSizes: [64, 16] }).split([{ id: 'doc', text }])
 * const leaves = new Bm25Index()
 * leaves.add(new NodeTree(nodes).leaves().map((n) => ({ id: n.id, text: n.text })))
 * const retriever = new AutoMergingRetriever({ retriever: leaves, store: nodes, threshold: 0.5 })
 * const hits = await retriever.retrieve('how do tides work', { topK: 5 })
 * // [{ id, score, node, leafIds }]: leaves, or their parent when more than half its children matched
 * ```
 */
export class AutoMergingRetriever {
    /** The share of a parent's children that must match for the parent to replace them. */
    threshold;
    /** Leaves asked for per call (undefined: `4 * topK`; `'topK'`: the call's `topK`). */
    candidates;
    /** Whether a node missing from the store throws `ERR_MISSING_NODE` (else merging stops there). */
    strict;
    #retriever;
    #store;
    #parentScore;
    constructor(options) {
        const o = optionsObject(options, 'options', AUTO_MERGING_KEYS);
        if (!isRetriever(o.retriever)) {
            throw typeError('retriever must have a retrieve(query, { topK, signal, filter }) method returning Promise<{ id, score }[]>');
        }
        this.#retriever = o.retriever;
        this.#store = toStore(o.store);
        this.threshold = o.threshold === undefined ? 0.5 : finiteNumber(o.threshold, 'threshold', 0, 1);
        if (this.threshold <= 0 || this.threshold >= 1) {
            throw rangeError(`threshold must be strictly between 0 and 1, got ${this.threshold}`);
        }
        this.candidates =
            o.candidates === undefined || o.candidates === 'topK'
                ? o.candidates
                : positiveInteger(o.candidates, 'options.candidates');
        this.strict = booleanOption(o.strict, 'options.strict', false);
        this.#parentScore = toParentScore(o.parentScore);
    }
    /** True when the leaf retriever honours filters. */
    get supportsFilter() {
        return supportsFilter(this.#retriever);
    }
    /** Retrieves `candidates` leaves, merges them upwards, and returns the best `topK` results. */
    async retrieve(query, options) {
        const { topK: k, signal, filter } = retrieveOptions(options);
        checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }]);
        throwIfAborted(signal); // even for topK 0: an aborted call never resolves
        if (k === 0)
            return [];
        const depth = this.candidates === 'topK' ? k : Math.max(this.candidates ?? 4 * k, k);
        const hits = await abortable(this.#retriever.retrieve(query, { topK: depth, signal, ...withFilter(filter) }), signal);
        if (!isArray(hits))
            throw typeError('retriever.retrieve must resolve to an array of { id, score }');
        const items = await this.#leaves(hits, signal);
        const known = new Map(); // parents fetched by the merge, reused by the climb
        const merged = await this.#withoutDescendants(await this.#merge(items, signal, filter !== undefined, known), signal, known);
        merged.sort((a, b) => b.score - a.score || a.rank - b.rank);
        return merged.slice(0, k).map(resultOf);
    }
    /** Deduplicates hits by id (best score, first position) and looks their nodes up. */
    async #leaves(hits, signal) {
        const byId = new Map();
        hits.forEach((h, i) => {
            if (!isPlainObject(h) || typeof h.id !== 'string' || typeof h.score !== 'number') {
                throw typeError(`retriever hit ${i} must be { id: string, score: number }`);
            }
            const seen = byId.get(h.id);
            const hit = h;
            if (!seen)
                byId.set(h.id, {
                    id: h.id,
                    score: h.score,
                    node: undefined,
                    leafIds: [h.id],
                    rank: i,
                    hitText: typeof hit.text === 'string' ? hit.text : undefined,
                    hitMeta: isPlainObject(hit.meta) ? hit.meta : undefined,
                });
            else if (h.score > seen.score)
                seen.score = h.score;
        });
        const items = [...byId.values()];
        const nodes = await this.#fetch(items.map((it) => it.id), signal);
        items.forEach((it, k) => {
            it.node = nodes[k];
            if (!it.node && this.strict)
                throw missing(`retrieved node ${JSON.stringify(it.id)} is not in the store`);
        });
        return items;
    }
    /** Merges sibling groups into parents until a round merges nothing; `filtered`: only when every child matched. */
    async #merge(items, signal, filtered, known) {
        const stuck = new Set(); // parents that are missing: never asked for again
        for (;;) {
            const groups = new Map();
            for (const it of items) {
                const parentId = it.node?.parentId;
                if (parentId === null || parentId === undefined || stuck.has(parentId))
                    continue;
                const group = groups.get(parentId);
                if (group)
                    group.push(it);
                else
                    groups.set(parentId, [it]);
            }
            if (groups.size === 0)
                return items;
            const parentIds = [...groups.keys()];
            const unknown = parentIds.filter((id) => !known.has(id));
            const fetched = unknown.length > 0 ? await this.#fetch(unknown, signal) : [];
            unknown.forEach((id, k) => {
                const node = fetched[k];
                if (node)
                    known.set(id, node);
            });
            const parents = parentIds.map((id) => known.get(id));
            const replaced = new Set();
            const added = [];
            parentIds.forEach((parentId, k) => {
                const parent = parents[k];
                const children = groups.get(parentId);
                if (!parent || !isArray(parent.childrenIds) || parent.childrenIds.length === 0) {
                    if (this.strict) {
                        throw missing(parent
                            ? `parent ${JSON.stringify(parentId)} lists no children`
                            : `parent ${JSON.stringify(parentId)} is not in the store`);
                    }
                    stuck.add(parentId);
                    return;
                }
                // Not merged yet; the group may still grow when a sibling subtree merges up to it.
                if (children.length / parent.childrenIds.length <= this.threshold)
                    return;
                if (filtered && !everyChildMatched(parent, children))
                    return;
                for (const c of children)
                    replaced.add(c);
                added.push({
                    id: parent.id,
                    score: this.#parentScore(children.map((c) => c.score), parent),
                    node: parent,
                    leafIds: children.flatMap((c) => c.leafIds),
                    rank: Math.min(...children.map((c) => c.rank)),
                });
            });
            if (added.length === 0)
                return items;
            items = [...items.filter((it) => !replaced.has(it)), ...added];
        }
    }
    /**
     * Drops each item whose ancestor is also an item, folding its score (the best) and leaf
     * ids into the ancestor. Nothing to do (and nothing fetched) when no item has children.
     * Ancestors the merge did not fetch are looked up level by level; a missing one ends the
     * climb there (the merge already threw for it in strict mode).
     */
    async #withoutDescendants(items, signal, known) {
        if (!items.some((it) => isArray(it.node?.childrenIds) && it.node.childrenIds.length > 0))
            return items;
        const byId = new Map(items.map((it) => [it.id, it]));
        const parentOf = new Map();
        const learn = (node) => parentOf.set(node.id, node.parentId ?? null);
        for (const node of known.values())
            learn(node);
        for (const it of items)
            if (it.node)
                learn(it.node);
        // Climb from every item at once: `frontier` holds ancestors whose own parent is unknown.
        const unknownParents = (ids) => {
            const out = new Set();
            for (const id of ids) {
                const p = parentOf.get(id);
                if (p != null && !parentOf.has(p))
                    out.add(p);
            }
            return out;
        };
        let frontier = unknownParents([...parentOf.keys()]);
        while (frontier.size > 0) {
            const ids = [...frontier];
            const nodes = await this.#fetch(ids, signal);
            ids.forEach((id, k) => {
                parentOf.set(id, nodes[k]?.parentId ?? null);
            });
            frontier = unknownParents(ids);
        }
        const dropped = new Set();
        for (const it of items) {
            const seen = new Set([it.id]); // a store with a cycle must not loop forever
            for (let p = parentOf.get(it.id) ?? null; p !== null && !seen.has(p); p = parentOf.get(p) ?? null) {
                seen.add(p);
                const ancestor = byId.get(p);
                if (!ancestor)
                    continue;
                dropped.add(it);
                break;
            }
        }
        if (dropped.size === 0)
            return items;
        const kept = items.filter((it) => !dropped.has(it));
        for (const it of dropped) {
            const seen = new Set([it.id]);
            // Fold into the highest ancestor that stays, so a chain of three folds into its top.
            let top;
            for (let p = parentOf.get(it.id) ?? null; p !== null && !seen.has(p); p = parentOf.get(p) ?? null) {
                seen.add(p);
                const a = byId.get(p);
                if (a && !dropped.has(a))
                    top = a;
            }
            if (!top)
                continue;
            top.score = Math.max(top.score, it.score);
            top.rank = Math.min(top.rank, it.rank);
            for (const id of it.leafIds)
                if (!top.leafIds.includes(id))
                    top.leafIds.push(id);
        }
        return kept;
    }
    async #fetch(ids, signal) {
        throwIfAborted(signal);
        const found = await this.#store.get(ids);
        throwIfAborted(signal);
        if (!isArray(found))
            throw typeError('store.get must resolve to an array');
        // Match by id: a store may return fewer nodes, or in another order.
        const byId = new Map();
        for (const n of found)
            if (n && typeof n.id === 'string')
                byId.set(n.id, n);
        return ids.map((id) => byId.get(id));
    }
}
function resultOf(it) {
    const { id, score, node, leafIds } = it;
    const text = typeof node?.text === 'string' ? node.text : it.hitText;
    const nodeMeta = isPlainObject(node?.meta) ? node.meta : undefined;
    // A merged parent has no hit fields: its meta is the node's.
    const meta = it.hitMeta && nodeMeta ? { ...nodeMeta, ...it.hitMeta } : (it.hitMeta ?? nodeMeta);
    return { id, score, node, leafIds, ...(text === undefined ? {} : { text }), ...(meta === undefined ? {} : { meta }) };
}
function everyChildMatched(parent, children) {
    const matched = new Set(children.map((c) => c.id));
    return parent.childrenIds.every((id) => matched.has(id));
}
function missing(message) {
    return new RagrankError('ERR_MISSING_NODE', message);
}
function toStore(store) {
    if (isArray(store)) {
        const byId = new Map();
        for (const n of store)
            if (n && typeof n.id === 'string')
                byId.set(n.id, n);
        return { get: async (ids) => ids.map((id) => byId.get(id)) };
    }
    if (store && typeof store.get === 'function')
        return store;
    throw typeError('store must be the array of nodes split() returned, or an object with async get(ids)');
}
function toParentScore(rule) {
    if (rule === undefined || rule === 'max')
        return (s) => Math.max(...s);
    if (rule === 'sum')
        return (s) => s.reduce((a, b) => a + b, 0);
    if (rule === 'mean')
        return (s) => s.reduce((a, b) => a + b, 0) / s.length;
    if (typeof rule === 'function')
        return rule;
    const message = `parentScore must be 'max', 'mean', 'sum' or a function (childScores, parent) => number, got ${describe(rule)}`;
    throw typeof rule === 'string' ? rangeError(message) : typeError(message);
}
