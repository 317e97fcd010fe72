// The engine adapters' pure parts, no server needed: filter translation and the ingestion loop.
import test from 'ava'
import { filterClauses } from '../../dist/esm/engines/filter-dsl.js'
import { filterSql } from '../../dist/esm/engines/filter-sql.js'
import { ingestInto } from '../../dist/esm/engines/ingest.js'
import { RagrankError } from '../../dist/esm/index.js'

test('filters become bool / term / terms / range / exists / ids clauses', (t) => {
  t.deepEqual(filterClauses(undefined, 'E', 'meta'), [])
  t.deepEqual(filterClauses({ ids: ['a'], meta: { lang: 'en', year: { $gte: 2020, $lt: 2025 } } }, 'E', 'meta'), [
    { ids: { values: ['a'] } },
    {
      bool: {
        filter: [
          { term: { 'meta.lang': 'en' } },
          { bool: { filter: [{ range: { 'meta.year': { gte: 2020 } } }, { range: { 'meta.year': { lt: 2025 } } }] } },
        ],
      },
    },
  ])
  t.deepEqual(filterClauses({ meta: { $or: [{ a: [1, 2] }, { $not: { b: { $exists: true } } }] } }, 'E', 'm'), [
    {
      bool: {
        should: [{ terms: { 'm.a': [1, 2] } }, { bool: { must_not: [{ exists: { field: 'm.b' } }] } }],
        minimum_should_match: 1,
      },
    },
  ])
  t.deepEqual(filterClauses({ meta: {} }, 'E', 'meta'), [{ match_all: {} }])
})

test('a filter an engine cannot express, or a malformed one, throws naming it', (t) => {
  for (const meta of [{ a: null }, { a: { $ne: null } }, { a: { $in: ['x', null] } }]) {
    const e = t.throws(() => filterClauses({ meta }, 'Elasticsearch', 'meta'), { instanceOf: TypeError })
    t.is(e.code, 'ERR_INVALID_ARG')
    t.regex(e.message, /Elasticsearch cannot express/)
  }
  for (const [meta, re] of [
    [{ a: { $regex: 'x' } }, /\$regex/],
    [{ $nor: [] }, /\$nor/],
    [{ a: { $gt: true } }, /\$gt must be a number or a string/],
    [{ a: { $in: 'x' } }, /\$in must be an array/],
    [{ a: { $exists: 1 } }, /\$exists must be a boolean/],
    [{ $or: [] }, /non-empty/],
    [{ a: { $eq: 1, b: 2 } }, /mixes/],
  ]) {
    const e = t.throws(() => filterSql({ meta }, { id: 'id', meta: 'meta' }), { instanceOf: RangeError })
    t.regex(e.message, re)
  }
  let deep = { a: 1 }
  for (let i = 0; i < 40; i++) deep = { $not: deep }
  t.throws(() => filterClauses({ meta: deep }, 'E', 'meta'), { message: /deeper than 32/ })
  t.throws(() => filterClauses({ tenant: 'a' }, 'E', 'meta'), { instanceOf: TypeError })
})

test('SQL filters carry every value as a parameter, never in the SQL text', (t) => {
  const evil = "x'); DROP TABLE documents; --"
  const { sql, params } = filterSql(
    { ids: [evil], meta: { [evil]: evil, 'a.b': { $gt: evil }, n: { $in: [1, evil] } } },
    { id: '"id"', meta: '"meta"' },
    3,
  )
  t.false(sql.includes('DROP'))
  t.true(params.some((p) => typeof p === 'string' && p.includes('DROP')))
  t.regex(sql, /^"id" = ANY\(\$3::text\[\]\)/)
  // Placeholders are numbered from the first one given and match the parameter count.
  const numbers = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
  t.is(Math.min(...numbers), 3)
  t.is(Math.max(...numbers), 2 + params.length)
  t.deepEqual(filterSql(undefined, { id: 'id', meta: 'meta' }), { sql: 'TRUE', params: [] })
})

/** A sink that records what it was sent, refuses or fails as told, and counts requests in flight. */
function fakeSink({
  failRequests = 0,
  refuse = () => undefined,
  failWith = 'ERR_ENGINE_OVERLOADED',
  delayMs = 5,
} = {}) {
  const sink = {
    engine: 'Fake',
    written: new Map(),
    requests: 0,
    inFlight: 0,
    maxInFlight: 0,
    prepared: 0,
    finished: 0,
    async prepare() {
      sink.prepared++
    },
    async write(records) {
      const n = ++sink.requests
      sink.inFlight++
      sink.maxInFlight = Math.max(sink.maxInFlight, sink.inFlight)
      try {
        await new Promise((r) => setTimeout(r, delayMs))
        if (n <= failRequests) throw new RagrankError(failWith, 'injected')
        const refused = []
        for (const r of records) {
          const why = refuse(r, sink)
          if (why) refused.push({ id: r.id, ...why })
          else sink.written.set(r.id, (sink.written.get(r.id) ?? 0) + 1)
        }
        return refused
      } finally {
        sink.inFlight--
      }
    },
    async finish() {
      sink.finished++
    },
  }
  return sink
}

const docs = (n) => Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `text ${i}` }))

