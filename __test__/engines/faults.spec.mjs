// Faults against real engines through fault-injecting proxies: a 429 storm during ingestion, and the engine
// "restarting" (every connection dropped, new ones refused for a while) in the middle of a bulk. The real
// restart of the servers is in engines-restart.spec.mjs, which CI runs alone.
import test from 'ava'
import { Client } from '@elastic/elasticsearch'
import pg from 'pg'
import { deleteElasticsearchIndex, ingestElasticsearch } from '../../dist/esm/engines/elasticsearch.js'
import { ingestPgvector } from '../../dist/esm/engines/pgvector.js'
import {
  embedText,
  declareReachability,
  probeError,
  ES_URL,
  esClient,
  PG_URL,
  pgPool,
  probeEs,
  probePg,
  uniqueName,
} from './env.mjs'
import { overloadProxy, tcpProxy } from './proxy.mjs'

const N = 600
const docs = Array.from({ length: N }, (_, i) => ({ id: `f-${i}`, text: `fault tolerant document ${i}`, meta: { i } }))
const withVectors = docs.map((d) => ({ ...d, vector: Array.from(embedText(d.text)) }))
const count = async (client, index) => (await client.count({ index })).count

// Both probes before any test is declared (ava takes declarations only until the first await after one).
const [esError, pgError] = await Promise.all([probeError(probeEs), probeError(probePg)])
const esUp = declareReachability(test, 'Elasticsearch', esError)
const pgUp = declareReachability(test, 'PostgreSQL + pgvector', pgError)

if (esUp) {
  const direct = esClient()
  const indexes = []
  const fresh = () => {
    const i = uniqueName('ragrank_faults')
    indexes.push(i)
    return i
  }
  test.after.always(async () => {
    for (const index of indexes) await deleteElasticsearchIndex({ client: direct, index })
  })

  test('Elasticsearch: a 429 storm (whole requests and single documents) slows ingestion but indexes everything once', async (t) => {
    const index = fresh()
    // Two bulk requests of three get a 429; of the rest, one document in seven comes back 429 on odd requests.
    const proxy = await overloadProxy(ES_URL, {
      rejectRequest: (n) => n > 1 && n % 3 !== 0,
      rejectItem: (id, n) => n % 2 === 1 && Number(id.slice(2)) % 7 === 0,
    })
    try {
      const report = await ingestElasticsearch({
        node: proxy.url,
        index,
        documents: docs,
        batchSize: 50,
        minDelayMs: 5,
        maxDelayMs: 50,
        retries: 30,
      })
      t.is(report.indexed, N)
      t.is(report.rejected, 0)
      t.true(report.retries > 0)
      t.true(proxy.stats.requests429 > 0 && proxy.stats.items429 > 0)
      t.is(await count(direct, index), N, 'nothing indexed twice, nothing lost')
    } finally {
      await proxy.close()
    }
  })

  test('Elasticsearch: retries exhausted in a storm throw ERR_ENGINE_OVERLOADED with the report; a re-run completes', async (t) => {
    const index = fresh()
    const proxy = await overloadProxy(ES_URL, { rejectRequest: (n) => n > 2 })
    try {
      const e = await t.throwsAsync(
        ingestElasticsearch({ node: proxy.url, index, documents: docs, batchSize: 100, retries: 2, minDelayMs: 5 }),
      )
      t.is(e.code, 'ERR_ENGINE_OVERLOADED')
      t.true(e.report.indexed < N)
      t.regex(e.message, /429/)
    } finally {
      await proxy.close()
    }
    const again = await ingestElasticsearch({ client: direct, index, documents: docs, batchSize: 100 })
    t.is(again.indexed, N)
    t.is(await count(direct, index), N)
  })

  test('Elasticsearch: connections dropped and refused mid-bulk (a restart): retried, completed, nothing twice', async (t) => {
    const index = fresh()
    const proxy = await tcpProxy('127.0.0.1', Number(new URL(ES_URL).port))
    let restarting
    const client = new Client({ node: `http://127.0.0.1:${proxy.port}`, maxRetries: 0 })
    try {
      const report = await ingestElasticsearch({
        client,
        index,
        documents: withVectors,
        batchSize: 25,
        concurrency: 2,
        minDelayMs: 100,
        maxDelayMs: 800,
        retries: 20,
        onProgress: (p) => {
          if (!restarting && p.indexed >= 100) restarting = proxy.restart(1500)
        },
      })
      await restarting
      t.truthy(restarting, 'the restart happened during the ingestion')
      t.is(report.indexed, N)
      t.true(report.retries > 0)
      t.is(await count(direct, index), N)
    } finally {
      await client.close()
      await proxy.close()
    }
  })

  test('Elasticsearch: unreachable during ingestion is ERR_ENGINE_UNREACHABLE after the retries', async (t) => {
    const e = await t.throwsAsync(
      ingestElasticsearch({
        node: 'http://127.0.0.1:9',
        index: fresh(),
        documents: docs.slice(0, 5),
        retries: 1,
        minDelayMs: 1,
      }),
    )
    t.is(e.code, 'ERR_ENGINE_UNREACHABLE')
    t.is(e.report.indexed, 0)
  })
}

if (pgUp) {
  const table = uniqueName('ragrank_faults')
  const direct = pgPool()
  test.after.always(async () => {
    await direct.query(`DROP TABLE IF EXISTS ${table}`)
    await direct.end()
  })

  test('pgvector: connections dropped and refused mid-bulk (a restart): retried, completed, nothing twice', async (t) => {
    const proxy = await tcpProxy('127.0.0.1', Number(new URL(PG_URL).port))
    const url = new URL(PG_URL)
    url.port = String(proxy.port)
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 })
    pool.on('error', () => {}) // idle clients dropped by the restart
    let restarting
    try {
      const report = await ingestPgvector({
        pool,
        table,
        documents: withVectors,
        batchSize: 25,
        minDelayMs: 100,
        maxDelayMs: 800,
        retries: 20,
        onProgress: (p) => {
          if (!restarting && p.indexed >= 100) restarting = proxy.restart(1500)
        },
      })
      await restarting
      t.truthy(restarting)
      t.is(report.indexed, N)
      t.true(report.retries > 0)
      const { rows } = await direct.query(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM ${table}`)
      t.deepEqual(rows[0], { n: N, d: N })
    } finally {
      await pool.end().catch(() => {})
      await proxy.close()
    }
  })
}
