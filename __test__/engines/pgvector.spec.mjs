import test from 'ava'
import {
  AutoMergingRetriever,
  Bm25Index,
  HierarchicalSplitter,
  HybridRetriever,
  VectorIndex,
} from '../../dist/esm/index.js'
import {
  createPgvectorTable,
  ingestPgvector,
  PgvectorNodeStore,
  PgvectorRetriever,
} from '../../dist/esm/engines/pgvector.js'
import { CORPUS, DIM, embedText, engineReachable, FILTERS, ids, pgPool, probePg, sorted, uniqueName } from './env.mjs'

const embed = async (q) => embedText(q)

if (await engineReachable(test, 'PostgreSQL + pgvector', probePg)) {
  const pool = pgPool()
  const table = uniqueName('ragrank_t')
  // JSON null and missing fields differ in ragrank's filter, and jsonb keeps the difference: test it here.
  const docs = CORPUS.map((d, i) =>
    i % 5 === 0 ? { ...d, meta: { ...d.meta, opt: null } } : i % 5 === 1 ? { ...d, meta: { ...d.meta, opt: i } } : d,
  )
  const exact = new VectorIndex({ dim: DIM })
  exact.add(docs.map(({ id, vector, meta }) => ({ id, vector, meta })))
  const retriever = (o = {}) => new PgvectorRetriever({ pool, table, embed, ...o })

  test.before(async () => {
    const report = await ingestPgvector({ pool, table, documents: docs, batchSize: 10 })
    if (report.indexed !== docs.length) throw new Error(`ingested ${report.indexed}`)
  })
  test.after.always(async () => {
    for (const t of [table, `${table}_nodes`, `${table}_split`, `${table}_split_nodes`, `${table}_novec`])
      await pool.query(`DROP TABLE IF EXISTS ${t}`)
    await pool.end()
  })

  test('pgvector: kNN over the HNSW index finds what exact search finds', async (t) => {
    for (const q of ['river castle', 'winter storm engine', 'garden village story']) {
      const got = ids(await retriever().retrieve(q, { topK: 5 }))
      const want = ids(exact.search(embedText(q), { topK: 5 }))
      t.is(got[0], want[0], q)
      t.true(got.filter((id) => want.includes(id)).length >= 4, q)
    }
    const hit = (await retriever().retrieveByVector(docs[7].vector, { topK: 1 }))[0]
    t.is(hit.id, docs[7].id)
    t.true(Math.abs(hit.score - 1) < 1e-5, 'scores are cosine similarities')
    t.deepEqual(hit.meta, docs[7].meta)
  })

  test('pgvector: filters become SQL over jsonb and select exactly what the local index selects (null and missing apart)', async (t) => {
    const extra = [
      { meta: { opt: null } },
      { meta: { opt: { $exists: true } } },
      { meta: { opt: { $exists: false } } },
      { meta: { opt: { $ne: null } } },
      { meta: { opt: { $gte: 10 } } },
      { meta: { lang: "en'; DROP TABLE x; --" } },
    ]
    for (const filter of [...FILTERS, ...extra]) {
      const got = await retriever().retrieve('story', { topK: 100, filter })
      const want = exact.search(embedText('story'), { topK: 100, filter })
      t.deepEqual(sorted(got), sorted(want), JSON.stringify(filter))
    }
    await t.throwsAsync(retriever().retrieve('x', { filter: { meta: { a: { $regex: 'x' } } } }), {
      instanceOf: RangeError,
    })
  })

  test('pgvector: a dense first stage in a HybridRetriever with a local Bm25Index, filtered', async (t) => {
    const bm25 = new Bm25Index()
    bm25.add(docs)
    const hybrid = new HybridRetriever({ retrievers: [bm25, retriever()] })
    const filter = { meta: { lang: 'fr' } }
    const hits = await hybrid.retrieve('river castle', { topK: 5, filter })
    t.is(hits.length, 5)
    t.true(hits.every((h) => docs.find((d) => d.id === h.id).meta.lang === 'fr'))
  })

  test('pgvector: split ingestion, node store and AutoMergingRetriever', async (t) => {
    const splitter = new HierarchicalSplitter({ blockSizes: [12, 4] })
    const input = [{ id: 'a', text: 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu' }]
    const report = await ingestPgvector({
      pool,
      table: `${table}_split`,
      documents: input,
      splitter,
      embedder: async (texts) => texts.map(embedText),
    })
    t.is(report.indexed, splitter.split(input).length)
    const store = new PgvectorNodeStore({ pool, table: `${table}_split_nodes` })
    const [root, none] = await store.get(['a', 'nope'])
    t.is(root.parentId, null)
    t.is(root.childrenIds.length, 3)
    t.is(none, undefined)
    const merging = new AutoMergingRetriever({ retriever: retriever({ table: `${table}_split` }), store })
    const hits = await merging.retrieve('alpha beta gamma delta epsilon zeta eta theta', { topK: 2 })
    t.true(hits.some((h) => h.leafIds.length > 1))
  })

  test('pgvector: ingestion is idempotent (ON CONFLICT), and re-ingesting updates', async (t) => {
    await ingestPgvector({ pool, table, documents: docs.slice(0, 5).map((d) => ({ ...d, text: `${d.text} updated` })) })
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE text LIKE '%updated')::int AS u FROM ${table}`,
    )
    t.deepEqual(rows[0], { n: docs.length, u: 5 })
    await ingestPgvector({ pool, table, documents: docs.slice(0, 5) })
  })

  test('pgvector: clear errors for an unreachable server, a missing table, no vector column, a wrong dimension', async (t) => {
    const down = new PgvectorRetriever({ connectionString: 'postgres://ragrank@127.0.0.1:9/ragrank', embed })
    t.is((await t.throwsAsync(down.retrieve('x'))).code, 'ERR_ENGINE_UNREACHABLE')
    t.is(
      (await t.throwsAsync(retriever({ table: `${table}_missing` }).retrieve('x'))).code,
      'ERR_ENGINE_INDEX_NOT_FOUND',
    )
    await pool.query(`CREATE TABLE ${table}_novec (id text PRIMARY KEY, text text, meta jsonb, embedding real[])`)
    const m = await t.throwsAsync(retriever({ table: `${table}_novec` }).retrieve('x'))
    t.is(m.code, 'ERR_ENGINE_MAPPING')
    t.regex(m.message, /vector\(n\)/)
    t.is((await t.throwsAsync(retriever().retrieveByVector([1, 2, 3]))).code, 'ERR_ENGINE_DIMENSION')
    const ingestDim = await t.throwsAsync(
      ingestPgvector({ pool, table, documents: [{ id: 'z', text: 'z', vector: [1, 2] }] }),
    )
    t.is(ingestDim.code, 'ERR_ENGINE_DIMENSION')
    t.throws(() => new PgvectorRetriever({ pool, table: 'x; DROP TABLE y' }), { instanceOf: TypeError })
    t.throws(() => new PgvectorRetriever({ pool, table, vectorColumn: 'e"mb' }), { instanceOf: TypeError })
    await t.throwsAsync(createPgvectorTable({ pool, table: `${table}_x`, dims: 0 }), { instanceOf: RangeError })
  })
}
