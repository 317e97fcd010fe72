// The JS stacks the ragrank server is measured against, behind one interface the peer app serves:
//   bm25(query, k), vector(vector, k), hybrid(query, vector, k) -> [{ id, score, text }] best first,
//   rerank(query, hits, k), add(docs), remove(id) -> removed count, stats() -> object.
// (a) 'js': MiniSearch + a plain cosine loop over Float32Arrays + RRF in JS; (b) 'orama': Orama's own BM25,
// vector and hybrid search. Both rerank with transformers.js (one padded batch per request, the recipe of its
// cross-encoder examples), on the same ONNX file as ragrank's CrossEncoder.
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { create, insertMultiple, insert, remove, search, count } from '@orama/orama'
import MiniSearch from 'minisearch'

const RRF_K = 60
const HYBRID_CANDIDATES = 50
/** Orama returns every vector above this cosine, sorted (its default is 0.8, which random vectors never reach). */
const ORAMA_SIMILARITY = 0.1

/** k best of `n` scored items (score(i) > -Infinity), best first: a bounded insertion list. */
function topK(n, k, score) {
  const best = [] // [score, i], descending
  for (let i = 0; i < n; i++) {
    const s = score(i)
    if (best.length === k && s <= best[k - 1][0]) continue
    let j = best.length === k ? k - 1 : best.length
    while (j > 0 && best[j - 1][0] < s) {
      best[j] = best[j - 1]
      j--
    }
    best[j] = [s, i]
  }
  return best
}

function norm(v) {
  let s = 0
  for (let j = 0; j < v.length; j++) s += v[j] * v[j]
  return Math.sqrt(s) || 1
}

/** A cosine (= dot, the vectors are unit length) scan over rows kept in one growing Float32Array. */
class JsVectors {
  constructor(dim) {
    this.dim = dim
    this.rows = new Float32Array(1024 * dim)
    this.ids = []
    this.texts = []
    this.row = new Map() // id -> row
  }
  add(id, vector, text) {
    const d = this.dim
    let r = this.row.get(id)
    if (r === undefined) {
      r = this.ids.length
      if ((r + 1) * d > this.rows.length) {
        const grown = new Float32Array(this.rows.length * 2)
        grown.set(this.rows)
        this.rows = grown
      }
      this.ids.push(id)
      this.texts.push(text)
      this.row.set(id, r)
    }
    const n = norm(vector)
    for (let j = 0; j < d; j++) this.rows[r * d + j] = vector[j] / n
    this.texts[r] = text
  }
  remove(id) {
    const r = this.row.get(id)
    if (r === undefined) return 0
    const last = this.ids.length - 1 // the last row moves into the hole
    const d = this.dim
    this.rows.copyWithin(r * d, last * d, (last + 1) * d)
    this.ids[r] = this.ids[last]
    this.texts[r] = this.texts[last]
    this.row.set(this.ids[r], r)
    this.ids.pop()
    this.texts.pop()
    this.row.delete(id)
    return 1
  }
  search(q, k) {
    const d = this.dim
    const { rows } = this
    const qn = norm(q)
    return topK(this.ids.length, k, (i) => {
      let s = 0
      for (let j = 0, o = i * d; j < d; j++) s += rows[o + j] * q[j]
      return s / qn
    }).map(([score, i]) => ({ id: this.ids[i], score, text: this.texts[i] }))
  }
}

/** Reciprocal-rank fusion of ranked lists (equal weights), as ragrank's HybridRetriever does by default. */
function rrf(lists, k) {
  const fused = new Map()
  for (const list of lists)
    list.forEach((h, rank) => {
      const f = fused.get(h.id) ?? { id: h.id, score: 0, text: h.text }
      f.score += 1 / (RRF_K + rank + 1)
      fused.set(h.id, f)
    })
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, k)
}