test('ingestion: bounded concurrency, input read lazily (backpressure), retries with backoff, progress', async (t) => {
  const sink = fakeSink({ failRequests: 3 })
  let read = 0
  async function* input() {
    for (const d of docs(100)) {
      read++
      // Never more than (concurrency + 1) batches read ahead of what was written.
      if (read - sink.written.size > 3 * 10 + 10) throw new Error(`read ${read}, written ${sink.written.size}`)
      yield d
    }
  }
  const progress = []
  const report = await ingestInto(sink, {
    documents: input(),
    batchSize: 10,
    concurrency: 2,
    minDelayMs: 1,
    maxDelayMs: 4,
    onProgress: (p) => progress.push(p),
  })
  t.is(report.indexed, 100)
  t.is(report.retries, 3)
  t.is(sink.written.size, 100)
  t.true([...sink.written.values()].every((n) => n === 1))
  t.true(sink.maxInFlight <= 2)
  t.is(sink.prepared, 1)
  t.is(sink.finished, 1)
  t.is(progress.at(-1).indexed, 100)
})

test('ingestion: documents refused with 429 are retried alone; permanent refusals are reported', async (t) => {
  const tries = new Map()
  const sink = fakeSink({
    refuse: (r) => {
      const n = (tries.get(r.id) ?? 0) + 1
      tries.set(r.id, n)
      if (r.id === 'd3') return { status: 400, reason: 'mapper_parsing_exception', retryable: false }
      if (r.id === 'd5' && n < 3) return { status: 429, reason: 'es_rejected_execution_exception', retryable: true }
      return undefined
    },
  })
  const report = await ingestInto(sink, { documents: docs(10), minDelayMs: 1 })
  t.is(report.indexed, 9)
  t.is(report.rejected, 1)
  t.deepEqual(report.rejectedDocuments, [
    { id: 'd3', status: 400, reason: 'mapper_parsing_exception', retryable: false },
  ])
  t.is(tries.get('d5'), 3)
  t.is(tries.get('d1'), 1, 'accepted documents are not sent again')
})

test('ingestion: when retries run out it throws the code with the partial report; a re-run completes', async (t) => {
  const sink = fakeSink({ failRequests: 1000 })
  const e = await t.throwsAsync(ingestInto(sink, { documents: docs(30), batchSize: 10, retries: 2, minDelayMs: 1 }))
  t.is(e.code, 'ERR_ENGINE_OVERLOADED')
  t.is(e.report.indexed, 0)
  t.is(e.report.retries >= 2, true)
  const ok = fakeSink()
  t.is((await ingestInto(ok, { documents: docs(30), batchSize: 10 })).indexed, 30)
  // A failure no retry cures is thrown at once.
  const fatal = fakeSink({ failRequests: 1, failWith: 'ERR_ENGINE_MAPPING' })
  const f = await t.throwsAsync(ingestInto(fatal, { documents: docs(5), minDelayMs: 1 }))
  t.is(f.code, 'ERR_ENGINE_MAPPING')
  t.is(fatal.requests, 1)
})

test('ingestion: bad input is a TypeError / RangeError before any request', async (t) => {
  const sink = fakeSink()
  await t.throwsAsync(ingestInto(sink, { documents: 'abc' }), { instanceOf: TypeError })
  await t.throwsAsync(ingestInto(sink, { documents: [{ id: 1, text: 'x' }] }), { instanceOf: TypeError })
  await t.throwsAsync(ingestInto(sink, { documents: [{ id: 'a', text: 'x', extra: 1 }] }), { instanceOf: TypeError })
  await t.throwsAsync(ingestInto(sink, { documents: [], batchSize: 0 }), { instanceOf: RangeError })
  await t.throwsAsync(ingestInto(sink, { documents: [], embedder: 5 }), { instanceOf: TypeError })
  await t.throwsAsync(ingestInto(sink, { documents: [{ id: 'a', text: 'x', vector: [1, Number.NaN] }] }), {
    instanceOf: RangeError,
  })
  t.is(sink.requests, 0)
  const ac = new AbortController()
  ac.abort()
  t.is((await t.throwsAsync(ingestInto(sink, { documents: docs(3), signal: ac.signal }))).code, 'ABORT_ERR')
})

test('the clients are loaded only by the adapter entry points, and only when given a URL', async (t) => {
  const { execFileSync } = await import('node:child_process')
  const loaded = (code) =>
    execFileSync(
      'node',
      [
        '-e',
        `${code}; console.log(Object.keys(require.cache).filter((f) => /node_modules\\/(@elastic|@opensearch-project|pg)\\//.test(f)).length)`,
      ],
      {
        cwd: new URL('../..', import.meta.url),
        encoding: 'utf8',
      },
    ).trim()
  t.is(loaded("require('ragrank')"), '0')
  t.is(
    loaded(
      "const { ElasticsearchRetriever } = require('ragrank/elasticsearch'); new ElasticsearchRetriever({ client: { transport: { request() {} } }, index: 'i' })",
    ),
    '0',
  )
  t.is(loaded("require('ragrank/pgvector'); require('ragrank/opensearch')"), '0')
  t.not(
    loaded(
      "const { ElasticsearchRetriever } = require('ragrank/elasticsearch'); new ElasticsearchRetriever({ node: 'http://127.0.0.1:9', index: 'i' })",
    ),
    '0',
  )
})
