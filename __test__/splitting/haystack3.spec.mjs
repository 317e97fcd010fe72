// Parity with Haystack 3.4.1 on fixtures made by scripts/fixtures/make_haystack3.py: BM25L as
// InMemoryDocumentStore scores it (Lv & Zhai: an absent query term adds 0; and `bm25l` against
// Haystack 2.31's, from make_haystack_bm25l.py in .venv-py), and the
// auto-merging tutorial's pipeline (examples/05) on the committed excerpt and, when the BBC CSV
// is present (../shared/data or RAGRANK_DATA), on BBC News.
import test from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import { Bm25Index } from '../../dist/esm/index.js'
import { BBC_CSV, EXCERPT, readArticles, tutorial } from '../../examples/05-haystack-auto-merging-tutorial.mjs'

const json = (p) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'))
const bm25l = json('../../fixtures/haystack-bm25l.json')

for (const c of bm25l.cases) {
  test(`bm25l-lvzhai k1=${c.k1} b=${c.b} delta=${c.delta} matches Haystack ${bm25l.haystack}`, (t) => {
    const index = new Bm25Index({ variant: 'bm25l-lvzhai', k1: c.k1, b: c.b, delta: c.delta })
    index.add(bm25l.corpus.map((tokens, i) => ({ id: String(i), tokens })))
    bm25l.queries.forEach((query, qi) => {
      const got = new Array(bm25l.corpus.length).fill(0)
      for (const h of index.search(query, { topK: bm25l.corpus.length })) got[Number(h.id)] = h.score
      c.scores[qi].forEach((want, i) =>
        t.true(Math.abs(got[i] - want) <= 1e-5 * Math.abs(want) + 1e-6, `query ${qi} doc ${i}: ${got[i]} vs ${want}`),
      )
    })
  })
}

const bm25l2 = json('../../fixtures/haystack2-bm25l.json')
for (const c of bm25l2.cases) {
  test(`bm25l k1=${c.k1} b=${c.b} delta=${c.delta} matches Haystack ${bm25l2.haystack} on the documents it returns`, (t) => {
    const index = new Bm25Index({ variant: 'bm25l', k1: c.k1, b: c.b, delta: c.delta })
    index.add(bm25l2.corpus.map((tokens, i) => ({ id: String(i), tokens })))
    bm25l2.queries.forEach((query, qi) => {
      // ragrank returns the documents with a query term; Haystack 2.x also scores the others (the shared floor).
      for (const h of index.search(query, { topK: bm25l2.corpus.length })) {
        const want = c.scores[qi][Number(h.id)]
        t.true(
          Math.abs(h.score - want) <= 1e-5 * Math.abs(want) + 1e-6,
          `query ${qi} doc ${h.id}: ${h.score} vs ${want}`,
        )
      }
    })
  })
}

test('bm25l keeps the bm25s / Haystack 2.x formula: documents without a query term share a nonzero floor there, 0 in bm25l-lvzhai', (t) => {
  const docs = bm25l.corpus.map((tokens, i) => ({ id: String(i), tokens }))
  const query = bm25l.queries.find((q) => q.length >= 3)
  const old = new Bm25Index({ variant: 'bm25l' })
  const lz = new Bm25Index({ variant: 'bm25l-lvzhai' })
  old.add(docs)
  lz.add(docs)
  const [a, b] = [old, lz].map((ix) => new Map(ix.search(query, { topK: docs.length }).map((h) => [h.id, h.score])))
  const matching = docs.filter((d) => d.tokens.some((tok) => query.includes(tok)))
  let partial = 0
  for (const d of matching) {
    const missesOne = query.some((tok) => !d.tokens.includes(tok))
    if (missesOne) partial++
    if (missesOne)
      t.true(a.get(d.id) > b.get(d.id) + 1e-6, `doc ${d.id}: the old formula adds idf * tfc(0) per absent term`)
    else t.true(Math.abs(a.get(d.id) - b.get(d.id)) < 1e-5, `doc ${d.id} has every term: the same score`)
  }
  t.true(partial > 0)
})

const tutorialFixture = json('../../fixtures/haystack-tutorial.json')
const key = (r) => `${r.file} L${r.level} ${r.text ?? ''}`
const hitRow = (node, withText) => ({
  file: node.sourceId,
  level: node.level,
  ...(withText ? { text: node.text } : {}),
})

async function compare(t, articles, want, withText) {
  const r = await tutorial(articles)
  t.is(r.searched.length, want.leaves, 'level-1 nodes in the searched store')
  t.is(r.neverRetrievable, want.neverRetrievable)
  const bm25 = r.bm25.map((h) => ({ ...hitRow(h.node, withText), score: h.score }))
  t.deepEqual(bm25.map(key).sort(), want.bm25.map(key).sort(), 'the BM25 top 10')
  // Scores per key, sorted: without text one article's level-1 nodes share a key.
  const scores = (list) => {
    const m = new Map()
    for (const h of list)
      m.set(
        key(h),
        [...(m.get(key(h)) ?? []), h.score].sort((x, y) => x - y),
      )
    return m
  }
  const wantScores = scores(want.bm25)
  for (const [k, got] of scores(bm25))
    got.forEach((s, i) => {
      const w = wantScores.get(k)[i]
      t.true(Math.abs(s - w) <= 1e-5 * w, `${k}: ${s} vs ${w}`)
    })
  t.deepEqual(r.merged.map((h) => key(hitRow(h.node, withText))).sort(), want.merged.map(key).sort(), 'after merging')
  return r
}

test('the auto-merging tutorial on the committed excerpt: same BM25 hits and scores, same merged nodes as Haystack', async (t) => {
  const r = await compare(t, readArticles(EXCERPT), tutorialFixture, true)
  t.true(r.merged.length < r.bm25.length, 'something merged')
  t.true(r.merged.some((h) => h.node.level === 0))
})

test('--all-leaves: the childless roots Haystack cannot handle are retrieved and returned unmerged', async (t) => {
  const articles = readArticles(EXCERPT)
  const r = await tutorial(articles, { allLeaves: true })
  const childless = r.nodes.filter((n) => n.level === 0 && n.childrenIds.length === 0).map((n) => n.id)
  t.true(childless.length > 0)
  const found = r.merged.filter((h) => childless.includes(h.id))
  t.true(found.length > 0, 'a short article is found')
  for (const h of found) t.deepEqual(h.leafIds, [h.id])
})

test('the auto-merging tutorial on BBC News: 10 -> 7, the same nodes as Haystack', async (t) => {
  if (!existsSync(BBC_CSV)) {
    t.log(`skipped: ${BBC_CSV} not found (set RAGRANK_DATA to the data folder)`)
    return t.pass()
  }
  const want = json('../../fixtures/haystack-tutorial-bbc.json')
  const r = await compare(t, readArticles(BBC_CSV), want, false)
  t.is(r.bm25.length, 10)
  t.is(r.merged.length, 7)
})
