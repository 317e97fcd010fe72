import { RagrankError, typeError } from '../errors.js'
import { abortable, throwIfAborted } from '../internal/abort.js'
import { checkSignal } from '../internal/abort.js'
import {
  documentId,
  hasMethod,
  integer,
  isPlainObject,
  optionKeys,
  optionsObject,
  positiveInteger,
  readValue,
} from '../internal/validate.js'
import type { HierarchyNode } from '../splitting/splitter.js'
import { type AnalysisRecord, analysisRecord, type TextAnalysis, tokenJoiner } from './analysis.js'
import { EMBEDDING_PROBE, type EmbeddingRecord, embeddingRecord } from './embedding-record.js'
import { vectorArray } from './query-vector.js'
import { isRetryable } from './transport.js'

/** A document to index. Its `id` is the engine's id, so indexing it again replaces it (never a duplicate). */
export interface IngestDocument {
  /** The engine's document id (or the root of its nodes when split). */
  id: string
  /** The text indexed for BM25 and embedded. */
  text: string
  /** Metadata, stored and matched by filters. */
  meta?: Record<string, unknown>
  /** Its embedding, when you computed it yourself (otherwise give `embedder`, or index no vectors). */
  vector?: Float32Array | readonly number[]
}

/** A hierarchy node's place in its tree, stored so a node store can rebuild `StoredNode`s. */
export interface NodeFields {
  parentId: string | null
  childrenIds: string[]
  level: number
  blockSize: number
  sourceId: string
  start: number
  end: number
}

/** One row or engine document, as a sink writes it. */
export interface IngestRecord {
  id: string
  text: string
  meta?: Record<string, unknown>
  vector?: number[]
  /** ragrank's analysis of `text`, space-joined (with `analysis`). */
  tokens?: string
  /** Set for every node of a split document: the sink also writes it to its node store. */
  node?: NodeFields
  /** False for the inner nodes of a split document: they go to the node store only, not to the search index. */
  searchable: boolean
}

/** A document the engine refused. `retryable` ones (429) were retried `retries` times first. */
export interface RejectedDocument {
  /** The record's id. */
  id: string
  /** The engine's HTTP status for it (e.g. 400 for a mapping conflict, 429). */
  status: number
  /** The engine's reason, as it gave it. */
  reason: string
  /** Whether it was refused for a transient reason (429, 503), after the retries. */
  retryable: boolean
}

/** What ingestion tells a sink before the first write. */
export interface PrepareInfo {
  /** The vectors' dimension, when the records carry vectors. */
  dims?: number
  /** Whether records carry ragrank's tokens. */
  tokens: boolean
  /** The analysis the tokens were made with (recorded by the engine sinks). */
  analysis?: AnalysisRecord
  /** The embedder's probe embedding, when ingestion embeds (recorded by the engine sinks). */
  embedding?: EmbeddingRecord
  /** Whether records include the nodes of split documents. */
  nodes: boolean
}

/** What an engine adapter gives ingestion: where records go. */
export interface IngestSink {
  readonly engine: string
  /** Creates the index / table when missing, else checks it can take these records (vector field, dimension). */
  prepare(info: PrepareInfo, signal?: AbortSignal): Promise<void>
  /** One bulk request. Throws for a failure of the whole request; returns the documents refused one by one. */
  write(records: IngestRecord[], signal?: AbortSignal): Promise<RejectedDocument[]>
  /** Makes the writes visible to searches. */
  finish(signal?: AbortSignal): Promise<void>
}

/** What `onProgress` is told after each bulk request. */
export interface IngestProgress {
  /** Input documents read so far. */
  documents: number
  /** Records (documents, or nodes of split documents) the engine accepted. */
  indexed: number
  /** Records the engine refused (see `IngestReport.rejectedDocuments`). */
  rejected: number
  /** Retries made so far (requests and documents). */
  retries: number
}

/** What an ingestion resolves with (and, on failure, the error's `report`). */
export interface IngestReport extends IngestProgress {
  /** Bulk requests made. */
  batches: number
  /** The refused documents with the engine's reason, for a re-run or a fix. */
  rejectedDocuments: RejectedDocument[]
  /** Wall time in milliseconds. */
  ms: number
}

