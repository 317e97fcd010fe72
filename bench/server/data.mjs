// The server benchmark's data, the same in the bench process and in every server it starts: a Zipf corpus
// (bench/lib/zipf.mjs), seeded unit vectors for its first documents, query texts and vectors, and the
// writer's documents (each with a fresh unique token, so churn keeps adding new terms).
import path from 'node:path'
import { modelsDir } from '../lib/paths.mjs'
import { generateUnitVectors, unitVectors } from '../lib/vectors.mjs'
import { generateZipf } from '../lib/zipf.mjs'

export const CORPUS_SEED = 42
const QUERY_SEED = 7
export const TOP_K = 10
/** Hybrid hits the cross-encoder reranks, and its tokens per pair. */
export const RERANK_DEPTH = 20
export const RERANK_MAX_LENGTH = 128
/** The rerank suite's benchmark cross-encoder (bench/models/prepare.py). */
export const RERANK_MODEL = path.join(modelsDir, 'minilm-l6-cross-encoder')

/** { corpus, vectors (nVectors x dim Float32Array, doc i's vector at row i), nVectors, dim }. */
export function benchCorpus({ docs, vectors, dim }) {
  const corpus = generateZipf({ nDocs: docs })
  const nVectors = Math.min(vectors, docs)
  return { corpus, vectors: unitVectors(nVectors, dim, CORPUS_SEED).data, nVectors, dim }
}

/** `n` query vectors, rounded to 6 decimals (they travel as JSON). */
export function queryVectors(n, dim) {
  const data = generateUnitVectors(n, dim, QUERY_SEED)
  return Array.from({ length: n }, (_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim), (x) => +x.toFixed(6)))
}

/** The i-th document of the writer: a corpus text plus a token no other document has. */
export function writerDocument(i, corpus, dim) {
  const vector = Array.from(generateUnitVectors(1, dim, 1_000_003 + i), (x) => +x.toFixed(6))
  return { id: `w${i}`, text: `${corpus.docText(i % corpus.nDocs)} ${freshToken(i)}`, vector }
}

/** A token of letters only (every tokenizer keeps it whole) that no corpus term and no other writer document has. */
export function freshToken(i) {
  let s = ''
  let n = i
  do {
    s = String.fromCharCode(97 + (n % 26)) + s
    n = Math.floor(n / 26)
  } while (n > 0)
  return `fresh${s}` // corpus terms have 3-4 letters
}
