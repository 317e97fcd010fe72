import test from 'ava'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { Document } from '@langchain/core/documents'
import { BaseRetriever } from '@langchain/core/retrievers'
import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression'
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble'
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory'
import {
  AutoMergingRetriever,
  Bm25Index,
  CompressionRetriever,
  HierarchicalSplitter,
  CrossEncoder,
  Embedder,
  HybridRetriever,
  LLMRanker,
  MultiQueryRetriever,
  OpenAIChatGenerator,
} from '../../dist/esm/index.js'
import { RagrankEmbeddings, RagrankRetriever, RagrankVectorStore, RankerCompressor } from '../../dist/esm/langchain.js'
import { startChatServer } from '../../fixtures/chat-server.mjs'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const cross = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))

const corpus = [
  { id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } },
  { id: 'dog', text: 'a dog chased the cat in the yard', meta: { kind: 'pet' } },
  { id: 'car', text: 'the car drove down the road' },
  { id: 'kitten', text: 'a small kitten is a young feline cat' },
  { id: 'road', text: 'roads and highways for cars' },
]
const index = new Bm25Index()
index.add(corpus)
const stemmed = new Bm25Index({
  tokenizer: (t) =>
    t
      .toLowerCase()
      .split(/\W+/)
      .filter(Boolean)
      .map((w) => w.replace(/s$/, '')),
})
stemmed.add(corpus)

test('the subpath export is the ESM build for import and the CommonJS build for require', async (t) => {
  const require = createRequire(import.meta.url)
  const esm = await import('ragrank/langchain')
  const cjs = require('ragrank/langchain')
  t.is(esm.RagrankRetriever, RagrankRetriever)
  t.not(cjs.RagrankRetriever, esm.RagrankRetriever)
  // Each build extends its own dialect's copy of @langchain/core, so LangChain's instanceof checks hold in both.
  t.true(new cjs.RagrankRetriever({ retriever: index }) instanceof require('@langchain/core/retrievers').BaseRetriever)
  t.false(new cjs.RagrankRetriever({ retriever: index }) instanceof BaseRetriever)
  for (const name of [
    'RankerCompressor',
    'RagrankEmbeddings',
    'RagrankVectorStore',
    'LangChainChatGenerator',
    'hitToDocument',
  ]) {
    t.is(typeof esm[name], 'function', name)
    t.is(typeof cjs[name], 'function', name)
  }
})

test('RagrankRetriever is a LangChain BaseRetriever: invoke returns Documents with id, meta and score', async (t) => {
  const retriever = new RagrankRetriever({ retriever: index, topK: 2 })
  // The ESM build extends the ESM build of @langchain/core (the one `import` loads).
  t.true(retriever instanceof BaseRetriever)
  const docs = await retriever.invoke('cat')
  const hits = await index.retrieve('cat', { topK: 2 })
  t.deepEqual(
    docs.map((d) => d.id),
    hits.map((h) => h.id),
  )
  t.deepEqual(
    docs.map((d) => d.pageContent),
    hits.map((h) => h.text),
  )
  t.deepEqual(
    docs.map((d) => d.metadata.score),
    hits.map((h) => h.score),
  )
  t.is(docs[0].metadata.kind, 'pet')
  t.throws(() => new RagrankRetriever({ retriever: {} }), { instanceOf: TypeError })
  t.throws(() => new RagrankRetriever({ retriever: index, topK: 0 }), { instanceOf: RangeError })
})

test('ContextualCompressionRetriever from ragrank parts: BM25 candidates reranked by the CrossEncoder, score in metadata', async (t) => {
  const ccr = new ContextualCompressionRetriever({
    baseRetriever: new RagrankRetriever({ retriever: index, topK: 4 }),
    baseCompressor: new RankerCompressor({ ranker: cross, topK: 2 }),
  })
  const docs = await ccr.invoke('a cat on a mat')
  const candidates = await index.retrieve('a cat on a mat', { topK: 4 })
  const want = await cross.rerank('a cat on a mat', candidates, { topK: 2 })
  t.is(docs.length, 2)
  t.deepEqual(
    docs.map((d) => d.id),
    want.map((w) => w.id),
  )
  t.deepEqual(
    docs.map((d) => d.metadata.relevanceScore),
    want.map((w) => w.score),
  )
  t.deepEqual(
    docs.map((d) => d.metadata.score),
    want.map((w) => candidates.find((c) => c.id === w.id).score),
    'the retriever score stays',
  )
})

