// The peers' server: the routes and reply shapes of examples/server (same Fastify, same parameters, same
// error mapping and /metrics), over a stack of bench/server/peer-stacks.mjs instead of ragrank.
import Fastify from 'fastify'
import { HttpError, replyWithErrors } from '../../examples/server/errors.mjs'
import { createMetrics } from '../../examples/server/metrics.mjs'
import { searchParams } from '../../examples/server/routes/params.mjs'
import { RERANK_DEPTH } from './data.mjs'

const badInput = (message) => new HttpError(400, 'ERR_INVALID_ARG', message)

function checked({ query, topK = 10, vector }, { needsQuery, needsVector }) {
  if (needsQuery && typeof query !== 'string') throw badInput('query must be a string')
  // A base64 vector arrives as a Float32Array (searchParams); the peers' stacks take plain arrays.
  if (vector instanceof Float32Array) vector = Array.from(vector)
  if (needsVector && !Array.isArray(vector)) throw badInput('vector must be an array of numbers')
  if (!Number.isInteger(topK) || topK < 0) throw badInput('topK must be a non-negative integer')
  return { query, topK, vector }
}

export function buildPeerServer(stack) {
  const app = Fastify({ logger: false, bodyLimit: 8 * 2 ** 20 })
  const metrics = createMetrics()
  replyWithErrors(app)
  const route = (url, needs, search) =>
    app.route({
      method: ['GET', 'POST'],
      url,
      handler: (request) => metrics.track(async () => ({ hits: await search(checked(searchParams(request), needs)) })),
    })
  route('/search/bm25', { needsQuery: true }, ({ query, topK }) => stack.bm25(query, topK))
  route('/search/vector', { needsVector: true }, ({ vector, topK }) => stack.vector(vector, topK))
  route('/search/hybrid', { needsQuery: true, needsVector: true }, ({ query, vector, topK }) =>
    stack.hybrid(query, vector, topK),
  )
  route('/search/hybrid-rerank', { needsQuery: true, needsVector: true }, async ({ query, vector, topK }) => {
    if (!stack.rerank) throw new HttpError(404, 'ERR_NOT_CONFIGURED', 'this server has no reranker')
    return stack.rerank(query, await stack.hybrid(query, vector, RERANK_DEPTH), topK)
  })
  app.post('/documents', async (request, reply) => {
    const docs = request.body?.documents
    if (!Array.isArray(docs)) throw badInput('body.documents must be an array')
    return reply.code(201).send({ added: await stack.add(docs) })
  })
  app.delete('/documents/:id', async (request) => {
    const removed = await stack.remove(request.params.id)
    if (removed === 0) throw new HttpError(404, 'ERR_NOT_FOUND', `no document ${request.params.id}`)
    return { removed }
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async () => ({ ready: true }))
  app.get('/metrics', async () => ({ ...metrics.snapshot(), indexes: stack.stats() }))
  app.post('/metrics/reset', async () => {
    metrics.reset()
    return { reset: true }
  })
  app.addHook('onClose', async () => metrics.close())
  return app
}
