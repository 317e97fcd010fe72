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

/**
 * How token vectors become one vector, as sentence-transformers' `1_Pooling/config.json` modes: `'mean'`
 * (masked average), `'cls'` (first token: bge, gte-modernbert), `'max'`, `'meansqrt'` (sum / sqrt(length)),
 * `'weightedmean'` (positions weighted 1, 2, ...), `'lasttoken'` (decoder-only embedders: Qwen3-Embedding).
 */
export type Pooling = 'mean' | 'cls' | 'max' | 'meansqrt' | 'weightedmean' | 'lasttoken'
/** Which end of a batch row gets the padding: `'left'` for decoder-only models trained that way (Qwen3-Embedding). */
export type PaddingSide = 'right' | 'left'

export interface EmbedderOptions extends LoadOptions {
  /** Default pooling of token vectors: `'mean'` (default, masked) or `'cls'`. Ignored when the model outputs pooled vectors. */
  pooling?: Pooling
  /** Padding side of batches (default `'right'`); pooling reads the real tokens of each row either way. */
  paddingSide?: PaddingSide
  /** L2-normalise vectors (default true), so dot product is cosine. */
  normalize?: boolean
  /** Prepended to queries by `embedQuery`, e.g. `'query: '` (e5) or a bge instruction. */
  queryPrefix?: string
  /** Prepended to passages by `embedDocuments`, e.g. `'passage: '` (e5). */
  documentPrefix?: string
}

export interface EmbedOptions extends BatchCallOptions {
  pooling?: Pooling
  normalize?: boolean
}

const EMBEDDER_KEYS = optionKeys(...LOAD_KEYS, 'pooling', 'paddingSide', 'normalize', 'queryPrefix', 'documentPrefix')
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
  readonly #paddingSide: PaddingSide
  readonly #normalize: boolean
  readonly #queryPrefix: string
  readonly #documentPrefix: string

  private constructor(encoder: NativeEncoder, files: ModelFiles, runtime: EncoderRuntime, o: EmbedderOptions) {
    super(encoder, files, runtime)
    this.#pooling = pooling(o.pooling ?? 'mean')
    this.#paddingSide = paddingSide(o.paddingSide ?? 'right')
    this.#normalize = booleanOption(o.normalize, 'options.normalize', true)
    this.#queryPrefix = o.queryPrefix === undefined ? '' : checkString(o.queryPrefix, 'options.queryPrefix')
    this.#documentPrefix = o.documentPrefix === undefined ? '' : checkString(o.documentPrefix, 'options.documentPrefix')
  }

  static async load(model: string, options: EmbedderOptions = {}): Promise<Embedder> {
    const o = optionsObject(options, 'options', EMBEDDER_KEYS) as EmbedderOptions
    pooling(o.pooling ?? 'mean')
    paddingSide(o.paddingSide ?? 'right')
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

  /** Embeds texts as given (no prefix). */
  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Embeddings> {
    this.checkOpen()
    const list = stringArray(texts, 'texts')
    const o = optionsObject(options, 'options', EMBED_KEYS) as EmbedOptions
    const pool = o.pooling === undefined ? this.#pooling : pooling(o.pooling)
    const normalize = booleanOption(o.normalize, 'options.normalize', this.#normalize)
    const batch = { ...batchOptions(this.runtime, o), paddingSide: this.#paddingSide }
    const data: Float32Array = await runUnlessEmpty(
      list.length,
      () => new Float32Array(0),
      o.signal,
      (token) => this.encoder.embed(list, pool, normalize, batch, token),
    )
    return { data, dim: this.dim, count: list.length }
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

const POOLINGS: readonly Pooling[] = ['mean', 'cls', 'max', 'meansqrt', 'weightedmean', 'lasttoken']
const pooling = (p: unknown): Pooling => oneOf(p, POOLINGS, 'pooling')
const paddingSide = (p: unknown): PaddingSide => oneOf(p, ['right', 'left'], 'paddingSide')
