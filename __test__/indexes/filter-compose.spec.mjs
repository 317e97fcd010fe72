import test from 'ava'
import fc from 'fast-check'
import assert from 'node:assert/strict'
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

// Filters through composite retrievers: every composite passes `filter` to every source, and
// refuses it unless every source declares `supportsFilter`.
//
// What "results equal filtering the full ranking" asserts: the same composition, run with the
// same filter over sources that honour it in their scan, and over sources that instead take
// their full unfiltered ranking and drop the non-matching documents (`postFiltered`), returns
// deep-equal results: the same ids in the same order with bit-identical scores, fusion
// contributions and fields. Exact equality holds because fusion reads only each list's
// ranks and scores, which these two agree on. "An index holding only the matching documents"
// is the same reference only for sources whose scores do not depend on the corpus (cosine over
// a VectorIndex, checked separately): BM25's idf and average length change with the corpus.

const VOCAB = ['apple', 'pear', 'fig', 'kiwi', 'plum', 'lime', 'date', 'yam']
const TENANTS = ['a', 'b', 'c']

// ---- the filter language the indexes share, as a reference predicate ----

const same = (x, y) => JSON.stringify(x) === JSON.stringify(y)
/** `{ ids?, meta? }`: one of `ids`, and every `meta` field equal to the value or one of a list of values. */
function matches(record, filter) {
  if (filter.ids !== undefined && !filter.ids.includes(record.id)) return false
  for (const [key, want] of Object.entries(filter.meta ?? {})) {
    const have = record.meta?.[key]
    if (have === undefined || !(Array.isArray(want) ? want : [want]).some((w) => same(w, have))) return false
  }
  return true
}

// ---- vectors: a bag-of-words embedding, in a real VectorIndex ----

const embed = async (text) => {
  const v = new Float32Array(VOCAB.length + 1)
  v[VOCAB.length] = 0.25 // never a zero vector
  for (const w of text.split(/\s+/)) if (VOCAB.includes(w)) v[VOCAB.indexOf(w)] += 1
  return v
}
/** A real VectorIndex holding each record's embedding and metadata: it filters inside its scan. */
async function vectorIndex(records) {
  const index = new VectorIndex({ dim: VOCAB.length + 1 })
  const items = await Promise.all(records.map(async (r) => ({ id: r.id, vector: await embed(r.text), meta: r.meta })))
  if (items.length > 0) index.add(items)
  return index
}

/** The reference source: the full ranking of `inner` without the filter, then the non-matching documents dropped. */
function postFiltered(inner, records, size) {
  return {
    supportsFilter: true,
    async retrieve(query, { topK = 10, signal, filter } = {}) {
      const all = await inner.retrieve(query, { topK: size, signal })
      return (filter === undefined ? all : all.filter((h) => matches(records.get(h.id), filter))).slice(0, topK)
    },
  }
}

// ---- the corpus: documents, and the same documents split into node trees ----

const split = (docs) =>
  new HierarchicalSplitter({ blockSizes: [6, 2] }).split(docs.map((d) => ({ ...d, id: `s-${d.id}` })))

async function corpus(docs) {
  const records = new Map(docs.map((d) => [d.id, d]))
  const bm25 = new Bm25Index()
  bm25.add(docs)
  const vectors = await vectorIndex(docs)
  const nodes = split(docs)
  const leaves = nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text, meta: n.meta }))
  for (const l of leaves) records.set(l.id, l)
  const nodeBm25 = new Bm25Index()
  nodeBm25.add(leaves)
  const nodeVectors = await vectorIndex(leaves)
  const lookup = new Map([...records.values()].map((r) => [r.id, { text: r.text, meta: r.meta }]))
  const vector = (index) => new VectorRetriever({ index, embed, documents: lookup })
  const real = { bm25, vector: vector(vectors), nodeBm25, nodeVector: vector(nodeVectors) }
  const post = Object.fromEntries(Object.entries(real).map(([k, r]) => [k, postFiltered(r, records, records.size + 1)]))
  /** The records a result's text is made of: a merged node stands for all its leaves. */
  const byNode = new Map(nodes.map((n) => [n.id, n]))
  const coveredBy = (id) => {
    const node = byNode.get(id)
    if (!node || node.childrenIds.length === 0) return [records.get(id)]
    return node.childrenIds.flatMap(coveredBy)
  }
  return { real, post, nodes, coveredBy, records, docs }
}

// ---- random compositions ----

/** A deterministic fake ranker: query-word hits per word of text, ties by input order; results keep id and text, as CrossEncoder's. */
const ranker = {
  async rerank(query, documents, { topK = 10 } = {}) {
    const words = query.split(' ')
    return documents
      .map((d, index) => {
        const text = typeof d === 'string' ? d : d.text
        const tokens = text.split(/\s+/).filter(Boolean)
        const hits = tokens.filter((w) => words.includes(w)).length
        return { id: d.id, text, index, score: hits / (1 + tokens.length) }
      })
      .sort((x, y) => y.score - x.score || x.index - y.index)
      .slice(0, topK)
  },
}
const rewrite = (q) => [q.split(' ').reverse().join(' '), `${q} ${VOCAB[q.length % VOCAB.length]}`]

