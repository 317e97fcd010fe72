// The LangChain adapters' checks against whichever @langchain/core resolves from this file:
// langchain-adapters.spec.mjs runs them in process (1.x) and, from a copy in a folder whose
// @langchain/core is the 0.3 line, in a child process (see langchain-v03-run.mjs).
// Only @langchain/core is imported: @langchain/classic exists for 1.x only.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Document } from '@langchain/core/documents'
import { Embeddings } from '@langchain/core/embeddings'
import { BaseRetriever } from '@langchain/core/retrievers'
import { RunnableLambda } from '@langchain/core/runnables'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { VectorStore } from '@langchain/core/vectorstores'
import {
  AbortError,
  AutoMergingRetriever,
  Bm25Index,
  CrossEncoder,
  Embedder,
  HierarchicalSplitter,
  HybridRetriever,
  LLMRanker,
  QueryRewriter,
  VectorIndex,
} from 'ragrank'
import {
  LangChainChatGenerator,
  RagrankEmbeddings,
  RagrankRetriever,
  RagrankVectorStore,
  RankerCompressor,
} from 'ragrank/langchain'

const require = createRequire(import.meta.url)
const models = process.env.RAGRANK_TEST_MODELS ?? new URL('../../fixtures/models/', import.meta.url).pathname
export const coreVersion = require('@langchain/core/package.json').version

/** Whether `v` is an instance of a LangChain class, from its ESM or its CommonJS build (ragrank may load either). */
function isInstance(v, esm, subpath, name) {
  return v instanceof esm || v instanceof require(`@langchain/core/${subpath}`)[name]
}

const corpus = [
  { id: 'cat', text: 'the cat sat on the mat', meta: { tenant: 'a', kind: 'pet' } },
  { id: 'dog', text: 'a dog chased the cat in the yard', meta: { tenant: 'b', kind: 'pet' } },
  { id: 'kitten', text: 'a small kitten is a young cat', meta: { tenant: 'a', kind: 'pet' } },
  { id: 'car', text: 'the car drove down the road', meta: { tenant: 'a', kind: 'car' } },
]
const bm25 = () => {
  const index = new Bm25Index()
  index.add(corpus)
  return index
}

/** Embeddings with fixed vectors per text, so MMR's choice is known. */
class TableEmbeddings extends Embeddings {
  constructor(table) {
    super({})
    this.table = table
    this.documentCalls = []
  }
  async embedDocuments(texts) {
    this.documentCalls.push(texts)
    return texts.map((t) => this.table[t])
  }
  async embedQuery(text) {
    return this.table[text]
  }
}
// a2 nearly repeats a; b is less relevant but different: MMR (lambda 0.5) picks a, then b.
const TABLE = { q: [1, 0, 0.3], a: [1, 0, 0], a2: [1, 0.02, 0], b: [0.6, 0, 0.8], c: [0, 1, 0] }
const tableStore = () =>
  RagrankVectorStore.fromTexts(
    ['a', 'a2', 'b', 'c'],
    [{ group: 'x' }, { group: 'x' }, { group: 'y' }, { group: 'y' }],
    new TableEmbeddings(TABLE),
  )

