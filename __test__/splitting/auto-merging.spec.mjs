import test from 'ava'

import { AutoMergingRetriever, Bm25Index, HierarchicalSplitter } from '../../dist/esm/index.js'

const MONARCH = 'The monarch of the wild blue yonder rises from the eastern side of the horizon.'
// Leaves l0..l3 under d#0 (4 children), l4, l5 under d#1 (2 children); d#0 and d#1 under the root d.
const nodes = new HierarchicalSplitter({ blockSizes: [10, 3] }).split([{ id: 'd', text: MONARCH }])
const [l0, l1, l2, , l4, l5] = ['d#0.0', 'd#0.1', 'd#0.2', 'd#0.3', 'd#1.0', 'd#1.1']

/** A retriever that returns fixed hits and records what it was asked. */
function fixed(hits) {
  const calls = []
  return {
    calls,
    async retrieve(_query, options) {
      calls.push(options)
      return hits.slice(0, options.topK)
    },
  }
}

const run = async (hits, options = {}, topK = 10) => {
  const r = new AutoMergingRetriever({ retriever: fixed(hits), store: nodes, ...options })
  return (await r.retrieve('q', { topK })).map((h) => [h.id, h.score])
}

test("Haystack's rule: merge when matched / children is strictly greater than the threshold", async (t) => {
  // 2 of 4 and 1 of 2 are not > 0.5: nothing merges.
  t.deepEqual(
    await run([
      { id: l0, score: 3 },
      { id: l4, score: 2 },
      { id: l1, score: 1 },
    ]),
    [
      [l0, 3],
      [l4, 2],
      [l1, 1],
    ],
  )
  // 3 of 4 merge into d#0 (max score); d#0 is 1 of 2 under the root: stops there.
  t.deepEqual(
    await run([
      { id: l0, score: 3 },
      { id: l1, score: 5 },
      { id: l2, score: 1 },
      { id: l4, score: 2 },
    ]),
    [
      ['d#0', 5],
      [l4, 2],
    ],
  )
  // At 0.8, 3 of 4 (0.75) stay leaves.
  t.is(
    (
      await run(
        [
          { id: l0, score: 3 },
          { id: l1, score: 2 },
          { id: l2, score: 1 },
        ],
        { threshold: 0.8 },
      )
    ).length,
    3,
  )
})

test('merging recurses up to the root', async (t) => {
  const all = [l0, l1, l2, l4, l5].map((id, i) => ({ id, score: 10 - i }))
  const out = await new AutoMergingRetriever({ retriever: fixed(all), store: nodes }).retrieve('q')
  t.deepEqual(
    out.map((h) => h.id),
    ['d'],
  )
  t.is(out[0].node.text, MONARCH)
  t.deepEqual(out[0].leafIds.sort(), [l0, l1, l2, l4, l5].sort())
})

test('fix: a leaf hit several times counts once (Haystack merges [l0, l0, l0])', async (t) => {
  t.deepEqual(
    await run([
      { id: l0, score: 1 },
      { id: l0, score: 4 },
      { id: l0, score: 2 },
    ]),
    [[l0, 4]],
  )
})

test('fix: a missing ancestor stops merging at that level; strict restores the error', async (t) => {
  const withoutRoot = nodes.filter((n) => n.id !== 'd')
  const hits = [l0, l1, l2, l4, l5].map((id, i) => ({ id, score: 10 - i }))
  const lenient = new AutoMergingRetriever({ retriever: fixed(hits), store: withoutRoot })
  t.deepEqual(
    (await lenient.retrieve('q')).map((h) => [h.id, h.score]),
    [
      ['d#0', 10],
      ['d#1', 7],
    ],
  )
  const strict = new AutoMergingRetriever({ retriever: fixed(hits), store: withoutRoot, strict: true })
  await t.throwsAsync(strict.retrieve('q'), { code: 'ERR_MISSING_NODE', message: /"d" is not in the store/ })
  // A hit the store does not know is returned as it is (strict: an error).
  const unknown = [{ id: 'elsewhere', score: 9 }]
  t.deepEqual(await run(unknown), [['elsewhere', 9]])
  await t.throwsAsync(
    new AutoMergingRetriever({ retriever: fixed(unknown), store: nodes, strict: true }).retrieve('q'),
    {
      code: 'ERR_MISSING_NODE',
    },
  )
})

test('fix: output is ordered by score, not grouped by parent', async (t) => {
  // Haystack returns [l4, <d#0>] here (groups in order of first appearance).
  const hits = [
    { id: l4, score: 5 },
    { id: l0, score: 9 },
    { id: l1, score: 2 },
    { id: l2, score: 1 },
  ]
  t.deepEqual(await run(hits), [
    ['d#0', 9],
    [l4, 5],
  ])
  t.deepEqual(await run(hits, { parentScore: 'mean' }), [
    [l4, 5],
    ['d#0', 4],
  ])
  t.deepEqual(await run(hits, { parentScore: 'sum' }), [
    ['d#0', 12],
    [l4, 5],
  ])
  t.deepEqual(await run(hits, { parentScore: (scores, parent) => scores.length + parent.childrenIds.length }), [
    ['d#0', 7],
    [l4, 5],
  ])
})

test('candidates leaves are retrieved, topK results returned', async (t) => {
  const hits = [l0, l1, l2, l4].map((id, i) => ({ id, score: 10 - i }))
  const retriever = fixed(hits)
  const r = new AutoMergingRetriever({ retriever, store: nodes, candidates: 20 })
  t.is(r.candidates, 20)
  const out = await r.retrieve('q', { topK: 1 })
  t.is(retriever.calls[0].topK, 20)
  t.deepEqual(
    out.map((h) => h.id),
    ['d#0'],
  )
  // Default: 4 * topK.
  const r2 = new AutoMergingRetriever({ retriever, store: nodes })
  await r2.retrieve('q', { topK: 3 })
  t.is(retriever.calls[1].topK, 12)
})