const spec = (leafKinds, withMerging) =>
  fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('leaf'),
      tie('hybrid'),
      tie('multi'),
      tie('compress'),
      ...(withMerging ? [tie('merge')] : []),
    ),
    leaf: fc.record({ kind: fc.constant('leaf'), leaf: fc.constantFrom(...leafKinds) }),
    hybrid: fc.record({
      kind: fc.constant('hybrid'),
      sources: fc.array(
        fc.record({
          tree: tie('tree'),
          topK: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
          weight: fc.constantFrom(0.5, 1, 2),
        }),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      method: fc.constantFrom('rrf', 'weighted'),
      scoreNormalization: fc.constantFrom('minmax', 'zscore', 'none'),
      candidates: fc.integer({ min: 1, max: 8 }),
    }),
    multi: fc.record({
      kind: fc.constant('multi'),
      tree: tie('tree'),
      candidates: fc.integer({ min: 1, max: 8 }),
      includeOriginal: fc.boolean(),
    }),
    compress: fc.record({
      kind: fc.constant('compress'),
      tree: tie('tree'),
      candidates: fc.integer({ min: 1, max: 8 }),
    }),
    // Auto-merging needs node-level sources below it (and none of its own, so the recursion ends).
    ...(withMerging
      ? {
          merge: fc.record({
            kind: fc.constant('merge'),
            tree: spec(['nodeBm25', 'nodeVector'], false),
            candidates: fc.integer({ min: 1, max: 12 }),
          }),
        }
      : {}),
  })).tree

function build(s, leaves, nodes) {
  switch (s.kind) {
    case 'leaf':
      return leaves[s.leaf]
    case 'hybrid':
      return new HybridRetriever({
        retrievers: s.sources.map((x) => ({ retriever: build(x.tree, leaves, nodes), topK: x.topK, weight: x.weight })),
        method: s.method,
        scoreNormalization: s.method === 'weighted' ? s.scoreNormalization : undefined,
        candidates: s.candidates,
      })
    case 'multi':
      return new MultiQueryRetriever({
        retriever: build(s.tree, leaves, nodes),
        queries: rewrite,
        candidates: s.candidates,
        includeOriginal: s.includeOriginal,
      })
    case 'compress':
      return new CompressionRetriever({ retriever: build(s.tree, leaves, nodes), ranker, candidates: s.candidates })
    case 'merge':
      return new AutoMergingRetriever({
        retriever: build(s.tree, leaves, nodes),
        store: nodes,
        candidates: s.candidates,
      })
  }
}

const docsArb = fc
  .array(
    fc.record({
      words: fc.array(fc.constantFrom(...VOCAB), { minLength: 3, maxLength: 14 }),
      tenant: fc.constantFrom(...TENANTS),
      level: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((rows) =>
    rows.map((r, i) => ({ id: `d${i}`, text: r.words.join(' '), meta: { tenant: r.tenant, level: r.level } })),
  )

const filterArb = (docs, nodeIds) =>
  fc.oneof(
    fc.record({ meta: fc.record({ tenant: fc.constantFrom(...TENANTS) }) }),
    fc.record({ meta: fc.record({ tenant: fc.subarray(TENANTS, { minLength: 1 }) }) }),
    fc.record({ meta: fc.record({ tenant: fc.constantFrom(...TENANTS), level: fc.integer({ min: 0, max: 3 }) }) }),
    fc.record({ ids: fc.subarray([...docs.map((d) => d.id), ...nodeIds]) }),
    fc.record({
      ids: fc.subarray([...docs.map((d) => d.id), ...nodeIds]),
      meta: fc.record({ tenant: fc.constantFrom(...TENANTS) }),
    }),
  )

const queryArb = fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '))

/** A case: a corpus, a composition, a filter, a query and a topK. */
const caseArb = docsArb.chain((docs) => {
  // Leaf ids too, so ids filters reach node-level sources (and can leave a sibling out).
  const nodeIds = split(docs)
    .filter((n) => n.childrenIds.length === 0)
    .map((n) => n.id)
  return fc.record({
    docs: fc.constant(docs),
    tree: spec(['bm25', 'vector'], true),
    filter: filterArb(docs, nodeIds),
    query: queryArb,
    topK: fc.integer({ min: 1, max: 8 }),
    langchain: fc.boolean(),
  })
})

async function run(retriever, query, topK, filter, langchain) {
  if (!langchain) return retriever.retrieve(query, { topK, ...(filter === undefined ? {} : { filter }) })
  const docs = await new RagrankRetriever({ retriever, topK, ...(filter === undefined ? {} : { filter }) }).invoke(
    query,
  )
  return docs.map((d) => ({ id: d.id, pageContent: d.pageContent, metadata: d.metadata }))
}

let excludedSomething = 0

test('property: no composed result violates the filter, and results equal the composition over post-filtered full rankings', async (t) => {
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ docs, tree, filter, query, topK, langchain }) => {
      const c = await corpus(docs)
      const real = build(tree, c.real, c.nodes)
      assert.equal(real.supportsFilter, true, 'every composition of filter-capable sources declares support')
      const got = await run(real, query, topK, filter, langchain)
      for (const r of got) {
        const bad = c.coveredBy(r.id).filter((rec) => !matches(rec, filter))
        if (bad.length > 0)
          throw new Error(`result ${r.id} carries ${bad.map((b) => b.id)} that ${JSON.stringify(filter)} excludes`)
      }
      const expected = await run(build(tree, c.post, c.nodes), query, topK, filter, langchain)
      assert.deepStrictEqual(got, expected)
      // Not vacuous: without the filter, this composition would have returned an excluded document.
      const unfiltered = await run(real, query, topK, undefined, langchain)
      if (unfiltered.some((r) => c.coveredBy(r.id).some((rec) => !matches(rec, filter)))) excludedSomething++
    }),
    { numRuns: 300 },
  )
  t.true(excludedSomething > 20, `only ${excludedSomething} cases had something to exclude`)
})

