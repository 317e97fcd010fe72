import test from 'ava'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Document, MetadataMode, RetrieverQueryEngine, Settings, TextNode, VectorStoreIndex } from 'llamaindex'
import { MockLLM } from '@llamaindex/core/llms/mock'
import {
  AutoMergingRetriever,
  Bm25Index,
  CrossEncoder,
  Embedder,
  HierarchicalSplitter,
  VectorIndex,
  VectorRetriever,
} from '../../dist/esm/index.js'
import { fromMetadataFilters, RagrankEmbedding, RagrankReranker, RagrankRetriever } from '../../dist/esm/llamaindex.js'

const require = createRequire(import.meta.url)
const models = new URL('../../fixtures/models/', import.meta.url).pathname
const cross = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
const embedder = await Embedder.load(join(models, 'tiny-embedder'))

const corpus = [
  { id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet', year: 2021, tags: ['a', 'b'] } },
  { id: 'dog', text: 'a dog chased the cat in the yard', meta: { kind: 'pet', year: 2019, tags: ['b'] } },
  { id: 'car', text: 'the car drove down the road', meta: { kind: 'vehicle', year: 2023 } },
  { id: 'kitten', text: 'a small kitten is a young feline cat' },
]
const bm25 = new Bm25Index()
bm25.add(corpus)

test('the subpath export is the ESM build for import and the CommonJS build for require', async (t) => {
  const esm = await import('ragrank/llamaindex')
  const cjs = require('ragrank/llamaindex')
  t.is(esm.RagrankRetriever, RagrankRetriever)
  for (const name of ['RagrankRetriever', 'RagrankReranker', 'RagrankEmbedding']) {
    t.is(typeof cjs[name], 'function', name)
    t.not(cjs[name], esm[name], name) // tshy's dist/commonjs and dist/esm
  }
  // Each build extends its own dialect's copy of @llamaindex/core, so the framework's instanceof checks hold in both.
  const { BaseRetriever } = await import('@llamaindex/core/retriever')
  t.true(new cjs.RagrankRetriever({ retriever: bm25 }) instanceof require('@llamaindex/core/retriever').BaseRetriever)
  t.true(new esm.RagrankRetriever({ retriever: bm25 }) instanceof BaseRetriever)
})

test('RagrankRetriever is a LlamaIndex BaseRetriever: NodeWithScore of TextNodes with id, text, metadata, score', async (t) => {
  const retriever = new RagrankRetriever({ retriever: bm25, topK: 3 })
  // The ESM build extends the ESM build of @llamaindex/core (the one `import` loads).
  t.true(retriever instanceof (await import('@llamaindex/core/retriever')).BaseRetriever)
  const hits = await bm25.retrieve('cat', { topK: 3 })
  for (const query of [{ query: 'cat' }, 'cat', { query: [{ type: 'text', text: 'cat' }] }]) {
    const nodes = await retriever.retrieve(query)
    t.deepEqual(
      nodes.map((n) => [n.node.id_, n.node.text, n.score]),
      hits.map((h) => [h.id, h.text, h.score]),
    )
    t.true(nodes[0].node instanceof (await import('@llamaindex/core/schema')).TextNode)
    t.deepEqual(nodes[0].node.metadata, corpus.find((d) => d.id === hits[0].id).meta)
  }
  const kitten = (await retriever.retrieve('kitten')).find((n) => n.node.id_ === 'kitten')
  t.deepEqual(kitten.node.metadata, {}, 'a document without meta has empty metadata')
})

test('the metadata a node carries is a copy: LlamaIndex may edit it without changing the index', async (t) => {
  const [first] = await new RagrankRetriever({ retriever: bm25, topK: 1 }).retrieve('cat')
  first.node.metadata.kind = 'edited'
  const [again] = await bm25.retrieve('cat', { topK: 1 })
  t.is(again.meta.kind, 'pet')
})

test('in a RetrieverQueryEngine with the reranker as node postprocessor (mock LLM)', async (t) => {
  Settings.llm = new MockLLM()
  const engine = new RetrieverQueryEngine(new RagrankRetriever({ retriever: bm25, topK: 3 }), undefined, [
    new RagrankReranker({ ranker: cross, topN: 2 }),
  ])
  const response = await engine.query({ query: 'a cat on a mat' })
  const candidates = await bm25.retrieve('a cat on a mat', { topK: 3 })
  const want = await cross.rerank('a cat on a mat', candidates, { topK: 2 })
  t.deepEqual(
    response.sourceNodes.map((n) => [n.node.id_, n.score]),
    want.map((w) => [w.id, w.score]),
  )
  t.is(typeof response.toString(), 'string')
})

test('auto-merged hits: the parent text, the document meta, SOURCE and PARENT relationships, span and leaves', async (t) => {
  const text = 'The monarch of the wild blue yonder rises from the eastern side of the horizon.'
  const nodes = new HierarchicalSplitter({ blockSizes: [10, 3] }).split([{ id: 'd', text, meta: { lang: 'en' } }])
  const leaves = nodes.filter((n) => n.childrenIds.length === 0)
  const parent = nodes.find((n) => n.id === 'd#0')
  // Three of d#0's four leaves match: d#0 replaces them.
  const fixed = { retrieve: async () => ['d#0.0', 'd#0.1', 'd#0.2'].map((id, i) => ({ id, score: 3 - i })) }
  const merging = new AutoMergingRetriever({ retriever: fixed, store: nodes })
  const [hit] = await new RagrankRetriever({ retriever: merging, topK: 5 }).retrieve('q')
  t.is(hit.node.id_, 'd#0')
  t.is(hit.node.text, parent.text)
  t.is(hit.score, 3)
  t.is(hit.node.metadata.lang, 'en')
  t.deepEqual(hit.node.metadata.leafIds, ['d#0.0', 'd#0.1', 'd#0.2'])
  t.is(hit.node.sourceNode.nodeId, 'd')
  t.is(hit.node.parentNode.nodeId, 'd')
  t.is(hit.node.startCharIdx, parent.start)
  t.is(hit.node.endCharIdx, parent.end)
  // The bookkeeping stays out of what the LLM and the embedder read.
  t.false(hit.node.getContent(MetadataMode.LLM).includes('leafIds'))
  t.true(hit.node.getContent(MetadataMode.LLM).includes('lang: en'))
  t.true(leaves.length > 3)
})

test('filters: a ragrank filter and LlamaIndex MetadataFilters reach the index; what cannot be honoured is a TypeError', async (t) => {
  const ids = async (options, query = 'cat') =>
    (await new RagrankRetriever({ retriever: bm25, ...options }).retrieve(query)).map((n) => n.node.id_).sort()
  t.deepEqual(await ids({ filter: { meta: { kind: 'pet' } } }), ['cat', 'dog'])
  t.deepEqual(await ids({ filters: { filters: [{ key: 'year', value: 2020, operator: '>=' }] } }, 'the'), [
    'car',
    'cat',
  ])
  t.deepEqual(
    await ids(
      {
        filters: {
          filters: [
            { key: 'kind', value: 'vehicle', operator: '==' },
            { key: 'tags', value: 'a', operator: 'contains' },
          ],
          condition: 'or',
        },
      },
      'the',
    ),
    ['car', 'cat'],
  )
  t.deepEqual(await ids({ filters: { filters: [{ key: 'tags', value: ['a', 'b'], operator: 'all' }] } }), ['cat'])
  t.deepEqual(await ids({ filters: { filters: [{ key: 'tags', value: ['a', 'z'], operator: 'any' }] } }), ['cat'])
  t.deepEqual(await ids({ filters: { filters: [{ key: 'kind', value: ['pet'], operator: 'nin' }] } }), ['kitten'])
  // Both given: both must hold.
  t.deepEqual(
    await ids({
      filter: { meta: { kind: 'pet' } },
      filters: { filters: [{ key: 'year', value: 2020, operator: '<' }] },
    }),
    ['dog'],
  )
  for (const operator of ['text_match', 'is_empty', 'like']) {
    const e = t.throws(
      () => new RagrankRetriever({ retriever: bm25, filters: { filters: [{ key: 'kind', value: 'p', operator }] } }),
      { instanceOf: TypeError },
    )
    t.is(e.code, 'ERR_INVALID_ARG')
  }
  t.throws(
    () => new RagrankRetriever({ retriever: bm25, filters: { filters: [{ key: 'year', value: {}, operator: '>' }] } }),
    {
      instanceOf: TypeError,
    },
  )
  t.throws(() => new RagrankRetriever({ retriever: bm25, filters: { filters: [], condition: 'xor' } }), {
    instanceOf: TypeError,
  })
  t.throws(() => new RagrankRetriever({ retriever: bm25, filters: [{ key: 'k', value: 1 }] }), {
    instanceOf: TypeError,
  })
  // A retriever that does not declare supportsFilter would ignore the filter: refused at construction.
  const plain = { retrieve: async () => [] }
  t.throws(() => new RagrankRetriever({ retriever: plain, filter: { meta: { kind: 'pet' } } }), {
    instanceOf: TypeError,
    message: /supportsFilter/,
  })
  t.throws(
    () => new RagrankRetriever({ retriever: plain, filters: { filters: [{ key: 'k', value: 1, operator: '==' }] } }),
    {
      instanceOf: TypeError,
    },
  )
  t.deepEqual(fromMetadataFilters({ filters: [] }, 'f'), undefined)
  t.deepEqual(fromMetadataFilters({ filters: [{ key: 'y', value: 1, operator: '!=' }] }, 'f'), { y: { $ne: 1 } })
})

test('RagrankRetriever: bad options and bad retriever results are TypeErrors or RangeErrors with a code', async (t) => {
  t.throws(() => new RagrankRetriever({ retriever: {} }), { instanceOf: TypeError })
  t.throws(() => new RagrankRetriever({ retriever: bm25, topK: 0 }), { instanceOf: RangeError })
  t.throws(() => new RagrankRetriever({ retriever: bm25, similarityTopK: 3 }), {
    instanceOf: TypeError,
    message: /topK/,
  })
  t.throws(() => new RagrankRetriever(), { instanceOf: TypeError })
  const returning = (v) => new RagrankRetriever({ retriever: { retrieve: async () => v } })
  t.is((await t.throwsAsync(returning(null).retrieve('q'), { instanceOf: TypeError })).code, 'ERR_INVALID_ARG')
  await t.throwsAsync(returning([{ id: 1, score: 1 }]).retrieve('q'), { instanceOf: TypeError })
  await t.throwsAsync(returning([{ id: 'a' }]).retrieve('q'), { instanceOf: TypeError })
  // A query that is not text is refused, not searched as the string "undefined".
  for (const query of [{}, { query: undefined }, { query: 42 }, { query: [, { type: 'text', text: 'cat' }] }]) {
    await t.throwsAsync(new RagrankRetriever({ retriever: bm25 }).retrieve(query), { instanceOf: TypeError })
  }
  const rejecting = new RagrankRetriever({ retriever: { retrieve: () => Promise.reject('no') } })
  t.is((await t.throwsAsync(rejecting.retrieve('q'))).code, 'ERR_CALLBACK')
})

test('RagrankReranker: ranks like the CrossEncoder, keeps the nodes, topN; bad input is a TypeError', async (t) => {
  const nodes = (await bm25.retrieve('cat', { topK: 4 })).map((h) => ({
    node: new TextNode({ id_: h.id, text: h.text, metadata: h.meta ?? {} }),
    score: h.score,
  }))
  const want = await cross.rerank(
    'cat',
    nodes.map((n) => ({ id: n.node.id_, text: n.node.text })),
  )
  const all = await new RagrankReranker({ ranker: cross }).postprocessNodes(nodes, 'cat')
  t.deepEqual(
    all.map((n) => [n.node.id_, n.score]),
    want.map((w) => [w.id, w.score]),
  )
  t.is(all[0].node, nodes.find((n) => n.node.id_ === want[0].id).node, 'the node objects themselves come back')
  const two = await new RagrankReranker({ ranker: cross, topN: 2 }).postprocessNodes(nodes, [
    { type: 'text', text: 'cat' },
  ])
  t.deepEqual(
    two.map((n) => n.node.id_),
    want.slice(0, 2).map((w) => w.id),
  )
  // Metadata is not part of what is ranked: the same text with other metadata scores the same.
  const tagged = [{ node: new TextNode({ id_: 'x', text: 'the cat sat', metadata: { noise: 'roads cars' } }) }]
  const bare = [{ node: new TextNode({ id_: 'x', text: 'the cat sat' }) }]
  const r = new RagrankReranker({ ranker: cross })
  t.is((await r.postprocessNodes(tagged, 'cat'))[0].score, (await r.postprocessNodes(bare, 'cat'))[0].score)
  t.deepEqual(await r.postprocessNodes([], 'cat'), [])
  await t.throwsAsync(r.postprocessNodes(nodes), { instanceOf: TypeError, message: /query/ })
  await t.throwsAsync(r.postprocessNodes(nodes, { text: 'cat' }), { instanceOf: TypeError, message: /query/ })
  await t.throwsAsync(r.postprocessNodes('nodes', 'cat'), { instanceOf: TypeError })
  await t.throwsAsync(r.postprocessNodes([{ node: { text: 'no methods' } }], 'cat'), { instanceOf: TypeError })
  t.throws(() => new RagrankReranker({ ranker: {} }), { instanceOf: TypeError })
  for (const result of [[, { index: 0, score: 1 }], [{ index: 9, score: 1 }], [{ index: 0 }]]) {
    const bad = new RagrankReranker({ ranker: { rerank: async () => result } })
    await t.throwsAsync(bad.postprocessNodes(nodes, 'cat'), { instanceOf: TypeError })
  }
  t.throws(() => new RagrankReranker({ ranker: cross, topK: 2 }), { instanceOf: TypeError, message: /topN/ })
  t.throws(() => new RagrankReranker({ ranker: cross, topN: 0 }), { instanceOf: RangeError })
})

test('RagrankEmbedding: document vectors with the document prefix, query vectors with the query prefix', async (t) => {
  const prefixed = await Embedder.load(join(models, 'tiny-embedder'), {
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
  })
  t.teardown(() => prefixed.dispose())
  const model = new RagrankEmbedding({ embedder: prefixed })
  const texts = ['the cat sat', 'a dog ran']
  const { data, dim } = await prefixed.embed(texts.map((x) => `passage: ${x}`))
  const docs = await model.getTextEmbeddings(texts)
  t.deepEqual(docs, [Array.from(data.subarray(0, dim)), Array.from(data.subarray(dim))])
  t.deepEqual(await model.getTextEmbedding('the cat sat'), docs[0])
  const query = await model.getQueryEmbedding({ type: 'text', text: 'cat' })
  t.deepEqual(query, Array.from((await prefixed.embed(['query: cat'])).data))
  t.notDeepEqual(query, Array.from((await prefixed.embed(['passage: cat'])).data))
  t.is(await model.getQueryEmbedding({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }), null)
  t.is(model.embedInfo.dimensions, prefixed.dim)
  t.throws(() => new RagrankEmbedding({ embedder: {} }), { instanceOf: TypeError })
  t.throws(() => new RagrankEmbedding({ embedder: prefixed, embedBatchSize: 0 }), { instanceOf: RangeError })
  t.throws(() => new RagrankEmbedding({ embedder: prefixed, batchSize: 8 }), { instanceOf: TypeError })
})

test('VectorStoreIndex (in-memory) with RagrankEmbedding: its ranking is the cosine of ragrank vectors', async (t) => {
  Settings.embedModel = new RagrankEmbedding({ embedder })
  const texts = corpus.map((d) => d.text)
  const index = await VectorStoreIndex.fromDocuments(texts.map((text, i) => new Document({ text, id_: corpus[i].id })))
  const nodes = await index.asRetriever({ similarityTopK: 2 }).retrieve({ query: 'a cat on a mat' })
  // The same ranking through ragrank alone: VectorIndex over the same vectors, queried with embedQuery.
  const vectors = new VectorIndex({ dim: embedder.dim, metric: 'cosine' })
  const { data } = await embedder.embedDocuments(texts)
  vectors.add(corpus.map((d, i) => ({ id: d.id, vector: data.subarray(i * embedder.dim, (i + 1) * embedder.dim) })))
  const hits = await new VectorRetriever({ index: vectors, embed: embedder }).retrieve('a cat on a mat', { topK: 2 })
  t.deepEqual(
    nodes.map((n) => n.node.sourceNode.nodeId),
    hits.map((h) => h.id),
  )
  for (const [i, n] of nodes.entries()) t.true(Math.abs(n.score - hits[i].score) < 1e-5)
})

test('examples/frameworks/llamaindex/index.mjs runs offline and checks what it prints', async (t) => {
  const { execFile } = await import('node:child_process')
  const { promisify } = await import('node:util')
  const example = new URL('../../examples/frameworks/llamaindex/index.mjs', import.meta.url).pathname
  const { stdout } = await promisify(execFile)(process.execPath, [example], { timeout: 110_000 })
  t.regex(
    stdout,
    /BM25 through LlamaIndex[\s\S]*reranked by the cross-encoder[\s\S]*VectorStoreIndex[\s\S]*example: ok\n$/,
  )
})
