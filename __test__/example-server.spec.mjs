// examples/server: every endpoint over the demo corpus with the tiny test models, the error mapping
// (400 with the code, 499 for aborts, 500 otherwise), a client disconnect aborting the ragrank call it
// started, and health / readiness while the indexes load.
import test from 'ava'
import http from 'node:http'
import { AbortError, RagrankError } from '../dist/esm/index.js'
import { buildServer } from '../examples/server/app.mjs'
import { loadStack } from '../examples/server/load-stack.mjs'
import { vectorBase64 } from '../examples/server/routes/params.mjs'

const stack = await loadStack() // demo corpus, tiny-embedder, tiny-cross-encoder

/** Starts an app on 127.0.0.1:0; returns { url, app } and closes it when the test ends. */
async function start(t, options) {
  const app = buildServer(options)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { app, url: address }
}

async function call(url, path, { method = 'GET', body } = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

const post = (url, path, body) => call(url, path, { method: 'POST', body })

/** A reranker stand-in whose calls wait for their signal, recording it. */
function waitingReranker() {
  const signals = []
  let started
  const first = new Promise((r) => (started = r))
  return {
    signals,
    first,
    rerank(_query, _docs, { signal }) {
      signals.push(signal)
      started()
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new AbortError())))
    },
  }
}

test('a vector sent as base64 of float32 gets the hits of the same vector as a number array', async (t) => {
  const { url } = await start(t, { stack })
  const vector = Array.from((await stack.embedder.embedQuery('velmora clay')).slice())
  const asArray = await post(url, '/search/vector', { vector, topK: 4 })
  const asBase64 = await post(url, '/search/vector', { vector: vectorBase64(vector), topK: 4 })
  t.is(asBase64.status, 200)
  t.deepEqual(asBase64.body, asArray.body)
  const hybrid = await post(url, '/search/hybrid', { query: 'velmora clay', vector: vectorBase64(vector), topK: 3 })
  t.deepEqual(hybrid.body, (await post(url, '/search/hybrid', { query: 'velmora clay', vector, topK: 3 })).body)
  // Not a whole number of float32 values (6 bytes), and the wrong dimension: 400s naming the problem.
  const ragged = await post(url, '/search/vector', { vector: Buffer.from([1, 2, 3, 4, 5, 6]).toString('base64') })
  t.is(ragged.status, 400)
  t.like(ragged.body, { error: 'ERR_INVALID_ARG' })
  t.regex(ragged.body.message, /6 bytes/)
  const short = await post(url, '/search/vector', { vector: vectorBase64(vector.slice(1)) })
  t.is(short.status, 400)
  t.like(short.body, { error: 'ERR_INVALID_ARG' })
})

test('every search endpoint answers GET and POST with hits best first', async (t) => {
  const { url } = await start(t, { stack })
  const vector = Array.from((await stack.embedder.embedQuery('velmora clay')).slice())
  for (const [path, body] of [
    ['/search/bm25', { query: 'velmora monks', topK: 3 }],
    ['/search/vector', { vector, topK: 3 }],
    ['/search/vector', { query: 'velmora clay', topK: 3 }], // embedded by the server's embedder
    ['/search/hybrid', { query: 'velmora clay', topK: 3 }],
    ['/search/hybrid', { query: 'velmora clay', vector, topK: 3 }],
    ['/search/hybrid-rerank', { query: 'velmora clay', topK: 3 }],
  ]) {
    const r = await post(url, path, body)
    t.is(r.status, 200, `${path} ${JSON.stringify(r.body).slice(0, 200)}`)
    t.is(r.body.hits.length, 3, path)
    for (const h of r.body.hits)
      t.true(typeof h.id === 'string' && typeof h.score === 'number' && typeof h.text === 'string')
    const scores = r.body.hits.map((h) => h.score)
    t.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      `${path} best first`,
    )
  }
  const bm25 = await call(url, '/search/bm25?q=velmora+monks&topK=2')
  t.is(bm25.status, 200)
  t.is(bm25.body.hits[0].id, 'en/velmora/history/0')
  const byVector = await call(url, `/search/vector?vector=${vector.join(',')}&topK=2`)
  t.is(byVector.status, 200)
  t.is(byVector.body.hits.length, 2)
  const rerank = await call(url, '/search/hybrid-rerank?q=velmora+clay&topK=2')
  t.is(rerank.status, 200)
  t.is(rerank.body.hits.length, 2)
})

