// Engines without surprises: bounded time against a server that never answers or a port nobody listens on, a dead
// engine that costs milliseconds after the first failure, the analysis recorded at ingestion and checked by every
// retriever, the wrong engine named, a missing node index reported.
import net from 'node:net'
import test from 'ava'
import { Bm25Index, HybridRetriever } from '../../dist/esm/index.js'
import {
  deleteElasticsearchIndex,
  ElasticsearchNodeStore,
  ElasticsearchRetriever,
  ingestElasticsearch,
} from '../../dist/esm/engines/elasticsearch.js'
import { OpenSearchRetriever } from '../../dist/esm/engines/opensearch.js'
import { PgvectorRetriever } from '../../dist/esm/engines/pgvector.js'
import {
  CORPUS,
  DIM,
  declareReachability,
  embedText,
  esClient,
  OS_URL,
  probeEs,
  probeError,
  probeOs,
  uniqueName,
} from './env.mjs'

// Probe before declaring anything (ava takes declarations only until the first await after one).
const [esDown, osDown] = [await probeError(probeEs), await probeError(probeOs)]

/** A TCP server that accepts connections and never answers. */
async function hangingServer(t) {
  const sockets = new Set()
  const server = net.createServer((s) => {
    sockets.add(s)
    s.on('error', () => {})
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    server.close()
  })
  return `127.0.0.1:${server.address().port}`
}

/** A port nobody listens on (bound, then closed). */
async function deadPort() {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** How long `fn` takes to reject, and with what. */
async function rejection(t, fn) {
  const t0 = performance.now()
  const error = await t.throwsAsync(fn)
  return { error, ms: performance.now() - t0 }
}

test('a server that never answers: retrieve fails with ERR_ENGINE_UNREACHABLE after timeoutMs (Elasticsearch, OpenSearch, pgvector)', async (t) => {
  const host = await hangingServer(t)
  for (const [name, make] of [
    ['Elasticsearch', () => new ElasticsearchRetriever({ node: `http://${host}`, index: 'docs', timeoutMs: 300 })],
    ['OpenSearch', () => new OpenSearchRetriever({ node: `http://${host}`, index: 'docs', timeoutMs: 300 })],
    [
      'pgvector',
      () =>
        new PgvectorRetriever({
          connectionString: `postgres://ragrank@${host}/ragrank`,
          timeoutMs: 300,
          embed: async () => [1, 0],
        }),
    ],
  ]) {
    const r = make()
    const { error, ms } = await rejection(t, () => r.retrieve('x'))
    t.is(error.code, 'ERR_ENGINE_UNREACHABLE', `${name}: ${error.message}`)
    t.true(ms >= 250 && ms < 3000, `${name} failed after ${Math.round(ms)} ms`)
    t.log(`${name}: ${Math.round(ms)} ms`)
    await r.close()
  }
})

test('a server that never answers, default settings: a retrieve gives up after 30 s, not minutes', async (t) => {
  t.timeout(60_000)
  const host = await hangingServer(t)
  const r = new ElasticsearchRetriever({ node: `http://${host}`, index: 'docs' })
  const { error, ms } = await rejection(t, () => r.retrieve('x'))
  t.is(error.code, 'ERR_ENGINE_UNREACHABLE')
  t.regex(error.message, /within 30000 ms/)
  t.true(ms >= 29_000 && ms < 40_000, `${Math.round(ms)} ms`)
  t.log(`default timeout: ${Math.round(ms)} ms`)
})

test('ingestion into a server that never answers, or a port nobody listens on, fails within its retry budget', async (t) => {
  t.timeout(90_000)
  const documents = CORPUS.slice(0, 3)
  const hanging = await hangingServer(t)
  const a = await rejection(t, () =>
    ingestElasticsearch({ node: `http://${hanging}`, index: 'docs', documents, timeoutMs: 300, retryBudgetMs: 1000 }),
  )
  t.is(a.error.code, 'ERR_ENGINE_UNREACHABLE', a.error.message)
  t.true(a.ms < 3000, `hanging: ${Math.round(a.ms)} ms`)
  // The defaults: a wrong port fails within the 30 s budget (it took 91 s before it had one).
  const port = await deadPort()
  const b = await rejection(t, () =>
    ingestElasticsearch({ node: `http://127.0.0.1:${port}`, index: 'docs', documents }),
  )
  t.is(b.error.code, 'ERR_ENGINE_UNREACHABLE', b.error.message)
  t.true(b.ms < 35_000, `wrong port: ${Math.round(b.ms)} ms`)
  t.log(
    `hanging ${Math.round(a.ms)} ms (timeoutMs 300, retryBudgetMs 1000); wrong port ${Math.round(b.ms)} ms (defaults)`,
  )
})

test("a dead engine in a HybridRetriever with onError 'skip' costs milliseconds a query after the first failure", async (t) => {
  const host = await hangingServer(t)
  const local = new Bm25Index()
  local.add(CORPUS)
  const engine = new ElasticsearchRetriever({ node: `http://${host}`, index: 'docs', timeoutMs: 400 })
  const hybrid = new HybridRetriever({ retrievers: [local, engine], onError: 'skip' })
  const times = []
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now()
    const hits = await hybrid.retrieve('river castle', { topK: 5 })
    times.push(performance.now() - t0)
    t.is(hits.length, 5, 'the local side still answers')
  }
  t.true(times[0] >= 350, `the first query waits for the timeout (${Math.round(times[0])} ms)`)
  const rest = times.slice(1).sort((x, y) => x - y)
  t.true(rest[Math.floor(rest.length / 2)] < 50, `then the breaker answers at once: ${rest.map(Math.round)}`)
  t.log(`first ${Math.round(times[0])} ms, then median ${rest[Math.floor(rest.length / 2)].toFixed(1)} ms`)
  await engine.close()
})

