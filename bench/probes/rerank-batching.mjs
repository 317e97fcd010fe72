// How batching settles a cross-encoder's speed: pairs/s of ragrank's CrossEncoder on 4 Cranfield queries x
// their 100 BM25 candidates, for each `tokenBudget[xSessions]` setting, timed in turn over 3 rounds.
//
//   node bench/probes/rerank-batching.mjs <maxLength> <settings> [int8]
//   node bench/probes/rerank-batching.mjs 256 8192x1,512x1,512x2,384x2      (8192x1: the defaults before 2026-11-30)
//
// A setting is a token budget, optionally followed by x and a number of sessions, which share the cores
// (without it: the default sessions). Needs the benchmark model (bench/models/prepare.py) and ../shared/data.
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { Bm25Index, CrossEncoder } from '../../dist/esm/index.js'
import { loadCran } from '../lib/datasets.mjs'
import { modelsDir } from '../lib/paths.mjs'
import { contestant, fmt, interleavedThroughput } from '../lib/harness.mjs'

const MODEL = path.join(modelsDir, 'minilm-l6-cross-encoder')
const [maxLength, settings, int8] = [
  Number(process.argv[2]),
  (process.argv[3] ?? '').split(',').filter(Boolean),
  process.argv[4] === 'int8',
]
if (!maxLength || settings.length === 0) {
  console.error('usage: node bench/probes/rerank-batching.mjs <maxLength> <tokenBudget[xSessions],...> [int8]')
  process.exit(2)
}
const cran = await loadCran()
const index = new Bm25Index()
index.add(cran.docs)
const requests = cran.queries
  .slice(0, 4)
  .map((q) => ({ query: q.text, documents: index.search(q.text, { topK: 100 }).map((h) => h.text) }))
const pairs = requests.reduce((n, r) => n + r.documents.length, 0)

const models = []
for (const setting of settings) {
  const [tokenBudget, sessions] = setting.split('x').map(Number)
  const ce = await CrossEncoder.load(MODEL, {
    maxLength,
    quantized: int8,
    tokenBudget,
    ...(sessions ? { sessions, threads: Math.max(1, Math.floor(availableParallelism() / sessions)) } : {}),
  })
  await ce.rerank(requests[0].query, requests[0].documents.slice(0, 20)) // warm-up
  const pass = async () => {
    for (const r of requests) await ce.rerank(r.query, r.documents, { activation: 'none' })
  }
  models.push({ setting, ce, timing: contestant(pairs, pass) })
}
const rates = await interleavedThroughput(
  models.map((m) => m.timing),
  { repeats: 3, warm: true, settleMs: 0 },
)
for (const m of models) {
  const s = rates.get(m.timing).summary
  const { sessions, threads } = m.ce.runtime
  console.log(
    `max length ${maxLength} ${int8 ? 'int8' : 'fp32'} tokenBudget ${m.setting.split('x')[0]}, ${sessions} x ${threads} thread(s): ${fmt(s.median)} pairs/s (${fmt(s.min)}–${fmt(s.max)})`,
  )
  m.ce.dispose()
}
