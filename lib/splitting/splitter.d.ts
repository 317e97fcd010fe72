/**
 * What a block size counts.
 * - `word`, `passage`, `line`, `page`, `period`: Haystack's units. The text is cut after every
 *   `" "`, `"\n\n"`, `"\n"`, `"\f"` or `"."`; the separator stays at the end of its unit.
 * - `sentence`: Unicode (UAX #29) sentences, with English abbreviations and CJK/Korean sentence ends.
 * - `token`: tokens of the `tokenizer` (a `tokenizer.json`), so chunks fit a model's window.
 * - `char`: user-perceived characters (grapheme clusters).
 */
export type SplitBy = 'word' | 'sentence' | 'passage' | 'page' | 'line' | 'period' | 'token' | 'char';
/** Options of `new HierarchicalSplitter(options)`. */
export interface SplitterOptions {
    /** Units per chunk at each level, e.g. `[512, 128, 32]`. Order does not matter; duplicates collapse. */
    blockSizes: Iterable<number>;
    /** Units shared by neighbouring chunks; smaller than the smallest block size. Default 0. */
    overlap?: number;
    /** Default `word`. */
    splitBy?: SplitBy;
    /** Path of a Hugging Face `tokenizer.json`; required for `splitBy: 'token'`. */
    tokenizer?: string;
}
/** A document to split. */
export interface SplitDocument {
    /** Unique among the documents of one call; the root node's id. */
    id: string;
    /** The text to cut; nodes keep UTF-16 offsets into it. */
    text: string;
    /** Copied to every node of the document. */
    meta?: Record<string, unknown>;
}
/**
 * One node of a document's hierarchy. `text === document.text.slice(start, end)`:
 * offsets are UTF-16 code units into the original document, as JS strings count them.
 */
export interface HierarchyNode {
    /**
     * `<document id>` for a root, `<document id>#<i>.<j>...` (chunk indices from the root) below, with `%` and `#` of the
     * document id written `%25` and `%23`, so no two documents' nodes can share an id (see docs/SPLITTING.md).
     */
    id: string;
    /** The node's text, `document.text.slice(start, end)`. */
    text: string;
    /** Depth in the tree; 0 for the root. */
    level: number;
    /** The block size that cut this node; 0 for the root. */
    blockSize: number;
    /** The parent node's id; null for the root. */
    parentId: string | null;
    /** The children's ids in text order; empty for a leaf. */
    childrenIds: string[];
    /** The id of the input document. */
    sourceId: string;
    /** Where the node starts in the document's text (UTF-16 code units). */
    start: number;
    /** Where it ends (exclusive). */
    end: number;
    /** The input document's `meta` (the same object for all its nodes), or `{}`. */
    meta: Record<string, unknown>;
}
/** Options of `HierarchicalSplitter.splitAsync`. */
export interface SplitAsyncOptions {
    /** Cancels the split; the promise rejects with an `AbortError`. */
    signal?: AbortSignal;
}
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
export declare class HierarchicalSplitter {
    #private;
    /** The distinct block sizes, largest first. */
    readonly blockSizes: number[];
    /** The overlap in units, as resolved (default 0). */
    readonly overlap: number;
    /** The unit block sizes count, as resolved (default `word`). */
    readonly splitBy: SplitBy;
    constructor(options: SplitterOptions);
    /** Splits on the calling thread. Use `splitAsync` for large inputs. */
    split(documents: SplitDocument[]): HierarchyNode[];
    /** Splits on the libuv thread pool (documents in parallel); the signal cancels it. */
    splitAsync(documents: SplitDocument[], options?: SplitAsyncOptions): Promise<HierarchyNode[]>;
}
/**
 * Navigation over split output, and a node store for `AutoMergingRetriever` (`get`).
 */
export declare class NodeTree {
    #private;
    constructor(nodes: Iterable<HierarchyNode>);
    /** The node with this id, or undefined. */
    node(id: string): HierarchyNode | undefined;
    /** The nodes for `ids`, in order; undefined where an id is unknown. */
    get(ids: string[]): Promise<(HierarchyNode | undefined)[]>;
    /** Direct children, in text order. */
    children(id: string): HierarchyNode[];
    /** Parent first, root last. Stops at the first ancestor that is not in the tree. */
    ancestors(id: string): HierarchyNode[];
    /** The leaves under a node (the node itself if it is a leaf), in text order; all leaves without an id. */
    leaves(id?: string): HierarchyNode[];
}