export const checks = {
  async 'RagrankRetriever is a BaseRetriever: full metadata, a filter, refused where it cannot apply'() {
    const index = bm25()
    const retriever = new RagrankRetriever({ retriever: index, topK: 10, filter: { meta: { tenant: 'a' } } })
    assert.ok(isInstance(retriever, BaseRetriever, 'retrievers', 'BaseRetriever'))
    const docs = await retriever.invoke('cat')
    assert.deepEqual(docs.map((d) => d.id).sort(), ['cat', 'kitten'])
    for (const d of docs) {
      const source = corpus.find((c) => c.id === d.id)
      assert.equal(d.pageContent, source.text)
      assert.equal(d.metadata.tenant, 'a')
      assert.equal(d.metadata.kind, 'pet')
      assert.equal(typeof d.metadata.score, 'number')
    }
    const unfiltered = await new RagrankRetriever({ retriever: index }).invoke('cat')
    assert.ok(
      unfiltered.some((d) => d.id === 'dog'),
      'without the filter tenant b comes back',
    )
    // A retriever that cannot filter, and a filter ragrank does not know, are refused at construction.
    const plain = { retrieve: async () => [] }
    assert.throws(() => new RagrankRetriever({ retriever: plain, filter: { meta: { tenant: 'a' } } }), TypeError)
    assert.throws(() => new RagrankRetriever({ retriever: index, filter: { tenant: 'a' } }), TypeError)
    // It composes as a Runnable.
    const ids = await retriever.pipe(RunnableLambda.from((ds) => ds.map((d) => d.id))).invoke('kitten')
    assert.equal(ids[0], 'kitten')
  },

  async 'RagrankRetriever passes the signal of invoke to the ragrank retriever'() {
    const seen = []
    const slow = {
      retrieve: (_q, options) =>
        new Promise((resolve, reject) => {
          seen.push(options)
          const timer = setTimeout(() => resolve([{ id: 'x', score: 1, text: 'x' }]), 5000)
          options.signal?.addEventListener('abort', () => {
            clearTimeout(timer)
            reject(new AbortError())
          })
        }),
    }
    const retriever = new RagrankRetriever({ retriever: slow })
    const started = Date.now()
    await assert.rejects(retriever.invoke('q', { signal: AbortSignal.timeout(50) }), AbortError)
    assert.ok(Date.now() - started < 4000, 'the retrieval stopped at the abort')
    assert.ok(seen[0].signal instanceof AbortSignal)
    // Without a signal the options are as before, and an index stops at an already aborted signal.
    const quick = { retrieve: async (_q, options) => (seen.push(options), [{ id: 'y', score: 1 }]) }
    await new RagrankRetriever({ retriever: quick }).invoke('q')
    assert.deepEqual(seen[1], { topK: 10 })
    await assert.rejects(new RagrankRetriever({ retriever: bm25() }).invoke('cat', { signal: AbortSignal.abort() }), {
      code: 'ABORT_ERR',
    })
  },

  async 'RagrankRetriever keeps every field: auto-merged hits carry the node meta and place, fused ones their parts'() {
    const text = 'the cat sat on the mat today. the cat slept on the mat later. dogs ran in the park. birds sang.'
    const nodes = new HierarchicalSplitter({ blockSizes: [12, 6], splitBy: 'word' }).split([
      { id: 'doc', text, meta: { title: 'Cats', tenant: 'a' } },
    ])
    const leaves = new Bm25Index()
    leaves.add(nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text })))
    const merging = new AutoMergingRetriever({ retriever: leaves, store: nodes })
    const hits = await merging.retrieve('cat mat', { topK: 3 })
    assert.ok(hits.some((h) => h.leafIds.length > 1))
    const docs = await new RagrankRetriever({ retriever: merging, topK: 3 }).invoke('cat mat')
    assert.equal(docs.length, hits.length)
    docs.forEach((d, i) => {
      const node = nodes.find((n) => n.id === hits[i].id)
      assert.equal(d.id, node.id)
      assert.equal(d.pageContent, node.text)
      assert.deepEqual(
        { ...d.metadata },
        {
          title: 'Cats',
          tenant: 'a',
          sourceId: 'doc',
          level: node.level,
          parentId: node.parentId,
          start: node.start,
          end: node.end,
          leafIds: hits[i].leafIds,
          score: hits[i].score,
        },
      )
    })
    const hybrid = new HybridRetriever({ retrievers: [bm25(), bm25()] })
    const [top] = await new RagrankRetriever({ retriever: hybrid, topK: 1 }).invoke('kitten')
    assert.equal(top.id, 'kitten')
    assert.equal(top.metadata.tenant, 'a')
    assert.deepEqual(
      top.metadata.fusion.map((f) => f.list),
      [0, 1],
    )
  },

  async 'RankerCompressor reranks Documents with the CrossEncoder, keeping their metadata and ids'() {
    const ranker = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
    const docs = corpus.map((c) => new Document({ pageContent: c.text, metadata: c.meta, id: c.id }))
    const out = await new RankerCompressor({ ranker, topK: 2 }).compressDocuments(docs, 'cat')
    const want = await ranker.rerank(
      'cat',
      corpus.map((c) => ({ id: c.id, text: c.text })),
      { topK: 2 },
    )
    assert.deepEqual(
      out.map((d) => [d.id, d.metadata.relevanceScore, d.metadata.tenant]),
      want.map((w) => [w.id, w.score, corpus.find((c) => c.id === w.id).meta.tenant]),
    )
  },

  async 'RagrankEmbeddings: number[][] documents and a number[] query, with the Embedder prompts'() {
    const embedder = await Embedder.load(join(models, 'tiny-embedder'), { queryPrefix: 'query: ' })
    const embeddings = new RagrankEmbeddings({ embedder })
    assert.ok(isInstance(embeddings, Embeddings, 'embeddings', 'Embeddings'))
    const texts = ['the cat sat', 'a car drove']
    const rows = await embeddings.embedDocuments(texts)
    const block = await embedder.embedDocuments(texts)
    assert.equal(rows.length, 2)
    assert.ok(rows.every((r) => Array.isArray(r) && r.length === embedder.dim))
    assert.deepEqual(rows.flat(), Array.from(block.data))
    const q = await embeddings.embedQuery('the cat sat')
    assert.ok(Array.isArray(q))
    assert.deepEqual(q, Array.from(await embedder.embedQuery('the cat sat')))
    assert.notDeepEqual(q, rows[0], 'the query prompt is applied to queries only')
    assert.deepEqual(await embeddings.embedDocuments([]), [])
    assert.throws(() => new RagrankEmbeddings({ embedder: {} }), TypeError)
  },

  async 'RagrankVectorStore: add, search with scores, ragrank filters, ids and metadata on every Document'() {
    const store = await tableStore()
    assert.ok(isInstance(store, VectorStore, 'vectorstores', 'VectorStore'))
    const scored = await store.similaritySearchWithScore('q', 3)
    assert.deepEqual(
      scored.map(([d]) => d.pageContent),
      ['a', 'a2', 'b'],
    )
    assert.ok(scored[0][1] >= scored[1][1] && scored[1][1] >= scored[2][1])
    assert.ok(scored.every(([d]) => typeof d.id === 'string' && d.id.length > 0))
    assert.deepEqual(scored[2][0].metadata, { group: 'y' })
    const filtered = await store.similaritySearch('q', 2, { meta: { group: 'y' } })
    assert.deepEqual(
      filtered.map((d) => d.pageContent),
      ['b', 'c'],
    )
    const byVector = await store.similaritySearchVectorWithScore([0, 1, 0], 1)
    assert.equal(byVector[0][0].pageContent, 'c')
    // Filters that are not ragrank's are refused, never ignored.
    await assert.rejects(
      store.similaritySearch('q', 2, (d) => d.metadata.group === 'y'),
      TypeError,
    )
    await assert.rejects(store.similaritySearch('q', 2, { group: 'y' }), TypeError)
    // Ids given, replaced on a second add, deleted.
    const ids = await store.addDocuments([new Document({ pageContent: 'c', metadata: { group: 'z' } })], {
      ids: ['mine'],
    })
    assert.deepEqual(ids, ['mine'])
    await store.addVectors([[0, 1, 0]], [new Document({ pageContent: 'c again', metadata: { group: 'z' } })], {
      ids: ['mine'],
    })
    const z = await store.similaritySearch('q', 5, { meta: { group: 'z' } })
    assert.deepEqual(
      z.map((d) => [d.id, d.pageContent]),
      [['mine', 'c again']],
    )
    await store.delete({ ids: ['mine'] })
    assert.deepEqual(await store.similaritySearch('q', 5, { meta: { group: 'z' } }), [])
    await assert.rejects(store.delete(), TypeError)
    // A Document's own id is used.
    const [own] = await store.addDocuments([new Document({ pageContent: 'a', id: 'doc-7' })])
    assert.equal(own, 'doc-7')
    assert.equal(store.index.has('doc-7'), true)
  },

  async 'RagrankVectorStore: MMR with fetchK and lambda, and asRetriever({ k, filter })'() {
    const store = await tableStore()
    const mmr = await store.maxMarginalRelevanceSearch('q', { k: 2, fetchK: 4, lambda: 0.5 })
    assert.deepEqual(
      mmr.map((d) => d.pageContent),
      ['a', 'b'],
      'the near-duplicate a2 gives way to b',
    )
    const relevance = await store.maxMarginalRelevanceSearch('q', { k: 2, fetchK: 4, lambda: 1 })
    assert.deepEqual(
      relevance.map((d) => d.pageContent),
      ['a', 'a2'],
      'lambda 1 is plain relevance',
    )
    const shallow = await store.maxMarginalRelevanceSearch('q', { k: 2, fetchK: 2, lambda: 0.5 })
    assert.deepEqual(
      shallow.map((d) => d.pageContent),
      ['a', 'a2'],
      'fetchK 2 never sees b',
    )
    const filtered = await store.maxMarginalRelevanceSearch('q', { k: 2, fetchK: 4, filter: { meta: { group: 'y' } } })
    assert.deepEqual(
      filtered.map((d) => d.pageContent),
      ['b', 'c'],
    )
    assert.deepEqual(filtered[0].metadata, { group: 'y' })
    await assert.rejects(store.maxMarginalRelevanceSearch('q', { k: 2, lambda: 2 }), RangeError)
    const retriever = store.asRetriever({ k: 1, filter: { meta: { group: 'y' } } })
    assert.deepEqual(
      (await retriever.invoke('q')).map((d) => d.pageContent),
      ['b'],
    )
    const mmrRetriever = store.asRetriever({ k: 2, searchType: 'mmr', searchKwargs: { fetchK: 4, lambda: 0.5 } })
    assert.deepEqual(
      (await mmrRetriever.invoke('q')).map((d) => d.pageContent),
      ['a', 'b'],
    )
  },

  async 'RagrankVectorStore over a given VectorIndex: its stored fields become Documents, MMR embeds their text'() {
    const index = new VectorIndex({ dim: 3 })
    for (const t of ['a', 'a2', 'b']) index.add([{ id: `id-${t}`, vector: TABLE[t], text: t, meta: { t } }])
    const embeddings = new TableEmbeddings(TABLE)
    const store = new RagrankVectorStore(embeddings, { index })
    const [doc] = await store.similaritySearch('q', 1)
    assert.deepEqual([doc.id, doc.pageContent, doc.metadata], ['id-a', 'a', { t: 'a' }])
    const mmr = await store.maxMarginalRelevanceSearch('q', { k: 2, fetchK: 3 })
    assert.deepEqual(
      mmr.map((d) => d.id),
      ['id-a', 'id-b'],
    )
    assert.deepEqual(embeddings.documentCalls, [['a', 'a2', 'b']], 'the candidates were embedded from their text')
    assert.throws(() => new RagrankVectorStore(embeddings, { index: {} }), TypeError)
    assert.throws(() => new RagrankVectorStore(embeddings, { metric: 'manhattan' }), RangeError)
    // An empty store finds nothing.
    assert.deepEqual(await new RagrankVectorStore(embeddings).similaritySearch('q', 3), [])
    // Misspelled options are TypeErrors naming the key, never ignored.
    assert.throws(() => new RagrankVectorStore(embeddings, { dimension: 3 }), /dimension/)
    await assert.rejects(store.addDocuments([new Document({ pageContent: 'a' })], { idz: ['x'] }), TypeError)
    await assert.rejects(store.maxMarginalRelevanceSearch('q', { k: 2, fetch_k: 3 }), /fetch_k/)
    await assert.rejects(store.delete({ id: 'id-a' }), TypeError)
    await assert.rejects(
      store.addVectors([[1, 0, 0]], [new Document({ pageContent: 'a' })], { ids: ['x', 'y'] }),
      RangeError,
    )
    await assert.rejects(store.addVectors([[1, 0]], [new Document({ pageContent: 'a' })]), RangeError)
    assert.equal(index.size, 3, 'a refused add changes nothing')
  },

  async 'LangChainChatGenerator: a LangChain chat model ranks for LLMRanker and rewrites for QueryRewriter'() {
    // LLMRanker numbers the candidates from 1.
    const model = new FakeListChatModel({ responses: ['{"documents":[{"index":3},{"index":1}]}'] })
    const ranker = new LLMRanker({ chatGenerator: new LangChainChatGenerator(model), raiseOnFailure: true })
    const ranked = await ranker.rerank('cat', ['a car', 'the kitten', 'the cat'])
    assert.deepEqual(
      ranked.map((r) => r.index),
      [2, 0],
    )
    const rewriterModel = new FakeListChatModel({
      responses: [
        JSON.stringify({
          needs_retrieval: true,
          standalone_query: 'where does photosynthesis happen',
          language: 'en',
          variants: ['photosynthesis location chloroplast'],
        }),
      ],
    })
    const rewriter = new QueryRewriter({
      chatGenerator: new LangChainChatGenerator(rewriterModel),
      raiseOnFailure: true,
    })
    const r = await rewriter.rewrite([{ role: 'user', content: 'where does it happen?' }])
    assert.equal(r.query, 'where does photosynthesis happen')
    assert.equal(r.fallback, false)
    // The signal reaches the model: an aborted call rejects with ragrank's AbortError.
    const slow = new LangChainChatGenerator(new FakeListChatModel({ responses: ['{}'], sleep: 5000 }))
    const late = new LLMRanker({ chatGenerator: slow })
    await assert.rejects(late.rerank('q', ['x', 'y'], { signal: AbortSignal.timeout(50) }), AbortError)
    assert.throws(() => new LangChainChatGenerator({}), TypeError)
    const reply = await new LangChainChatGenerator(new FakeListChatModel({ responses: ['hi'] })).chat({
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ],
    })
    assert.equal(reply.text, 'hi')
    await assert.rejects(
      new LangChainChatGenerator(model).chat({ messages: [{ role: 'tool', content: 'x' }] }),
      TypeError,
    )
  },
}
