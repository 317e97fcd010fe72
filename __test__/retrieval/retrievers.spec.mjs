import test from 'ava'
import {
  AbortError,
  Bm25Index,
  HybridRetriever,
  MultiQueryRetriever,
  VectorRetriever,
  fuse,
} from '../../dist/esm/index.js'

const corpus = [
  { id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } },
  { id: 'dog', text: 'a dog chased the cat in the yard', meta: { kind: 'pet' } },
  { id: 'car', text: 'the car drove down the road' },
  { id: 'kitten', text: 'a small kitten is a young feline' },
  { id: 'road', text: 'roads and highways for cars' },
]
const VOCAB = ['cat', 'kitten', 'feline', 'dog', 'car', 'road', 'mat', 'yard', 'small', 'young']

/** A toy embedding: word counts over a fixed vocabulary ("cat" also counts as "feline"), L2-normalised. */
function embedText(text) {
  const v = new Float32Array(VOCAB.length)
  for (const w of text.toLowerCase().split(/\W+/)) {
    const stem = w.replace(/s$/, '')
    const i = VOCAB.indexOf(stem)
    if (i >= 0) v[i] += 1
    if (stem === 'cat' || stem === 'kitten') v[VOCAB.indexOf('feline')] += 1
  }
  const norm = Math.hypot(...v) || 1
  return v.map((x) => x / norm)
}

