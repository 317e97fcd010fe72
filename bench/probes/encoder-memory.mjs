// Resident memory of a CrossEncoder at load and after scoring 2 x 200 Cranfield pairs, for one batching
// setting per process (a session's arena keeps the buffers of its largest batch).
//
//   node bench/probes/encoder-memory.mjs <tokenBudget> <sessions> <maxLength> [int8]
//   node bench/probes/encoder-memory.mjs 8192 1 512 && node bench/probes/encoder-memory.mjs 512 2 512
import path from 'node:path'
import { CrossEncoder } from '../../dist/esm/index.js'
import { loadCran } from '../lib/datasets.mjs'
import { modelsDir } from '../lib/paths.mjs'
const MODEL = path.join(modelsDir, 'minilm-l6-cross-encoder')
const [budget, sessions, maxLength, quant] = [
  +process.argv[2],
  +process.argv[3],
  +process.argv[4],
  process.argv[5] === 'int8',
]
const cran = await loadCran()
const docs = cran.docs.slice(0, 200).map((d) => d.text)
const before = process.memoryUsage().rss
const ce = await CrossEncoder.load(MODEL, {
  maxLength,
  quantized: quant,
  tokenBudget: budget,
  sessions,
  threads: Math.max(1, 2 / sessions),
})
const loaded = process.memoryUsage().rss
for (let i = 0; i < 2; i++) await ce.rerank('flow over a wing', docs)
const after = process.memoryUsage().rss
console.log(
  `budget ${budget} sessions ${sessions} max ${maxLength} ${quant ? 'int8' : 'fp32'}: load +${((loaded - before) / 2 ** 20).toFixed(0)} MiB, after 400 pairs +${((after - before) / 2 ** 20).toFixed(0)} MiB`,
)