if (declareReachability(test, 'Elasticsearch', esDown)) {
  const client = esClient()
  const index = uniqueName('ragrank_analysis')
  test.after.always(() => deleteElasticsearchIndex({ client, index }))

  test.serial(
    'the analysis is recorded at ingestion; a retriever or an ingestion with another one is ERR_ENGINE_MAPPING naming both',
    async (t) => {
      const stemmed = { stemmer: 'english' }
      await ingestElasticsearch({ client, index, documents: CORPUS, analysis: stemmed })
      const same = new ElasticsearchRetriever({ client, index, analysis: { stemmer: 'english' } })
      t.true((await same.retrieve('rivers', { topK: 3 })).length > 0, 'the same analysis finds the stemmed tokens')
      const other = new ElasticsearchRetriever({ client, index, analysis: { stopwords: 'en' } })
      const e = await t.throwsAsync(other.retrieve('rivers'), { code: 'ERR_ENGINE_MAPPING' })
      t.regex(e.message, /"stemmer":"english"/)
      t.regex(e.message, /"stopwords":"en"/)
      const again = await t.throwsAsync(
        ingestElasticsearch({ client, index, documents: CORPUS.slice(0, 2), analysis: { stopwords: 'en' } }),
        { code: 'ERR_ENGINE_MAPPING' },
      )
      t.regex(again.message, /was ingested with analysis/)
      // Without analysis the retriever searches the text field with the engine's analyzer: nothing to disagree with.
      t.true((await new ElasticsearchRetriever({ client, index }).retrieve('river', { topK: 3 })).length > 0)
    },
  )

  test.serial(
    'the embedding model is recorded at ingestion; an Embedder of another model is ERR_ENGINE_MAPPING',
    async (t) => {
      // Two "models": the test embedding, and the same with its dimensions rolled and every other sign flipped.
      const model = (other) => {
        const vec = (text) => {
          const v = embedText(text)
          return other ? v.map((_, i) => v[(i + 7) % DIM] * (i % 2 ? -1 : 1)) : v
        }
        return {
          embedQuery: async (q) => vec(q),
          embedDocuments: async (texts) => {
            const data = new Float32Array(texts.length * DIM)
            texts.forEach((text, i) => data.set(vec(text), i * DIM))
            return { data, dim: DIM }
          },
        }
      }
      const vectors = `${index}_vectors`
      t.teardown(() => deleteElasticsearchIndex({ client, index: vectors }))
      const documents = CORPUS.map(({ id, text, meta }) => ({ id, text, meta }))
      await ingestElasticsearch({ client, index: vectors, documents, embedder: model(false) })
      const same = new ElasticsearchRetriever({ client, index: vectors, mode: 'knn', embed: model(false) })
      t.is((await same.retrieve('river castle', { topK: 3 })).length, 3)
      const other = new ElasticsearchRetriever({ client, index: vectors, mode: 'knn', embed: model(true) })
      const e = await t.throwsAsync(other.retrieve('river castle'), { code: 'ERR_ENGINE_MAPPING' })
      t.regex(e.message, /another model.*cosine/)
      // BM25 needs no embedder, and a bare function has no document side to compare: neither is checked.
      t.true((await new ElasticsearchRetriever({ client, index: vectors }).retrieve('river', { topK: 3 })).length > 0)
      const fn = new ElasticsearchRetriever({ client, index: vectors, mode: 'knn', embed: async (q) => embedText(q) })
      t.is((await fn.retrieve('river castle', { topK: 3 })).length, 3)
      await t.throwsAsync(
        ingestElasticsearch({ client, index: vectors, documents: documents.slice(0, 2), embedder: model(true) }),
        { code: 'ERR_ENGINE_MAPPING', message: /another model/ },
      )
    },
  )

  test('a node store over a missing index is ERR_ENGINE_INDEX_NOT_FOUND, not an empty answer', async (t) => {
    const store = new ElasticsearchNodeStore({ client, index: uniqueName('ragrank_missing') })
    await t.throwsAsync(store.get(['a']), { code: 'ERR_ENGINE_INDEX_NOT_FOUND' })
  })
}

if (declareReachability(test, 'OpenSearch', osDown)) {
  test('the Elasticsearch adapter pointed at OpenSearch names the wrong engine', async (t) => {
    const r = new ElasticsearchRetriever({ node: OS_URL, index: 'docs' })
    const e = await t.throwsAsync(r.retrieve('x'))
    t.is(e.code, 'ERR_ENGINE', e.message)
    t.regex(e.message, /not Elasticsearch.*ragrank\/opensearch/)
    await r.close()
  })
}
