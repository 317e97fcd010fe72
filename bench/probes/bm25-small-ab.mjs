// Interleaved A/B of two ragrank builds in one process, on the small BM25 corpora (issue 22):
//   node bench/probes/bm25-small-ab.mjs A_ROOT B_ROOT [corpora] [rounds]
// A_ROOT / B_ROOT hold a package copy (dist/, index.js, package.json, the .node binary). Both index the same
// tokens (the worktree's analyzer for the text corpora, the generated ones for Zipf); the rounds alternate A and B
// over the whole query set, so load from other processes hits both alike. Also times an empty (OOV) query: the
// floor of a call. Checks that both return the same hits (ids and scores) for every query.
import { pathToFileURL } from 'node:url'
import { sequentialPass as pass, smallCorpus } from './small-corpora.mjs'

const [aRoot, bRoot, corporaArg = 'cran,cisi,korquad,ko-sci,zipf-10k', roundsArg = '7'] = process.argv.slice(2)
const load = async (root) => import(pathToFileURL(`${root}/dist/esm/index.js`).href)
const A = await load(aRoot)
const B = await load(bRoot)

const corpus = (name) => smallCorpus(name, new A.Bm25Index())

async function build(mod, docs) {
  const idx = new mod.Bm25Index({ storeText: false })
  idx.add(docs.map((tokens, i) => ({ id: `d${i}`, tokens })))
  idx.search(docs[0].slice(0, 1))
  await new Promise((r) => setTimeout(r, 1500)) // the quiet snapshot precomputes its parts
  return idx
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const rounds = Number(roundsArg)
for (const name of corporaArg.split(',')) {
  const c = await corpus(name)
  const [a, b] = [await build(A, c.docs), await build(B, c.docs)]
  let diff = 0
  for (const q of c.queries) {
    const [x, y] = [a.search(q, { topK: 10 }), b.search(q, { topK: 10 })]
    if (x.length !== y.length || x.some((h, i) => h.id !== y[i].id || h.score !== y[i].score)) diff++
  }
  const oov = [['~no~such~term~']]
  const ta = []
  const tb = []
  const oa = []
  const ob = []
  pass(a, c.queries, 300)
  pass(b, c.queries, 300)
  for (let r = 0; r < rounds; r++) {
    ta.push(pass(a, c.queries, 400))
    tb.push(pass(b, c.queries, 400))
    oa.push(pass(a, oov, 100))
    ob.push(pass(b, oov, 100))
  }
  const us = (ms) => (ms * 1000).toFixed(2)
  console.log(
    `${name}: A ${us(median(ta))} us/q (${Math.round((1 / median(ta)) * 1000)} q/s), B ${us(median(tb))} us/q ` +
      `(${Math.round((1 / median(tb)) * 1000)} q/s), B/A speed ${(median(ta) / median(tb)).toFixed(3)}x; ` +
      `OOV A ${us(median(oa))} B ${us(median(ob))} us; queries with different hits: ${diff}/${c.queries.length}; ` +
      `dense terms B ${b.stats().denseTerms}, memory A ${a.stats().memoryBytes} B ${b.stats().memoryBytes}`,
  )
}
