// The engine adapters' pure parts, no server needed: filter translation and the ingestion loop.
import test from 'ava'
import { filterClauses, parsedFilter } from '../../dist/esm/engines/filter-dsl.js'
import { indexName } from '../../dist/esm/engines/search-engine.js'
import { pathField, typedMeta } from '../../dist/esm/engines/typed-meta.js'
import { filterSql } from '../../dist/esm/engines/filter-sql.js'
import { ingestInto } from '../../dist/esm/engines/ingest.js'
import { RagrankError } from '../../dist/esm/index.js'

const mappedClauses = (filter, engine, meta) => filterClauses(parsedFilter(filter), engine, meta, 'mapped')
const typedClauses = (filter) => filterClauses(parsedFilter(filter), 'E', 'meta', 'typed')

test('filters over an index ragrank did not make become bool / term / terms / range / exists / ids clauses', (t) => {
  t.deepEqual(mappedClauses(undefined, 'E', 'meta'), [])
  t.deepEqual(mappedClauses({ ids: ['a'], meta: { lang: 'en', year: { $gte: 2020, $lt: 2025 } } }, 'E', 'meta'), [
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
  t.deepEqual(mappedClauses({ meta: { $or: [{ a: [1, 2] }, { $not: { b: { $exists: true } } }] } }, 'E', 'm'), [
    {
      bool: {
        should: [{ terms: { 'm.a': [1, 2] } }, { bool: { must_not: [{ exists: { field: 'm.b' } }] } }],
        minimum_should_match: 1,
      },
    },
  ])
  t.deepEqual(mappedClauses({ meta: {} }, 'E', 'meta'), [{ match_all: {} }])
})

test('typed filters compare a value only with values of its type; null and $exists read their own fields', (t) => {
  t.deepEqual(typedClauses({ meta: { year: '1975' } }), [{ terms: { 'meta_filter.s.year': ['1975'] } }])
  t.deepEqual(typedClauses({ meta: { year: 1975 } }), [{ terms: { 'meta_filter.n.year': [1975] } }])
  t.deepEqual(typedClauses({ meta: { 'a.b': { $gte: 'x' } } }), [{ range: { 'meta_filter.s.a%2Eb': { gte: 'x' } } }])
  t.deepEqual(typedClauses({ meta: { f: { $in: [true, 'true', 1, null] } } }), [
    {
      bool: {
        should: [
          { term: { 'meta_filter.null': 'f' } },
          { terms: { 'meta_filter.s.f': ['true'] } },
          { terms: { 'meta_filter.n.f': [1] } },
          { terms: { 'meta_filter.b.f': [true] } },
        ],
        minimum_should_match: 1,
      },
    },
  ])
  t.deepEqual(typedClauses({ meta: { f: { $in: [] } } }), [{ match_none: {} }])
  t.deepEqual(typedClauses({ meta: { f: { $exists: false } } }), [
    { bool: { must_not: [{ term: { 'meta_filter.present': 'f' } }] } },
  ])
})

test('the typed copy holds every path the local filter resolves, each value under its type', (t) => {
  const copy = typedMeta({
    a: { b: 1, 'c.d': 2, c: { d: 'x' } },
    'a.b': 'top',
    tags: [1, '1', true, null, [2], {}],
    z: null,
  })
  t.deepEqual(copy.present.sort(), ['a', 'a.b', 'a.c', 'a.c.d', 'tags', 'z'])
  // The top-level key "a.b" shadows the nested a.b (as locally); a nested key holding a dot is unreachable.
  t.deepEqual(copy.s, { 'a%2Eb': ['top'], 'a%2Ec%2Ed': ['x'], tags: ['1'] })
  t.deepEqual(copy.n, { tags: [1] })
  t.deepEqual(copy.b, { tags: [true] })
  t.deepEqual(copy.null.sort(), ['tags', 'z'])
  t.deepEqual(typedMeta(undefined), { present: [] })
  // Field names: injective, never empty, never only whitespace, never a dot.
  const names = ['', ' ', '%', '%2E', '.', 'a.b', 'a%2Eb', '\t', 'é'].map(pathField)
  t.is(new Set(names).size, names.length)
  t.true(names.every((n) => n.trim() !== '' && !n.includes('.')))
})

test('a filter an engine cannot express, or a malformed one, throws naming it', (t) => {
  for (const meta of [{ a: null }, { a: { $ne: null } }, { a: { $in: ['x', null] } }]) {
    const e = t.throws(() => mappedClauses({ meta }, 'Elasticsearch', 'meta'), { instanceOf: TypeError })
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
    t.throws(() => parsedFilter({ meta }), { instanceOf: RangeError })
  }
  let deep = { a: 1 }
  for (let i = 0; i < 40; i++) deep = { $not: deep }
  t.throws(() => parsedFilter({ meta: deep }), { message: /deeper than 32/ })
  t.throws(() => parsedFilter({ tenant: 'a' }), { instanceOf: TypeError })
})

test('index names are checked as the engines check them, before any request', (t) => {
  for (const name of ['Docs', 'a b', 'a,b', 'a*', 'a:b', 'a#b', '-a', '_a', '+a', '.', '..', 'x'.repeat(256), '', 7]) {
    t.throws(() => indexName(name), { instanceOf: TypeError }, JSON.stringify(name))
  }
  for (const name of ['docs', 'docs-2026.12', 'a_b', 'é'.repeat(127)]) t.is(indexName(name), name)
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