test('candidates sets the depth; candidateK is not an option (a TypeError naming it)', async (t) => {
  const retriever = fixed([l0, l1].map((id, i) => ({ id, score: 2 - i })))
  const r = new AutoMergingRetriever({ retriever, store: nodes, candidates: 7 })
  await r.retrieve('q', { topK: 1 })
  t.is(retriever.calls[0].topK, 7)
  t.is(r.candidates, 7)
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, candidateK: 7 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
    message: /options\.candidateK is not a known option/,
  })
})

test('a sibling subtree that merges later still counts toward its parent', async (t) => {
  // p has children a (a leaf) and b (with leaves b1, b2). Hits a, b1, b2: b merges first, then p.
  const store = [
    { id: 'p', parentId: null, childrenIds: ['a', 'b'] },
    { id: 'a', parentId: 'p', childrenIds: [] },
    { id: 'b', parentId: 'p', childrenIds: ['b1', 'b2'] },
    { id: 'b1', parentId: 'b', childrenIds: [] },
    { id: 'b2', parentId: 'b', childrenIds: [] },
  ]
  const hits = [
    { id: 'a', score: 1 },
    { id: 'b1', score: 2 },
    { id: 'b2', score: 3 },
  ]
  const out = await new AutoMergingRetriever({ retriever: fixed(hits), store }).retrieve('q')
  t.deepEqual(
    out.map((h) => [h.id, h.score]),
    [['p', 3]],
  )
})

test('an external async store serves it (partial, any order)', async (t) => {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const asked = []
  const store = {
    async get(ids) {
      asked.push(ids)
      return ids.map((id) => byId.get(id)).reverse()
    },
  }
  const hits = [l0, l1, l2].map((id, i) => ({ id, score: 3 - i }))
  const out = await new AutoMergingRetriever({ retriever: fixed(hits), store }).retrieve('q')
  t.deepEqual(
    out.map((h) => h.id),
    ['d#0'],
  )
  t.deepEqual(asked[0], [l0, l1, l2])
})

test('over a BM25 index of the leaves (adapter)', async (t) => {
  const docs = [
    { id: 'a', text: 'Cats purr. Cats sleep all day. Cats chase mice at night. Dogs bark at cats.' },
    { id: 'b', text: 'Stock markets rose today. Bonds fell. Investors bought shares of technology firms.' },
  ]
  const tree = new HierarchicalSplitter({ blockSizes: [1], splitBy: 'sentence' }).split(docs)
  const index = new Bm25Index()
  index.add(tree.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text })))
  const bm25 = { retrieve: async (query, { topK }) => index.search(query, { topK }) }
  const r = new AutoMergingRetriever({ retriever: bm25, store: tree, threshold: 0.5 })
  const out = await r.retrieve('cats', { topK: 3 })
  // All four sentences of 'a' mention cats: they merge into the document itself.
  t.deepEqual(
    out.map((h) => h.id),
    ['a'],
  )
  t.is(out[0].node.text, docs[0].text)
})

test('bad options and input: clear errors; empty retrievals; abort', async (t) => {
  const retriever = fixed([])
  for (const threshold of [0, 1, -0.5, 2]) {
    t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, threshold }), { instanceOf: RangeError })
  }
  t.throws(() => new AutoMergingRetriever({ retriever: {}, store: nodes }), { instanceOf: TypeError })
  t.throws(() => new AutoMergingRetriever({ retriever, store: 5 }), { instanceOf: TypeError })
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, candidates: 0 }), { instanceOf: RangeError })
  const r = new AutoMergingRetriever({ retriever, store: nodes })
  t.deepEqual(await r.retrieve('q'), [])
  t.deepEqual(await r.retrieve('q', { topK: 0 }), [])
  // An unknown rule is a bad value (RangeError), a number a bad type (TypeError).
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, parentScore: 'median' }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
  })
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, parentScore: 5 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
  })
  // Booleans must be booleans: 'no' is not coerced to true.
  for (const strict of ['no', 1, null]) {
    t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, strict }), {
      instanceOf: TypeError,
      code: 'ERR_INVALID_ARG',
      message: /strict/,
    })
  }
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, candidates: 0 }), {
    instanceOf: RangeError,
    message: /candidates/,
  })
  t.throws(() => new AutoMergingRetriever({ retriever, store: nodes, candidates: 1.5 }), { instanceOf: TypeError })
  const notArray = new AutoMergingRetriever({ retriever: { retrieve: async () => null }, store: nodes })
  await t.throwsAsync(notArray.retrieve('q'), { instanceOf: TypeError })
  // A parent that lists no children cannot be merged into: children stay (strict: an error).
  const childless = [
    { id: 'p', parentId: null, childrenIds: [] },
    { id: 'c', parentId: 'p', childrenIds: [] },
  ]
  const hitC = fixed([{ id: 'c', score: 1 }])
  t.deepEqual(
    (await new AutoMergingRetriever({ retriever: hitC, store: childless }).retrieve('q')).map((h) => h.id),
    ['c'],
  )
  await t.throwsAsync(new AutoMergingRetriever({ retriever: hitC, store: childless, strict: true }).retrieve('q'), {
    code: 'ERR_MISSING_NODE',
    message: /lists no children/,
  })
  const bad = new AutoMergingRetriever({ retriever: fixed([{ id: 1 }]), store: nodes })
  await t.throwsAsync(bad.retrieve('q'), { instanceOf: TypeError })
  const ac = new AbortController()
  ac.abort()
  await t.throwsAsync(r.retrieve('q', { signal: ac.signal }), { name: 'AbortError' })
})
