// Scores equal bm25s's for identical token streams, for every variant.
// Fixture: scripts/fixtures/make_bm25s_parity.py (runs the real bm25s).
import test from 'ava'
import { readFileSync } from 'node:fs'
import { Bm25Index } from '../../dist/esm/index.js'

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/bm25s-parity.json', import.meta.url), 'utf8'))

for (const c of fixture.cases) {
  test(`${c.method} k1=${c.k1} b=${c.b} delta=${c.delta} matches bm25s`, (t) => {
    const index = new Bm25Index({ variant: c.method, k1: c.k1, b: c.b, delta: c.delta })
    index.add(fixture.corpus.map((tokens, i) => ({ id: String(i), tokens })))
    fixture.queries.forEach((query, qi) => {
      const expected = c.scores[qi]
      const hits = index.search(query, { topK: fixture.corpus.length })
      const known = new Set(query)
      const matching = fixture.corpus
        .map((doc, i) => (doc.some((tok) => known.has(tok)) ? i : -1))
        .filter((i) => i >= 0)
      // ragrank returns exactly the documents that contain a query term.
      t.deepEqual(
        hits.map((h) => Number(h.id)).sort((a, b) => a - b),
        matching,
        `query ${qi}`,
      )
      for (const h of hits) {
        const want = expected[Number(h.id)]
        t.true(
          Math.abs(h.score - want) <= 1e-5 * Math.abs(want) + 1e-6,
          `query ${qi} doc ${h.id}: ${h.score} vs bm25s ${want}`,
        )
      }
      for (let i = 1; i < hits.length; i++) t.true(hits[i - 1].score >= hits[i].score)
    })
  })
}
