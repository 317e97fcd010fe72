// Live-update probe for Bm25Index: frozen query latency, the first search after adding one
// document, the cost of a small write against index size, and a build in CLI-sized chunks.
//
//   node bench/probes/bm25-live.mjs [--entry dist/esm/index.js] [--sizes 200000,1000000] [--queries 1000]
//
// `--entry` lets the same probe run against another build (e.g. a copy of the previous dist)
// for a before/after comparison on one machine. Zipf corpora of bench/lib/zipf.mjs, built
// from tokens (no analysis), stored text off.
import { performance } from 'node:perf_hooks'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { generateZipf } from '../lib/zipf.mjs'
import { distEntry } from '../lib/paths.mjs'

const args = process.argv.slice(2)
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const entry = path.resolve(arg('entry', distEntry))
const sizes = arg('sizes', '200000').split(',').map(Number)
const nQueries = Number(arg('queries', '1000'))
const { Bm25Index } = await import(pathToFileURL(entry).href)

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
const ms = (x) => x.toFixed(3)

const zipf = generateZipf({ nDocs: Math.max(...sizes) + 20_000, nQueries })
const doc = (i) => ({ id: `d${i}`, tokens: zipf.docTokens(i) })
const queries = zipf.queries.map((q) => zipf.queryTokens(q))

for (const n of sizes) {
  const docs = Array.from({ length: n }, (_, i) => doc(i))
  const index = new Bm25Index({ storeText: false })
  let t0 = performance.now()
  await index.addAsync(docs)
  const build = performance.now() - t0
  // Frozen: warm up, then each query timed alone.
  for (const q of queries.slice(0, 100)) index.search(q)
  const lat = queries.map((q) => {
    const s = performance.now()
    index.search(q, { topK: 10 })
    return performance.now() - s
  })
  // One document added, then the first search (a change used to rebuild every impact).
  const firsts = []
  const adds = []
  for (let r = 0; r < 5; r++) {
    const s = performance.now()
    index.add([doc(n + r)])
    const a = performance.now()
    index.search(queries[r], { topK: 10 })
    adds.push(a - s)
    firsts.push(performance.now() - a)
  }
  // Remove + add one document (a replacement), then search.
  const churn = []
  for (let r = 0; r < 5; r++) {
    const s = performance.now()
    index.remove([`d${r}`])
    index.add([doc(n + 100 + r)])
    index.search(queries[r + 5], { topK: 10 })
    churn.push(performance.now() - s)
  }
  const stats = index.stats()
  console.log(
    JSON.stringify({
      entry: path.relative(process.cwd(), entry),
      n,
      buildMs: Math.round(build),
      frozenP50: ms(pct(lat, 0.5)),
      frozenP99: ms(pct(lat, 0.99)),
      frozenMean: ms(lat.reduce((a, b) => a + b, 0) / lat.length),
      addOneMs: ms(pct(adds, 0.5)),
      firstSearchAfterAddMs: ms(pct(firsts, 0.5)),
      removeAddSearchMs: ms(pct(churn, 0.5)),
      segments: stats.segments,
    }),
  )
  // CLI-sized chunks: 2,000 documents per sync add.
  const chunked = new Bm25Index({ storeText: false })
  t0 = performance.now()
  for (let i = 0; i < n; i += 2000) {
    chunked.add(docs.slice(i, i + 2000))
    chunked.search(queries[0])
  }
  const chunkMs = performance.now() - t0
  // The CLI's way (cli/pipeline.mjs): chunks only staged, one refresh at the end.
  // (A build without `refresh` has no `refreshInterval` either: its strict options would reject it.)
  const stagedSupported = typeof Bm25Index.prototype.refresh === 'function'
  const staged = new Bm25Index(stagedSupported ? { storeText: false, refreshInterval: 0 } : { storeText: false })
  t0 = performance.now()
  for (let i = 0; i < n; i += 2000) staged.add(docs.slice(i, i + 2000), stagedSupported ? { refresh: false } : {})
  if (stagedSupported) await staged.refresh()
  const stagedMs = performance.now() - t0
  // One sync add of everything, the API baseline of the CLI target.
  const one = new Bm25Index({ storeText: false })
  t0 = performance.now()
  one.add(docs)
  const oneMs = performance.now() - t0
  console.log(
    JSON.stringify({
      n,
      oneAddMs: Math.round(oneMs),
      chunks2000SearchEachMs: Math.round(chunkMs),
      chunks2000StagedThenRefreshMs: stagedSupported ? Math.round(stagedMs) : null,
      oneAddAsyncMs: Math.round(build),
    }),
  )
}
