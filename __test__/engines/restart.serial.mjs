// Real restarts of the engines in the middle of a bulk ingestion: `scripts/engines.sh restart` stops the
// server and starts it again while documents are being indexed. It disturbs every other engine test, so it is
// not a *.spec.mjs: CI runs it alone after the other suites (`npm run test:engines-restart`).
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import test from 'ava'
import { deleteElasticsearchIndex, ingestElasticsearch } from '../../dist/esm/engines/elasticsearch.js'
import { ingestPgvector } from '../../dist/esm/engines/pgvector.js'
import { declareReachability, embedText, esClient, pgPool, probeError, probeEs, probePg, uniqueName } from './env.mjs'

const run = promisify(execFile)
const restart = (engine) =>
  run('bash', ['scripts/engines.sh', 'restart', engine], { cwd: new URL('../..', import.meta.url) })
const N = 3000
const docs = Array.from({ length: N }, (_, i) => ({
  id: `r-${i}`,
  text: `restarted engine document ${i}`,
  vector: Array.from(embedText(`restarted engine document ${i}`)),
}))
const retry = { minDelayMs: 250, maxDelayMs: 5000, retries: 60 }

const [esError, pgError] = await Promise.all([probeError(probeEs), probeError(probePg)])
const esUp = declareReachability(test, 'Elasticsearch', esError)
const pgUp = declareReachability(test, 'PostgreSQL + pgvector', pgError)

if (esUp) {
  test.serial(
    'Elasticsearch restarted mid-bulk: the ingestion waits, retries and completes, nothing twice',
    async (t) => {
      t.timeout(240_000)
      const client = esClient()
      const index = uniqueName('ragrank_restart')
      let restarting
      try {
        const report = await ingestElasticsearch({
          node: process.env.RAGRANK_ES_URL ?? 'http://127.0.0.1:19200',
          index,
          documents: docs,
          batchSize: 50,
          ...retry,
          onProgress: (p) => {
            if (!restarting && p.indexed >= 300) restarting = restart('es')
          },
        })
        await restarting
        t.truthy(restarting)
        t.is(report.indexed, N)
        t.true(report.retries > 0, 'the restart was felt')
        await client.indices.refresh({ index })
        t.is((await client.count({ index })).count, N)
      } finally {
        await deleteElasticsearchIndex({ client, index }).catch(() => {})
        await client.close()
      }
    },
  )
}

if (pgUp) {
  test.serial('PostgreSQL restarted mid-bulk: the ingestion waits, retries and completes, nothing twice', async (t) => {
    t.timeout(120_000)
    const pool = pgPool()
    pool.on('error', () => {})
    const table = uniqueName('ragrank_restart')
    let restarting
    try {
      const report = await ingestPgvector({
        pool,
        table,
        documents: docs,
        batchSize: 50,
        ...retry,
        onProgress: (p) => {
          if (!restarting && p.indexed >= 300) restarting = restart('pg')
        },
      })
      await restarting
      t.is(report.indexed, N)
      t.true(report.retries > 0)
      const { rows } = await pool.query(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM ${table}`)
      t.deepEqual(rows[0], { n: N, d: N })
    } finally {
      await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
      await pool.end()
    }
  })
}