test('the writer adds, upserts and removes documents in both indexes', async (t) => {
  const own = await loadStack({ reranker: null })
  const { url } = await start(t, { stack: own })
  const vectors = own.vectors.size
  const add = await post(url, '/documents', { documents: [{ id: 'new/1', text: 'zzyzx quokka' }], refresh: true })
  t.is(add.status, 201)
  t.like(add.body, { added: 1, vectors: 1 })
  t.is(own.vectors.size, vectors + 1)
  t.deepEqual(
    (await call(url, '/search/bm25?q=zzyzx')).body.hits.map((h) => h.id),
    ['new/1'],
  )
  const again = await post(url, '/documents', { documents: [{ id: 'new/1', text: 'plain' }] })
  t.is(again.status, 400)
  t.is(again.body.error, 'ERR_DUPLICATE_ID')
  const upsert = await post(url, '/documents', { documents: [{ id: 'new/1', text: 'wombat' }], upsert: true })
  t.is(upsert.status, 201)
  t.deepEqual((await call(url, '/search/bm25?q=zzyzx')).body.hits, [])
  t.is((await call(url, '/search/bm25?q=wombat')).body.hits[0].id, 'new/1')
  const gone = await call(url, '/documents/new%2F1', { method: 'DELETE' })
  t.deepEqual([gone.status, gone.body], [200, { removed: 1 }])
  t.deepEqual((await call(url, '/search/bm25?q=wombat')).body.hits, [])
  t.is(own.vectors.size, vectors)
  const missing = await call(url, '/documents/nope', { method: 'DELETE' })
  t.deepEqual([missing.status, missing.body.error], [404, 'ERR_NOT_FOUND'])
  // A bad vector leaves both indexes as they were.
  const bad = await post(url, '/documents', { documents: [{ id: 'new/2', text: 'numbat', vector: [1, 2] }] })
  t.deepEqual([bad.status, bad.body.error], [400, 'ERR_INVALID_ARG'])
  t.false(own.bm25.has('new/2'))
  t.false(own.vectors.has('new/2'))
})

test('ragrank validation errors are 400 with their code; other failures 500 with theirs', async (t) => {
  const failing = { rerank: async () => Promise.reject(new RagrankError('ERR_INFERENCE', 'the model failed')) }
  const { url } = await start(t, { stack: { ...stack, reranker: failing } })
  for (const [path, body, message] of [
    ['/search/bm25', { query: 'velmora', topK: -1 }, /topK/],
    ['/search/bm25', { topK: 3 }, /query must be a string/],
    ['/search/vector', { vector: [1, 2, 3] }, /dim/],
    ['/search/vector', { vector: 'not a vector' }, /base64 of float32/],
    ['/search/vector', { vector: { 0: 1 } }, /Float32Array/],
    ['/search/hybrid', { query: 42 }, /query must be a string/],
    ['/documents', { documents: 'nope' }, /documents must be an array/],
    ['/documents', { documents: [{ id: 7, text: 'x' }] }, /id/],
  ]) {
    const r = await post(url, path, body)
    t.is(r.status, 400, `${path} ${JSON.stringify(body)}`)
    t.is(r.body.error, 'ERR_INVALID_ARG', path)
    t.regex(r.body.message, message)
  }
  const topK = await call(url, '/search/bm25?q=velmora&topK=abc')
  t.deepEqual([topK.status, topK.body.error], [400, 'ERR_INVALID_ARG'])
  const json = await post(url, '/search/bm25', '{"query": ')
  t.is(json.status, 400)
  const failed = await post(url, '/search/hybrid-rerank', { query: 'velmora clay' })
  t.deepEqual([failed.status, failed.body], [500, { error: 'ERR_INFERENCE', message: 'the model failed' }])
  const aborted = { rerank: async () => Promise.reject(new AbortError()) }
  const other = await start(t, { stack: { ...stack, reranker: aborted } })
  const r = await post(other.url, '/search/hybrid-rerank', { query: 'velmora clay' })
  t.deepEqual([r.status, r.body.error], [499, 'ABORT_ERR'])
  // A TypeError without ragrank's code is a bug of the server, not bad input.
  const buggy = {
    rerank: async () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'x')")),
  }
  const bug = await start(t, { stack: { ...stack, reranker: buggy } })
  const b = await post(bug.url, '/search/hybrid-rerank', { query: 'velmora clay' })
  t.deepEqual([b.status, b.body.error], [500, 'ERR_INTERNAL'])
  const none = await start(t, { stack: { ...stack, reranker: undefined } })
  const n = await post(none.url, '/search/hybrid-rerank', { query: 'velmora clay' })
  t.deepEqual([n.status, n.body.error], [404, 'ERR_NOT_CONFIGURED'])
})