/** Stand-in for VectorIndex: exact brute-force dot product, ties by insertion order. */
function bruteForceIndex(docs) {
  const rows = docs.map((d) => ({ id: d.id, vector: embedText(d.text) }))
  return {
    calls: [],
    search(query, options = {}) {
      this.calls.push(options)
      const allowed = options.filter?.ids ? new Set(options.filter.ids) : null
      return rows
        .filter((r) => !allowed || allowed.has(r.id))
        .map((r) => ({ id: r.id, score: r.vector.reduce((s, x, i) => s + x * query[i], 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.topK ?? 10)
    },
  }
}

const embed = async (text) => embedText(text)
const bm25 = () => {
  const index = new Bm25Index()
  index.add(corpus)
  return index
}
const documents = new Map(corpus.map((d) => [d.id, { text: d.text, meta: d.meta }]))

/** A retriever whose calls are recorded and settled by the test. */
function manualRetriever() {
  const calls = []
  return {
    calls,
    retrieve(query, options) {
      return new Promise((resolve, reject) => calls.push({ query, options, resolve, reject }))
    },
  }
}
/** A retriever answering from a fixed table of query -> ids, recording calls. */
function tableRetriever(table) {
  const calls = []
  return {
    calls,
    async retrieve(query, options = {}) {
      calls.push({ query, options })
      return (table[query] ?? [])
        .slice(0, options.topK ?? 10)
        .map((id, i) => ({ id, score: 1 - i / 10, text: `${id} text` }))
    },
  }
}
const tick = () => new Promise((r) => setImmediate(r))
const isAbort = { instanceOf: AbortError, code: 'ABORT_ERR' }

// ---- Bm25Index.retrieve ----

test('Bm25Index.retrieve equals search, off the event loop', async (t) => {
  const index = bm25()
  t.deepEqual(await index.retrieve('cat'), index.search('cat'))
  t.deepEqual(await index.retrieve('the', { topK: 2 }), index.search('the', { topK: 2 }))
  t.deepEqual((await index.retrieve('the')).map((h) => h.id).sort(), ['car', 'cat', 'dog'])
  t.deepEqual(await index.retrieve('zebra'), [])
})

test('Bm25Index.retrieve honours an AbortSignal and rejects bad input', async (t) => {
  const index = bm25()
  await t.throwsAsync(index.retrieve('cat', { signal: AbortSignal.abort() }), isAbort)
  const p = index.retrieve(42)
  t.true(p instanceof Promise)
  await t.throwsAsync(p, { instanceOf: TypeError, code: 'ERR_INVALID_ARG' })
  await t.throwsAsync(index.retrieve('cat', { topK: -1 }), { instanceOf: RangeError })
})

// ---- VectorRetriever ----

test('VectorRetriever embeds the query and searches the index, with fields from a lookup', async (t) => {
  const index = bruteForceIndex(corpus)
  const retriever = new VectorRetriever({ index, embed, documents })
  const hits = await retriever.retrieve('feline', { topK: 2 })
  t.deepEqual(
    hits.map((h) => h.id),
    ['kitten', 'cat'],
  )
  t.deepEqual(index.calls.at(-1), { topK: 2 })
  t.is(hits[1].text, corpus[0].text)
  t.deepEqual(hits[1].meta, { kind: 'pet' })
  t.is(hits[0].meta, undefined)
  t.true(hits[0].score > hits[1].score)
})

test('VectorRetriever accepts an Embedder-like object, an async index, number[] vectors and a lookup function', async (t) => {
  const seen = []
  const embedder = {
    async embedQuery(text, options) {
      seen.push([text, options.signal])
      return embedText(text)
    },
  }
  const sync = bruteForceIndex(corpus)
  const asyncIndex = { search: async (q, o) => sync.search(q, o) }
  const lookup = async (id) => (id === 'dog' ? { text: 'woof' } : undefined)
  const signal = new AbortController().signal
  const hits = await new VectorRetriever({ index: asyncIndex, embed: embedder, documents: lookup }).retrieve('dog', {
    signal,
  })
  t.deepEqual(seen, [['dog', signal]])
  t.is(hits[0].id, 'dog')
  t.is(hits[0].text, 'woof')
  const plain = new VectorRetriever({ index: sync, embed: async (text) => Array.from(embedText(text)) })
  t.is((await plain.retrieve('dog'))[0].id, 'dog')
  t.deepEqual(await plain.retrieve('dog', { topK: 0 }), [])
})

test('VectorRetriever rejects bad construction, bad queries and bad embeddings clearly', async (t) => {
  const index = bruteForceIndex(corpus)
  t.throws(() => new VectorRetriever({ index: {}, embed }), { instanceOf: TypeError, message: /search/ })
  t.throws(() => new VectorRetriever({ index, embed: 'openai' }), { instanceOf: TypeError, message: /embed/ })
  t.throws(() => new VectorRetriever({ index, embed, documents: [] }), { instanceOf: TypeError, message: /documents/ })
  t.throws(() => new VectorRetriever(), { instanceOf: TypeError })
  const r = new VectorRetriever({ index, embed })
  await t.throwsAsync(r.retrieve(['cat']), { instanceOf: TypeError, code: 'ERR_INVALID_ARG' })
  await t.throwsAsync(r.retrieve('cat', { topK: 1.5 }), { instanceOf: TypeError })
  await t.throwsAsync(new VectorRetriever({ index, embed: async () => 'v' }).retrieve('x'), {
    instanceOf: TypeError,
    message: /Float32Array/,
  })
  await t.throwsAsync(new VectorRetriever({ index, embed: async () => new Float32Array(0) }).retrieve('x'), {
    instanceOf: RangeError,
  })
  await t.throwsAsync(new VectorRetriever({ index, embed: async () => [1, NaN] }).retrieve('x'), {
    instanceOf: RangeError,
    message: /NaN/,
  })
  const badIndex = { search: () => [{ id: 7, score: 1 }] }
  await t.throwsAsync(new VectorRetriever({ index: badIndex, embed }).retrieve('x'), {
    instanceOf: TypeError,
    message: /index\.search/,
  })
  const failing = new Error('embeddings API down')
  await t.throwsAsync(new VectorRetriever({ index, embed: async () => Promise.reject(failing) }).retrieve('x'), {
    is: failing,
  })
})

test('VectorRetriever aborts even when the embed function ignores the signal', async (t) => {
  let calls = 0
  const hanging = () => {
    calls++
    return new Promise(() => {})
  }
  const r = new VectorRetriever({ index: bruteForceIndex(corpus), embed: hanging })
  await t.throwsAsync(r.retrieve('cat', { signal: AbortSignal.abort() }), isAbort)
  t.is(calls, 0)
  const controller = new AbortController()
  const p = r.retrieve('cat', { signal: controller.signal })
  await tick()
  controller.abort()
  await t.throwsAsync(p, isAbort)
  t.is(calls, 1)
})

// ---- HybridRetriever ----

test('HybridRetriever fuses BM25 and vector results with RRF by default', async (t) => {
  const index = bm25()
  const vectors = new VectorRetriever({ index: bruteForceIndex(corpus), embed, documents })
  const hybrid = new HybridRetriever({ retrievers: [index, vectors] })
  const hits = await hybrid.retrieve('cat', { topK: 3 })
  const expected = fuse([index.search('cat', { topK: 50 }), await vectors.retrieve('cat', { topK: 50 })], { topK: 3 })
  t.deepEqual(hits, expected)
  // 'cat' ranks first in both lists; 'kitten' is found only by the vectors.
  t.is(hits[0].id, 'cat')
  t.deepEqual(
    hits[0].fusion.map((p) => [p.list, p.rank]),
    [
      [0, 1],
      [1, 1],
    ],
  )
  t.true(hits.some((h) => h.id === 'kitten'))
})

test('HybridRetriever: per-retriever depth and weight, weighted fusion, concurrent calls', async (t) => {
  const a = manualRetriever()
  const b = manualRetriever()
  const hybrid = new HybridRetriever({
    retrievers: [{ retriever: a, topK: 3, weight: 2 }, { retriever: b }],
    method: 'weighted',
    scoreNormalization: 'none',
    candidates: 7,
  })
  const p = hybrid.retrieve('q', { topK: 2 })
  await tick()
  t.is(a.calls.length, 1)
  t.is(b.calls.length, 1, 'both retrievers run before either settles')
  t.is(a.calls[0].options.topK, 3)
  t.is(b.calls[0].options.topK, 7)
  t.is(a.calls[0].query, 'q')
  // a returns more than asked: the extra is dropped.
  a.calls[0].resolve(['x', 'y', 'z', 'extra'].map((id) => ({ id, score: 1 })))
  b.calls[0].resolve([
    { id: 'z', score: 5 },
    { id: 'extra', score: 10 },
  ])
  t.deepEqual(
    (await p).map((h) => [h.id, h.score]),
    [
      ['extra', 10],
      ['z', 7],
    ],
  )
  const deep = manualRetriever()
  const p2 = new HybridRetriever({ retrievers: [deep], candidates: 7 }).retrieve('q', { topK: 20 })
  await tick()
  t.is(deep.calls[0].options.topK, 20, 'candidates are at least the requested topK')
  deep.calls[0].resolve([])
  t.deepEqual(await p2, [])
})

test('HybridRetriever rejects when one retriever fails and aborts the others', async (t) => {
  const a = manualRetriever()
  const b = manualRetriever()
  const hybrid = new HybridRetriever({ retrievers: [a, b] })
  const p = hybrid.retrieve('q')
  await tick()
  const failure = new Error('vector store down')
  b.calls[0].reject(failure)
  await t.throwsAsync(p, { is: failure })
  t.true(a.calls[0].options.signal.aborted)
})

test('HybridRetriever with onError skip fuses the rest and reports the skipped', async (t) => {
  const skipped = []
  const failure = new Error('timeout')
  const broken = { retrieve: async () => Promise.reject(failure) }
  const notAList = { retrieve: async () => 'oops' }
  const good = tableRetriever({ q: ['a', 'b'] })
  const hybrid = new HybridRetriever({
    retrievers: [broken, good, notAList],
    onError: 'skip',
    onSkip: (e, i) => skipped.push([e, i]),
  })
  const hits = await hybrid.retrieve('q')
  t.deepEqual(
    hits.map((h) => h.id),
    ['a', 'b'],
  )
  t.deepEqual(
    hits[0].fusion.map((p) => p.list),
    [1],
    'list indices stay retriever indices',
  )
  skipped.sort((x, y) => x[1] - y[1])
  t.is(skipped.length, 2)
  t.deepEqual(skipped[0], [failure, 0])
  t.is(skipped[1][1], 2)
  t.true(skipped[1][0] instanceof TypeError)
  const allBroken = new HybridRetriever({ retrievers: [broken, broken], onError: 'skip' })
  const e = await t.throwsAsync(allBroken.retrieve('q'), { instanceOf: AggregateError, code: 'ERR_ALL_SOURCES_FAILED' })
  t.deepEqual(e.errors, [failure, failure])
})

test('HybridRetriever aborts on the caller signal, even in skip mode, and passes it down', async (t) => {
  const a = manualRetriever()
  const controller = new AbortController()
  const hybrid = new HybridRetriever({ retrievers: [a, tableRetriever({})], onError: 'skip' })
  const p = hybrid.retrieve('q', { signal: controller.signal })
  await tick()
  controller.abort()
  await t.throwsAsync(p, isAbort)
  t.true(a.calls[0].options.signal.aborted)
  await t.throwsAsync(hybrid.retrieve('q', { signal: AbortSignal.abort() }), isAbort)
  t.is(a.calls.length, 1)
})

test('HybridRetriever validates its options and calls', async (t) => {
  const r = tableRetriever({})
  const bad = [
    [{ retrievers: [] }, TypeError, /non-empty array/],
    [{ retrievers: [{}] }, TypeError, /retrievers\[0\]/],
    [{ retrievers: [{ retriever: r, weight: -1 }] }, RangeError, /retrievers\[0\]\.weight/],
    [{ retrievers: [{ retriever: r, weight: 0 }] }, RangeError, /at least one weight/],
    [{ retrievers: [{ retriever: r, topK: 0 }] }, RangeError, /topK must be >= 1/],
    [{ retrievers: [r], method: 'max' }, RangeError, /method/],
    [{ retrievers: [r], rrfK: 0 }, RangeError, /rrfK must be > 0/],
    [{ retrievers: [r], scoreNormalization: 'zscore' }, RangeError, /'weighted' only/],
    [{ retrievers: [r], method: 'weighted', normalize: 'none' }, TypeError, /options\.normalize is not a known option/],
    [{ retrievers: [r], k: 60 }, TypeError, /options\.k is not a known option/],
    [{ retrievers: [r], onError: 'ignore' }, RangeError, /onError/],
    [{ retrievers: [r], onError: true }, TypeError, /onError/],
    [{ retrievers: [r], onSkip: 1 }, TypeError, /onSkip/],
    [{ retrievers: [r], candidates: 0 }, RangeError, /candidates/],
  ]
  for (const [options, type, message] of bad)
    t.throws(() => new HybridRetriever(options), { instanceOf: type, message, code: 'ERR_INVALID_ARG' })
  const hybrid = new HybridRetriever({ retrievers: [r] })
  await t.throwsAsync(hybrid.retrieve(null), { instanceOf: TypeError, code: 'ERR_INVALID_ARG' })
  await t.throwsAsync(hybrid.retrieve('q', { signal: 'stop' }), { instanceOf: TypeError })
  t.deepEqual(await hybrid.retrieve('q', { topK: 0 }), [])
  t.is(r.calls.length, 0)
  const badItems = new HybridRetriever({ retrievers: [{ retrieve: async () => [{ score: 1 }] }] })
  await t.throwsAsync(badItems.retrieve('q'), { instanceOf: TypeError, message: /id must be a non-empty string/ })
})

// ---- MultiQueryRetriever ----

test('MultiQueryRetriever fuses the variants by RRF, not a union', async (t) => {
  const inner = tableRetriever({ q: ['x', 'y'], 'q again': ['z', 'y'] })
  const mq = new MultiQueryRetriever({ retriever: inner, queries: async () => ['q again'] })
  const hits = await mq.retrieve('q')
  // y is second in both lists: 2/62 beats x's and z's 1/61.
  t.deepEqual(
    hits.map((h) => h.id),
    ['y', 'x', 'z'],
  )
  t.is(hits[0].score, 2 / 62)
  t.is(hits[0].text, 'y text')
  t.deepEqual(hits, fuse([await inner.retrieve('q'), await inner.retrieve('q again')]))
})

test('MultiQueryRetriever: the rewrite function, dedupe of variants, includeOriginal, call-time queries', async (t) => {
  const inner = tableRetriever({ q: ['a'], 'b query': ['b'], c: ['c'] })
  const rewriteCalls = []
  const rewrite = async (query, options) => {
    rewriteCalls.push([query, options.signal])
    return ['b query', '  b   query ', '', 'q', 'c', 'b query']
  }
  const mq = new MultiQueryRetriever({ retriever: inner, queries: rewrite })
  const signal = new AbortController().signal
  const hits = await mq.retrieve('q', { topK: 5, signal })
  t.deepEqual(rewriteCalls, [['q', signal]])
  t.deepEqual(
    inner.calls.map((c) => c.query),
    ['q', 'b query', 'c'],
  )
  t.deepEqual(
    inner.calls.map((c) => c.options.topK),
    [50, 50, 50],
  )
  t.deepEqual(
    hits.map((h) => [h.id, h.fusion[0].list]),
    [
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ],
  )
  inner.calls.length = 0
  const noOriginal = new MultiQueryRetriever({
    retriever: inner,
    queries: ['c', 'b query'],
    includeOriginal: false,
    candidates: 3,
  })
  t.deepEqual(
    (await noOriginal.retrieve('q')).map((h) => h.id),
    ['c', 'b'],
  )
  t.deepEqual(
    inner.calls.map((c) => [c.query, c.options.topK]),
    [
      ['c', 10],
      ['b query', 10],
    ],
  )
  inner.calls.length = 0
  t.deepEqual(
    (await noOriginal.retrieve('q', { queries: ['b query'] })).map((h) => h.id),
    ['b'],
  )
  inner.calls.length = 0
  await noOriginal.retrieve('q', { queries: ['  '] })
  t.deepEqual(
    inner.calls.map((c) => c.query),
    ['q'],
    'with no usable variant the original is used',
  )
})

test('MultiQueryRetriever respects its concurrency limit', async (t) => {
  let inFlight = 0
  let maxInFlight = 0
  const slow = {
    async retrieve(query) {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      await new Promise((r) => setTimeout(r, 5))
      inFlight--
      return [{ id: query, score: 1 }]
    },
  }
  const queries = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
  const hits = await new MultiQueryRetriever({
    retriever: slow,
    queries,
    concurrency: 2,
    includeOriginal: false,
  }).retrieve('q', { topK: 10 })
  t.is(maxInFlight, 2)
  t.deepEqual(
    hits.map((h) => h.id),
    queries,
  )
})

test('MultiQueryRetriever failures and aborts', async (t) => {
  const failure = new Error('LLM quota')
  const inner = tableRetriever({ q: ['a'] })
  await t.throwsAsync(
    new MultiQueryRetriever({ retriever: inner, queries: async () => Promise.reject(failure) }).retrieve('q'),
    { is: failure },
  )
  await t.throwsAsync(new MultiQueryRetriever({ retriever: inner, queries: async () => 'one query' }).retrieve('q'), {
    instanceOf: TypeError,
    message: /queries function result/,
  })
  const hangingRewrite = new MultiQueryRetriever({ retriever: inner, queries: () => new Promise(() => {}) })
  const controller = new AbortController()
  const p = hangingRewrite.retrieve('q', { signal: controller.signal })
  await tick()
  controller.abort()
  await t.throwsAsync(p, isAbort)
  const m = manualRetriever()
  const mq = new MultiQueryRetriever({ retriever: m, queries: ['r1', 'r2'] })
  const p2 = mq.retrieve('q')
  await tick()
  t.is(m.calls.length, 3)
  m.calls[1].reject(failure)
  await t.throwsAsync(p2, { is: failure })
  t.true(m.calls[0].options.signal.aborted && m.calls[2].options.signal.aborted)
})

test('MultiQueryRetriever validates its options', async (t) => {
  const r = tableRetriever({})
  t.throws(() => new MultiQueryRetriever({}), { instanceOf: TypeError, message: /retriever/ })
  t.throws(() => new MultiQueryRetriever({ retriever: r, queries: 'x' }), { instanceOf: TypeError, message: /queries/ })
  t.throws(() => new MultiQueryRetriever({ retriever: r, concurrency: 0 }), {
    instanceOf: RangeError,
    message: /concurrency/,
  })
  t.throws(() => new MultiQueryRetriever({ retriever: r, rrfK: 0 }), {
    instanceOf: RangeError,
    message: /rrfK must be > 0/,
  })
  t.throws(() => new MultiQueryRetriever({ retriever: r, includeOriginal: 'yes' }), { instanceOf: TypeError })
  await t.throwsAsync(new MultiQueryRetriever({ retriever: r }).retrieve('q', { queries: [1] }), {
    instanceOf: TypeError,
    message: /options\.queries/,
  })
})

// ---- composition ----

test('retrievers compose: a hybrid of a multi-query BM25 and a vector retriever', async (t) => {
  const index = bm25()
  const multi = new MultiQueryRetriever({ retriever: index, queries: ['kitten', 'feline'] })
  const vectors = new VectorRetriever({ index: bruteForceIndex(corpus), embed, documents })
  const hybrid = new HybridRetriever({ retrievers: [multi, { retriever: vectors, weight: 0.5 }] })
  const hits = await hybrid.retrieve('cat', { topK: 3 })
  const expected = fuse([await multi.retrieve('cat', { topK: 50 }), await vectors.retrieve('cat', { topK: 50 })], {
    weights: [1, 0.5],
    topK: 3,
  })
  t.deepEqual(hits, expected)
  t.deepEqual(
    hits
      .slice(0, 2)
      .map((h) => h.id)
      .sort(),
    ['cat', 'kitten'],
  )
  const outer = new MultiQueryRetriever({ retriever: hybrid, queries: ['dog'] })
  const top = await outer.retrieve('cat', { topK: 2 })
  t.is(top.length, 2)
  t.true(top.every((h) => typeof h.text === 'string'))
})
