import { rangeError, typeError } from '../errors.js'
import { abortable, throwIfAborted } from '../internal/abort.js'
import {
  checkQuery,
  type RetrieveFilter,
  retrieveOptions,
  type RetrieveOptions,
  type Retriever,
  type ScoredDocument,
  withFilter,
} from './retriever.js'
import { hasMethod, isArray, isPlainObject, optionKeys, optionsObject, readValue } from '../internal/validate.js'

/** What `VectorRetriever` needs of an index: exact or approximate top-k by vector (sync or async). */
export interface VectorSearchIndex {
  /** The top `topK` vectors for `query`, best first, honouring `filter` when `supportsFilter`. */
  search(
    query: Float32Array,
    options: { topK?: number; filter?: RetrieveFilter },
  ):
    | readonly {
        /** The vector's id. */
        id: string
        /** Its score, higher is better. */
        score: number
      }[]
    | Promise<
        readonly {
          /** The vector's id. */
          id: string
          /** Its score, higher is better. */
          score: number
        }[]
      >
  /**
   * The async single-query search, used instead of `search` when present (`VectorIndex`'s
   * coalesces concurrent calls into batches, off the event loop).
   */
  searchAsync?(
    query: Float32Array,
    options: { topK?: number; filter?: RetrieveFilter; signal?: AbortSignal },
  ): Promise<
    readonly {
      /** The vector's id. */
      id: string
      /** Its score, higher is better. */
      score: number
    }[]
  >
  /** True when `search` honours `filter` inside its scan; without it the retriever refuses filters. */
  readonly supportsFilter?: boolean
}

/** Whether an index honours `search(q, { topK, filter })` (`VectorIndex` declares it; a custom index may). */
export function indexSupportsFilter(index: VectorSearchIndex): boolean {
  return index.supportsFilter === true
}

/** An object that embeds queries, such as `Embedder` (its `embedQuery` adds the query prefix). */
export interface QueryEmbedder {
  /** The query's vector. */
  embedQuery(text: string, options?: { signal?: AbortSignal }): Promise<Float32Array>
}

/** A function that embeds a query, e.g. a call to an embeddings API. */
export type EmbedFunction = (
  text: string,
  options: { signal?: AbortSignal },
) => Promise<Float32Array | readonly number[]>

/** The stored fields of a document, looked up by id so hits can carry them. */
export type DocumentFields = {
  /** The document's text. */
  text?: string
  /** The document's metadata. */
  meta?: Record<string, unknown>
}
/** Where a `VectorRetriever` finds a hit's fields: a Map by id, or a function (sync or async). */
export type DocumentLookup =
  | ReadonlyMap<string, DocumentFields>
  | ((id: string) => DocumentFields | undefined | Promise<DocumentFields | undefined>)

/** Options of `new VectorRetriever(options)`. */
export interface VectorRetrieverOptions {
  /** The index to search, such as a `VectorIndex`. */
  index: VectorSearchIndex
  /** Embeds the query: an object with `embedQuery` (an `Embedder`) or a function. */
  embed: QueryEmbedder | EmbedFunction
  /** Where hits get `text` and `meta` from; without it hits carry what the index returns. */
  documents?: DocumentLookup
}

const VECTOR_RETRIEVER_KEYS = optionKeys('index', 'embed', 'documents')

/** Embeds the query, then searches a vector index. */
export class VectorRetriever implements Retriever {
  readonly #index: VectorSearchIndex
  readonly #embed: EmbedFunction
  readonly #documents?: DocumentLookup

  constructor(options: VectorRetrieverOptions) {
    const o = optionsObject(options, 'options', VECTOR_RETRIEVER_KEYS)
    if (!isPlainObject(o.index) || typeof o.index.search !== 'function') {
      throw typeError('options.index must be an object with a search(vector, { topK }) method, such as a VectorIndex')
    }
    this.#index = o.index as unknown as VectorSearchIndex
    this.#embed = embedFunction(o.embed)
    if (
      o.documents !== undefined &&
      !readValue(() => o.documents instanceof Map) &&
      typeof o.documents !== 'function'
    ) {
      throw typeError('options.documents must be a Map or a function (id) => { text, meta }')
    }
    this.#documents = o.documents as DocumentLookup | undefined
  }

  /** True when its index honours filters. */
  get supportsFilter(): boolean {
    return indexSupportsFilter(this.#index)
  }

  /** Embeds `query` and returns the `topK` nearest documents, with their fields when `documents` was given. */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<ScoredDocument[]> {
    const text = checkQuery(query)
    const { topK, signal, filter } = retrieveOptions(options)
    if (filter !== undefined && !indexSupportsFilter(this.#index)) {
      throw typeError(
        'options.filter: the index of this VectorRetriever does not declare supportsFilter, so it would ignore the filter',
      )
    }
    throwIfAborted(signal)
    if (topK === 0) return []
    const vector = queryVector(await abortable(this.#embed(text, { signal }), signal))
    throwIfAborted(signal)
    const index = this.#index
    const hits = await abortable(
      typeof index.searchAsync === 'function'
        ? index.searchAsync(vector, { topK, ...withFilter(filter), signal })
        : Promise.resolve(index.search(vector, { topK, ...withFilter(filter) })),
      signal,
    )
    if (!isArray(hits)) throw typeError('index.search must return an array of { id, score }')
    const out = hits.slice(0, topK).map((h, i) => hit(h, i))
    return this.#documents ? abortable(this.#withFields(out), signal) : out
  }

  async #withFields(hits: ScoredDocument[]): Promise<ScoredDocument[]> {
    const lookup = this.#documents as DocumentLookup
    const fields = await Promise.all(hits.map((h) => (typeof lookup === 'function' ? lookup(h.id) : lookup.get(h.id))))
    return hits.map((h, i) => {
      const f = fields[i]
      if (f === undefined || f === null) return h
      if (!isPlainObject(f))
        throw typeError(`documents lookup for ${JSON.stringify(h.id)} must give an object { text?, meta? }`)
      const out = { ...h }
      if (f.text !== undefined) out.text = f.text
      if (f.meta !== undefined) out.meta = f.meta
      return out
    })
  }
}

function embedFunction(embed: unknown): EmbedFunction {
  if (typeof embed === 'function') return embed as EmbedFunction
  if (hasMethod(embed, 'embedQuery')) {
    const e = embed as QueryEmbedder
    return (text, { signal }) => e.embedQuery(text, { signal })
  }
  throw typeError(
    'options.embed must be an Embedder (or any object with embedQuery) or a function (text, { signal }) => Promise<Float32Array>',
  )
}

function queryVector(v: unknown): Float32Array {
  const vector = readValue(() => v instanceof Float32Array)
    ? (v as Float32Array)
    : isArray(v) && v.every((x) => typeof x === 'number')
      ? Float32Array.from(v)
      : undefined
  if (!vector) throw typeError('embed must resolve to a Float32Array or an array of numbers')
  if (vector.length === 0) throw rangeError('embed resolved to an empty vector')
  if (!vector.every(Number.isFinite)) throw rangeError('embed resolved to a vector with a NaN or infinite value')
  return vector
}

function hit(h: unknown, i: number): ScoredDocument {
  if (!isPlainObject(h) || typeof h.id !== 'string' || typeof h.score !== 'number') {
    throw typeError(`index.search result [${i}] must be { id: string, score: number }`)
  }
  return { ...h } as unknown as ScoredDocument
}
