import test from 'ava'
import { MultiQueryRetriever, RescoringRetriever } from '../../dist/esm/index.js'

/** A retriever over fixed scores (query ignored) that honours filter.ids, recording its calls. */
function scored(scores, { filters = true } = {}) {
  const calls = []
  return {
    calls,
    supportsFilter: filters,
    async retrieve(_query, options = {}) {
      calls.push(options)
      const ids = options.filter?.ids
      return Object.entries(scores)
        .filter(([id]) => !ids || ids.includes(id))
        .sort((a, b) => b[1] - a[1])
        .slice(0, options.topK ?? 10)
        .map(([id, score]) => ({ id, score }))
    },
  }
}

test('rescoring: candidates come only from the source; 0.4 sparse + 0.6 dense over those, raw scores with none', async (t) => {
  const sparse = scored({ a: 3, b: 2, c: 1, d: 0.5 })
  // z is the best dense match, but not a sparse candidate: a fusion would rank it first.
  const dense = scored({ z: 0.99, c: 0.9, b: 0.2, a: 0.1, d: 0.3 })
  const r = new RescoringRetriever({
    candidates: { retriever: sparse, topK: 3, weight: 0.4 },
    rescorers: [{ retriever: dense, weight: 0.6 }],
    scoreNormalization: 'none',
  })
  const out = await r.retrieve('q', { topK: 3 })
  const want = { a: 0.4 * 3 + 0.6 * 0.1, b: 0.4 * 2 + 0.6 * 0.2, c: 0.4 * 1 + 0.6 * 0.9 }
  t.deepEqual(
    out.map((d) => d.id),
    ['a', 'c', 'b'],
    'c, third by sparse, passes b on its dense score',
  )
  for (const d of out) t.true(Math.abs(d.score - want[d.id]) < 1e-12, d.id)
  t.deepEqual(dense.calls[0].filter.ids.sort(), ['a', 'b', 'c'], 'the dense lookup is restricted to the candidates')
  t.is(dense.calls[0].topK, 3)
  t.deepEqual(
    out[1].fusion.map((f) => f.list),
    [0, 1],
  )
})

test('rescoring: minmax by default; a candidate a rescorer misses gets 0 from it; a filter reaches both', async (t) => {
  const sparse = scored({ a: 3, b: 2, c: 1 })
  const dense = scored({ c: 0.9, b: 0.5 }) // knows nothing of a
  const r = new RescoringRetriever({ candidates: sparse, rescorers: [dense] })
  const out = await r.retrieve('q', { topK: 3, filter: { meta: { lang: 'en' } } })
  // minmax: sparse a 1, b 0.5, c 0; dense c 1, b 0; a missing: 0.
  t.deepEqual(
    out.map((d) => [d.id, d.score]),
    [
      ['a', 1],
      ['c', 1],
      ['b', 0.5],
    ],
  )
  t.deepEqual(sparse.calls[0].filter, { meta: { lang: 'en' } })
  t.deepEqual(dense.calls[0].filter.meta, { lang: 'en' })
  t.is(sparse.calls[0].topK, 10, 'default candidate depth 10')
})

test('rescoring: a rescorer that cannot take filter.ids is refused; bad options are TypeError/RangeError', async (t) => {
  const ok = scored({ a: 1 })
  t.throws(() => new RescoringRetriever({ candidates: ok, rescorers: [scored({}, { filters: false })] }), {
    instanceOf: TypeError,
    message: /supportsFilter/,
  })
  t.throws(() => new RescoringRetriever({ candidates: ok, rescorers: [] }), { instanceOf: TypeError })
  t.throws(() => new RescoringRetriever({ candidates: {}, rescorers: [ok] }), { instanceOf: TypeError })
  t.throws(() => new RescoringRetriever({ candidates: { retriever: ok, topK: 0 }, rescorers: [ok] }), {
    instanceOf: RangeError,
  })
  t.throws(() => new RescoringRetriever({ candidates: ok, rescorers: [{ retriever: ok, weight: -1 }] }), {
    instanceOf: RangeError,
  })
  t.throws(() => new RescoringRetriever({ candidates: ok, rescorers: [ok], scoreNormalization: 'l2' }), {
    code: 'ERR_INVALID_ARG',
  })
  // A rescorer that ignores ids anyway cannot bring in a non-candidate.
  const leaky = {
    supportsFilter: true,
    retrieve: async () => [
      { id: 'zz', score: 9 },
      { id: 'a', score: 1 },
    ],
  }
  const out = await new RescoringRetriever({ candidates: ok, rescorers: [leaky] }).retrieve('q')
  t.deepEqual(
    out.map((d) => d.id),
    ['a'],
  )
  t.deepEqual(await new RescoringRetriever({ candidates: scored({}), rescorers: [ok] }).retrieve('q'), [])
  const broken = { retrieve: async () => [undefined] }
  await t.throwsAsync(new RescoringRetriever({ candidates: broken, rescorers: [ok] }).retrieve('q'), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
  })
})

