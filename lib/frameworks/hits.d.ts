import { type RetrieveFilter, type Retriever } from '../retrieval/retriever.js';
/**
 * A ragrank hit read the same way whatever retriever returned it, for the framework adapters:
 * BM25 and vector hits carry `text` and `meta` themselves, auto-merged hits on their `node`.
 */
export interface HitDocument {
    id: string;
    score: number;
    /** The hit's text, or the merged node's; `''` when the retriever returned none. */
    text: string;
    /** A copy of the document's metadata (`{}` when it has none). */
    meta: Record<string, unknown>;
    /** Where an auto-merged hit sits in its document's tree. */
    node?: {
        sourceId?: string;
        parentId?: string | null;
        start?: number;
        end?: number;
    };
    /** The leaf hits an auto-merged hit stands for. */
    leafIds?: string[];
}
/** Reads hit `i` of `who`'s result; a hit without a string id and a number score is a TypeError. */
export declare function hitDocument(hit: unknown, i: number, who: string): HitDocument;
/**
 * One `retrieve` call of a user's retriever, its result checked and read as `HitDocument`s.
 * `abortable`, so a retriever that ignores the signal cannot hold the caller.
 */
export declare function retrieveHits(retriever: Retriever, query: string, options: {
    topK: number;
    filter?: RetrieveFilter;
    signal?: AbortSignal;
}): Promise<HitDocument[]>;
