import { MetadataMode } from '@llamaindex/core/schema';
import { callbackError, describe, typeError } from '../../errors.js';
import { hasMethod, isArray, isPlainObject, optionKeys, optionsObject, topK } from '../../internal/validate.js';
import { isRanker } from '../../retrieval/pool.js';
import { queryText } from './query-text.js';
const RERANKER_KEYS = optionKeys('ranker', 'topN');
/**
 * A ragrank ranker as a LlamaIndex.TS node postprocessor (for `nodePostprocessors` of a query
 * engine, or called directly): the nodes come back best first, each with the ranker's score
 * as its `score`. Nodes are ranked on their text without metadata; duplicates (the same node
 * id) are ranked once, by the rankers' one rule.
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 * import { RagrankReranker } from 'ragrank/llamaindex'
 *
 * const reranker = new RagrankReranker({ ranker: await CrossEncoder.load('models/ms-marco-MiniLM-L-6-v2'), topN: 3 })
 * const best = await reranker.postprocessNodes(await retriever.retrieve({ query }), query)
 * ```
 */
export class RagrankReranker {
    /** The ragrank ranker the nodes go to. */
    ranker;
    /** Nodes kept; undefined keeps the ranker's default. */
    topN;
    constructor(options) {
        const o = optionsObject(options, 'options', RERANKER_KEYS);
        if (!isRanker(o.ranker))
            throw typeError('options.ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker');
        this.ranker = o.ranker;
        this.topN = topK(o.topN, undefined, 'options.topN', 1);
    }
    /** The nodes reranked against `query`, at most `topN`. Without a query there is nothing to rank by: a TypeError. */
    async postprocessNodes(nodes, query) {
        if (!isArray(nodes))
            throw typeError('nodes must be an array of NodeWithScore');
        if (query === undefined)
            throw typeError('postprocessNodes needs the query to rerank by');
        const text = queryText(query, 'query');
        if (nodes.length === 0)
            return [];
        const candidates = nodes.map((n, i) => {
            if (!isPlainObject(n) || !hasMethod(n.node, 'getContent'))
                throw typeError(`nodes[${i}] must be a NodeWithScore { node, score }, got ${describe(n)}`);
            const content = nodeContent(n.node, i);
            if (typeof content !== 'string')
                throw typeError(`nodes[${i}].node.getContent() must return a string`);
            const id = n.node.id_;
            return typeof id === 'string' && id !== '' ? { id, text: content } : { text: content };
        });
        const ranked = await Promise.resolve()
            .then(() => this.ranker.rerank(text, candidates, this.topN === undefined ? {} : { topK: this.topN }))
            .catch((e) => {
            throw callbackError(e, 'ranker.rerank');
        });
        if (!isArray(ranked))
            throw typeError('ranker.rerank must resolve to an array');
        // Array.from visits holes too: a missing result is an error, not a hole in the nodes returned.
        return Array.from(ranked, (r, i) => {
            const { index, score } = (isPlainObject(r) ? r : {});
            const source = typeof index === 'number' ? nodes[index] : undefined;
            if (!source || typeof score !== 'number')
                throw typeError(`ranker.rerank result ${i} must carry the input index and a score`);
            return { node: source.node, score };
        });
    }
}
/** A node's text without metadata; LlamaIndex's own TypeError on a malformed node gets a code. */
function nodeContent(node, i) {
    try {
        return node.getContent(MetadataMode.NONE);
    }
    catch (e) {
        if (e instanceof TypeError && !('code' in e))
            throw Object.assign(typeError(`nodes[${i}].node.getContent() failed: ${e.message}`), { cause: e });
        throw e;
    }
}
