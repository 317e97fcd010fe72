// Filters on the engines select exactly what the local indexes select: random filters over random typed metadata
// (values of several types in one field and in one array, missing fields, null, nested and dotted keys, decimals
// that float32 cannot hold, ISO dates and numeric strings), on Elasticsearch, OpenSearch and pgvector.
import test from 'ava'
import { VectorIndex } from '../../dist/esm/index.js'
import {
  deleteElasticsearchIndex,
  ElasticsearchRetriever,
  ingestElasticsearch,
} from '../../dist/esm/engines/elasticsearch.js'
import { deleteOpenSearchIndex, ingestOpenSearch, OpenSearchRetriever } from '../../dist/esm/engines/opensearch.js'
import { ingestPgvector, PgvectorRetriever } from '../../dist/esm/engines/pgvector.js'
import {
  declareReachability,
  esClient,
  osClient,
  pgPool,
  probeEs,
  probeError,
  probeOs,
  probePg,
  sorted,
  uniqueName,
} from './env.mjs'

const N = 400
const FILTER_COUNT = 300
const DIM = 4

/** A small deterministic PRNG (mulberry32), so a failure names a filter that fails again. */
function random(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const rand = random(20261206)
const pick = (xs) => xs[Math.floor(rand() * xs.length)]

// Values that collide across types ('3' and 3, 'true' and true), decimals float32 rounds (0.1, 16777217,
// 1.0000001), ISO dates (strings, never dates) and integers around 2^53.
const SCALARS = [
  3,
  '3',
  1975,
  '1975',
  true,
  false,
  'true',
  0.1,
  0.30000000000000004,
  16777217,
  16777216,
  1.0000001,
  1,
  -2.5,
  9007199254740991,
  '2024-01-05',
  '2024-01-05T10:00:00Z',
  '2023-12-31',
  'acme',
  'Acme',
  'é',
  '',
  null,
]

const scalar = () => pick(SCALARS)
const value = () => {
  const r = rand()
  if (r < 0.6) return scalar()
  if (r < 0.8) return Array.from({ length: Math.floor(rand() * 4) }, scalar)
  return { b: scalar(), c: { d: scalar() }, 'c.d': scalar() }
}

/** Top-level keys: plain, dotted (shadowing the nested path `a.b`), odd names an engine might refuse. */
const KEYS = ['year', 'code', 'flag', 'price', 'date', 'tags', 'a', 'a.b', 'nest', 'opt', 'x.y', ' ', '%', '_id', 'é']
const FIELDS = [...KEYS, 'a.b.d', 'nest.b', 'nest.c', 'nest.c.d', 'nest.c.d.e', 'a.c', 'missing']

const DOCS = Array.from({ length: N }, (_, i) => {
  const meta = {}
  for (const k of KEYS) if (rand() < 0.45) meta[k] = value()
  const vector = Array.from({ length: DIM }, () => rand() - 0.5)
  return { id: `d${i}`, text: `common word ${i}`, meta, vector }
})

function leaf() {
  const field = pick(FIELDS)
  const op = pick(['eq', 'eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists', 'plain'])
  const rangeValue = () => pick(SCALARS.filter((v) => typeof v === 'number' || typeof v === 'string'))
  if (op === 'plain') return { [field]: scalar() }
  if (op === 'exists') return { [field]: { $exists: rand() < 0.5 } }
  if (op === 'in' || op === 'nin')
    return { [field]: { [`$${op}`]: Array.from({ length: Math.floor(rand() * 4) }, scalar) } }
  if (op === 'eq' || op === 'ne') return { [field]: { [`$${op}`]: scalar() } }
  return { [field]: { [`$${op}`]: rangeValue() } }
}

function node(depth = 0) {
  const r = rand()
  if (depth >= 2 || r < 0.5) return leaf()
  if (r < 0.7) return { $and: [node(depth + 1), node(depth + 1)] }
  if (r < 0.9) return { $or: [node(depth + 1), node(depth + 1)] }
  return { $not: node(depth + 1) }
}

const FILTERS = [
  // The cases that coerced before: a string on a number, a number on a string, a string on a boolean.
  { meta: { year: '1975' } },
  { meta: { code: 3 } },
  { meta: { flag: 'true' } },
  { meta: { price: 0.1 } },
  { meta: { price: { $gt: 16777216 } } },
  { meta: { date: { $gte: '2024-01-01' } } },
  { meta: { opt: null } },
  { meta: { opt: { $exists: true } } },
  { meta: { 'a.b': { $exists: true } } },
  { meta: { 'nest.c.d': { $in: [3, '3'] } } },
  ...Array.from({ length: FILTER_COUNT }, () => ({ meta: node() })),
]

const local = new VectorIndex({ dim: DIM, metric: 'dot' })
local.add(DOCS.map(({ id, vector, meta }) => ({ id, vector, meta })))
const expected = (filter) => sorted(local.search(new Float32Array(DIM), { topK: N, filter }))

/** Runs every filter through `retrieve` and lists those whose hits differ from the local index's. */
async function disagreements(retrieve) {
  const out = []
  for (const filter of FILTERS) {
    const got = sorted(await retrieve(filter))
    const want = expected(filter)
    if (JSON.stringify(got) !== JSON.stringify(want))
      out.push(`${JSON.stringify(filter)}: ${got.length} hits, local ${want.length}`)
  }
  return out
}

// Probe all three before declaring anything (ava takes declarations only until the first await after one).
const [esDown, osDown, pgDown] = [await probeError(probeEs), await probeError(probeOs), await probeError(probePg)]

test('the generated filters select a spread of result sizes locally (the property test is not vacuous)', (t) => {
  const sizes = FILTERS.map((f) => expected(f).length)
  t.true(sizes.filter((s) => s === 0).length < FILTERS.length / 2, 'most filters select something')
  t.true(sizes.filter((s) => s > 0 && s < N).length > FILTERS.length / 3, 'many select a proper subset')
  t.is(expected({ meta: { year: '1975' } }).length > 0, true, "some documents hold the string '1975'")
})

for (const [name, down, Retriever, ingest, deleteIndex, client] of [
  ['Elasticsearch', esDown, ElasticsearchRetriever, ingestElasticsearch, deleteElasticsearchIndex, esClient],
  ['OpenSearch', osDown, OpenSearchRetriever, ingestOpenSearch, deleteOpenSearchIndex, osClient],
]) {
  if (!declareReachability(test, name, down)) continue
  const c = client()
  const index = uniqueName('ragrank_parity')
  test.after.always(() => deleteIndex({ client: c, index }))

  test.serial(
    `${name}: random filters over random typed metadata select exactly what the local index selects`,
    async (t) => {
      const report = await ingest({ client: c, index, documents: DOCS, batchSize: 100 })
      t.is(report.rejected, 0, JSON.stringify(report.rejectedDocuments.slice(0, 3)))
      t.is(report.indexed, N)
      const r = new Retriever({ client: c, index })
      t.deepEqual(await disagreements((filter) => r.retrieve('common', { topK: N, filter })), [])
      // Nothing is left to dynamic mapping: a number is a double (not a 32-bit float), an ISO date a keyword.
      const res = await c.indices.getMapping({ index })
      const mapping = Object.values(res.body ?? res)[0].mappings
      const typed = mapping.properties.meta_filter.properties
      t.is(typed.n.properties.price.type, 'double')
      t.is(typed.s.properties.date.type, 'keyword')
      t.is(mapping.properties.meta.enabled, false)
    },
  )
}

if (declareReachability(test, 'PostgreSQL + pgvector', pgDown)) {
  const pool = pgPool()
  const table = uniqueName('ragrank_parity')
  test.after.always(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`)
    await pool.end()
  })
  test.serial(
    'pgvector: random filters over random typed metadata select exactly what the local index selects',
    async (t) => {
      const report = await ingestPgvector({ pool, table, documents: DOCS, batchSize: 100 })
      t.is(report.indexed, N)
      const r = new PgvectorRetriever({ pool, table, embed: async () => new Float32Array(DIM).fill(0.5) })
      t.deepEqual(await disagreements((filter) => r.retrieve('common', { topK: N, filter })), [])
    },
  )
}
