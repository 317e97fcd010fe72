import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings'
import { typeError } from '../../errors.js'
import { optionKeys, optionsObject, readValue } from '../../internal/validate.js'
import { embedderOption, type Embeddings as VectorBlock } from '../../models/embedder.js'

/** What `RagrankEmbeddings` needs of a model: `Embedder`'s two prompt-aware methods. */
export interface DocumentQueryEmbedder {
  /** Passage vectors (with the document prompt), row-major in one block. */
  embedDocuments(texts: readonly string[]): Promise<VectorBlock>
  /** One query vector (with the query prompt). */
  embedQuery(text: string): Promise<Float32Array>
}

/** The options of `RagrankEmbeddings`, with LangChain's own `EmbeddingsParams` (unused: the model is local). */
export interface RagrankEmbeddingsInput extends EmbeddingsParams {
  /** An `Embedder` (from `Embedder.load`), or anything with its `embedDocuments` and `embedQuery`. */
  embedder: DocumentQueryEmbedder
}

const EMBEDDINGS_FIELDS = optionKeys('embedder', 'maxConcurrency', 'maxRetries', 'onFailedAttempt')

/**
 * A ragrank `Embedder` as LangChain `Embeddings`, for `MemoryVectorStore`, `RagrankVectorStore`
 * or any other LangChain vector store. `embedDocuments` returns `number[][]` (one array per
 * text, with the model's document prompt) and `embedQuery` a `number[]` (with its query
 * prompt), where `Embedder`'s own methods return Float32Arrays. Calls go straight to the
 * local model: LangChain's retry and concurrency options are accepted and have nothing to do
 * (concurrent single-text calls already share native batches).
 *
 * @example
 * ```ts
 * import { Embedder } from 'ragrank'
 * import { RagrankEmbeddings } from 'ragrank/langchain'
 * import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory'
 *
 * const embeddings = new RagrankEmbeddings({ embedder: await Embedder.load('Xenova/all-MiniLM-L6-v2') })
 * const store = await MemoryVectorStore.fromTexts(['the cat sat', 'a car drove'], [{}, {}], embeddings)
 * const [best] = await store.similaritySearch('kitten', 1)
 * ```
 */
export class RagrankEmbeddings extends Embeddings {
  /** The wrapped model. */
  readonly embedder: DocumentQueryEmbedder

  constructor(fields: RagrankEmbeddingsInput) {
    const o = optionsObject(fields, 'fields', EMBEDDINGS_FIELDS)
    const embedder = embedderOption<DocumentQueryEmbedder>(o.embedder, 'fields.embedder')
    super(fields)
    this.embedder = embedder
  }

  /** One vector per text, as arrays of numbers. */
  async embedDocuments(documents: string[]): Promise<number[][]> {
    const block: unknown = await this.embedder.embedDocuments(documents)
    const { data, dim, count } = checkBlock(block)
    const rows: number[][] = new Array(count)
    for (let i = 0; i < count; i++) rows[i] = Array.from(data.subarray(i * dim, (i + 1) * dim))
    return rows
  }

  /** The query's vector, as an array of numbers. */
  async embedQuery(document: string): Promise<number[]> {
    const v: unknown = await this.embedder.embedQuery(document)
    if (!readValue(() => v instanceof Float32Array))
      throw typeError('embedder.embedQuery must resolve to a Float32Array')
    return Array.from(v as Float32Array)
  }
}

function checkBlock(v: unknown): VectorBlock {
  const b = v as Partial<VectorBlock> | null
  if (
    typeof b !== 'object' ||
    b === null ||
    !(b.data instanceof Float32Array) ||
    !Number.isInteger(b.dim) ||
    !Number.isInteger(b.count) ||
    b.data.length !== (b.dim as number) * (b.count as number)
  )
    throw typeError('embedder.embedDocuments must resolve to { data: Float32Array, dim, count }')
  return b as VectorBlock
}
