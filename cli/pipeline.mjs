// Retrieval steps shared by the CLI commands and the demo: build a BM25 index with progress, run a query set
// through BM25, a dense index, a hybrid or a cross-encoder, and return runs for `evaluate`.
import { existsSync } from 'node:fs'
import {
  AbortError,
  BM25_VARIANTS,
  Bm25Index,
  CrossEncoder,
  Embedder,
  HybridRetriever,
  VectorIndex,
  VectorRetriever,
} from 'ragrank'
import { UsageError } from './errors.mjs'

/** The library's variant names: the CLI never keeps a list of its own. */
export const VARIANTS = BM25_VARIANTS

/** Bm25Index options from CLI flags (`variant`, `k1`, `b`, `analyzer`, `stopwords`, `stemmer`). */
export function bm25Options(o = {}) {
  const variant = o.variant ?? 'lucene'
  if (!VARIANTS.includes(variant))
    throw new UsageError(`unknown variant "${variant}"; choose one of ${VARIANTS.join(', ')}`)
  const out = { variant }
  for (const k of ['k1', 'b']) {
    if (o[k] === undefined) continue
    const v = String(o[k]).trim() === '' ? Number.NaN : Number(o[k])
    if (!Number.isFinite(v) || v < 0) throw new UsageError(`--${k} must be a non-negative number, got ${o[k]}`)
    out[k] = v
  }
  if (o.analyzer === 'bm25s') {
    // The preset has its own stopwords and stemmer: silently dropping the flags would index something else.
    if (o.stopwords !== undefined || o.stemmer !== undefined)
      throw new UsageError('--stopwords/--stemmer apply to --analyzer unicode; bm25s is a preset with its own')
    out.analyzer = 'bm25s'
  } else if (o.analyzer === undefined || o.analyzer === 'unicode') {
    out.analyzer = { stopwords: o.stopwords ?? null, stemmer: o.stemmer ?? null }
  } else
    throw new UsageError(
      `unknown analyzer "${o.analyzer}"; choose unicode (default, with --stopwords/--stemmer) or bm25s`,
    )
  // The core checks the values it knows (a stopword list or stemmer it lacks): a bad flag is a usage error (exit 2)
  // found before any input is read, not a runtime error after it.
  asUsage(() => new Bm25Index(out))
  return out
}

/** The flag behind each option path the core names in its messages (`options.analyzer.stopwords must be ...`). */
const FLAG_OF = {
  'analyzer.stopwords': '--stopwords',
  'analyzer.stemmer': '--stemmer',
  analyzer: '--analyzer',
  variant: '--variant',
  k1: '--k1',
  b: '--b',
  overlap: '--overlap',
  blockSizes: '--block-sizes/--split',
  splitBy: '--split-by',
  metric: '--metrics',
}

/**
 * Runs `make` (a constructor fed from flags) and turns the TypeError/RangeError the library throws for a bad value
 * into a UsageError naming the flag, so every bad value exits 2 as documented.
 */
export function asUsage(make) {
  try {
    return make()
  } catch (e) {
    if (!((e instanceof TypeError || e instanceof RangeError) && e.code === 'ERR_INVALID_ARG')) throw e
    const key = Object.keys(FLAG_OF).find((k) => new RegExp(`(^|[ .])${k}\\b`).test(e.message))
    throw new UsageError(key ? `${FLAG_OF[key]}: ${e.message}` : e.message)
  }
}

/**
 * Adds documents in chunks so a progress callback can report and an AbortSignal can stop between chunks. The chunks
 * are only staged (analysed, not yet searchable) and one refresh at the end builds one segment of them all, as a bulk
 * load into Elasticsearch turns its refresh off: the build costs about one `add` of everything, with no segments to
 * merge afterwards.
 */
