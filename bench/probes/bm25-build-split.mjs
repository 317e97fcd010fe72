// Where a sync BM25 build of Zipf documents goes, from JS: the add, the first search, and, with --text, the
// same documents as text. Several rounds in one process (the first is warm-up).
//
//   node bench/probes/bm25-build-split.mjs [checkout] [--docs 100000] [--rounds 4]
import path from 'node:path'
import { cpus, loadavg } from 'node:os'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const checkout = path.resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '.')
const { generateZipf } = await import(path.resolve(checkout, 'bench/lib/zipf.mjs'))
const { Bm25Index } = await import(path.resolve(checkout, 'dist/esm/index.js'))
const n = flag('docs', 100_000)
const z = generateZipf({ nDocs: n })
const docs = Array.from({ length: n }, (_, i) => ({ id: z.docId(i), tokens: z.docTokens(i) }))
const query = z.queryTokens(z.queries[0])
console.log(`${cpus()[0].model} x ${cpus().length}, load ${loadavg()[0].toFixed(2)}, ${n} docs, ${checkout}`)
const ms = (t) => (Number(process.hrtime.bigint() - t) / 1e6).toFixed(1)
for (let r = 0; r < flag('rounds', 4); r++) {
  const t0 = process.hrtime.bigint()
  const index = new Bm25Index()
  index.add(docs)
  const added = ms(t0)
  const t1 = process.hrtime.bigint()
  index.search(query, { topK: 10 })
  console.log(`round ${r}: add ${added} ms, first search ${ms(t1)} ms, postings ${index.stats().postings}`)
}
