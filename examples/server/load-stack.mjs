// Builds the { bm25, vectors, embedder, reranker } a server serves: over the demo corpus with the
// repository's tiny test models (offline, the default), over a JSONL / CSV / TSV file of documents, or from
// indexes saved with save(). Vectors come from a raw float32 file (one row per document, in file order),
// else from the embedder.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Bm25Index, CrossEncoder, Embedder, VectorIndex } from 'ragrank'
import { readDocuments } from '../../cli/readers.mjs'
import { localWrites } from './writes.mjs'

const repo = (p) => fileURLToPath(new URL(`../../${p}`, import.meta.url))
export const DEMO = {
  docs: repo('demo/corpus.jsonl'),
  // Random-weight test models: they exercise the pipeline offline, their scores mean nothing.
  embedder: repo('fixtures/models/tiny-embedder'),
  reranker: repo('fixtures/models/tiny-cross-encoder'),
}

/** Vectors of `docs` (in their order) from a raw float32 file of docs.length x dim values. */
function vectorsFromFile(file, docs, dim) {
  const bytes = readFileSync(file)
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
  if (!Number.isInteger(dim) || data.length !== docs.length * dim)
    throw new RangeError(`${file}: ${data.length} values, expected ${docs.length} documents x dim ${dim}`)
  return data
}

async function embedDocs(embedder, docs, chunk = 256) {
  const index = new VectorIndex({ dim: embedder.dim })
  for (let i = 0; i < docs.length; i += chunk) {
    const part = docs.slice(i, i + chunk)
    const { data, dim } = await embedder.embedDocuments(part.map((d) => d.text))
    index.add(part.map((d, j) => ({ id: d.id, vector: data.subarray(j * dim, (j + 1) * dim), text: d.text })))
  }
  return index
}

/**
 * @param {object} o  docs (file), bm25Index / vectorIndex (saved index files), vectors (raw float32 file)
 *   and dim, embedder / reranker (model folders or hub ids; null for none), maxLength (reranker tokens)
 */
export async function loadStack(o = {}) {
  const embedderDir = o.embedder === undefined ? DEMO.embedder : o.embedder
  const rerankerDir = o.reranker === undefined ? DEMO.reranker : o.reranker
  const [embedder, reranker] = await Promise.all([
    embedderDir ? Embedder.load(embedderDir) : undefined,
    rerankerDir ? CrossEncoder.load(rerankerDir, o.maxLength ? { maxLength: o.maxLength } : {}) : undefined,
  ])
  if (o.bm25Index && o.vectorIndex) {
    const [bm25, vectors] = await Promise.all([Bm25Index.load(o.bm25Index), VectorIndex.load(o.vectorIndex)])
    return { bm25, vectors, embedder, reranker }
  }
  const docs = await readDocuments(o.docs ?? DEMO.docs)
  const bm25 = new Bm25Index()
  await bm25.addAsync(docs)
  let vectors
  if (o.vectors) {
    const data = vectorsFromFile(o.vectors, docs, o.dim)
    vectors = new VectorIndex({ dim: o.dim })
    vectors.add(docs.map((d, i) => ({ id: d.id, vector: data.subarray(i * o.dim, (i + 1) * o.dim), text: d.text })))
  } else if (embedder) {
    vectors = await embedDocs(embedder, docs)
  } else {
    throw new TypeError('vectors need --vectors <file> --dim <n> or an --embedder')
  }
  return { bm25, vectors, embedder, reranker }
}

/**
 * The stack of one worker over an index directory (workers.mjs): the writer opens it with durability 'sync'
 * (a write that returned survives a crash), builds it from `docs` the first time, and commits every
 * `commitInterval` ms after writes (readers see commits); a reader opens it read-only and refreshes every
 * `refreshInterval` ms.
 * @param {object} o  dir, role ('writer' | 'reader'), docs, vectors and dim, embedder / reranker,
 *   maxLength, commitInterval, refreshInterval
 */
export async function openDirectoryStack(o) {
  const embedderDir = o.embedder === undefined ? DEMO.embedder : o.embedder
  const rerankerDir = o.reranker === undefined ? DEMO.reranker : o.reranker
  const [embedder, reranker] = await Promise.all([
    embedderDir ? Embedder.load(embedderDir) : undefined,
    rerankerDir ? CrossEncoder.load(rerankerDir, o.maxLength ? { maxLength: o.maxLength } : {}) : undefined,
  ])
  if (o.role === 'reader') {
    const opts = { readOnly: true, refreshInterval: o.refreshInterval ?? 1000 }
    const [bm25, vectors] = await Promise.all([Bm25Index.open(o.dir, opts), VectorIndex.open(o.dir, opts)])
    return { bm25, vectors, embedder, reranker }
  }
  const dim = o.dim ?? embedder?.dim
  const bm25 = await Bm25Index.open(o.dir, { durability: 'sync' })
  const vectors = await VectorIndex.open(o.dir, { durability: 'sync', ...(dim ? { dim } : {}) })
  if (bm25.size === 0) {
    const docs = await readDocuments(o.docs ?? DEMO.docs)
    await bm25.addAsync(docs)
    const built = o.vectors
      ? { data: vectorsFromFile(o.vectors, docs, o.dim), dim: o.dim }
      : embedder
        ? await embedder.embedDocuments(docs.map((d) => d.text))
        : null
    if (!built) throw new TypeError('vectors need --vectors <file> --dim <n> or an --embedder')
    vectors.add(
      docs.map((d, i) => ({ id: d.id, vector: built.data.subarray(i * built.dim, (i + 1) * built.dim), text: d.text })),
    )
  }
  // One commit covers both indexes (they share the directory).
  await bm25.commit()
  const stack = { bm25, vectors, embedder, reranker }
  // Readers see what is committed: a commit every commitInterval ms after writes.
  let dirty = false
  const local = localWrites(stack)
  const commit = () => {
    dirty = false
    return bm25.commit()
  }
  stack.writes = {
    add: (body) => local.add(body).finally(() => (dirty = true)),
    remove: (id) => local.remove(id).finally(() => (dirty = true)),
  }
  stack.commit = commit
  const timer = setInterval(() => {
    if (dirty) commit().catch((e) => console.error(`commit failed (retried at the next tick): ${e.message}`))
  }, o.commitInterval ?? 1000)
  timer.unref()
  stack.close = () => {
    clearInterval(timer)
    return Promise.all([bm25.close(), vectors.close()])
  }
  return stack
}
