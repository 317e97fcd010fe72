// The Elasticsearch and OpenSearch adapters share one behaviour; this suite runs against either real server.
import {
  AutoMergingRetriever,
  Bm25Index,
  CompressionRetriever,
  HierarchicalSplitter,
  HybridRetriever,
  MultiQueryRetriever,
  VectorIndex,
  VectorRetriever,
} from '../../dist/esm/index.js'
import { RagrankRetriever } from '../../dist/esm/langchain.js'
import { canonical, CORPUS, DIM, embedText, FILTERS, ids, KOREAN, sorted, uniqueName } from './env.mjs'

const embed = async (q) => embedText(q)
const QUERIES = ['river castle', 'winter storm engine', 'garden village story', 'ocean', 'number 7 harvest']

export function registerSearchEngineSuite(test, api) {
  const client = api.client()
  const index = uniqueName('ragrank_t')
  const bare = `${index}_novec`
  const split = `${index}_split`
  const korean = `${index}_ko`
  const local = new Bm25Index()
  local.add(CORPUS)
  const exact = new VectorIndex({ dim: DIM })
  exact.add(CORPUS.map(({ id, vector, meta }) => ({ id, vector, meta })))
  const retriever = (o = {}) => new api.Retriever({ client, index, ...o })

  test.before(async () => {
    const report = await api.ingest({ client, index, documents: CORPUS, batchSize: 10 })
    if (report.indexed !== CORPUS.length) throw new Error(`ingested ${report.indexed} of ${CORPUS.length}`)
  })
  test.after.always(async () => {
    for (const i of [index, bare, split, `${split}-nodes`, korean]) await api.deleteIndex({ client, index: i })
  })

  // Serial (ava runs serial tests before the concurrent ones): the ingestion test below
  // re-indexes documents, and until the engine merges them away its deleted copies shift
  // the BM25 statistics (doc count, average length), which reorders near-ties.
  test.serial(`${api.name}: BM25 ranks as the local Bm25Index (same k1, b; one shard)`, async (t) => {
    const r = retriever()
    for (const q of QUERIES) {
      // Every match, so ties at a cut-off cannot differ.
      const got = await r.retrieve(q, { topK: 100 })
      const want = local.search(q, { topK: 100 })
      t.true(got.length > 1)
      t.deepEqual(canonical(got), canonical(want), q)
      t.true(got.every((h) => typeof h.text === 'string' && typeof h.meta === 'object'))
    }
  })

  test(`${api.name}: kNN finds what exact search finds on a small index`, async (t) => {
    const r = retriever({ mode: 'knn', embed })
    for (const q of QUERIES) {
      const got = ids(await r.retrieve(q, { topK: 5 }))
      const want = ids(exact.search(embedText(q), { topK: 5 }))
      t.true(want.slice(0, 2).includes(got[0]), q)
      t.true(got.filter((id) => want.includes(id)).length >= 4, q)
    }
    const byVector = await r.retrieveByVector(CORPUS[3].vector, { topK: 1 })
    t.is(byVector[0].id, CORPUS[3].id)
  })

  test(`${api.name}: hybrid runs both in one request and fuses in ragrank`, async (t) => {
    const r = retriever({ mode: 'hybrid', embed })
    const hits = await r.retrieve('river castle', { topK: 5 })
    t.is(hits.length, 5)
    t.true(hits[0].fusion.length === 2, 'the best hit is in both lists')
    t.true(hits.every((h, i) => i === 0 || h.score <= hits[i - 1].score))
  })

  test.serial(`${api.name}: filters select exactly the documents the local indexes select`, async (t) => {
    const r = retriever({ mode: 'knn', embed })
    for (const filter of FILTERS) {
      const got = await r.retrieve('story', { topK: 100, filter })
      const want = exact.search(embedText('story'), { topK: 100, filter })
      t.deepEqual(sorted(got), sorted(want), JSON.stringify(filter))
    }
    // BM25 with a filter: the topK best matching documents, as the local index.
    const f = { meta: { lang: 'en' } }
    t.deepEqual(
      canonical(await retriever().retrieve('river castle', { topK: 100, filter: f })),
      canonical(local.search('river castle', { topK: 100, filter: f })),
    )
  })

  test(`${api.name}: a malformed filter is refused before any request; null is refused only on an index ragrank did not make`, async (t) => {
    const r = new api.Retriever({ node: 'http://127.0.0.1:9', index })
    const foreign = `${index}_foreign`
    await client.transport.request({
      method: 'PUT',
      path: `/${foreign}`,
      body: { mappings: { properties: { text: { type: 'text' }, meta: { type: 'object' } } } },
    })
    try {
      const e = await t.throwsAsync(
        new api.Retriever({ client, index: foreign }).retrieve('x', { filter: { meta: { lang: null } } }),
        { instanceOf: TypeError },
      )
      t.is(e.code, 'ERR_INVALID_ARG')
      t.regex(e.message, /null/)
    } finally {
      await api.deleteIndex({ client, index: foreign })
    }
    t.deepEqual(
      sorted(await retriever().retrieve('story', { topK: 100, filter: { meta: { lang: { $ne: null } } } })),
      sorted(CORPUS),
    )
    const bad = await t.throwsAsync(r.retrieve('x', { filter: { meta: { lang: { $regex: 'e' } } } }), {
      instanceOf: RangeError,
    })
    t.regex(bad.message, /\$regex/)
    await t.throwsAsync(r.retrieve('x', { filter: { tenant: 'a' } }), { instanceOf: TypeError })
  })

  test(`${api.name}: composes with HybridRetriever, MultiQueryRetriever, CompressionRetriever and LangChain`, async (t) => {
    const dense = new VectorRetriever({ index: exact, embed })
    const hybrid = new HybridRetriever({ retrievers: [retriever(), dense] })
    const filter = { meta: { lang: 'de' } }
    const hits = await hybrid.retrieve('river castle', { topK: 5, filter })
    t.true(hits.length > 0)
    t.true(hits.every((h) => CORPUS.find((d) => d.id === h.id).meta.lang === 'de'))

    const multi = new MultiQueryRetriever({ retriever: retriever(), queries: ['river', 'castle'] })
    const m = await multi.retrieve('river castle', { topK: 5 })
    t.true(m.length === 5)

    // A ranker that prefers longer texts: the compression retriever must reorder the engine's candidates by it.
    const ranker = {
      async rerank(_q, docs, { topK }) {
        return docs
          .map((d, index) => ({ index, id: d.id, score: d.text.length }))
          .sort((a, b) => b.score - a.score)
          .slice(0, topK)
      },
    }
    const comp = new CompressionRetriever({ retriever: retriever(), ranker, candidates: 10 })
    const c = await comp.retrieve('river castle', { topK: 3 })
    t.is(c.length, 3)
    t.true(c[0].score >= c[2].score)

    const lc = new RagrankRetriever({ retriever: retriever(), topK: 2, filter })
    const docs = await lc.invoke('story river')
    t.is(docs.length, 2)
    t.true(docs.every((d) => d.metadata.lang === 'de' && typeof d.pageContent === 'string'))
  })

  test(`${api.name}: split ingestion + node store let AutoMergingRetriever merge leaves into parents`, async (t) => {
    const splitter = new HierarchicalSplitter({ blockSizes: [12, 4] })
    const docs = [
      { id: 'a', text: 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu', meta: { k: 1 } },
      { id: 'b', text: 'one two three four five six seven eight nine ten eleven twelve', meta: { k: 2 } },
    ]
    const report = await api.ingest({
      client,
      index: split,
      documents: docs,
      splitter,
      embedder: async (texts) => texts.map(embedText),
    })
    const nodes = splitter.split(docs)
    t.is(report.indexed, nodes.length)
    const store = new api.NodeStore({ client, index: `${split}-nodes` })
    const [root, missing] = await store.get(['a', 'nope'])
    t.is(root.id, 'a')
    t.deepEqual(root.childrenIds, nodes.find((n) => n.id === 'a').childrenIds)
    t.is(missing, undefined)
    const merging = new AutoMergingRetriever({
      retriever: new api.Retriever({ client, index: split }),
      store,
      threshold: 0.5,
    })
    const hits = await merging.retrieve('alpha beta gamma delta epsilon zeta eta theta', { topK: 3 })
    t.true(
      hits.some((h) => h.leafIds.length > 1),
      'some leaves merged into their parent',
    )
    t.true(hits.every((h) => h.node !== undefined))
  })

  test(`${api.name}: Korean through ragrank's analyzer ranks as the local Bm25Index (no Korean plugin)`, async (t) => {
    const analysis = { cjk: 'bigram' }
    await api.ingest({ client, index: korean, documents: KOREAN, analysis })
    const r = new api.Retriever({ client, index: korean, analysis })
    const localKo = new Bm25Index({ analyzer: analysis })
    localKo.add(KOREAN)
    for (const q of ['대한민국의 수도', '서울 한강', '한국 전통 음식', '신라 유적']) {
      t.deepEqual(ids(await r.retrieve(q, { topK: 3 })), ids(localKo.search(q, { topK: 3 })), q)
    }
    // Without ragrank's analysis, the engine's standard analyzer cuts Korean differently and misses.
    const plain = new api.Retriever({ client, index: korean })
    t.deepEqual(ids(await plain.retrieve('수도', { topK: 3 })), [])
  })

  test(`${api.name}: ingestion is idempotent and reports refused documents`, async (t) => {
    const again = await api.ingest({ client, index, documents: CORPUS.slice(0, 10) })
    t.is(again.indexed, 10)
    const count = await retriever({ mode: 'knn', embed }).retrieve('story', { topK: 100 })
    t.is(count.length, CORPUS.length, 'nothing indexed twice')

    const progress = []
    const bad = [
      { id: 'ok-1', text: 'fine', meta: { year: 2020 } },
      // Types never conflict (each is indexed apart), but a keyword past Lucene's 32,766-byte term is refused.
      { id: 'bad-1', text: 'a metadata string too long to index', meta: { note: 'x'.repeat(40_000) } },
    ]
    const report = await api.ingest({ client, index, documents: bad, onProgress: (p) => progress.push(p) })
    t.is(report.indexed, 1)
    t.is(report.rejected, 1)
    t.is(report.rejectedDocuments[0].id, 'bad-1')
    t.is(report.rejectedDocuments[0].status, 400)
    t.false(report.rejectedDocuments[0].retryable)
    t.true(progress.length > 0 && progress.at(-1).indexed === 1)
  })

  test(`${api.name}: clear errors for an unreachable engine, a wrong index, a mapping without vectors, a wrong dimension`, async (t) => {
    const down = new api.Retriever({ node: 'http://127.0.0.1:9', index })
    t.is((await t.throwsAsync(down.retrieve('x'))).code, 'ERR_ENGINE_UNREACHABLE')

    const wrong = retriever({ index: `${index}_does_not_exist` })
    const e = await t.throwsAsync(wrong.retrieve('river'))
    t.is(e.code, 'ERR_ENGINE_INDEX_NOT_FOUND')

    await api.createIndex({ client, index: bare })
    const noVec = new api.Retriever({ client, index: bare, mode: 'knn', embed })
    const m = await t.throwsAsync(noVec.retrieve('river'))
    t.is(m.code, 'ERR_ENGINE_MAPPING')
    t.regex(m.message, /embedding/)

    const dim = await t.throwsAsync(retriever({ mode: 'knn' }).retrieveByVector([1, 2, 3]))
    t.is(dim.code, 'ERR_ENGINE_DIMENSION')
    const ingestDim = await t.throwsAsync(
      api.ingest({ client, index, documents: [{ id: 'z', text: 'z', vector: [1, 2, 3] }] }),
    )
    t.is(ingestDim.code, 'ERR_ENGINE_DIMENSION')
    t.is(ingestDim.report.indexed, 0)

    const ac = new AbortController()
    ac.abort()
    t.is((await t.throwsAsync(retriever().retrieve('river', { signal: ac.signal }))).code, 'ABORT_ERR')
    t.throws(() => new api.Retriever({ client, index: 'bad name' }), { instanceOf: TypeError })
    t.throws(() => new api.Retriever({ client, index, mode: 'fuzzy' }))
    await t.throwsAsync(retriever({ mode: 'knn' }).retrieve('no embed given'), { instanceOf: TypeError })
  })
}
