// Results keep their fields through every composition: fusion, the composite retrievers and
// the pooled rerank merge what each source returned; auto-merging never returns a node
// together with one of its descendants.
import test from 'ava'

import {
  AutoMergingRetriever,
  Bm25Index,
  CompressionRetriever,
  fuse,
  HierarchicalSplitter,
  HybridRetriever,
  MultiQueryRetriever,
  rerankPooled,
  VectorIndex,
  VectorRetriever,
} from '../../dist/esm/index.js'

/** A retriever that returns fixed hits (or hits per query). */
const fixed = (hits) => ({
  supportsFilter: true,
  async retrieve(query, options) {
    const list = typeof hits === 'function' ? hits(query) : hits
    return list.slice(0, options.topK)
  },
})

/** A ranker that keeps its input fields and scores by position, last first. */
const reverseRanker = {
  async rerank(_query, docs) {
    return docs.map((d, index) => ({ ...d, index, score: index })).reverse()
  },
}

test('fuse merges the copies: first non-empty text, meta of every copy with the best-ranked keys winning', (t) => {
  const vector = [
    { id: 'a', score: 0.9 },
    { id: 'b', score: 0.8, text: '', meta: { lang: 'de', page: 7 } },
  ]
  const bm25 = [
    { id: 'b', score: 3, text: 'bee text', meta: { lang: 'en', source: 'bm25' } },
    { id: 'a', score: 2, text: 'a text', meta: { kind: 'pet' }, extra: 1 },
  ]
  const fused = fuse([vector, bm25])
  const a = fused.find((d) => d.id === 'a')
  const b = fused.find((d) => d.id === 'b')
  t.is(a.text, 'a text', 'the vector list gave only the id: the text comes from BM25')
  t.deepEqual(a.meta, { kind: 'pet' })
  t.is(a.extra, 1, 'other fields are kept too')
  // b: rank 1 in BM25 beats rank 2 in the vector list, so BM25's keys win; its empty text loses.
  t.is(b.text, 'bee text')
  t.deepEqual(b.meta, { lang: 'en', page: 7, source: 'bm25' })
  t.deepEqual(
    fused.map((d) => d.fusion.length),
    [2, 2],
  )
  // A document in one list only is returned as that list's copy, unchanged apart from score and fusion.
  const [only] = fuse([[{ id: 'x', score: 1, meta: { m: 1 } }]])
  t.deepEqual(only.meta, { m: 1 })
})

test('fuse: on equal ranks the earlier list wins a meta key, and the input objects are not changed', (t) => {
  const l0 = [{ id: 'a', score: 1, meta: { who: 'first' } }]
  const l1 = [{ id: 'a', score: 1, text: 'from l1', meta: { who: 'second', more: true } }]
  const [a] = fuse([l0, l1])
  t.deepEqual(a.meta, { who: 'first', more: true })
  t.is(a.text, 'from l1')
  t.deepEqual(l0[0], { id: 'a', score: 1, meta: { who: 'first' } })
  t.deepEqual(l1[0].meta, { who: 'second', more: true })
})

test('HybridRetriever over BM25 and a vector index without stored text: hits keep BM25 text and meta', async (t) => {
  const docs = [
    { id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } },
    { id: 'car', text: 'the car drove down the road', meta: { kind: 'vehicle' } },
  ]
  const bm25 = new Bm25Index()
  bm25.add(docs)
  const index = new VectorIndex({ dim: 2 })
  index.add([
    { id: 'cat', vector: [1, 0] },
    { id: 'car', vector: [0, 1] },
  ])
  const vector = new VectorRetriever({ index, embed: async () => [0.2, 1] })
  const hybrid = new HybridRetriever({ retrievers: [vector, bm25] })
  const hits = await hybrid.retrieve('the cat or the car', { topK: 2 })
  t.is(hits.length, 2)
  const vectorOnly = await vector.retrieve('cat', { topK: 2 })
  t.true(
    vectorOnly.every((h) => h.text === undefined),
    'the vector side really returns no text',
  )
  for (const h of hits) {
    const doc = docs.find((d) => d.id === h.id)
    t.is(h.text, doc.text, h.id)
    t.deepEqual(h.meta, doc.meta, h.id)
  }
})