for (const method of ['GET', 'POST']) {
  test(`a client that disconnects aborts the ragrank call of its request (${method})`, async (t) => {
    const reranker = waitingReranker()
    const { url } = await start(t, { stack: { ...stack, reranker } })
    const { port } = new URL(url)
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path: method === 'GET' ? '/search/hybrid-rerank?q=velmora+clay' : '/search/hybrid-rerank',
      headers: { 'content-type': 'application/json' },
    })
    req.on('error', () => {}) // the socket we destroy
    req.end(method === 'POST' ? JSON.stringify({ query: 'velmora clay' }) : undefined)
    await reranker.first
    t.false(reranker.signals[0].aborted, 'not aborted while the client waits')
    req.destroy()
    const aborted = new Promise((r) => reranker.signals[0].addEventListener('abort', r))
    await aborted
    t.true(reranker.signals[0].aborted)
  })
}

test('a request whose client stays gets a signal that never fires (also for a POST with a body)', async (t) => {
  const signals = []
  const recording = {
    rerank: async (_q, docs, { signal }) => {
      signals.push(signal)
      await new Promise((r) => setTimeout(r, 50))
      return docs.map((d, i) => ({ ...d, score: 1 - i / 100 }))
    },
  }
  const { url } = await start(t, { stack: { ...stack, reranker: recording } })
  t.is((await post(url, '/search/hybrid-rerank', { query: 'velmora clay' })).status, 200)
  t.is((await call(url, '/search/hybrid-rerank?q=velmora')).status, 200)
  t.is(signals.length, 2)
  for (const s of signals) t.false(s.aborted)
})

test('healthz answers at once; readyz and searches are 503 until the indexes are loaded', async (t) => {
  let resolve
  const loading = new Promise((r) => (resolve = r))
  const { url } = await start(t, { stack: loading })
  t.is((await call(url, '/healthz')).status, 200)
  const notReady = await call(url, '/readyz')
  t.deepEqual([notReady.status, notReady.body.ready], [503, false])
  const search = await post(url, '/search/bm25', { query: 'velmora' })
  t.deepEqual([search.status, search.body.error], [503, 'ERR_NOT_READY'])
  t.is((await call(url, '/metrics')).body.indexes, null)
  resolve(stack)
  await loading
  const ready = await call(url, '/readyz')
  t.is(ready.status, 200)
  t.deepEqual(ready.body, {
    ready: true,
    indexes: { bm25: stack.bm25.size, vectors: stack.vectors.size },
    models: { embedder: true, reranker: true },
  })
  t.is((await post(url, '/search/bm25', { query: 'velmora' })).status, 200)

  const failed = await start(t, { stack: Promise.reject(new Error('no such file')) })
  const r = await call(failed.url, '/readyz')
  t.deepEqual([r.status, r.body.error], [503, 'no such file'])
  const s = await post(failed.url, '/search/bm25', { query: 'velmora' })
  t.is(s.status, 503)
  t.regex(s.body.message, /no such file/)
})

test('metrics report event-loop delay, memory and index statistics; reset starts a new window', async (t) => {
  const { url } = await start(t, { stack })
  await new Promise((r) => setTimeout(r, 30))
  const m = (await call(url, '/metrics')).body
  for (const k of ['p50', 'p99', 'max', 'mean']) t.true(Number.isFinite(m.eventLoopDelayMs[k]), k)
  t.true(m.eventLoopDelayMs.p99 >= m.eventLoopDelayMs.p50)
  t.true(m.memory.rss > 0 && m.memory.rssMax >= m.memory.rss * 0.5 && m.memory.heapUsed > 0)
  t.is(m.indexes.bm25.documents, stack.bm25.size)
  t.true(m.indexes.bm25.memoryBytes > 0)
  t.deepEqual(m.indexes.vectors, { size: stack.vectors.size, dim: stack.vectors.dim, pending: 0 })
  t.deepEqual((await post(url, '/metrics/reset', {})).body, { reset: true })
  t.true((await call(url, '/metrics')).body.windowSeconds < m.windowSeconds)
})

test('metrics count the searches in flight, including a failed one, until their handlers finish', async (t) => {
  let release
  const held = new Promise((r) => (release = r))
  let started
  const running = new Promise((r) => (started = r))
  const holding = {
    rerank: async (_q, docs) => {
      started()
      await held
      return docs.map((d, i) => ({ ...d, score: 1 - i / 100 }))
    },
  }
  const { url } = await start(t, { stack: { ...stack, reranker: holding } })
  t.is((await call(url, '/metrics')).body.inFlight, 0)
  const reply = post(url, '/search/hybrid-rerank', { query: 'velmora clay' })
  await running
  t.is((await call(url, '/metrics')).body.inFlight, 1)
  t.is((await post(url, '/search/bm25', { topK: -1 })).status, 400)
  t.is((await call(url, '/metrics')).body.inFlight, 1, 'a failed search is no longer counted')
  release()
  t.is((await reply).status, 200)
  t.is((await call(url, '/metrics')).body.inFlight, 0)
})

test('buildServer rejects an unknown option', (t) => {
  t.throws(() => buildServer({ stack, candidate: 5 }), { instanceOf: TypeError, message: /candidate/ })
})
