// The ragrank calls the routes make, using the live-update API where it exists at run time: VectorIndex.searchAsync, which joins concurrent single queries
// into one native batch, and refresh() on indexes that stage writes.
import { HybridRetriever, VectorRetriever } from 'ragrank'

/**
 * One vector query off the event loop. `coalesce: false` forces one native call per query (the
 * `searchBatch([q])` path), which is what a server had before searchAsync; the benchmark compares both.
 */
export function searchVector(index, vector, { topK, signal, coalesce = true }) {
  if (coalesce && typeof index.searchAsync === 'function') return index.searchAsync(vector, { topK, signal })
  return index.searchBatch(vector, { topK, signal }).then((lists) => lists[0])
}

/** `await index.refresh()` where the index has it (new writes become visible), else nothing to do. */
export async function refresh(index) {
  if (index && typeof index.refresh === 'function') await index.refresh()
}

/** Writes an index has staged and not yet made visible (0 for indexes without staging). */
export const pending = (index) => (index && typeof index.pending === 'number' ? index.pending : 0)

/** The query vector: the one given, else the embedder's embedding of the text (a 400 when neither can be had). */
export function queryVector({ vector, text, embedder, signal }) {
  // As given: the index (or VectorRetriever) checks it, and a bad one is a TypeError or RangeError (a 400).
  if (vector !== undefined) return Promise.resolve(vector)
  if (!embedder) {
    const e = new TypeError('vector is required (this server has no embedder to embed the query text)')
    return Promise.reject(Object.assign(e, { code: 'ERR_INVALID_ARG' }))
  }
  return embedder.embedQuery(text, { signal })
}

/**
 * A HybridRetriever (RRF) over the BM25 index and the vector index for one request: the vector side
 * searches with `vector` when the request gave one, else with the embedder's embedding of the query.
 */
export function hybridRetriever({ bm25, vectors, embedder, vector, signal, candidates, coalesce }) {
  const index = {
    supportsFilter: true,
    search: (q, { topK }) => searchVector(vectors, q, { topK, signal, coalesce }),
  }
  const embed = (text) => queryVector({ vector, text, embedder, signal })
  return new HybridRetriever({ retrievers: [bm25, new VectorRetriever({ index, embed })], candidates })
}

/** The top documents reranked by the cross-encoder; candidates without text cannot be scored and are left out. */
export async function rerankHits(reranker, query, hits, { topK, signal }) {
  const docs = hits.filter((h) => typeof h.text === 'string').map((h) => ({ id: h.id, text: h.text }))
  const reranked = await reranker.rerank(query, docs, { topK, signal })
  return reranked.map((d) => ({ id: d.id, score: d.score, text: d.text }))
}
