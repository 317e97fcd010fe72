import { native } from '../internal/native.js';
import { runCancellable, checkSignal } from '../internal/abort.js';
import { callNative, describe, RagrankError, rangeError, typeError } from '../errors.js';
import { anyInteger, documentId, isArray, isPlainObject, optionalString, optionKeys, optionsObject, readValue, stringArray, } from '../internal/validate.js';
const SPLITTER_KEYS = optionKeys('blockSizes', 'overlap', 'splitBy', 'tokenizer');
const SIGNAL_ONLY = optionKeys('signal');
/**
 * Splits documents into a tree of ever smaller chunks, with Haystack's
 * HierarchicalDocumentSplitter rules: block sizes are applied largest first, a node that
 * gives a single chunk at a size is carried down to the next size, and the non-overlapping
 * children of a node concatenate to exactly its text (nothing is trimmed).
 *
 * @example
 * ```ts
 * import { HierarchicalSplitter, NodeTree } from 'ragrank'
 *
 * const splitter = new HierarchicalSplitter({ blockSizes: [512, 128, 32], splitBy: 'word' })
 * const nodes = await splitter.splitAsync([{ id: 'doc', text: longText }])
 * // root first, then level by level: { id, text, level, blockSize, parentId, childrenIds, start, end, meta }
 * const leaves = new NodeTree(nodes).leaves() // what an index of leaves holds, for AutoMergingRetriever
 * ```
 */
