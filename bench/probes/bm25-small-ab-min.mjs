// Usage: node bench/probes/bm25-small-ab-min.mjs A_ROOT B_ROOT [corpora] [rounds] (roots as for bm25-small-ab.mjs).
// A/B of two builds under heavy machine load: the queries are cut into chunks of ~1 ms; each round times every chunk
// on A then B (interleaved), and a chunk's figure is its fastest round (a preempted or disturbed run only adds time),
// summed over the chunks. Also: native search of pre-joined strings (no JS wrapper) and of one unknown token (the call
// floor), the same way. Checks equal hits.
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { smallCorpus } from './small-corpora.mjs'
const [aRoot, bRoot, corporaArg = 'cran,cisi,korquad,ko-sci,zipf-10k', roundsArg = '15'] = process.argv.slice(2)
const load = async (root) => ({
  api: await import(pathToFileURL(`${root}/dist/esm/index.js`).href),
  native: (await import(pathToFileURL(`${root}/dist/esm/internal/native.js`).href)).native,
})
const M = { A: await load(aRoot), B: await load(bRoot) }
const corpus = (name) => smallCorpus(name, new M.A.api.Bm25Index())
async function build(m, docs) {
  const idx = new m.api.Bm25Index({ storeText: false })
  idx.add(docs.map((tokens, i) => ({ id: `d${i}`, tokens })))
  const nat = new m.native.NativeBm25Index(JSON.stringify({ storeText: false }), 0)
  nat.add(
    docs.map((tokens, i) => ({ id: `d${i}`, tokens: tokens.join('\0') })),
    false,
    true,
  )
  idx.search(docs[0].slice(0, 1))
  nat.search('x', true, 10, undefined, new Float64Array(64))
  await new Promise((r) => setTimeout(r, 1500))
  return { idx, nat }
}
const out = new Float64Array(64)
const rounds = Number(roundsArg)
for (const name of corporaArg.split(',')) {
  const c = await corpus(name)
  const x = { A: await build(M.A, c.docs), B: await build(M.B, c.docs) }
  let diff = 0
  for (const q of c.queries) {
    const [a, b] = [x.A.idx.search(q, { topK: 10 }), x.B.idx.search(q, { topK: 10 })]
    if (a.length !== b.length || a.some((h, i) => h.id !== b[i].id || h.score !== b[i].score)) diff++
  }
  // chunk size: about 1 ms of work at the quiet per-query cost (estimated from one warm pass of A)
  let t0 = performance.now()
  for (const q of c.queries) x.A.idx.search(q, { topK: 10 })
  const perQ = (performance.now() - t0) / c.queries.length
  const size = Math.max(1, Math.min(c.queries.length, Math.round(0.5 / Math.max(perQ / 3, 1e-4))))
  const chunks = []
  for (let i = 0; i < c.queries.length; i += size) {
    const qs = c.queries.slice(i, i + size)
    chunks.push({ qs, joined: qs.map((q) => q.join('\0')) })
  }
  const kinds = {
    api: (s, ch) => {
      for (const q of ch.qs) s.idx.search(q, { topK: 10 })
    },
    native: (s, ch) => {
      for (const q of ch.joined) s.nat.search(q, true, 10, undefined, out)
    },
    floor: (s, ch) => {
      for (let i = 0; i < ch.qs.length; i++) s.nat.search('~no~', true, 10, undefined, out)
    },
  }
  const best = {}
  for (const k of ['A', 'B']) for (const kind in kinds) best[k + kind] = chunks.map(() => Infinity)
  for (let r = 0; r < rounds; r++) {
    for (const [ci, ch] of chunks.entries()) {
      for (const kind in kinds) {
        for (const k of r % 2 ? ['B', 'A'] : ['A', 'B']) {
          t0 = performance.now()
          kinds[kind](x[k], ch)
          const t = performance.now() - t0
          if (t < best[k + kind][ci]) best[k + kind][ci] = t
        }
      }
    }
  }
  const us = (k, kind) => (best[k + kind].reduce((a, b) => a + b, 0) * 1000) / c.queries.length
  const row = (k) => {
    const api = us(k, 'api'),
      nat = us(k, 'native'),
      fl = us(k, 'floor')
    return `total ${api.toFixed(2)} us (wrapper ${(api - nat).toFixed(2)}, call floor ${fl.toFixed(2)}, search+hits ${(nat - fl).toFixed(2)})`
  }
  console.log(
    `${name}: A ${row('A')} | B ${row('B')} | B/A speed total ${(us('A', 'api') / us('B', 'api')).toFixed(3)}x, ` +
      `native ${(us('A', 'native') / us('B', 'native')).toFixed(3)}x | chunks ${chunks.length} x ${size} q, ${rounds} rounds | different hits ${diff}/${c.queries.length}`,
  )
}
