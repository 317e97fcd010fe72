import { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors';
import { Document } from '@langchain/core/documents';
import { callbackError, describe, typeError } from '../../errors.js';
import { isArray, isPlainObject, optionKeys, optionsObject, topK } from '../../internal/validate.js';
import { isRanker } from '../../retrieval/pool.js';
import { scoreKey } from './document.js';
const COMPRESSOR_FIELDS = optionKeys('ranker', 'topK', 'scoreKey');
/**
 * A ragrank ranker as a LangChain document compressor, for `ContextualCompressionRetriever`.
 * Unlike LangChain's CrossEncoderReranker it keeps the score, in `metadata[scoreKey]`, and
 * every document keeps its metadata and id.
 * Duplicates are ranked once, by the rankers' one rule (the same `id`, or without ids the same text).
 *
 * @example
 * ```ts
 * import { CrossEncoder } from 'ragrank'
 * import { RankerCompressor, RagrankRetriever } from 'ragrank/langchain'
 * import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression'
 *
 * const ranker = await CrossEncoder.load('cross-encoder/ms-marco-MiniLM-L-6-v2')
 * const retriever = new ContextualCompressionRetriever({
 *   baseRetriever: new RagrankRetriever({ retriever: index, topK: 50 }),
 *   baseCompressor: new RankerCompressor({ ranker, topK: 5 }),
 * })
 * ```
 */
export class RankerCompressor extends BaseDocumentCompressor {
    /** The wrapped ranker. */
    ranker;
    /** Documents kept, when set. */
    topK;
    /** Metadata key of the score. */
    scoreKey;
    constructor(fields) {
        super();
        const o = optionsObject(fields, 'fields', COMPRESSOR_FIELDS);
        if (!isRanker(o.ranker))
            throw typeError('fields.ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker');
        this.ranker = o.ranker;
        this.topK = topK(o.topK, undefined, 'fields.topK');
        this.scoreKey = scoreKey(o.scoreKey, 'relevanceScore');
    }
    /** The documents reordered by the ranker, cut to `topK`, each with its score in `metadata[scoreKey]`. */
    async compressDocuments(documents, query) {
        if (!isArray(documents))
            throw typeError('documents must be an array of Documents');
        // LangChain calls compressors even with no documents; a ranker needs none then.
        if (documents.length === 0)
            return [];
        const candidates = documents.map((d, i) => {
            if (!isPlainObject(d) || typeof d.pageContent !== 'string')
                throw typeError(`documents[${i}] must be a Document with a string pageContent`);
            if (d.id === undefined || d.id === null || d.id === '')
                return { text: d.pageContent };
            if (typeof d.id !== 'string')
                throw typeError(`documents[${i}].id must be a string, got ${describe(d.id)}`);
            return { id: d.id, text: d.pageContent };
        });
        const ranked = await Promise.resolve()
            .then(() => this.ranker.rerank(query, candidates, this.topK === undefined ? {} : { topK: this.topK }))
            .catch((e) => {
            throw callbackError(e, 'ranker.rerank');
        });
        if (!isArray(ranked))
            throw typeError('ranker.rerank must resolve to an array');
        return ranked.map((r, i) => {
            const { index, score } = (isPlainObject(r) ? r : {});
            const source = typeof index === 'number' ? documents[index] : undefined;
            if (!source || typeof score !== 'number')
                throw typeError(`ranker.rerank result ${i} must carry the input index and a score`);
            return new Document({
                pageContent: source.pageContent,
                metadata: { ...source.metadata, [this.scoreKey]: score },
                id: source.id,
            });
        });
    }
}