/** transformers.js cross-encoder scoring one padded batch per call, sigmoid of the logit. */
export async function transformersReranker(modelDir, maxLength) {
  const { AutoTokenizer, AutoModelForSequenceClassification, env } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.localModelPath = path.dirname(modelDir) + path.sep
  const name = path.basename(modelDir)
  const tokenizer = await AutoTokenizer.from_pretrained(name)
  const model = await AutoModelForSequenceClassification.from_pretrained(name, {
    dtype: 'fp32',
    session_options: { intraOpNumThreads: availableParallelism(), interOpNumThreads: 1 },
  })
  return async (query, hits, k) => {
    if (hits.length === 0) return []
    const inputs = tokenizer(new Array(hits.length).fill(query), {
      text_pair: hits.map((h) => h.text),
      padding: true,
      truncation: true,
      max_length: maxLength,
    })
    const { logits } = await model(inputs)
    return hits
      .map((h, i) => ({ id: h.id, score: 1 / (1 + Math.exp(-logits.data[i])), text: h.text }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
  }
}

/** MiniSearch + JsVectors. `docs`: [{ id, text }]; `vectorOf(i)`: doc i's vector for i < nVectors. */
export function jsStack({ docs, nVectors, vectorOf, dim, rerank }) {
  const ms = new MiniSearch({ fields: ['text'], storeFields: ['text'] })
  ms.addAll(docs)
  const vectors = new JsVectors(dim)
  for (let i = 0; i < nVectors; i++) vectors.add(docs[i].id, vectorOf(i), docs[i].text)
  const bm25 = (query, k) =>
    ms
      .search(query)
      .slice(0, k)
      .map((h) => ({ id: h.id, score: h.score, text: h.text }))
  return {
    bm25,
    vector: (v, k) => vectors.search(v, k),
    hybrid: (query, v, k) => rrf([bm25(query, HYBRID_CANDIDATES), vectors.search(v, HYBRID_CANDIDATES)], k),
    rerank,
    add(list) {
      for (const d of list) {
        if (ms.has(d.id)) ms.discard(d.id)
        ms.add({ id: d.id, text: d.text })
        if (d.vector) vectors.add(d.id, d.vector, d.text)
      }
      return list.length
    },
    remove(id) {
      const had = ms.has(id)
      if (had) ms.discard(id)
      return Math.max(had ? 1 : 0, vectors.remove(id))
    },
    stats: () => ({ documents: ms.documentCount, terms: ms.termCount, vectors: vectors.ids.length }),
  }
}

/** Orama with a text field and a vector field (docs beyond nVectors get none). */
export async function oramaStack({ docs, nVectors, vectorOf, dim, rerank }) {
  const db = create({ schema: { text: 'string', embedding: `vector[${dim}]` } })
  // Orama's schema check takes plain arrays only (a Float32Array is "not a 384-dimensional vector").
  const rows = docs.map((d, i) =>
    i < nVectors ? { id: d.id, text: d.text, embedding: Array.from(vectorOf(i)) } : { id: d.id, text: d.text },
  )
  await insertMultiple(db, rows, 5000)
  const hits = (r) => r.hits.map((h) => ({ id: h.id, score: h.score, text: h.document.text }))
  const vectorParams = (v) => ({ value: v, property: 'embedding' })
  return {
    bm25: async (term, k) => hits(await search(db, { term, limit: k })),
    vector: async (v, k) =>
      hits(await search(db, { mode: 'vector', vector: vectorParams(v), similarity: ORAMA_SIMILARITY, limit: k })),
    hybrid: async (term, v, k) =>
      hits(await search(db, { mode: 'hybrid', term, vector: vectorParams(v), similarity: ORAMA_SIMILARITY, limit: k })),
    rerank,
    async add(list) {
      for (const d of list) {
        await remove(db, d.id) // an upsert; no-op for a new id
        await insert(db, d.vector ? { id: d.id, text: d.text, embedding: d.vector } : { id: d.id, text: d.text })
      }
      return list.length
    },
    remove: async (id) => ((await remove(db, id)) ? 1 : 0),
    stats: () => ({ documents: count(db) }),
  }
}
