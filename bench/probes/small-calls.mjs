// Probe: how ONNX session / thread layouts serve small embed and rerank calls.
// Every layout is loaded side by side through the native encoder (its layout knobs are internal),
// then timed in turn, round after round; cells are the median wall ms per call and the CPU ms the
// process spent per call (all threads: spinning shows up here).
//
//   RAGRANK_DATA=/work/shared/data node bench/probes/small-calls.mjs [e5|minilm|rerank] [layout,...] [rounds]
// PROBE_MS (default 300) is how long each layout runs a workload per round. Results: bench/results/embed.md.
import { loadavg } from 'node:os'
import path from 'node:path'
import { native } from '../../dist/esm/internal/native.js'
import { ensureOnnxRuntime } from '../../dist/esm/models/onnx-runtime.js'
import { loadCran, loadKorquad } from '../lib/datasets.mjs'
import { modelsDir } from '../lib/paths.mjs'

const LAYOUTS = {
  '2x1': { sessions: 2, threads: 1 },
  '2x1+spread': { sessions: 2, threads: 1, spread: true },
  shared2: { sessions: 2, threads: 1, sharedPool: true },
  'shared2+spread': { sessions: 2, threads: 1, sharedPool: true, spread: true },
  shared1: { sessions: 1, threads: 1, sharedPool: true },
  '1x2': { sessions: 1, threads: 2 },
  '1x2-nospin': { sessions: 1, threads: 2, spinning: false },
}
const which = process.argv[2] ?? 'e5'
const names = (process.argv[3] ?? Object.keys(LAYOUTS).join(',')).split(',')
const rounds = Number(process.argv[4] ?? 5)
const model = { e5: 'multilingual-e5-small', minilm: 'minilm-l6-embedder', rerank: 'minilm-l6-cross-encoder' }[which]
const dir = path.join(modelsDir, model)
const maxLength = { e5: 512, minilm: 256, rerank: 256 }[which]

ensureOnnxRuntime()
const files = {
  model: path.join(dir, 'onnx', 'model.onnx'),
  tokenizer: path.join(dir, 'tokenizer.json'),
  tokenizerConfig: path.join(dir, 'tokenizer_config.json'),
  config: path.join(dir, 'config.json'),
}
const loaded = []
for (const n of names)
  loaded.push({ name: n, enc: await native.NativeEncoder.load(files, { maxLength, ...LAYOUTS[n] }) })

const batchOpts = (batchSize, max) => ({ batchSize, tokenBudget: 512, maxLength: max, paddingSide: 'right' })
let workloads
if (which === 'rerank') {
  const cran = loadCran()
  const q = cran.queries.map((x) => x.text)
  const d = cran.docs.map((x) => x.text)
  const call = (nq, nd, max) => (enc) =>
    enc.scorePairs(
      q.slice(0, nq),
      d.slice(0, nd),
      Array.from({ length: nd }, (_, i) => i % nq),
      batchOpts(32, max),
    )
  workloads = [
    ['20 pairs, max 128', [call(1, 20, 128)]],
    ['2 x 20 pairs concurrently, max 128', [call(1, 20, 128), call(1, 20, 128)]],
    ['100 pairs, max 256', [call(1, 100, 256)]],
  ]
} else {
  const data = which === 'e5' ? loadKorquad() : loadCran()
  const [pq, pd] = which === 'e5' ? ['query: ', 'passage: '] : ['', '']
  const q = data.queries.slice(0, 64).map((x) => pq + x.text)
  const d = data.docs.slice(0, 16).map((x) => pd + x.text)
  const call = (texts, bs) => (enc) => enc.embed(texts, 'mean', true, batchOpts(bs))
  workloads = [
    ['1 text', [call(q.slice(0, 1), 32)]],
    ['2 x 1 text concurrently', [call(q.slice(0, 1), 32), call(q.slice(1, 2), 32)]],
    ['8 texts', [call(q.slice(0, 8), 8)]],
    ['4 x 8 texts concurrently', [0, 8, 16, 24].map((o) => call(q.slice(o, o + 8), 8))],
    ['32 texts, batches of 32', [call(q.slice(0, 32), 32)]],
    ['16 paragraphs, batches of 32', [call(d, 32)]],
  ]
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
async function timeOnce(enc, calls, minMs) {
  let n = 0
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  while (performance.now() - t0 < minMs || n < 2) {
    await Promise.all(calls.map((c) => c(enc)))
    n++
  }
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return { wall: wall / n, cpu: (c.user + c.system) / 1000 / n }
}

console.log(
  `# ${model}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${rounds} rounds`,
)
const same = []
for (const [wname, calls] of workloads) {
  const ref = await calls[0](loaded[0].enc)
  for (const { name, enc } of loaded) {
    const out = await calls[0](enc)
    let diff = 0
    for (let i = 0; i < out.length; i++) diff = Math.max(diff, Math.abs(out[i] - ref[i]))
    same.push(`${wname} ${name}: max |diff| vs ${loaded[0].name} ${diff.toExponential(2)}`)
    await timeOnce(enc, calls, 50)
  }
  const walls = new Map(loaded.map((l) => [l.name, []]))
  const cpus = new Map(loaded.map((l) => [l.name, []]))
  for (let r = 0; r < rounds; r++)
    for (const { name, enc } of loaded) {
      const t = await timeOnce(enc, calls, Number(process.env.PROBE_MS ?? 300))
      walls.get(name).push(t.wall)
      cpus.get(name).push(t.cpu)
    }
  const base = median(walls.get(loaded[0].name))
  console.log(
    `${wname.padEnd(36)} ` +
      loaded
        .map(({ name }) => {
          const w = median(walls.get(name))
          return `${name} ${w.toFixed(1)} ms (cpu ${median(cpus.get(name)).toFixed(1)}, ${(base / w).toFixed(2)}x)`
        })
        .join(' | '),
  )
}
console.log(
  `# load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
)
console.log(same.join('\n'))
for (const { enc } of loaded) enc.dispose()