test('property: over corpus-independent scores, a filtered composition equals it over an index of the matching documents only', async (t) => {
  let nonEmpty = 0
  const vectorOnly = docsArb.chain((docs) =>
    fc.record({
      docs: fc.constant(docs),
      tree: spec(['vector'], false),
      filter: filterArb(docs, []),
      query: queryArb,
      topK: fc.integer({ min: 1, max: 8 }),
    }),
  )
  await fc.assert(
    fc.asyncProperty(vectorOnly, async ({ docs, tree, filter, query, topK }) => {
      const c = await corpus(docs)
      const kept = await vectorIndex(docs.filter((d) => matches(d, filter)))
      const lookup = new Map(docs.map((d) => [d.id, { text: d.text, meta: d.meta }]))
      const onlyMatching = build(
        tree,
        { vector: new VectorRetriever({ index: kept, embed, documents: lookup }) },
        c.nodes,
      )
      const got = await build(tree, c.real, c.nodes).retrieve(query, { topK, filter })
      assert.deepStrictEqual(got, await onlyMatching.retrieve(query, { topK }))
      if (got.length > 0) nonEmpty++
    }),
    { numRuns: 100 },
  )
  t.true(nonEmpty > 20, `only ${nonEmpty} cases returned anything`)
})

// ---- a source that cannot honour a filter ----

const index = new Bm25Index()
index.add([
  { id: 'x1', text: 'apple pear', meta: { tenant: 'a' } },
  { id: 'x2', text: 'apple fig', meta: { tenant: 'b' } },
])

/** A retriever without `supportsFilter` that records whether it ran. */
function plain() {
  const calls = []
  return {
    calls,
    retrieve: async (_query, options) => (calls.push(options), [{ id: 'x2', score: 1, text: 'apple fig' }]),
  }
}

const refuses = (t, error, source, why = /supportsFilter/) => {
  t.true(error instanceof TypeError)
  t.is(error.code, 'ERR_INVALID_ARG')
  t.regex(error.message, source)
  t.regex(error.message, why)
}
const filter = { meta: { tenant: 'a' } }

test('a composite given a filter refuses, before any source runs, a source that does not declare supportsFilter', async (t) => {
  const p = plain()
  let rewrites = 0
  const spy = { supportsFilter: true, calls: 0, retrieve: async (q, o) => (spy.calls++, index.retrieve(q, o)) }
  const composites = [
    new HybridRetriever({ retrievers: [spy, p] }),
    new HybridRetriever({ retrievers: [spy, new HybridRetriever({ retrievers: [spy, { retriever: p, weight: 2 }] })] }),
    new MultiQueryRetriever({ retriever: p, queries: () => (rewrites++, ['fig']) }),
    new CompressionRetriever({ retriever: p, ranker }),
    new AutoMergingRetriever({ retriever: p, store: [] }),
  ]
  for (const r of composites) {
    t.false(r.supportsFilter)
    refuses(t, await t.throwsAsync(r.retrieve('apple', { topK: 3, filter })), /retriever/)
  }
  refuses(t, await t.throwsAsync(composites[0].retrieve('apple', { filter })), /retrievers\[1\]/)
  refuses(t, await t.throwsAsync(composites[1].retrieve('apple', { filter })), /retrievers\[1\] \(HybridRetriever\)/)
  t.is(spy.calls, 0)
  t.is(rewrites, 0)
  t.deepEqual(p.calls, [])
  // Without a filter nothing changes: the source runs and sees no filter key.
  await composites[0].retrieve('apple', { topK: 1 })
  t.deepEqual(Object.keys(p.calls[0]).sort(), ['signal', 'topK'])
})