test("multi-query merge 'max' ranks by each document's best score over the variants, 'sum' by the sum", async (t) => {
  const table = {
    q: { a: 0.9, b: 0.5 },
    v1: { b: 0.8, c: 0.95 },
    v2: { b: 0.7, a: 0.1 },
  }
  const retriever = {
    async retrieve(query, options = {}) {
      return Object.entries(table[query] ?? {})
        .sort((x, y) => y[1] - x[1])
        .slice(0, options.topK)
        .map(([id, score]) => ({ id, score }))
    },
  }
  const max = new MultiQueryRetriever({ retriever, queries: ['v1', 'v2'], merge: 'max' })
  const out = await max.retrieve('q', { topK: 3 })
  t.deepEqual(
    out.map((d) => [d.id, d.score]),
    [
      ['c', 0.95],
      ['a', 0.9],
      ['b', 0.8],
    ],
  )
  t.is(
    out[2].fusion.reduce((s, f) => s + f.contribution, 0),
    0.8,
    'the best list carries the score',
  )
  const sum = await new MultiQueryRetriever({ retriever, queries: ['v1', 'v2'], merge: 'sum' }).retrieve('q', {
    topK: 3,
  })
  t.deepEqual(
    sum.map((d) => d.id),
    ['b', 'a', 'c'],
  )
  t.true(Math.abs(sum[0].score - 2.0) < 1e-12)
  t.throws(() => new MultiQueryRetriever({ retriever, merge: 'mean' }), { instanceOf: RangeError })
  t.throws(() => new MultiQueryRetriever({ retriever, merge: 'max', rrfK: 10 }), { instanceOf: RangeError })
})

test('rescoring with the real indexes: BM25 candidates, the dense score looked up for those ids only', async (t) => {
  const { Bm25Index, VectorIndex, VectorRetriever } = await import('../../dist/esm/index.js')
  const docs = [
    { id: 'a', text: 'cats sleep all day', v: [1, 0, 0] },
    { id: 'b', text: 'cats and dogs', v: [0, 1, 0] },
    { id: 'c', text: 'dogs bark', v: [0.9, 0.1, 0] },
    { id: 'z', text: 'felines nap', v: [1, 0, 0] }, // the best dense match, no shared word
  ]
  const bm25 = new Bm25Index()
  bm25.add(docs.map(({ id, text }) => ({ id, text })))
  const vectors = new VectorIndex({ dim: 3 })
  vectors.add(docs.map(({ id, v }) => ({ id, vector: new Float32Array(v) })))
  const dense = new VectorRetriever({ index: vectors, embed: async () => new Float32Array([1, 0, 0]) })
  const r = new RescoringRetriever({
    candidates: { retriever: bm25, weight: 0.4 },
    rescorers: [{ retriever: dense, weight: 0.6 }],
  })
  const out = await r.retrieve('cats', { topK: 5 })
  t.deepEqual(out.map((d) => d.id).sort(), ['a', 'b'], 'only the BM25 candidates, never z')
  t.is(out[0].id, 'a')
  const filtered = await r.retrieve('cats', { topK: 5, filter: { ids: ['b', 'z'] } })
  t.deepEqual(
    filtered.map((d) => d.id),
    ['b'],
  )
})