/** Something that embeds document texts: an `Embedder` (`embedDocuments`) or a function. */
export type DocumentEmbedder =
  | {
      /** One vector per text, row-major. */
      embedDocuments(
        texts: string[],
        options?: { signal?: AbortSignal },
      ): Promise<{
        /** `texts.length * dim` values. */
        data: Float32Array
        /** Values per vector. */
        dim: number
      }>
    }
  | ((texts: string[], options: { signal?: AbortSignal }) => Promise<readonly (Float32Array | readonly number[])[]>)

/** What every ingestion takes (each engine adds its connection and index options). */
export interface IngestOptions {
  /** The documents, read lazily (an async iterable streams from a file or a database). */
  documents: Iterable<IngestDocument> | AsyncIterable<IngestDocument>
  /** Split each document hierarchically (a `HierarchicalSplitter`): leaves are indexed, every node is stored. */
  splitter?: {
    /** The nodes of the documents, as `HierarchicalSplitter.split` returns them. */
    split(docs: { id: string; text: string; meta?: Record<string, unknown> }[]): HierarchyNode[]
  }
  /** Embeds the indexed texts (leaves when splitting) for kNN. */
  embedder?: DocumentEmbedder
  /** Index ragrank's analysis of each text in the tokens field too (e.g. `{ cjk: 'bigram' }` for Korean). */
  analysis?: TextAnalysis
  /** Records per bulk request (default 500). */
  batchSize?: number
  /** Bulk requests in flight at most (default 2): more documents are read only when one completes. */
  concurrency?: number
  /** Retries of a request or a document refused with 429 / 503 / a lost connection (default 8). */
  retries?: number
  /** Backoff before the first retry, doubled each time with jitter (default 200 ms). */
  minDelayMs?: number
  /** Longest backoff (default 10 s). */
  maxDelayMs?: number
  /**
   * How long a request is retried after its first failure (default 30 s): a dead or hanging engine fails the
   * ingestion with `ERR_ENGINE_UNREACHABLE` within this plus one request timeout, whatever `retries` allows.
   */
  retryBudgetMs?: number
  /** Called after each bulk request. */
  onProgress?: (progress: IngestProgress) => void
  /** Stops reading and writing; the promise rejects with an `AbortError` (what was written stays). */
  signal?: AbortSignal
}

export const INGEST_KEYS = optionKeys(
  'documents',
  'splitter',
  'embedder',
  'analysis',
  'batchSize',
  'concurrency',
  'retries',
  'minDelayMs',
  'maxDelayMs',
  'retryBudgetMs',
  'onProgress',
  'signal',
)

const sleep = (ms: number, signal?: AbortSignal) =>
  abortable(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal)

/**
 * Indexes documents into an engine with bulk requests: bounded concurrency (the input is read only as fast
 * as the engine takes it), retries with exponential backoff on 429 / 503 / lost connections (whole requests
 * and single refused documents), idempotent ids (a re-run replaces, never duplicates), a progress callback,
 * and a report of the refused documents. When a request still fails after its retries, it throws that
 * error (code `ERR_ENGINE_OVERLOADED` / `ERR_ENGINE_UNREACHABLE` ...) with the partial `report` attached:
 * running the same ingestion again completes the job.
 */