test('MultiQueryRetriever keeps the fields a later variant returned', async (t) => {
  const retriever = fixed((q) =>
    q === 'original' ? [{ id: 'a', score: 2 }] : [{ id: 'a', score: 1, text: 'a text', meta: { m: 1 } }],
  )
  for (const merge of ['rrf', 'max', 'sum']) {
    const mq = new MultiQueryRetriever({ retriever, queries: ['variant'], merge })
    const [a] = await mq.retrieve('original', { topK: 1 })
    t.is(a.text, 'a text', merge)
    t.deepEqual(a.meta, { m: 1 }, merge)
  }
})

test('pooled rerank: a duplicate adds the meta the kept (higher-scored) copy lacks', async (t) => {
  const pooled = [
    { id: 'a', score: 5, text: 'a text' },
    { id: 'a', score: 1, text: 'a text', meta: { source: 'books', page: 3 } },
    { id: 'b', score: 2, text: 'b text', meta: { source: 'web' } },
  ]
  const out = await rerankPooled('q', pooled, reverseRanker)
  const a = out.find((d) => d.id === 'a')
  t.is(a.index, 0, 'index points at the kept copy')
  t.deepEqual(a.meta, { source: 'books', page: 3, priorScore: 5 })
  t.is(out.length, 2)
  // The same through a CompressionRetriever over a hybrid.
  const hybrid = new HybridRetriever({ retrievers: [fixed([{ id: 'a', score: 1 }]), fixed([pooled[1]])] })
  const cr = new CompressionRetriever({ retriever: hybrid, ranker: reverseRanker })
  const [hit] = await cr.retrieve('q', { topK: 1 })
  t.is(hit.text, 'a text')
  t.is(hit.meta.source, 'books')
})

// Three levels below the root: d -> d#0, d#1 -> d#i.j -> d#i.j.k (two children everywhere).
const TEXT = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen'
const tree = new HierarchicalSplitter({ blockSizes: [8, 4, 2], splitBy: 'word' }).split([
  { id: 'd', text: TEXT, meta: { src: 'book' } },
])
const byId = new Map(tree.map((n) => [n.id, n]))
const ancestors = (id) => {
  const out = []
  for (let p = byId.get(id).parentId; p !== null; p = byId.get(p).parentId) out.push(p)
  return out
}
const merged = async (hits, options = {}) =>
  (await new AutoMergingRetriever({ retriever: fixed(hits), store: tree, ...options }).retrieve('q', { topK: 20 })).map(
    (h) => [h.id, h.score, [...h.leafIds].sort()],
  )

test('auto-merging (3 levels): a node the retriever returned absorbs its retrieved descendants', async (t) => {
  t.is(tree.length, 15)
  t.deepEqual(ancestors('d#0.0.1'), ['d#0.0', 'd#0', 'd'])
  // A mid node and one of its leaves: 1 of 2 children is no merge, so both used to come back.
  t.deepEqual(
    await merged([
      { id: 'd#0.0', score: 5 },
      { id: 'd#0.0.0', score: 4 },
    ]),
    [['d#0.0', 5, ['d#0.0', 'd#0.0.0']]],
  )
  // The root and a leaf three levels below it: the root stays, with the leaf's better score.
  t.deepEqual(
    await merged([
      { id: 'd', score: 1 },
      { id: 'd#1.1.1', score: 3 },
    ]),
    [['d', 3, ['d', 'd#1.1.1']]],
  )
  // Two leaves merge into d#0.0, whose parent d#0 was retrieved too: d#0 absorbs the merged node.
  t.deepEqual(
    await merged([
      { id: 'd#0.0.0', score: 2 },
      { id: 'd#0', score: 1 },
      { id: 'd#0.0.1', score: 2 },
    ]),
    [['d#0', 2, ['d#0', 'd#0.0.0', 'd#0.0.1']]],
  )
  // Unrelated nodes stay apart.
  t.deepEqual(
    await merged([
      { id: 'd#0.0.0', score: 2 },
      { id: 'd#1.0', score: 1 },
    ]),
    [
      ['d#0.0.0', 2, ['d#0.0.0']],
      ['d#1.0', 1, ['d#1.0']],
    ],
  )
})

