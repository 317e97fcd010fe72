// What stored texts add to a sync BM25 search (top 10, token queries): an index without texts, one with, and
// one with `includeFields: false`, on Cranfield (ASCII) and KorQuAD (Korean). Needs the shared data (RAGRANK_DATA).
//
//   node bench/probes/hit-texts.mjs
import { loadKorquad, loadCran } from '../lib/datasets.mjs'
import { Bm25Index } from '../../dist/esm/index.js'
for (const [name, d] of [
  ['cran', loadCran()],
  ['korquad', loadKorquad()],
]) {
  const an = new Bm25Index()
  const qt = d.queries.map((q) => an.analyze(q.text))
  const mk = (withText) => {
    const idx = new Bm25Index()
    idx.add(d.docs.map((x) => ({ id: x.id, tokens: an.analyze(x.text), ...(withText ? { text: x.text } : {}) })))
    idx.search(qt[0])
    return idx
  }
  const a = mk(false),
    b = mk(true)
  await new Promise((r) => setTimeout(r, 1500))
  const avg = d.docs.reduce((s, x) => s + x.text.length, 0) / d.docs.length
  for (let r = 0; r < 3; r++)
    for (const [label, idx, o] of [
      ['no text', a, {}],
      ['text', b, {}],
      ['text, includeFields false', b, { includeFields: false }],
    ]) {
      const t0 = performance.now()
      let n = 0
      for (let p = 0; p < 3; p++)
        for (const q of qt) {
          idx.search(q, { topK: 10, ...o })
          n++
        }
      if (r === 2)
        console.log(
          name,
          `avg text ${avg.toFixed(0)} chars`,
          label,
          (((performance.now() - t0) * 1000) / n).toFixed(2),
          'us/q',
        )
    }
}