export async function ingestInto(sink: IngestSink, options: IngestOptions, known = INGEST_KEYS): Promise<IngestReport> {
  const o = optionsObject(options, 'options', known)
  const signal = checkSignal(o.signal)
  const batchSize = positiveInteger(o.batchSize ?? 500, 'options.batchSize')
  const concurrency = positiveInteger(o.concurrency ?? 2, 'options.concurrency')
  const retries = integer(o.retries ?? 8, 'options.retries', 0, 100)
  const minDelay = integer(o.minDelayMs ?? 200, 'options.minDelayMs', 0)
  const maxDelay = Math.max(minDelay, integer(o.maxDelayMs ?? 10_000, 'options.maxDelayMs', 0))
  const retryBudget = integer(o.retryBudgetMs ?? 30_000, 'options.retryBudgetMs', 0)
  const onProgress = o.onProgress
  if (onProgress !== undefined && typeof onProgress !== 'function')
    throw typeError('options.onProgress must be a function')
  const splitter = o.splitter as IngestOptions['splitter']
  if (splitter !== undefined && !hasMethod(splitter, 'split'))
    throw typeError('options.splitter must be a HierarchicalSplitter (an object with split(documents))')
  const embed = documentEmbedder(o.embedder)
  const tokens = o.analysis === undefined ? undefined : tokenJoiner(o.analysis)
  const analysis = tokens === undefined ? undefined : analysisRecord(o.analysis, tokens)
  const documents = o.documents as IngestOptions['documents']
  const iterable = readValue(
    () => documents != null && (Symbol.asyncIterator in Object(documents) || Symbol.iterator in Object(documents)),
  )
  if (!iterable || typeof documents === 'string')
    throw typeError('options.documents must be an array or an (async) iterable of { id, text, meta?, vector? }')

  const started = performance.now()
  const report: IngestReport = {
    documents: 0,
    indexed: 0,
    rejected: 0,
    retries: 0,
    batches: 0,
    rejectedDocuments: [],
    ms: 0,
  }
  const progress = () =>
    onProgress?.({
      documents: report.documents,
      indexed: report.indexed,
      rejected: report.rejected,
      retries: report.retries,
    })
  const backoff = (attempt: number) => {
    const ceiling = Math.min(maxDelay, minDelay * 2 ** attempt)
    return ceiling / 2 + Math.random() * (ceiling / 2)
  }

  let prepared = false
  const prepare = async (records: IngestRecord[]) => {
    if (prepared) return
    const withVector = records.find((r) => r.vector)
    const embedding = embed && embeddingRecord((await embed([EMBEDDING_PROBE], signal))[0])
    const info = { dims: withVector?.vector?.length, tokens: tokens !== undefined, analysis, embedding }
    await withRetries(() => sink.prepare({ ...info, nodes: splitter !== undefined }, signal))
    prepared = true
  }

  /** Runs `fn`, retrying what a retry may cure with backoff; anything else, or the last failure, is thrown. */
  async function withRetries<T>(fn: () => Promise<T>): Promise<T> {
    let firstFailure: number | undefined
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn()
      } catch (e) {
        firstFailure ??= performance.now()
        const delay = backoff(attempt)
        const overBudget = performance.now() + delay - firstFailure > retryBudget
        if (!isRetryable(e) || attempt >= retries || overBudget) throw e
        report.retries++
        progress()
        await sleep(delay, signal)
      }
    }
  }

  async function writeBatch(records: IngestRecord[]): Promise<void> {
    let pending = records
    for (let attempt = 0; pending.length > 0; attempt++) {
      const refused = await withRetries(() => sink.write(pending, signal))
      const retry = new Set(refused.filter((r) => r.retryable).map((r) => r.id))
      report.indexed += pending.length - refused.length
      const final = attempt >= retries ? refused : refused.filter((r) => !r.retryable)
      report.rejected += final.length
      report.rejectedDocuments.push(...final)
      progress()
      if (attempt >= retries || retry.size === 0) return
      report.retries++
      await sleep(backoff(attempt), signal)
      pending = pending.filter((r) => retry.has(r.id))
    }
  }

  const inFlight = new Set<Promise<void>>()
  let failure: unknown
  const launch = (records: IngestRecord[]) => {
    report.batches++
    const p: Promise<void> = writeBatch(records)
      .catch((e) => {
        failure ??= e
      })
      .finally(() => inFlight.delete(p))
    inFlight.add(p)
  }

  const flush = async (docs: IngestDocument[]) => {
    const records = await toRecords(docs, splitter, embed, tokens, signal)
    await prepare(records)
    for (let i = 0; i < records.length; i += batchSize) {
      // Backpressure: wait for a slot before sending (and before reading more input).
      while (inFlight.size >= concurrency) await Promise.race(inFlight)
      if (failure) return
      launch(records.slice(i, i + batchSize))
    }
  }

  let buffer: IngestDocument[] = []
  try {
    for await (const doc of documents as AsyncIterable<IngestDocument>) {
      throwIfAborted(signal)
      buffer.push(checkDocument(doc, report.documents))
      report.documents++
      if (buffer.length >= batchSize) {
        await flush(buffer)
        buffer = []
      }
      if (failure) break
    }
    if (!failure && buffer.length > 0) await flush(buffer)
    await Promise.all(inFlight)
    if (!failure && prepared) await withRetries(() => sink.finish(signal))
  } catch (e) {
    await Promise.allSettled(inFlight)
    failure ??= e
  }
  report.ms = performance.now() - started
  if (failure) {
    if (failure instanceof Error) Object.assign(failure, { report })
    throw failure
  }
  progress()
  return report
}

