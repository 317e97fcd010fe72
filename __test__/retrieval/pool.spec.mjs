import test from 'ava'
import { join } from 'node:path'
import {
  AbortError,
  AutoMergingRetriever,
  Bm25Index,
  HierarchicalSplitter,
  CompressionRetriever,
  CrossEncoder,
  LLMRanker,
  OpenAIChatGenerator,
  rerankPooled,
} from '../../dist/esm/index.js'
import { startChatServer } from '../../fixtures/chat-server.mjs'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const cross = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))

/** A ranker that scores by how many query words a text contains, and records what it was given. */
function wordRanker() {
  const calls = []
  return {
    calls,
    async rerank(query, documents, { topK }) {
      calls.push({ query, documents, topK })
      const words = query.toLowerCase().split(/\s+/)
      return documents
        .map((d, index) => ({
          ...(typeof d === 'string' ? { text: d } : d),
          index,
          score: words.filter((w) => (d.text ?? d).toLowerCase().includes(w)).length,
        }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, topK)
    },
  }
}

const bookA = [
  { id: 'a1', text: 'The whale surfaced near the ship.', score: 12.1 },
  { id: 'shared', text: 'Call me Ishmael.', score: 3 },
]
const bookB = [
  { id: 'b1', text: 'The ship sailed at dawn without the whale.', score: 0.8 },
  { id: 'shared', text: 'Call me Ishmael.', score: 0.9 },
  { id: 'b2', text: 'A quiet morning in the harbour.', score: 0.1 },
]

test('pooled candidates from several sources are deduplicated by id and reranked in one call; index points into the pool', async (t) => {
  const ranker = wordRanker()
  const pool = [...bookA, ...bookB]
  const out = await rerankPooled('whale ship', pool, ranker, { topK: 3 })
  t.is(ranker.calls.length, 1)
  t.deepEqual(
    ranker.calls[0].documents.map((d) => d.id),
    ['a1', 'shared', 'b1', 'b2'],
  )
  t.is(ranker.calls[0].documents[1].score, 3, 'the copy with the higher prior score is kept')
  t.deepEqual(
    out.map((d) => d.id),
    ['a1', 'b1', 'shared'],
  )
  t.deepEqual(
    out.map((d) => d.index),
    [0, 2, 1],
  )
  t.deepEqual(
    out.map((d) => d.meta.priorScore),
    [12.1, 0.8, 3],
  )
})

test('every ranker dedupes by one rule: the same id, or without ids the same text; the kept copy is the best prior score and index points at it', async (t) => {
  const pool = [
    'Paris',
    { text: 'Paris', score: 5 },
    { id: 'p', text: 'Paris', score: 1 },
    { id: 'p', text: 'Paris, France', score: 2 },
    { id: 'q', text: 'Berlin' },
    'Berlin',
  ]
  // Kept: 'Paris' (the id-less copy with score 5, input 1), p (input 3), q (input 4), 'Berlin' (input 5).
  const want = [1, 3, 4, 5]
  const everyone = {
    chat: async ({ messages }) => ({
      text: JSON.stringify({
        documents: [...messages[0].content.matchAll(/^\[(\d+)\]/gm)].map((m) => ({ index: Number(m[1]) })),
      }),
    }),
  }
  const llm = new LLMRanker({ chatGenerator: everyone })
  const byIndex = (out) => out.map((d) => d.index).sort((a, b) => a - b)
  t.deepEqual(byIndex(await cross.rerank('capital', pool)), want)
  t.deepEqual(byIndex(await llm.rerank('capital', pool)), want)
  t.deepEqual(byIndex(await rerankPooled('capital', pool, wordRanker())), want)
  for (const out of [
    await cross.rerank('capital', pool),
    await llm.rerank('capital', pool),
    await rerankPooled('capital', pool, cross),
  ]) {
    for (const d of out) t.is(d.text, typeof pool[d.index] === 'string' ? pool[d.index] : pool[d.index].text)
  }
})

test("dedupeBy 'content' merges the same text under different ids; 'none' keeps all; strings dedupe by text", async (t) => {
  const pool = [{ id: 'x1', text: 'same', score: 1 }, { id: 'x2', text: 'same', score: 2 }, 'other', 'other']
  const r1 = wordRanker()
  await rerankPooled('same', pool, r1, { dedupeBy: 'content' })
  t.deepEqual(
    r1.calls[0].documents.map((d) => d.id ?? d),
    ['x2', 'other'],
  )
  const r2 = wordRanker()
  await rerankPooled('same', pool, r2, { dedupeBy: 'none' })
  t.is(r2.calls[0].documents.length, 4)
  const r3 = wordRanker()
  await rerankPooled('same', pool, r3)
  t.deepEqual(
    r3.calls[0].documents.map((d) => d.id ?? d),
    ['x1', 'x2', 'other'],
  )
})

test('with a real CrossEncoder: same results as calling it directly on the deduplicated pool, prior score kept', async (t) => {
  const pool = [...bookA, ...bookB]
  const out = await rerankPooled('where is the whale', pool, cross, { topK: 4 })
  const direct = await cross.rerank('where is the whale', [bookA[0], bookA[1], bookB[0], bookB[2]], { topK: 4 })
  t.deepEqual(
    out.map((d) => d.id),
    direct.map((d) => d.id),
  )
  t.deepEqual(
    out.map((d) => d.score),
    direct.map((d) => d.score),
  )
  for (const d of out) t.is(d.meta.priorScore, pool[d.index].score)
})

test('with an LLMRanker against the scripted server', async (t) => {
  const srv = await startChatServer({ script: ['{"documents":[{"index":3},{"index":1}]}'] })
  t.teardown(srv.close)
  const llm = new LLMRanker({ chatGenerator: new OpenAIChatGenerator({ baseURL: srv.baseURL }) })
  const out = await rerankPooled('ship at dawn', [...bookA, ...bookB], llm, { topK: 5 })
  t.deepEqual(
    out.map((d) => d.id),
    ['b1', 'a1'],
  )
  t.deepEqual(
    out.map((d) => d.index),
    [2, 0],
  )
  t.deepEqual(
    out.map((d) => d.meta.priorScore),
    [0.8, 12.1],
  )
  t.is((srv.prompt(0).match(/^\[\d+\]/gm) ?? []).length, 4)
})

test('CompressionRetriever over BM25 with a CrossEncoder: fetches candidates, reranks, cuts to topK', async (t) => {
  const index = new Bm25Index()
  index.add([...bookA, ...bookB.filter((d) => d.id !== 'shared')].map(({ id, text }) => ({ id, text })))
  const seen = []
  const base = { retrieve: async (q, o) => (seen.push(o.topK), index.retrieve(q, o)) }
  const retriever = new CompressionRetriever({ retriever: base, ranker: cross, candidates: 3 })
  const out = await retriever.retrieve('whale ship', { topK: 2 })
  t.deepEqual(seen, [3])
  const candidates = await index.retrieve('whale ship', { topK: 3 })
  const direct = await cross.rerank('whale ship', candidates, { topK: 2 })
  t.deepEqual(
    out.map((d) => d.id),
    direct.map((d) => d.id),
  )
  t.deepEqual(
    out.map((d) => d.meta.priorScore),
    direct.map((d) => candidates.find((c) => c.id === d.id).score),
  )
})

test('CompressionRetriever without a base retriever takes the documents per call', async (t) => {
  const ranker = wordRanker()
  const retriever = new CompressionRetriever({ ranker })
  const out = await retriever.retrieve('harbour morning', { documents: bookB, topK: 1 })
  t.deepEqual(
    out.map((d) => d.id),
    ['b2'],
  )
  await t.throwsAsync(retriever.retrieve('q'), { instanceOf: TypeError, message: /documents/ })
  const withBase = new CompressionRetriever({
    ranker,
    retriever: { retrieve: async () => t.fail('base must not run when documents are given') },
  })
  t.is((await withBase.retrieve('whale', { documents: bookA, topK: 1 }))[0].id, 'a1')
})

test('bad input and abort', async (t) => {
  const ranker = wordRanker()
  await t.throwsAsync(rerankPooled('q', 'docs', ranker), { instanceOf: TypeError })
  await t.throwsAsync(rerankPooled('q', [], {}), { instanceOf: TypeError })
  await t.throwsAsync(rerankPooled(3, [], ranker), { instanceOf: TypeError })
  await t.throwsAsync(rerankPooled('q', [{ id: 'x' }], ranker), { instanceOf: TypeError, message: /id x/ })
  await t.throwsAsync(rerankPooled('q', ['a'], ranker, { dedupeBy: 'hash' }), { instanceOf: RangeError })
  await t.throwsAsync(rerankPooled('q', ['a'], ranker, { topK: -1 }), { instanceOf: RangeError })
  t.throws(() => new CompressionRetriever({}), { instanceOf: TypeError })
  t.throws(() => new CompressionRetriever({ ranker, retriever: {} }), { instanceOf: TypeError })
  t.throws(() => new CompressionRetriever({ ranker, candidates: 0 }), { instanceOf: RangeError })
  const hanging = { rerank: () => new Promise(() => {}) }
  const ac = new AbortController()
  const pending = rerankPooled('q', ['a'], hanging, { signal: ac.signal })
  ac.abort()
  await t.throwsAsync(pending, { instanceOf: AbortError })
  t.deepEqual(await rerankPooled('q', [], ranker), [])
  t.is(ranker.calls.length, 0)
})

test('CompressionRetriever over an AutoMergingRetriever: merged passages are ranked by their node text', async (t) => {
  const text =
    'the cat sat on the mat today. the cat slept on the mat later. dogs ran in the park. birds sang in the trees.'
  const nodes = new HierarchicalSplitter({ blockSizes: [12, 6], splitBy: 'word' }).split([{ id: 'doc', text }])
  const leafIndex = new Bm25Index()
  leafIndex.add(nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text })))
  const merging = new AutoMergingRetriever({ retriever: leafIndex, store: nodes })
  const ranker = wordRanker()
  const out = await new CompressionRetriever({ retriever: merging, ranker }).retrieve('cat mat', { topK: 3 })
  const hits = await merging.retrieve('cat mat', { topK: 50 })
  t.deepEqual(
    ranker.calls[0].documents.map((d) => d.text),
    hits.map((h) => h.node.text),
  )
  t.is(out[0].text, hits.find((h) => h.id === out[0].id).node.text)
  t.true(out[0].text.includes('cat'))
})