test('supportsFilter: Bm25Index declares it, a composite iff all its sources do, VectorRetriever iff its index does', (t) => {
  t.is(index.supportsFilter, true)
  const vectorIndex = { search: () => [] }
  const vr = new VectorRetriever({ index: vectorIndex, embed })
  t.false(vr.supportsFilter)
  t.true(new VectorRetriever({ index: { search: () => [], supportsFilter: true }, embed }).supportsFilter)
  t.true(new HybridRetriever({ retrievers: [index, new MultiQueryRetriever({ retriever: index })] }).supportsFilter)
  t.false(new HybridRetriever({ retrievers: [index, vr] }).supportsFilter)
  t.true(new CompressionRetriever({ retriever: index, ranker }).supportsFilter)
  t.false(new CompressionRetriever({ ranker }).supportsFilter, 'without a base retriever there is nothing to filter')
  t.true(new AutoMergingRetriever({ retriever: index, store: [] }).supportsFilter)
})

test('VectorRetriever passes the filter to its index search unchanged, and refuses it when the index does not declare support', async (t) => {
  const seen = []
  const capable = { supportsFilter: true, search: (_q, o) => (seen.push(o), [{ id: 'x1', score: 1 }]) }
  const f = { ids: ['x1'], meta: { tenant: { $in: ['a'] } } }
  await new VectorRetriever({ index: capable, embed }).retrieve('apple', { topK: 2, filter: f })
  t.is(seen[0].filter, f)
  await new VectorRetriever({ index: capable, embed }).retrieve('apple', { topK: 2 })
  t.false('filter' in seen[1])
  let searched = false
  const blind = new VectorRetriever({ index: { search: () => ((searched = true), []) }, embed })
  refuses(t, await t.throwsAsync(blind.retrieve('apple', { filter })), /index of this VectorRetriever/)
  t.false(searched)
})

test('Bm25Index.retrieve honours the filter as search does', async (t) => {
  t.deepEqual(await index.retrieve('apple', { filter }), index.search('apple', { filter }))
  t.deepEqual(
    (await index.retrieve('apple', { filter })).map((h) => h.id),
    ['x1'],
  )
})

test('CompressionRetriever refuses a filter with per-call documents (it cannot filter them)', async (t) => {
  const r = new CompressionRetriever({ ranker })
  refuses(
    t,
    await t.throwsAsync(r.retrieve('apple', { documents: [{ id: 'x2', text: 'apple fig' }], filter: { ids: ['x1'] } })),
    /documents/,
    /filter/,
  )
})

test('RagrankRetriever passes its filter on every call, and refuses one its retriever cannot honour when constructed', async (t) => {
  const lc = new RagrankRetriever({ retriever: new HybridRetriever({ retrievers: [index] }), filter })
  t.deepEqual(
    (await lc.invoke('apple')).map((d) => d.id),
    ['x1'],
  )
  t.deepEqual(
    (await lc.invoke('fig')).map((d) => d.id),
    [],
  )
  refuses(
    t,
    t.throws(() => new RagrankRetriever({ retriever: plain(), filter })),
    /fields\.retriever/,
  )
})

test('auto-merging under a filter merges a parent only when every child matched', async (t) => {
  const nodes = new HierarchicalSplitter({ blockSizes: [2] }).split([
    { id: 'p', text: 'apple pear apple fig apple kiwi', meta: { tenant: 'a' } },
  ])
  const leaves = nodes.filter((n) => n.childrenIds.length === 0)
  t.is(leaves.length, 3)
  const leafIndex = new Bm25Index()
  leafIndex.add(leaves.map((n) => ({ id: n.id, text: n.text, meta: n.meta })))
  const merging = new AutoMergingRetriever({ retriever: leafIndex, store: nodes })
  const twoOfThree = { ids: [leaves[0].id, leaves[1].id] }
  // Unfiltered, 2 of 3 children would merge (> 0.5) and return the third leaf's text.
  t.deepEqual(
    (await merging.retrieve('pear fig')).map((h) => h.id),
    ['p'],
  )
  t.deepEqual(
    (await merging.retrieve('pear fig', { filter: twoOfThree })).map((h) => h.id).sort(),
    twoOfThree.ids.toSorted(),
  )
  const all = await merging.retrieve('apple', { filter: { meta: { tenant: 'a' } } })
  t.deepEqual(
    all.map((h) => [h.id, h.leafIds.length]),
    [['p', 3]],
    'every child matched the filter: merged',
  )
})
