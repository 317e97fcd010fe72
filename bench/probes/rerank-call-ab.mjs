// Latency of one rerank call (the server's hybrid + rerank shape: 20 candidates, max length 128) for two
// checkouts, in alternating processes, so a neighbour's load falls on both alike.
//
//   node bench/probes/rerank-call-ab.mjs <checkout A> <checkout B> [--pairs 20] [--calls 40] [--rounds 5]
//
// Each checkout needs its addon and dist/ built; the model is bench/.cache/models/minilm-l6-cross-encoder
// (bench/models/prepare.py); TOKEN_BUDGET=<n> loads it with that tokenBudget. Prints each round's median ms per call and, per checkout, the median (min-max).
import { execFileSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { modelsDir } from '../lib/paths.mjs'
import { generateZipf } from '../lib/zipf.mjs'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

if (args[0] === '--child') {
  const [, checkout, pairs, calls] = args
  const { CrossEncoder } = await import(path.join(path.resolve(checkout), 'dist/esm/index.js'))
  const model = await CrossEncoder.load(path.join(modelsDir, 'minilm-l6-cross-encoder'), {
    maxLength: 128,
    ...(process.env.TOKEN_BUDGET ? { tokenBudget: Number(process.env.TOKEN_BUDGET) } : {}),
  })
  const corpus = generateZipf({ nDocs: 1000 })
  const queries = corpus.queries.map((q) => corpus.queryText(q))
  const call = (k) => {
    const docs = Array.from({ length: Number(pairs) }, (_, j) => ({
      id: `d${j}`,
      text: corpus.docText((k * 37 + j) % 1000),
    }))
    return model.rerank(queries[k % queries.length], docs, { topK: 10 })
  }
  for (let k = 0; k < 5; k++) await call(k) // warm-up
  const times = []
  for (let k = 0; k < Number(calls); k++) {
    const t = performance.now()
    await call(k)
    times.push(performance.now() - t)
  }
  process.stdout.write(`${median(times)}\n`)
  process.exit(0)
}

const [a, b] = args
const pairs = flag('pairs', 20)
const calls = flag('calls', 40)
const rounds = flag('rounds', 5)
const self = fileURLToPath(import.meta.url)
console.log(
  `${cpus()[0].model}, ${cpus().length} cores; load ${loadavg()[0].toFixed(2)}; ${pairs} pairs x ${calls} calls x ${rounds} rounds`,
)
const results = { [a]: [], [b]: [] }
for (let r = 0; r < rounds; r++)
  for (const c of r % 2 ? [b, a] : [a, b]) {
    const ms = Number(execFileSync(process.execPath, [self, '--child', c, pairs, calls], { encoding: 'utf8' }).trim())
    results[c].push(ms)
    console.log(`round ${r + 1} ${c}: ${ms.toFixed(1)} ms/call`)
  }
for (const c of [a, b])
  console.log(
    `${c}: median ${median(results[c]).toFixed(1)} ms (${Math.min(...results[c]).toFixed(1)}-${Math.max(...results[c]).toFixed(1)})`,
  )
console.log(`load ${loadavg()[0].toFixed(2)} at the end`)
