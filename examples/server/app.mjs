// The Fastify app: BM25, vector, hybrid (RRF) and hybrid + rerank search over ragrank indexes, a writer
// (add / upsert / delete documents), and health, readiness and metrics. `buildServer` only wires HTTP to
// ragrank; see README.md for the endpoints, and main.mjs for loading data.
import Fastify from 'fastify'
import { HttpError, replyWithErrors } from './errors.mjs'
import { createMetrics } from './metrics.mjs'
import { requestSignals } from './request-signal.mjs'
import { documentRoutes } from './routes/documents.mjs'
import { healthRoutes } from './routes/health.mjs'
import { searchRoutes } from './routes/search.mjs'

/**
 * @param {object} options
 * @param {object | Promise<object>} options.stack  `{ bm25, vectors, embedder?, reranker? }` (a Bm25Index, a
 *   VectorIndex, an Embedder for text queries and documents without vectors, a CrossEncoder for
 *   /search/hybrid-rerank), or a Promise of it: the server answers /healthz at once and /readyz with 503
 *   until it resolves (searches meanwhile get 503 ERR_NOT_READY).
 * @param {number} [options.candidates]  candidates per retriever of the hybrid (default 50)
 * @param {number} [options.rerankDepth]  hybrid hits the cross-encoder reranks (default 20)
 * @param {boolean} [options.coalesce]  single vector queries through VectorIndex.searchAsync when it exists
 *   (default true); false: one searchBatch call per query
 * @param {boolean | object} [options.logger]  Fastify's logger option (default false)
 */
export function buildServer({ stack, candidates = 50, rerankDepth = 20, coalesce = true, logger = false, ...rest }) {
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw new TypeError(`buildServer: unknown option ${unknown[0]}`)
  const app = Fastify({ logger, bodyLimit: 8 * 2 ** 20 })
  const metrics = createMetrics()
  const state = { stack: null, error: null }
  Promise.resolve(stack).then(
    (s) => (state.stack = s),
    (e) => {
      state.error = e
      app.log.error(e, 'loading the indexes or models failed')
    },
  )
  /** The loaded stack, or a 503 while it is loading. */
  const ready = () => {
    if (state.stack) return state.stack
    throw new HttpError(503, 'ERR_NOT_READY', state.error ? `loading failed: ${state.error.message}` : 'still loading')
  }
  requestSignals(app)
  replyWithErrors(app)
  const ctx = { ready, state, metrics, candidates, rerankDepth, coalesce }
  app.register(healthRoutes, ctx)
  app.register(searchRoutes, ctx)
  app.register(documentRoutes, ctx)
  app.addHook('onClose', async () => metrics.close())
  return app
}
