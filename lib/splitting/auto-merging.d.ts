import type { HierarchyNode } from './splitter.js';
import { type RetrieveOptions, type Retriever } from '../retrieval/retriever.js';
/** The fields the merge needs from a node. `HierarchyNode` has them. */
export type StoredNode = Pick<HierarchyNode, 'id' | 'parentId' | 'childrenIds'> & Partial<HierarchyNode>;
/** A node store: `get` returns, for each id, the node or undefined/null when it is missing. */
export interface NodeStore {
    /** The nodes for `ids`, in order. */
    get(ids: string[]): Promise<(StoredNode | undefined | null)[]>;
}
/** How a merged parent is scored from the scores of its matched children. */
export type ParentScore = 'max' | 'mean' | 'sum' | ((childScores: number[], parent: StoredNode) => number);
/** Options of `new AutoMergingRetriever(options)`. */
export interface AutoMergingOptions {
    /** The retriever over the leaves (e.g. a `Bm25Index` of `NodeTree.leaves()`). */
    retriever: Retriever;
    /** The nodes `HierarchicalSplitter.split` returned, or a store with an async `get(ids)`. */
    store: readonly StoredNode[] | NodeStore;
    /** A parent replaces its matched children when matched / all children > threshold. In (0, 1); default 0.5. */
    threshold?: number;
    /**
     * Leaves to ask the retriever for, at least the call's `topK`; default `4 * topK`. `'topK'`
     * asks for exactly the call's `topK`, as a Haystack pipeline does (its retriever's `top_k`
     * hits go to the AutoMergingRetriever): the faithful setting when porting one.
     */
    candidates?: number | 'topK';
    /** Default `max`. */
    parentScore?: ParentScore;
    /** Throw (ERR_MISSING_NODE) when a hit or an ancestor is not in the store, instead of not merging there. */
    strict?: boolean;
}
/** One result of `AutoMergingRetriever.retrieve`: a retrieved node, or a parent that replaced its children. */
export interface AutoMergedHit {
    /** The node's id. */
    id: string;
    /** The hit's score, or for a merged parent the `parentScore` of its matched children. */
    score: number;
    /** The stored node; undefined for a hit the store does not know (non-strict mode). */
    node: StoredNode | undefined;
    /** The retrieved leaf hits this result stands for (itself when not merged). */
    leafIds: string[];
    /** The node's text; for an unmerged hit the store does not know, the text the retriever returned. */
    text?: string;
    /**
     * For a merged parent, the node's meta. For an unmerged hit, the meta the retriever returned
     * over the node's (the index's keys win: they may be the chunk's own, such as a page).
     */
    meta?: Record<string, unknown>;
}
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
export declare class AutoMergingRetriever implements Retriever {
    #private;
    /** The share of a parent's children that must match for the parent to replace them. */
    readonly threshold: number;
    /** Leaves asked for per call (undefined: `4 * topK`; `'topK'`: the call's `topK`). */
    readonly candidates: number | 'topK' | undefined;
    /** Whether a node missing from the store throws `ERR_MISSING_NODE` (else merging stops there). */
    readonly strict: boolean;
    constructor(options: AutoMergingOptions);
    /** True when the leaf retriever honours filters. */
    get supportsFilter(): boolean;
    /** Retrieves `candidates` leaves, merges them upwards, and returns the best `topK` results. */
    retrieve(query: string, options?: RetrieveOptions): Promise<AutoMergedHit[]>;
}
