import type { NativeEncoder } from '../../index'
import { RagrankError } from '../errors'
import { EncoderModel } from './encoder-model'
import {
  BATCH_CALL_KEYS,
  type BatchCallOptions,
  batchOptions,
  checkString,
  type EncoderRuntime,
  LOAD_KEYS,
  loadEncoder,
  type LoadOptions,
  runUnlessEmpty,
} from './encoder'
import { booleanOption, oneOf, optionKeys, optionsObject, stringArray } from '../internal/validate'
import type { ModelFiles } from './model-files'
import { Batcher, coalesceOption, type CoalesceOptions } from '../internal/batcher'
import { checkSignal, runCancellable, throwIfAborted } from '../internal/abort'

export type Pooling = 'mean' | 'cls'

export interface EmbedderOptions extends LoadOptions {
  /** Default pooling of token vectors: `'mean'` (default, masked) or `'cls'`. Ignored when the model outputs pooled vectors. */
  pooling?: Pooling
  /** L2-normalise vectors (default true), so dot product is cosine. */
  normalize?: boolean
  /** Prepended to queries by `embedQuery`, e.g. `'query: '` (e5) or a bge instruction. */
  queryPrefix?: string
  /** Prepended to passages by `embedDocuments`, e.g. `'passage: '` (e5). */
  documentPrefix?: string
  /**
   * How concurrent single-text `embed`/`embedQuery` calls are joined into shared native
   * batches: default `{ maxBatch: 32, maxWaitMs: 0 }` (adaptive: no wait when idle); `false`
   * runs each call alone. Calls of several texts are never coalesced. See docs/CONCURRENCY.md.
   */
  coalesce?: CoalesceOptions | false
}

export interface EmbedOptions extends BatchCallOptions {
  pooling?: Pooling
  normalize?: boolean
}

const EMBEDDER_KEYS = optionKeys(...LOAD_KEYS, 'pooling', 'normalize', 'queryPrefix', 'documentPrefix', 'coalesce')
/** Texts per coalesced batch: the default batch size. */
const COALESCE_DEFAULTS = { maxBatch: 32, maxWaitMs: 0 }

/** One single-text embed call, as a coalesced batch takes it. */
interface OneText {
  text: string
  pool: Pooling
  normalize: boolean
  batch: ReturnType<typeof batchOptions>
}
const EMBED_KEYS = optionKeys(...BATCH_CALL_KEYS, 'pooling', 'normalize')

/** Vectors of `count` texts, row-major in one Float32Array of `count * dim`. */
export interface Embeddings {
  data: Float32Array
  dim: number
  count: number
}

/** A bi-encoder producing one vector per text, batched off the event loop. */
export class Embedder extends EncoderModel {
  readonly #pooling: Pooling
  readonly #normalize: boolean
  readonly #queryPrefix: string
  readonly #documentPrefix: string
  readonly #batcher: Batcher<OneText, Float32Array> | undefined

  private constructor(encoder: NativeEncoder, files: ModelFiles, runtime: EncoderRuntime, o: EmbedderOptions) {
    super(encoder, files, runtime)
    const coalesce = coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS)
    this.#batcher = coalesce ? new Batcher((calls, signal) => this.#embedCalls(calls, signal), coalesce) : undefined
    this.#pooling = pooling(o.pooling ?? 'mean')
    this.#normalize = booleanOption(o.normalize, 'options.normalize', true)
    this.#queryPrefix = o.queryPrefix === undefined ? '' : checkString(o.queryPrefix, 'options.queryPrefix')
    this.#documentPrefix = o.documentPrefix === undefined ? '' : checkString(o.documentPrefix, 'options.documentPrefix')
  }

  static async load(model: string, options: EmbedderOptions = {}): Promise<Embedder> {
    const o = optionsObject(options, 'options', EMBEDDER_KEYS) as EmbedderOptions
    pooling(o.pooling ?? 'mean')
    coalesceOption(o.coalesce, 'options.coalesce', COALESCE_DEFAULTS)
    const { encoder, files, runtime } = await loadEncoder(model, o)
    if (encoder.outputRank !== 2 && encoder.outputRank !== 3) {
      throw new RagrankError('ERR_MODEL_LOAD', `${files.model} does not output token or sentence vectors`)
    }
    return new Embedder(encoder, files, runtime, o)
  }

  /** Vector width. */
  get dim(): number {
    return this.encoder.width
  }

  /**
   * Embeds texts as given (no prefix). Concurrent calls of one text share native batches
   * (see the `coalesce` option); an aborted `signal` rejects only this call.
   */
  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Embeddings> {
    this.checkOpen()
    const list = stringArray(texts, 'texts')
    const o = optionsObject(options, 'options', EMBED_KEYS) as EmbedOptions
    const pool = o.pooling === undefined ? this.#pooling : pooling(o.pooling)
    const normalize = booleanOption(o.normalize, 'options.normalize', this.#normalize)
    const batch = batchOptions(this.runtime, o)
    if (list.length === 1 && this.#batcher) {
      const signal = checkSignal(o.signal)
      throwIfAborted(signal)
      const key = `${pool}|${normalize}|${batch.batchSize}|${batch.maxLength}`
      const data = await this.#batcher.submit(key, { text: list[0], pool, normalize, batch }, signal)
      return { data, dim: this.dim, count: 1 }
    }
    const data: Float32Array = await runUnlessEmpty(
      list.length,
      () => new Float32Array(0),
      o.signal,
      (token) => this.encoder.embed(list, pool, normalize, batch, token),
    )
    return { data, dim: this.dim, count: list.length }
  }

  /** Coalesced calls already accepted finish before `dispose` frees the sessions. */
  protected override acceptedWork(): Promise<void> | undefined {
    return this.#batcher?.idle()
  }

  /** Single-text calls of one batch key embedded in one native call, split back per call. */
  async #embedCalls(calls: OneText[], signal: AbortSignal): Promise<Float32Array[]> {
    const { pool, normalize, batch } = calls[0]
    const texts = calls.map((c) => c.text)
    const data: Float32Array = await runCancellable(signal, (token) =>
      this.encoder.embed(texts, pool, normalize, batch, token),
    )
    const d = this.dim
    return calls.map((_, i) => data.slice(i * d, (i + 1) * d))
  }

  /** One query vector, with the query prefix. */
  async embedQuery(text: string, options: EmbedOptions = {}): Promise<Float32Array> {
    const { data } = await this.embed([this.#queryPrefix + checkString(text, 'text')], options)
    return data
  }

  /** Passage vectors, with the document prefix. */
  async embedDocuments(texts: readonly string[], options: EmbedOptions = {}): Promise<Embeddings> {
    return this.embed(
      stringArray(texts, 'texts').map((t) => this.#documentPrefix + t),
      options,
    )
  }
}

const pooling = (p: unknown): Pooling => oneOf(p, ['mean', 'cls'], 'pooling')