test('ContextualCompressionRetriever with the LLMRanker against the scripted server', async (t) => {
  const srv = await startChatServer({ script: ['```json\n{"documents":[{"index":2},{"index":1}]}\n```'] })
  t.teardown(srv.close)
  const llm = new LLMRanker({ chatGenerator: new OpenAIChatGenerator({ baseURL: srv.baseURL }) })
  const ccr = new ContextualCompressionRetriever({
    baseRetriever: new RagrankRetriever({ retriever: index, topK: 3 }),
    baseCompressor: new RankerCompressor({ ranker: llm, scoreKey: 'llmScore' }),
  })
  const docs = await ccr.invoke('cat')
  const candidates = await index.retrieve('cat', { topK: 3 })
  t.deepEqual(
    docs.map((d) => d.id),
    [candidates[1].id, candidates[0].id],
  )
  t.deepEqual(
    docs.map((d) => d.metadata.llmScore),
    [1, 0.5],
  )
})

test('RankerCompressor: no call on an empty list; documents without ids; bad rankers rejected', async (t) => {
  let calls = 0
  const ranker = {
    rerank: async (_q, docs) => (calls++, docs.map((d, index) => ({ ...d, index, score: -index })).reverse()),
  }
  const c = new RankerCompressor({ ranker })
  t.deepEqual(await c.compressDocuments([], 'q'), [])
  t.is(calls, 0)
  const out = await c.compressDocuments(
    [new Document({ pageContent: 'x', metadata: { a: 1 } }), new Document({ pageContent: 'y' })],
    'q',
  )
  t.deepEqual(
    out.map((d) => [d.pageContent, d.metadata]),
    [
      ['y', { relevanceScore: -1 }],
      ['x', { a: 1, relevanceScore: -0 }],
    ],
  )
  t.throws(() => new RankerCompressor({ ranker: {} }), { instanceOf: TypeError })
  t.throws(() => new RankerCompressor({ ranker, scoreKey: '' }), { instanceOf: TypeError })
  const broken = new RankerCompressor({ ranker: { rerank: async () => [{ text: 'x' }] } })
  await t.throwsAsync(broken.compressDocuments([new Document({ pageContent: 'x' })], 'q'), { instanceOf: TypeError })
})

test('EnsembleRetriever from two ragrank retrievers fuses their lists as LangChain RRF says', async (t) => {
  const a = new RagrankRetriever({ retriever: index, topK: 4 })
  const b = new RagrankRetriever({ retriever: stemmed, topK: 4 })
  const ensemble = new EnsembleRetriever({ retrievers: [a, b], weights: [0.7, 0.3] })
  const query = 'cars on the road'
  const docs = await ensemble.invoke(query)
  const lists = [await index.retrieve(query, { topK: 4 }), await stemmed.retrieve(query, { topK: 4 })]
  const rrf = new Map()
  lists.forEach((list, li) =>
    list.forEach((h, r) => rrf.set(h.text, (rrf.get(h.text) ?? 0) + [0.7, 0.3][li] / (r + 1 + 60))),
  )
  const want = [...rrf.keys()].sort((x, y) => rrf.get(y) - rrf.get(x))
  t.deepEqual(
    docs.map((d) => d.pageContent),
    want,
  )
  t.notDeepEqual(
    lists[0].map((h) => h.id),
    lists[1].map((h) => h.id),
    'the two lists differ, so the fusion is exercised',
  )
  t.true(docs.every((d) => typeof d.metadata.score === 'number' && d.id))
})

