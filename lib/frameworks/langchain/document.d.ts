import { Document } from '@langchain/core/documents';
/**
 * A ragrank hit as a LangChain `Document`: the hit's text (or its node's) as `pageContent`, its
 * `id`, and as `metadata` everything else it carries, so nothing a retriever returned is lost:
 * its `meta`, the score under `scoreKey`, and its other fields (`fusion` of a fused hit,
 * `leafIds` and the node's place, `sourceId`, `level`, `parentId`, `start`, `end`, of an
 * auto-merged one). On a name clash the hit's `meta` wins over ragrank's own fields, and the
 * score over both.
 */
export declare function hitToDocument(hit: unknown, i: number, scoreKey: string): Document;
/** A metadata key option: a non-empty string, or `fallback` when left out. */
export declare function scoreKey(v: unknown, fallback: string): string;
