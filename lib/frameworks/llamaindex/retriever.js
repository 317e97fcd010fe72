import { BaseRetriever } from '@llamaindex/core/retriever';
import { NodeRelationship, TextNode } from '@llamaindex/core/schema';
import { typeError } from '../../errors.js';
import { optionKeys, optionsObject, readValue, topK } from '../../internal/validate.js';
import { checkFilterSupport, isRetriever } from '../../retrieval/retriever.js';
import { retrieveHits } from '../hits.js';
import { fromMetadataFilters } from './filters.js';
import { queryText } from './query-text.js';
const RETRIEVER_KEYS = optionKeys('retriever', 'topK', 'filter', 'filters');
/**
 * Any ragrank retriever as a LlamaIndex.TS retriever. Each hit becomes a `NodeWithScore`
 * whose `TextNode` has the hit's id, text and metadata; an auto-merged hit also has its
 * document as the `SOURCE` relationship, its parent as `PARENT`, its character span, and
 * the leaves it merged in `metadata.leafIds` (kept out of embeddings and prompts).
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 * import { RagrankRetriever } from 'ragrank/llamaindex'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } }])
 * const retriever = new RagrankRetriever({ retriever: index, topK: 5 })
 * const nodes = await retriever.retrieve({ query: 'cat' })
 * console.log(nodes[0].node.id_, nodes[0].score, nodes[0].node.metadata) // cat 0.28... { kind: 'pet' }
 * ```
 */
export class RagrankRetriever extends BaseRetriever {
    /** The ragrank retriever every query goes to. */
    retriever;
    /** Nodes per query. */
    topK;
    /** The ragrank filter every call passes down (`filter` and the translated `filters` combined). */
    filter;
    constructor(options) {
        const o = optionsObject(options, 'options', RETRIEVER_KEYS);
        if (!isRetriever(o.retriever))
            throw typeError('options.retriever must be a ragrank retriever (with retrieve(query, options))');
        super();
        this.retriever = o.retriever;
        this.topK = topK(o.topK, 10, 'options.topK', 1);
        this.filter = combinedFilter(o.filter, o.filters);
        // Refused now rather than on the first query: a retriever without support would ignore it.
        checkFilterSupport(this.filter, [{ retriever: this.retriever, who: 'options.retriever' }]);
    }
    /** LlamaIndex's hook behind `retrieve()`: the query's text, retrieved by ragrank, as nodes. */
    async _retrieve(params) {
        const query = queryText(readValue(() => params?.query), 'the query');
        const hits = await retrieveHits(this.retriever, query, { topK: this.topK, filter: this.filter });
        return hits.map((h) => ({ node: textNode(h), score: h.score }));
    }
}
/** A LlamaIndex `TextNode` of a ragrank hit. */
export function textNode(h) {
    const relationships = {};
    const metadata = { ...h.meta };
    const hidden = [];
    if (h.node?.sourceId !== undefined)
        relationships[NodeRelationship.SOURCE] = { nodeId: h.node.sourceId, metadata: {} };
    if (h.node?.parentId)
        relationships[NodeRelationship.PARENT] = { nodeId: h.node.parentId, metadata: {} };
    if (h.leafIds) {
        metadata.leafIds = h.leafIds;
        hidden.push('leafIds');
    }
    const node = new TextNode({
        id_: h.id,
        text: h.text,
        metadata,
        relationships,
        excludedEmbedMetadataKeys: hidden,
        excludedLlmMetadataKeys: hidden,
    });
    // Set after construction: TextNode's constructor drops an offset of 0 (it tests truthiness).
    if (h.node?.start !== undefined)
        node.startCharIdx = h.node.start;
    if (h.node?.end !== undefined)
        node.endCharIdx = h.node.end;
    return node;
}
function combinedFilter(filter, filters) {
    const translated = filters === undefined ? undefined : fromMetadataFilters(filters, 'options.filters');
    if (translated === undefined)
        return filter;
    if (filter === undefined)
        return { meta: translated };
    // The indexes validate `filter` itself; here only its shape matters to combine the two.
    if (typeof filter !== 'object' || filter === null)
        throw typeError('options.filter must be an object');
    const meta = filter.meta === undefined ? translated : { $and: [filter.meta, translated] };
    return { ...filter, meta };
}