test('RagrankRetriever wraps every kind of ragrank retriever: hybrid, multi-query, compression', async (t) => {
  const kinds = {
    hybrid: new HybridRetriever({ retrievers: [index, stemmed] }),
    'multi-query': new MultiQueryRetriever({ retriever: index, queries: ['kitten', 'feline'] }),
    compression: new CompressionRetriever({ retriever: index, ranker: cross }),
  }
  for (const [name, retriever] of Object.entries(kinds)) {
    const docs = await new RagrankRetriever({ retriever, topK: 3 }).invoke('cat on the mat')
    const hits = await retriever.retrieve('cat on the mat', { topK: 3 })
    t.true(hits.length > 0, name)
    t.deepEqual(
      docs.map((d) => [d.id, d.pageContent, d.metadata.score]),
      hits.map((h) => [h.id, h.text, h.score]),
      name,
    )
  }
})

test('RagrankRetriever over an AutoMergingRetriever: merged passages become Documents with their text', async (t) => {
  const text =
    'the cat sat on the mat today. the cat slept on the mat later. dogs ran in the park. birds sang in the trees.'
  const nodes = new HierarchicalSplitter({ blockSizes: [12, 6], splitBy: 'word' }).split([{ id: 'doc', text }])
  const leaves = nodes.filter((n) => n.childrenIds.length === 0)
  const leafIndex = new Bm25Index()
  leafIndex.add(leaves.map((n) => ({ id: n.id, text: n.text })))
  const merging = new AutoMergingRetriever({ retriever: leafIndex, store: nodes })
  const hits = await merging.retrieve('cat mat', { topK: 2 })
  t.true(
    hits.some((h) => h.leafIds.length > 1),
    'some leaves were merged into a parent',
  )
  const docs = await new RagrankRetriever({ retriever: merging, topK: 2 }).invoke('cat mat')
  t.deepEqual(
    docs.map((d) => [d.id, d.pageContent]),
    hits.map((h) => [h.id, h.node.text]),
  )
})

test('MemoryVectorStore with RagrankEmbeddings: the Embedder in a LangChain vector store (number[][], not a Float32Array block)', async (t) => {
  const embedder = await Embedder.load(join(models, 'tiny-embedder'))
  const texts = corpus.map((c) => c.text)
  // The bug this fixes: the Embedder's own embedDocuments returns one Float32Array block.
  await t.throwsAsync(MemoryVectorStore.fromTexts(texts, {}, embedder))
  const store = await MemoryVectorStore.fromTexts(
    texts,
    corpus.map((c) => ({ id: c.id })),
    new RagrankEmbeddings({ embedder }),
  )
  const [[best, score]] = await store.similaritySearchWithScore(corpus[3].text, 1)
  t.is(best.metadata.id, 'kitten', 'a text is nearest to itself')
  t.true(Math.abs(score - 1) < 1e-5)
})

test('RagrankVectorStore in an EnsembleRetriever beside BM25, and with a filter as asRetriever', async (t) => {
  const embedder = await Embedder.load(join(models, 'tiny-embedder'))
  const store = await RagrankVectorStore.fromDocuments(
    corpus.map((c) => new Document({ pageContent: c.text, metadata: c.meta ?? { kind: 'other' }, id: c.id })),
    new RagrankEmbeddings({ embedder }),
  )
  const pets = store.asRetriever({ k: 5, filter: { meta: { kind: 'pet' } } })
  const docs = await pets.invoke('cat')
  t.deepEqual(docs.map((d) => d.id).sort(), ['cat', 'dog'])
  const ensemble = new EnsembleRetriever({ retrievers: [new RagrankRetriever({ retriever: index, topK: 3 }), pets] })
  const fused = await ensemble.invoke('cat')
  t.true(
    fused.some((d) => d.id === 'kitten'),
    'BM25 brings what the filter-free side found',
  )
  t.true(fused.every((d) => typeof d.id === 'string'))
})

test('examples/frameworks/langchain/index.mjs runs offline and checks what it prints', async (t) => {
  const example = new URL('../../examples/frameworks/langchain/index.mjs', import.meta.url).pathname
  const { stdout } = await promisify(execFile)(process.execPath, [example], { timeout: 60_000 })
  for (const part of [
    'EnsembleRetriever',
    'ContextualCompressionRetriever',
    'MemoryVectorStore',
    'filter',
    'MMR',
    'LLMRanker',
  ])
    t.regex(stdout, new RegExp(part))
  t.regex(stdout, /^ok: ragrank works inside LangChain\.js$/m)
})
