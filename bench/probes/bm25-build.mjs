// Build time of a sync `add` of Zipf documents (the BM25 suite's build figure: `new Bm25Index()` + `add(docs)` + the
// first search), for two checkouts in alternating processes, so a neighbour's load falls on both alike.
//
//   node bench/probes/bm25-build.mjs <checkout A> <checkout B> [--docs 100000] [--rounds 5]
//
// Each checkout needs its addon and dist/ built. Prints each round and the median (min-max) per checkout.
import { execFileSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const self = fileURLToPath(import.meta.url)

if (args[0] === '--child') {
  const [, checkout, n] = args
  const { generateZipf } = await import(path.resolve(checkout, 'bench/lib/zipf.mjs'))
  const { Bm25Index } = await import(path.resolve(checkout, 'dist/esm/index.js'))
  const z = generateZipf({ nDocs: Number(n) })
  const docs = Array.from({ length: Number(n) }, (_, i) => ({ id: z.docId(i), tokens: z.docTokens(i) }))
  const query = z.queryTokens(z.queries[0])
  new Bm25Index().add(docs.slice(0, 2000)) // warm-up: JIT and allocator
  const t0 = process.hrtime.bigint()
  const index = new Bm25Index()
  index.add(docs)
  index.search(query, { topK: 10 })
  console.log(Number(process.hrtime.bigint() - t0) / 1e9)
} else {
  const checkouts = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
  const n = flag('docs', 100_000)
  const rounds = flag('rounds', 5)
  const times = checkouts.map(() => [])
  console.log(`${cpus()[0].model} x ${cpus().length}, load ${loadavg()[0].toFixed(2)}, ${n} docs`)
  for (let r = 0; r < rounds; r++) {
    // Rotated so neither checkout always goes first.
    for (let k = 0; k < checkouts.length; k++) {
      const c = (k + r) % checkouts.length
      const out = execFileSync(process.execPath, [self, '--child', checkouts[c], String(n)], { encoding: 'utf8' })
      times[c].push(Number(out.trim()))
    }
    console.log(`round ${r}: ${checkouts.map((c, i) => `${c} ${times[i][r].toFixed(3)} s`).join(', ')}`)
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  for (const [i, c] of checkouts.entries())
    console.log(
      `${c}: median ${med(times[i]).toFixed(3)} s (${Math.min(...times[i]).toFixed(3)}-${Math.max(...times[i]).toFixed(3)})`,
    )
  console.log(`load ${loadavg()[0].toFixed(2)} at the end`)
}
