import { AsyncLocalStorage } from 'node:async_hooks';
import { BaseRetriever } from '@langchain/core/retrievers';
import { callbackError, typeError } from '../../errors.js';
import { filterParts } from '../../indexes/filter.js';
import { isArray, isPlainObject, optionKeys, optionsObject, readValue, topK } from '../../internal/validate.js';
import { checkFilterSupport, isRetriever, withFilter, } from '../../retrieval/retriever.js';
import { hitToDocument, scoreKey } from './document.js';
// With LangChain's own `BaseRetrieverInput` fields, passed on to `BaseRetriever`.
const RETRIEVER_FIELDS = optionKeys('retriever', 'topK', 'scoreKey', 'callbacks', 'tags', 'metadata', 'verbose', 'filter');
/**
 * The signal of the `invoke` call in progress. LangChain hands `_getRelevantDocuments` only
 * the query and the callbacks, so the config's signal travels beside the call.
 */
const callSignal = new AsyncLocalStorage();
/**
 * A ragrank retriever as a LangChain retriever: each hit becomes a `Document` with the
 * hit's text as `pageContent`, its `id`, and all it carries as `metadata` (its meta, the
 * score under `scoreKey`, and the fields composites add: see `hitToDocument`). One class
 * serves every ragrank retriever, since they share `retrieve(query, { topK, filter, signal })`.
 * The `signal` of `invoke(query, { signal })` reaches the ragrank retriever, so aborting a
 * LangChain call stops its retrieval (an `AbortError`, code `ABORT_ERR`).
 *
 * @example
 * ```ts
 * import { Bm25Index } from 'ragrank'
 * import { RagrankRetriever } from 'ragrank/langchain'
 *
 * const index = new Bm25Index()
 * index.add([{ id: 'a', text: 'the cat sat on the mat', meta: { tenant: 'x' } }])
 * const retriever = new RagrankRetriever({ retriever: index, topK: 5, filter: { meta: { tenant: 'x' } } })
 * const docs = await retriever.invoke('cat') // [Document { pageContent, id: 'a', metadata: { tenant, score } }]
 * ```
 */
export class RagrankRetriever extends BaseRetriever {
    lc_namespace = ['ragrank', 'retrievers'];
    /** The wrapped ragrank retriever. */
    retriever;
    /** Documents per query. */
    topK;
    /** Metadata key of the score. */
    scoreKey;
    /** The filter passed to every call, if any. */
    filter;
    static lc_name() {
        return 'RagrankRetriever';
    }
    constructor(fields) {
        const o = optionsObject(fields, 'fields', RETRIEVER_FIELDS);
        if (!isRetriever(o.retriever))
            throw typeError('fields.retriever must be a ragrank retriever (with retrieve(query, options))');
        super(fields);
        this.retriever = o.retriever;
        this.topK = topK(o.topK, 10, 'fields.topK', 1);
        this.scoreKey = scoreKey(o.scoreKey, 'score');
        // Refused now rather than on the first query: a bad key or a retriever without support would ignore it.
        if (o.filter !== undefined)
            filterParts(o.filter, 'fields.filter');
        checkFilterSupport(o.filter, [{ retriever: this.retriever, who: 'fields.retriever' }]);
        this.filter = o.filter;
    }
    /** LangChain's `invoke`, with the config's `signal` passed on to the ragrank retriever. */
    invoke(input, options) {
        const signal = readValue(() => (isPlainObject(options) ? options.signal : undefined));
        return callSignal.run(signal, () => super.invoke(input, options));
    }
    async _getRelevantDocuments(query) {
        const signal = callSignal.getStore();
        const options = { topK: this.topK, ...withFilter(this.filter), ...(signal === undefined ? {} : { signal }) };
        const hits = await Promise.resolve()
            .then(() => this.retriever.retrieve(query, options))
            .catch((e) => {
            throw callbackError(e, 'retriever.retrieve');
        });
        if (!isArray(hits))
            throw typeError('retriever.retrieve must resolve to an array');
        return hits.map((h, i) => hitToDocument(h, i, this.scoreKey));
    }
}
