// Probe: where one `searchBatch(..., { threads: 1 })` spends its time per query on a text collection
// (issue 22, small corpora): the whole call, the native call alone (joined input, packed output), and
// sequential `search`. CPU time of the process per query, best of rounds.
//   RAGRANK_DATA=/work/shared/data node bench/probes/batch-split.mjs [korquad|cran|cisi|ko-sci] [rounds] [batch|seq]
import { cpuUsage } from 'node:process'
import { Bm25Index } from '../../dist/esm/index.js'
import * as ds from '../lib/datasets.mjs'

const name = process.argv[2] ?? 'korquad'
const rounds = Number(process.argv[3] ?? 7)
const loader = { cran: ds.loadCran, cisi: ds.loadCisi, korquad: ds.loadKorquad, 'ko-sci': ds.loadKoSci }[name]
const c = loader()
const idx = new Bm25Index()
idx.add(c.docs.map((d) => ({ id: d.id, tokens: idx.analyze(d.text) })))
await idx.refresh?.()
const qs = c.queries.map((q) => idx.analyze(q.text))
const cpu = () => {
  const u = cpuUsage()
  return (u.user + u.system) / 1e3
}
async function time(label, fn) {
  await fn()
  let best = Infinity
  let bestWall = Infinity
  for (let r = 0; r < rounds; r++) {
    const t0 = cpu()
    const w0 = performance.now()
    let n = 0
    while (performance.now() - w0 < 300) {
      await fn()
      n += qs.length
    }
    best = Math.min(best, ((cpu() - t0) * 1e3) / n)
    bestWall = Math.min(bestWall, ((performance.now() - w0) * 1e3) / n)
  }
  console.log(`${name} ${label}: ${bestWall.toFixed(2)} us wall, ${best.toFixed(2)} us CPU (all threads) per query`)
}
const only = process.argv[4]
if (only !== 'seq') await time('searchBatch threads 1', () => idx.searchBatch(qs, { topK: 10, threads: 1 }))
if (only !== 'batch')
  await time('search sequential', () => {
    for (const q of qs) idx.search(q, { topK: 10 })
  })
console.log(`${qs.length} queries, ${c.docs.length} docs`)
