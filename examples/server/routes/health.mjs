// GET /healthz (the process answers), GET /readyz (indexes and models loaded: 503 until then), GET
// /metrics (event-loop delay, memory, index statistics, JSON) and POST /metrics/reset (a new window).
import { pending } from '../ragrank-calls.mjs'

function indexStats({ bm25, vectors }) {
  return {
    bm25: { ...bm25.stats(), pending: pending(bm25) },
    vectors: { size: vectors.size, dim: vectors.dim, pending: pending(vectors) },
  }
}

export async function healthRoutes(app, { state, metrics }) {
  app.get('/healthz', async () => ({ status: 'ok', uptimeSeconds: process.uptime() }))

  app.get('/readyz', async (_request, reply) => {
    const s = state.stack
    if (!s) return reply.code(503).send({ ready: false, error: state.error ? String(state.error.message) : undefined })
    return {
      ready: true,
      // With --workers: which worker answered (its role on the index directory) and its pid.
      ...(s.role ? { role: s.role, pid: process.pid } : {}),
      indexes: { bm25: s.bm25.size, vectors: s.vectors.size },
      models: { embedder: Boolean(s.embedder), reranker: Boolean(s.reranker) },
    }
  })

  app.get('/metrics', async () => ({
    ...metrics.snapshot(),
    indexes: state.stack ? indexStats(state.stack) : null,
  }))

  app.post('/metrics/reset', async () => {
    metrics.reset()
    return { reset: true }
  })
}
