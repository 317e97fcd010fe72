import { abortable, checkSignal, throwIfAborted } from '../internal/abort.js';
import { checkCandidates, dedupe, dedupeRule } from './dedupe.js';
import { describe, typeError } from '../errors.js';
import { checkFilterSupport, checkQuery, isRetriever, RETRIEVE_KEYS, retrievedList, supportsFilter, withFilter, } from './retriever.js';
import { hasMethod, isArray, isPlainObject, optionKeys, optionsObject, positiveInteger, topK as topKOption, } from '../internal/validate.js';
export function isRanker(v) {
    return hasMethod(v, 'rerank');
}
const POOL_RERANK_KEYS = optionKeys('topK', 'signal', 'dedupeBy');
const COMPRESSION_KEYS = optionKeys('ranker', 'retriever', 'candidates', 'dedupeBy');
const COMPRESSION_RETRIEVE_KEYS = optionKeys(...RETRIEVE_KEYS, 'dedupeBy', 'documents');
/**
 * Reranks candidates gathered from any number of sources (several indexes, books, tools)
 * in one ranker call. Duplicates are merged first, by the rankers' rule (`dedupe`: the
 * same `id`, or without ids the same text; the copy with the highest prior score is kept,
 * with the fields only its duplicates carry, such as another source's meta), so a passage
 * two sources found is scored once. Each result keeps the score its source
 * gave as `meta.priorScore`, and `index` points into `documents`, at the kept copy.
 */
export async function rerankPooled(query, documents, ranker, options = {}) {
    checkQuery(query);
    if (!isArray(documents))
        throw typeError('documents must be an array of strings or { text } objects');
    if (!isRanker(ranker))
        throw typeError('ranker must have a rerank(query, documents, options) method (a CrossEncoder, an LLMRanker, ...)');
    const o = optionsObject(options, 'options', POOL_RERANK_KEYS);
    const topK = topKOption(o.topK);
    const signal = checkSignal(o.signal);
    const by = dedupeRule(o.dedupeBy ?? 'id-or-content', 'options.dedupeBy');
    const candidates = Array.from(documents, (d, i) => {
        if (typeof d === 'string' || (isPlainObject(d) && typeof d.text === 'string'))
            return d;
        // AutoMergingRetriever hits carry their text on the (merged) node.
        const node = isPlainObject(d) ? d.node : undefined;
        if (isPlainObject(node) && typeof node.text === 'string')
            return { ...d, text: node.text };
        throw typeError(`documents[${i}] must be a string or have a string text${isPlainObject(d) && 'id' in d ? ` (id ${typeof d.id === 'string' ? d.id : describe(d.id)}: was the text stored?)` : ''}`);
    });
    checkCandidates(candidates, 'documents'); // ids must be strings: dedupe keys them
    throwIfAborted(signal);
    const { docs, indices } = dedupe(candidates, by);
    if (docs.length === 0 || topK === 0)
        return [];
    const out = await abortable(Promise.resolve(ranker.rerank(query, docs, { topK, signal })), signal);
    if (!isArray(out))
        throw typeError('ranker.rerank must resolve to an array');
    return out.slice(0, topK).map((r, i) => {
        if (!isPlainObject(r))
            throw typeError(`ranker.rerank result ${i} is not an object`);
        const at = typeof r.index === 'number' && docs[r.index] !== undefined ? r.index : undefined;
        const source = at === undefined ? undefined : docs[at];
        const meta = isPlainObject(r.meta) ? { ...r.meta } : {};
        if (typeof source !== 'string' && typeof source?.score === 'number' && !('priorScore' in meta))
            meta.priorScore = source.score;
        return { ...r, index: at === undefined ? -1 : indices[at], meta };
    });
}
/**
 * A retriever whose results a ranker reorders and cuts: LangChain's
 * ContextualCompressionRetriever, with the base retriever optional so already-collected
 * documents can be passed per call (the variant users patch LangChain for).
 */
export class CompressionRetriever {
    #ranker;
    #retriever;
    #candidates;
    #dedupeBy;
    constructor(options) {
        const o = optionsObject(options, 'options', COMPRESSION_KEYS);
        if (!isRanker(o.ranker))
            throw typeError('options.ranker must have a rerank(query, documents, options) method');
        if (o.retriever !== undefined && !isRetriever(o.retriever))
            throw typeError('options.retriever must be a retriever (with retrieve(query, options))');
        this.#ranker = o.ranker;
        this.#retriever = o.retriever;
        this.#candidates = o.candidates === undefined ? 50 : positiveInteger(o.candidates, 'options.candidates');
        this.#dedupeBy = o.dedupeBy === undefined ? undefined : dedupeRule(o.dedupeBy, 'options.dedupeBy');
    }
    /** True when its base retriever honours filters (without one, there is nothing to filter). */
    get supportsFilter() {
        return this.#retriever !== undefined && supportsFilter(this.#retriever);
    }
    /** Fetches candidates (or takes `documents`), merges duplicates and returns the ranker's best `topK`. */
    async retrieve(query, options = {}) {
        checkQuery(query);
        const o = optionsObject(options, 'options', COMPRESSION_RETRIEVE_KEYS);
        const topK = topKOption(o.topK);
        const signal = checkSignal(o.signal);
        const dedupeBy = (o.dedupeBy ?? this.#dedupeBy);
        const filter = o.filter;
        let documents = o.documents;
        if (filter !== undefined && documents !== undefined) {
            throw typeError('options.filter applies to the base retriever, not to options.documents: filter the documents before passing them');
        }
        if (documents === undefined) {
            if (!this.#retriever)
                throw typeError('this CompressionRetriever has no base retriever: pass options.documents');
            checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }]);
            throwIfAborted(signal);
            if (topK === 0)
                return [];
            const depth = Math.max(this.#candidates, topK);
            const hits = await abortable(this.#retriever.retrieve(query, { topK: depth, signal, ...withFilter(filter) }), signal);
            documents = retrievedList(hits, depth, 'retriever.retrieve');
        }
        return rerankPooled(query, documents, this.#ranker, { topK, signal, dedupeBy });
    }
}