export class HierarchicalSplitter {
    /** The distinct block sizes, largest first. */
    blockSizes;
    /** The overlap in units, as resolved (default 0). */
    overlap;
    /** The unit block sizes count, as resolved (default `word`). */
    splitBy;
    #native;
    constructor(options) {
        // Types and shapes only: ranges, the splitBy names and the defaults are Rust's
        // (`SplitConfig::from_options`), which names the bad option in a RangeError.
        const o = optionsObject(options, 'options', SPLITTER_KEYS);
        const sizes = o.blockSizes;
        if (sizes === undefined ||
            sizes === null ||
            !readValue(() => typeof sizes[Symbol.iterator] === 'function')) {
            throw typeError('blockSizes must be an array (or a Set) of positive integers, e.g. [512, 128, 32]');
        }
        const blockSizes = [...sizes].map((b, i) => anyInteger(b, `blockSizes[${i}]`));
        if (o.overlap !== undefined)
            anyInteger(o.overlap, 'overlap');
        optionalString(o.splitBy, 'splitBy');
        if (o.tokenizer !== undefined && typeof o.tokenizer !== 'string')
            throw typeError('tokenizer must be a file path');
        if (o.splitBy === 'token' && o.tokenizer === undefined) {
            throw typeError("splitBy 'token' needs tokenizer: the path of a tokenizer.json");
        }
        this.#native = callNative(() => new native.NativeSplitter({
            blockSizes,
            overlap: o.overlap,
            splitBy: o.splitBy,
            tokenizer: o.tokenizer,
        }));
        // The effective options, as Rust resolved them.
        this.blockSizes = this.#native.blockSizes;
        this.overlap = this.#native.overlap;
        this.splitBy = this.#native.splitBy;
    }
    /** Splits on the calling thread. Use `splitAsync` for large inputs. */
    split(documents) {
        const docs = checkDocuments(documents);
        const columns = callNative(() => this.#native.split(docs.map((d) => d.text)));
        return buildNodes(docs, columns);
    }
    /** Splits on the libuv thread pool (documents in parallel); the signal cancels it. */
    async splitAsync(documents, options) {
        const docs = checkDocuments(documents);
        const signal = checkSignal(optionsObject(options, 'options', SIGNAL_ONLY).signal);
        const columns = await runCancellable(signal, (token) => this.#native.splitAsync(docs.map((d) => d.text), token));
        return buildNodes(docs, columns);
    }
}
function checkDocuments(documents) {
    if (!isArray(documents))
        throw typeError('documents must be an array of { id, text, meta? }');
    const seen = new Set();
    return Array.from(documents, (d, i) => {
        if (!isPlainObject(d))
            throw typeError(`documents[${i}] must be an object { id, text, meta? }`);
        const id = documentId(d.id, `documents[${i}]`);
        if (typeof d.text !== 'string')
            throw typeError(`documents[${i}].text must be a string`);
        if (d.meta !== undefined && d.meta !== null && !isPlainObject(d.meta)) {
            throw typeError(`documents[${i}].meta must be an object`);
        }
        if (seen.has(id))
            throw new RagrankError('ERR_DUPLICATE_ID', `documents[${i}]: duplicate id ${JSON.stringify(id)}`);
        seen.add(id);
        return d;
    });
}
/**
 * A document id as node ids hold it: `%` and `#` percent-encoded, so the first `#` of a node id always starts the
 * chunk path and ids of different documents never meet (doc `a#0` and chunk 0 of doc `a`). Ids without either stay as
 * they are.
 */
const nodeIdOf = (docId) => /[%#]/.test(docId) ? docId.replace(/%/g, '%25').replace(/#/g, '%23') : docId;
/** Builds node objects from the native columns; texts are sliced from the caller's strings. */
function buildNodes(docs, c) {
    const n = c.start.length;
    const nodes = new Array(n);
    for (let i = 0; i < n; i++) {
        const doc = docs[c.doc[i]];
        const p = c.parent[i];
        let id = nodeIdOf(doc.id);
        let parentId = null;
        if (p >= 0) {
            const parent = nodes[p];
            parentId = parent.id;
            const childIndex = parent.childrenIds.length;
            id = parent.level === 0 ? `${parent.id}#${childIndex}` : `${parent.id}.${childIndex}`;
            parent.childrenIds.push(id);
        }
        const start = c.start[i];
        const end = c.end[i];
        nodes[i] = {
            id,
            text: doc.text.slice(start, end),
            level: c.level[i],
            blockSize: c.blockSize[i],
            parentId,
            childrenIds: [],
            sourceId: doc.id,
            start,
            end,
            meta: (doc.meta ?? {}),
        };
    }
    return nodes;
}
/**
 * Navigation over split output, and a node store for `AutoMergingRetriever` (`get`).
 */
export class NodeTree {
    #byId = new Map();
    constructor(nodes) {
        if (nodes === null || !readValue(() => typeof nodes?.[Symbol.iterator] === 'function')) {
            throw typeError('nodes must be an iterable of HierarchyNode (the output of HierarchicalSplitter.split)');
        }
        let i = 0;
        for (const node of nodes)
            this.#byId.set(checkNode(node, `nodes[${i++}]`).id, node);
    }
    /** The node with this id, or undefined. */
    node(id) {
        return this.#byId.get(id);
    }
    /** The nodes for `ids`, in order; undefined where an id is unknown. */
    async get(ids) {
        return stringArray(ids, 'ids').map((id) => this.#byId.get(id));
    }
    /** Direct children, in text order. */
    children(id) {
        return (this.#require(id).childrenIds ?? []).map((c) => this.#byId.get(c)).filter((c) => c !== undefined);
    }
    /** Parent first, root last. Stops at the first ancestor that is not in the tree. */
    ancestors(id) {
        const out = [];
        let parentId = this.#require(id).parentId;
        while (parentId !== null) {
            const parent = this.#byId.get(parentId);
            if (!parent)
                break;
            out.push(parent);
            parentId = parent.parentId;
        }
        return out;
    }
    /** The leaves under a node (the node itself if it is a leaf), in text order; all leaves without an id. */
    leaves(id) {
        if (id !== undefined)
            this.#require(id);
        if (id === undefined)
            return [...this.#byId.values()].filter((n) => n.childrenIds.length === 0);
        const out = [];
        const stack = [this.#require(id)];
        while (stack.length > 0) {
            const node = stack.pop();
            if (node.childrenIds.length === 0) {
                out.push(node);
                continue;
            }
            const kids = node.childrenIds.map((c) => this.#byId.get(c)).filter((c) => c !== undefined);
            for (let k = kids.length - 1; k >= 0; k--)
                stack.push(kids[k]);
        }
        return out;
    }
    #require(id) {
        if (typeof id !== 'string')
            throw typeError(`id must be a string, got ${describe(id)}`);
        const node = this.#byId.get(id);
        if (!node)
            throw rangeError(`no node with id ${JSON.stringify(id)}`);
        return node;
    }
}
/** The fields NodeTree navigates by: a string id, a string or null parentId, string childrenIds. */
function checkNode(node, where) {
    if (!isPlainObject(node))
        throw typeError(`${where} must be a node object, got ${describe(node)}`);
    if (typeof node.id !== 'string')
        throw typeError(`${where}.id must be a string, got ${describe(node.id)}`);
    if (node.parentId !== null && typeof node.parentId !== 'string')
        throw typeError(`${where}.parentId must be a string or null`);
    stringArray(node.childrenIds, `${where}.childrenIds`);
    return node;
}