export async function buildBm25(docs, options, { onProgress, signal, chunk = 65_536 } = {}) {
  const index = new Bm25Index({ ...options, refreshInterval: 0 })
  const stopIfAborted = () => {
    if (signal?.aborted) throw new AbortError()
  }
  for (let i = 0; i < docs.length; i += chunk) {
    stopIfAborted()
    index.add(docs.slice(i, i + chunk), { refresh: false })
    onProgress?.(Math.min(i + chunk, docs.length))
    // A chunk blocks the loop for a few hundred milliseconds at most: yield so SIGINT and the progress bar's redraw get
    // their turn. Chunks this big cross in parts analysed beside the conversion, and few staged adds stay cheap to check.
    await new Promise((resolve) => setImmediate(resolve))
  }
  stopIfAborted()
  await index.refresh()
  return index
}

/** query id -> hits, the queries searched in parallel batches (`chunk` at a time, for progress). */
export async function bm25Run(index, queries, topK, { onProgress, chunk = 1000 } = {}) {
  const out = {}
  for (let i = 0; i < queries.length; i += chunk) {
    const part = queries.slice(i, i + chunk)
    const hits = await index.searchBatch(
      part.map((q) => q.text),
      { topK },
    )
    for (const [j, q] of part.entries()) out[q.id] = hits[j]
    onProgress?.(i + part.length)
  }
  return out
}

export async function retrieverRun(retriever, queries, topK, { onProgress } = {}) {
  const out = {}
  for (const [i, q] of queries.entries()) {
    out[q.id] = await retriever.retrieve(q.text, { topK })
    onProgress?.(i + 1)
  }
  return out
}

function modelFolder(dir, kind) {
  if (!existsSync(dir)) {
    throw new UsageError(
      `${kind} model folder not found: ${dir}. Give a folder with model.onnx (or onnx/model.onnx) and tokenizer.json, ` +
        `e.g. one exported with optimum (see bench/models/README.md), or a Hugging Face id once cached.`,
    )
  }
  return dir
}

export async function loadCrossEncoder(dir) {
  return CrossEncoder.load(modelFolder(dir, 'reranker'))
}

/** Reranks the first `depth` hits of each query of `run` with a cross-encoder (`chunk` queries per call). */
export async function rerankRun(encoder, queries, run, depth = 20, { onProgress, chunk = 32 } = {}) {
  const out = {}
  for (let i = 0; i < queries.length; i += chunk) {
    const part = queries.slice(i, i + chunk)
    const requests = part.map((q) => ({
      query: q.text,
      documents: (run[q.id] ?? []).slice(0, depth).map((h) => ({ id: h.id, text: h.text ?? '' })),
    }))
    const results = await encoder.rerankMany(requests)
    for (const [j, q] of part.entries()) out[q.id] = results[j]
    onProgress?.(i + part.length)
  }
  return out
}

export async function loadEmbedder(dir) {
  return Embedder.load(modelFolder(dir, 'embedding'))
}

/** A VectorIndex of every document embedded with `embedder`, in chunks so progress can be reported. */
export async function embedAll(embedder, docs, { onProgress, signal, chunk = 256 } = {}) {
  const index = new VectorIndex({ dim: embedder.dim })
  for (let i = 0; i < docs.length; i += chunk) {
    await embedInto(embedder, index, docs.slice(i, i + chunk), { signal })
    onProgress?.(Math.min(i + chunk, docs.length))
  }
  return index
}

/** Embeds `docs` and adds their vectors to `index`. */
export async function embedInto(embedder, index, docs, { signal } = {}) {
  const { data } = await embedder.embedDocuments(
    docs.map((d) => d.text),
    { signal },
  )
  index.add(
    docs.map((d) => d.id),
    data,
  )
}

/** A dense retriever over `docs`: embeds every document once with the model in `dir`. */
export async function denseRetriever(dir, docs, { onProgress } = {}) {
  const embedder = await loadEmbedder(dir)
  const index = await embedAll(embedder, docs, { onProgress })
  const byId = new Map(docs.map((d) => [d.id, { text: d.text, meta: d.meta }]))
  return new VectorRetriever({ index, embed: embedder, documents: byId })
}

export function hybrid(bm25, dense) {
  return new HybridRetriever({ retrievers: [bm25, dense] })
}

/** Parses "map@3,mrr@10" into a list, rejecting empty entries. */
export function metricList(s) {
  const list = String(s)
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
  if (list.length === 0) throw new UsageError('--metrics needs at least one metric, e.g. map@3,mrr@10,ndcg@10')
  return list
}
