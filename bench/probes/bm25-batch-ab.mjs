// Interleaved A/B of two ragrank builds in one process: one `searchBatch(allQueries, { topK: 10, threads: 1 })`
// (the shape of bm25s + numba's single-thread `retrieve`) and sequential `search`, on the small BM25 corpora with
// their own document ids (KorQuAD's are Korean titles), issue 22:
//   node bench/probes/bm25-batch-ab.mjs A_ROOT B_ROOT [corpora] [rounds]
// A_ROOT / B_ROOT hold a package copy (dist/, index.js, package.json, the .node binary). Rounds alternate A and B;
// cells are the median us per query (wall). Checks that both builds return the same hits for every query. The batch
// column favours the build loaded first by about 15% (bm25-small/README.md, session 18): run both orders.
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { sequentialPass, smallCorpus } from './small-corpora.mjs'

const [aRoot, bRoot, corporaArg = 'cran,cisi,korquad,ko-sci,zipf-10k', roundsArg = '7'] = process.argv.slice(2)
const load = async (root) => import(pathToFileURL(`${root}/dist/esm/index.js`).href)
const A = await load(aRoot)
const B = await load(bRoot)

async function build(mod, c) {
  const idx = new mod.Bm25Index({ storeText: false })
  idx.add(c.docs.map((tokens, i) => ({ id: c.ids[i], tokens })))
  idx.search(c.docs[0].slice(0, 1))
  await new Promise((r) => setTimeout(r, 1500)) // the quiet snapshot precomputes its parts
  return idx
}

async function batchPass(idx, queries, minMs) {
  let n = 0
  const t0 = performance.now()
  do {
    await idx.searchBatch(queries, { topK: 10, threads: 1 })
    n += queries.length
  } while (performance.now() - t0 < minMs)
  return ((performance.now() - t0) * 1e3) / n
}

const seqPass = (idx, queries, minMs) => sequentialPass(idx, queries, minMs) * 1e3

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const rounds = Number(roundsArg)
console.log('corpus | batch1 A us/q | batch1 B us/q | B/A speed-up | search A | search B | B/A | different hits')
for (const name of corporaArg.split(',')) {
  const c = await smallCorpus(name, new A.Bm25Index())
  const [a, b] = [await build(A, c), await build(B, c)]
  const [ha, hb] = [await a.searchBatch(c.queries, { topK: 10 }), await b.searchBatch(c.queries, { topK: 10 })]
  const differ = ha.filter((h, i) => JSON.stringify(h) !== JSON.stringify(hb[i])).length
  const t = { ba: [], bb: [], sa: [], sb: [] }
  await batchPass(a, c.queries, 200)
  await batchPass(b, c.queries, 200)
  for (let r = 0; r < rounds; r++) {
    t.ba.push(await batchPass(a, c.queries, 400))
    t.bb.push(await batchPass(b, c.queries, 400))
    t.sa.push(seqPass(a, c.queries, 400))
    t.sb.push(seqPass(b, c.queries, 400))
  }
  const [ba, bb, sa, sb] = [median(t.ba), median(t.bb), median(t.sa), median(t.sb)]
  console.log(
    `${name} | ${ba.toFixed(2)} | ${bb.toFixed(2)} | ${(ba / bb).toFixed(2)}x | ${sa.toFixed(2)} | ${sb.toFixed(2)} | ${(sa / sb).toFixed(2)}x | ${differ} / ${c.queries.length}`,
  )
}