const DOCUMENT_KEYS = optionKeys('id', 'text', 'meta', 'vector')

function checkDocument(doc: unknown, i: number): IngestDocument {
  const where = `documents[${i}]`
  const d = optionsObject(doc, where, DOCUMENT_KEYS)
  documentId(d.id, `${where}.id`)
  if (typeof d.text !== 'string') throw typeError(`${where}.text must be a string`)
  if (d.meta !== undefined && !isPlainObject(d.meta)) throw typeError(`${where}.meta must be a plain object`)
  return d as unknown as IngestDocument
}

type EmbedTexts = (texts: string[], signal?: AbortSignal) => Promise<number[][]>

export function documentEmbedder(e: unknown): EmbedTexts | undefined {
  if (e === undefined) return undefined
  if (typeof e === 'function') {
    return async (texts, signal) => {
      const out = await abortable(Promise.resolve(e(texts, { signal })), signal)
      if (!Array.isArray(out) || out.length !== texts.length)
        throw typeError(`options.embedder must resolve to one vector per text (${texts.length})`)
      return out.map((v, i) => vectorArray(v, `options.embedder's vector ${i}`))
    }
  }
  if (hasMethod(e, 'embedDocuments')) {
    const m = e as {
      embedDocuments(t: string[], o: { signal?: AbortSignal }): Promise<{ data: Float32Array; dim: number }>
    }
    return async (texts, signal) => {
      const { data, dim } = await m.embedDocuments(texts, { signal })
      return texts.map((_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim)))
    }
  }
  throw typeError('options.embedder must be an Embedder (embedDocuments) or a function (texts, { signal }) => vectors')
}

async function toRecords(
  docs: IngestDocument[],
  splitter: IngestOptions['splitter'],
  embed: EmbedTexts | undefined,
  tokens: ((text: string) => string) | undefined,
  signal: AbortSignal | undefined,
): Promise<IngestRecord[]> {
  let records: IngestRecord[]
  if (splitter) {
    const nodes = splitter.split(
      docs.map(({ id, text, meta }) => (meta === undefined ? { id, text } : { id, text, meta })),
    )
    records = nodes.map((n) => ({
      id: n.id,
      text: n.text,
      meta: n.meta,
      searchable: n.childrenIds.length === 0,
      node: {
        parentId: n.parentId,
        childrenIds: n.childrenIds,
        level: n.level,
        blockSize: n.blockSize,
        sourceId: n.sourceId,
        start: n.start,
        end: n.end,
      },
    }))
  } else {
    records = docs.map((d, i) => {
      const r: IngestRecord = { id: d.id, text: d.text, searchable: true }
      if (d.meta !== undefined) r.meta = d.meta
      if (d.vector !== undefined) r.vector = vectorArray(d.vector, `documents[${i}].vector`)
      return r
    })
  }
  const searchable = records.filter((r) => r.searchable)
  if (embed) {
    const vectors = await embed(
      searchable.map((r) => r.text),
      signal,
    )
    searchable.forEach((r, i) => {
      r.vector = vectors[i]
    })
  }
  const dims = new Set(searchable.filter((r) => r.vector).map((r) => r.vector!.length))
  if (dims.size > 1)
    throw new RagrankError(
      'ERR_ENGINE_DIMENSION',
      `documents have vectors of different lengths: ${[...dims].join(', ')}`,
    )
  if (tokens) for (const r of searchable) r.tokens = tokens(r.text)
  return records
}