test('auto-merging (3 levels): over random hits of every level no result contains another, and every hit is covered', async (t) => {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  for (let round = 0; round < 300; round++) {
    const hits = tree.filter(() => random() < 0.3).map((n) => ({ id: n.id, score: Math.round(random() * 10) }))
    const threshold = [0.3, 0.5, 0.7][round % 3]
    const out = await merged(hits, { threshold })
    const ids = new Set(out.map(([id]) => id))
    for (const [id] of out) {
      const inside = ancestors(id).filter((a) => ids.has(a))
      t.deepEqual(inside, [], `round ${round}: ${id} is returned with its ancestor`)
    }
    const covered = new Set(out.flatMap(([, , leafIds]) => leafIds))
    t.deepEqual(
      hits.filter((h) => !covered.has(h.id)),
      [],
      `round ${round}: a hit is in no result`,
    )
    for (const [id, score, leafIds] of out)
      t.is(score, Math.max(...hits.filter((h) => leafIds.includes(h.id)).map((h) => h.score)), `round ${round}: ${id}`)
  }
})

test('auto-merging over leaves only (3 levels, uneven fan-out): a merged parent never comes back with a leaf inside it', async (t) => {
  // d#0 has 3 children of 2 leaves each: two children merge, so d#0 merges (2/3 > 0.5), while the lone leaf
  // under the third child (1/2) does not: it is inside d#0, and used to be returned beside it.
  const nodes = new HierarchicalSplitter({ blockSizes: [6, 2, 1], splitBy: 'word' }).split([
    { id: 'd', text: 'a b c d e f g h i j k l' },
  ])
  let gets = 0
  const store = { get: async (ids) => (gets++, ids.map((id) => nodes.find((n) => n.id === id))) }
  const hits = [
    { id: 'd#0.0.0', score: 1 },
    { id: 'd#0.0.1', score: 1 },
    { id: 'd#0.1.0', score: 1 },
    { id: 'd#0.1.1', score: 1 },
    { id: 'd#0.2.0', score: 5 },
    { id: 'd#1.0.0', score: 2 },
  ]
  const out = await new AutoMergingRetriever({ retriever: fixed(hits), store }).retrieve('q', { topK: 10 })
  t.deepEqual(
    out.map((h) => [h.id, h.score, [...h.leafIds].sort()]),
    [
      ['d#0', 5, ['d#0.0.0', 'd#0.0.1', 'd#0.1.0', 'd#0.1.1', 'd#0.2.0']],
      ['d#1.0.0', 2, ['d#1.0.0']],
    ],
  )
  // Leaves that merge nowhere need no climb: the leaves' and their parents' look-ups only.
  gets = 0
  const apart = await new AutoMergingRetriever({
    retriever: fixed([hits[0], hits[5]]),
    store,
  }).retrieve('q', { topK: 10 })
  t.is(apart.length, 2)
  t.is(gets, 2, 'the leaves and their parents, as the merge needs: the climb fetched nothing')
})

test('auto-merged hits carry text and meta: the node for a parent, the index fields over the node for a leaf', async (t) => {
  const r = new AutoMergingRetriever({
    retriever: fixed([
      { id: 'd#0.0.0', score: 2, text: 'ignored: the node has text', meta: { page: 1 } },
      { id: 'd#0.0.1', score: 1 },
      { id: 'd#1.0.0', score: 1, meta: { page: 2, src: 'index' } },
      { id: 'unknown', score: 0.5, text: 'from the index', meta: { x: 1 } },
    ]),
    store: tree,
  })
  const hits = await r.retrieve('q', { topK: 10 })
  const get = (id) => hits.find((h) => h.id === id)
  t.is(get('d#0.0').text, byId.get('d#0.0').text)
  t.deepEqual(get('d#0.0').meta, { src: 'book' })
  t.is(get('d#1.0.0').text, byId.get('d#1.0.0').text)
  t.deepEqual(get('d#1.0.0').meta, { src: 'index', page: 2 })
  t.is(get('unknown').text, 'from the index')
  t.deepEqual(get('unknown').meta, { x: 1 })
  t.is(get('unknown').node, undefined)
})
