/**
 * LangChain.js adapters (`ragrank/langchain`): any ragrank retriever as a `BaseRetriever`,
 * and any ragrank ranker (`CrossEncoder`, `LLMRanker`) as a `BaseDocumentCompressor`
 * that writes the score into metadata. Needs `@langchain/core` (an optional peer).
 * @packageDocumentation
 */
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers'
import { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors'
import { Document, type DocumentInterface } from '@langchain/core/documents'
import { callbackError, describe, typeError } from './errors.js'
import { isRanker, type Ranker } from './retrieval/pool.js'
import {
  checkFilterSupport,
  isRetriever,
  type RetrieveFilter,
  type Retriever,
  type ScoredDocument,
  withFilter,
} from './retrieval/retriever.js'
import { isArray, isPlainObject, optionKeys, optionsObject, topK } from './internal/validate.js'

export interface RagrankRetrieverInput extends BaseRetrieverInput {
  /** `Bm25Index`, `VectorRetriever`, `HybridRetriever`, `MultiQueryRetriever`, `AutoMergingRetriever`, `CompressionRetriever`, ... */
  retriever: Retriever
  /** Documents per query (default 10). */
  topK?: number
  /** Metadata key for the ragrank score (default `score`). */
  scoreKey?: string
  /** Passed to every `retrieve` call (e.g. the tenant); the retriever must declare `supportsFilter`. */
  filter?: RetrieveFilter
}

// With LangChain's own `BaseRetrieverInput` fields, passed on to `BaseRetriever`.
const RETRIEVER_FIELDS = optionKeys(
  'retriever',
  'topK',
  'scoreKey',
  'callbacks',
  'tags',
  'metadata',
  'verbose',
  'filter',
)
const COMPRESSOR_FIELDS = optionKeys('ranker', 'topK', 'scoreKey')

/**
 * A ragrank retriever as a LangChain retriever: each hit becomes a `Document` with the
 * hit's text as `pageContent`, its `id`, and its meta plus the score as `metadata`.
 * One class serves every ragrank retriever, since they share `retrieve(query, { topK })`.
 */
export class RagrankRetriever extends BaseRetriever {
  lc_namespace = ['ragrank', 'retrievers']
  readonly retriever: Retriever
  readonly topK: number
  readonly scoreKey: string
  readonly filter?: RetrieveFilter

  static override lc_name(): string {
    return 'RagrankRetriever'
  }

  constructor(fields: RagrankRetrieverInput) {
    const o = optionsObject(fields, 'fields', RETRIEVER_FIELDS)
    if (!isRetriever(o.retriever))
      throw typeError('fields.retriever must be a ragrank retriever (with retrieve(query, options))')
    super(fields)
    this.retriever = o.retriever
    this.topK = topK(o.topK, 10, 'fields.topK', 1)
    this.scoreKey = scoreKey(o.scoreKey, 'score')
    // Refused now rather than on the first query: a retriever without support would ignore it.
    checkFilterSupport(o.filter, [{ retriever: this.retriever, who: 'fields.retriever' }])
    this.filter = o.filter as RetrieveFilter | undefined
  }

  override async _getRelevantDocuments(query: string): Promise<DocumentInterface[]> {
    const hits: unknown = await Promise.resolve()
      .then(() => this.retriever.retrieve(query, { topK: this.topK, ...withFilter(this.filter) }))
      .catch((e: unknown) => {
        throw callbackError(e, 'retriever.retrieve')
      })
    if (!isArray(hits)) throw typeError('retriever.retrieve must resolve to an array')
    return hits.map((h: ScoredDocument & { node?: { text?: unknown } }, i) => {
      if (!isPlainObject(h))
        throw typeError(`retriever.retrieve result ${i} must be an object { id, score }, got ${describe(h)}`)
      const meta = isPlainObject(h.meta) ? h.meta : {}
      // AutoMergingRetriever hits carry their text on the merged node.
      const text = typeof h.text === 'string' ? h.text : typeof h.node?.text === 'string' ? h.node.text : ''
      return new Document({ pageContent: text, metadata: { ...meta, [this.scoreKey]: h.score }, id: h.id })
    })
  }
}

export interface RankerCompressorInput {
  /** `CrossEncoder`, `LLMRanker`, or anything with `rerank(query, documents, { topK })`. */
  ranker: Ranker
  /** Documents kept (default: the ranker's own; a CrossEncoder keeps all, an LLMRanker 10). */
  topK?: number
  /** Metadata key for the score (default `relevanceScore`, as LangChain's Cohere reranker). */
  scoreKey?: string
}

/**
 * A ragrank ranker as a LangChain document compressor, for `ContextualCompressionRetriever`.
 * Unlike LangChain's CrossEncoderReranker it keeps the score, in `metadata[scoreKey]`.
 * Duplicates are ranked once, by the rankers' one rule (the same `id`, or without ids the same text).
 */
export class RankerCompressor extends BaseDocumentCompressor {
  readonly ranker: Ranker
  readonly topK?: number
  readonly scoreKey: string

  constructor(fields: RankerCompressorInput) {
    super()
    const o = optionsObject(fields, 'fields', COMPRESSOR_FIELDS)
    if (!isRanker(o.ranker))
      throw typeError('fields.ranker must have rerank(query, documents, options): a CrossEncoder or an LLMRanker')
    this.ranker = o.ranker
    this.topK = topK(o.topK, undefined, 'fields.topK')
    this.scoreKey = scoreKey(o.scoreKey, 'relevanceScore')
  }

  async compressDocuments(documents: DocumentInterface[], query: string): Promise<DocumentInterface[]> {
    if (!isArray(documents)) throw typeError('documents must be an array of Documents')
    // LangChain calls compressors even with no documents; a ranker needs none then.
    if (documents.length === 0) return []
    const candidates = documents.map((d, i) => {
      if (!isPlainObject(d) || typeof d.pageContent !== 'string')
        throw typeError(`documents[${i}] must be a Document with a string pageContent`)
      if (d.id === undefined || d.id === null || d.id === '') return { text: d.pageContent }
      if (typeof d.id !== 'string') throw typeError(`documents[${i}].id must be a string, got ${describe(d.id)}`)
      return { id: d.id, text: d.pageContent }
    })
    const ranked: unknown = await Promise.resolve()
      .then(() => this.ranker.rerank(query, candidates, this.topK === undefined ? {} : { topK: this.topK }))
      .catch((e: unknown) => {
        throw callbackError(e, 'ranker.rerank')
      })
    if (!isArray(ranked)) throw typeError('ranker.rerank must resolve to an array')
    return ranked.map((r, i) => {
      const { index, score } = (isPlainObject(r) ? r : {}) as { index?: unknown; score?: unknown }
      const source = typeof index === 'number' ? documents[index] : undefined
      if (!source || typeof score !== 'number')
        throw typeError(`ranker.rerank result ${i} must carry the input index and a score`)
      return new Document({
        pageContent: source.pageContent,
        metadata: { ...source.metadata, [this.scoreKey]: score },
        id: source.id,
      })
    })
  }
}

function scoreKey(v: unknown, fallback: string): string {
  if (v === undefined) return fallback
  if (typeof v !== 'string' || v === '') throw typeError('scoreKey must be a non-empty string')
  return v
}
