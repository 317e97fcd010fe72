// GET|POST /search/bm25, /search/vector, /search/hybrid, /search/hybrid-rerank: every ragrank call gets
// the request's AbortSignal, so a client that leaves stops the work it started.
import { HttpError } from '../errors.mjs'
import { hybridRetriever, queryVector, rerankHits, searchVector } from '../ragrank-calls.mjs'
import { searchParams } from './params.mjs'

const brief = (hits) => hits.map(({ id, score, text }) => (text === undefined ? { id, score } : { id, score, text }))

export async function searchRoutes(app, { ready, metrics, candidates, rerankDepth, coalesce }) {
  const route = (url, search) =>
    app.route({
      method: ['GET', 'POST'],
      url,
      handler: (request) =>
        metrics.track(async () => ({
          hits: brief(await search(searchParams(request), request.clientSignal, ready())),
        })),
    })

  route('/search/bm25', ({ query, topK }, signal, { bm25 }) => bm25.retrieve(query, { topK, signal }))

  route('/search/vector', async ({ query, topK, vector }, signal, { vectors, embedder }) => {
    const q = await queryVector({ vector, text: query, embedder, signal })
    return searchVector(vectors, q, { topK, signal, coalesce })
  })

  route('/search/hybrid', ({ query, topK, vector }, signal, stack) =>
    hybridRetriever({ ...stack, vector, signal, candidates, coalesce }).retrieve(query, { topK, signal }),
  )

  route('/search/hybrid-rerank', async ({ query, topK, vector }, signal, stack) => {
    if (!stack.reranker) throw new HttpError(404, 'ERR_NOT_CONFIGURED', 'this server has no reranker')
    const hybrid = hybridRetriever({ ...stack, vector, signal, candidates, coalesce })
    const hits = await hybrid.retrieve(query, { topK: rerankDepth, signal })
    return rerankHits(stack.reranker, query, hits, { topK, signal })
  })
}
