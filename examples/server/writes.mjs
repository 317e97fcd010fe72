// The writes a server makes: add (or upsert) documents in both indexes, remove one. In one process they go
// to its indexes (`localWrites`); in a reader worker of an index directory, to the writer worker
// (workers.mjs forwards them), as a reader's indexes take no writes.
import { HttpError } from './errors.mjs'
import { pending, refresh } from './ragrank-calls.mjs'

/** The vector items of documents: their own vectors, else the embedder's (documents without either are BM25-only). */
async function vectorItems(docs, embedder) {
  const given = docs.filter((d) => d.vector !== undefined)
  const toEmbed = embedder ? docs.filter((d) => d.vector === undefined && typeof d.text === 'string') : []
  const items = given.map((d) => ({ id: d.id, vector: d.vector, text: d.text }))
  if (toEmbed.length > 0) {
    const { data, dim } = await embedder.embedDocuments(toEmbed.map((d) => d.text))
    for (const [i, d] of toEmbed.entries())
      items.push({ id: d.id, vector: data.subarray(i * dim, (i + 1) * dim), text: d.text })
  }
  return items
}

/** `{ add(body), remove(id) }` over the stack's own indexes. */
export function localWrites({ bm25, vectors, embedder }) {
  return {
    /** body: { documents, upsert?, refresh? }; resolves with { added, vectors, pending }. */
    async add(body) {
      const docs = body.documents
      if (!Array.isArray(docs)) throw new HttpError(400, 'ERR_INVALID_ARG', 'body.documents must be an array')
      const upsert = body.upsert === true
      const items = await vectorItems(docs, embedder)
      // BM25 first (it validates every document, and adds all or none); then the vectors, undone in BM25
      // when they fail, so a bad vector leaves neither index changed (an upsert's old version is not restored).
      const added = await bm25.addAsync(
        docs.map(({ id, text, meta }) => ({ id, text, meta })),
        { upsert },
      )
      try {
        if (items.length > 0) vectors.add(items, { upsert })
      } catch (e) {
        if (!upsert) bm25.remove(docs.map((d) => d.id))
        throw e
      }
      // Read-your-writes on request: wait until the new documents are searchable.
      if (body.refresh === true) await Promise.all([refresh(bm25), refresh(vectors)])
      return { added, vectors: items.length, pending: pending(bm25) }
    },
    /** Resolves with { removed }; a 404 when neither index has `id`. */
    async remove(id) {
      const removed = Math.max(bm25.remove([id]), vectors.remove([id]))
      if (removed === 0) throw new HttpError(404, 'ERR_NOT_FOUND', `no document ${JSON.stringify(id)}`)
      return { removed }
    },
  }
}
