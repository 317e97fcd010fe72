// Storage 'binary' rescored from f32 (the default) or from int8 (`rescore: 'int8'`) at 1M x 384 synthetic unit
// rows: what each index adds to the resident set, and single-query rates in alternating rounds (the suite times
// engines one after another, which on a shared machine can favour whichever runs first). Reported, not a test.
//
//   node --expose-gc bench/probes/vector-rescore.mjs rss <f32|binary|binary-int8>   one index per process
//   node bench/probes/vector-rescore.mjs ab [rounds=40]                             binary vs binary-int8
import { loadavg } from 'node:os'
import { VectorIndex } from '../../dist/esm/index.js'
import { unitVectors } from '../lib/vectors.mjs'

const N = 1_000_000
const DIM = 384
const options = (variant) => (variant === 'binary-int8' ? { storage: 'binary', rescore: 'int8' } : { storage: variant })
const { data } = unitVectors(N, DIM, 42)
const ids = Array.from({ length: N }, (_, i) => String(i))
const build = (variant) => {
  const index = new VectorIndex({ dim: DIM, ...options(variant) })
  index.add(ids, data)
  return index
}
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
const [mode, arg] = process.argv.slice(2)

if (mode === 'rss') {
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  const index = build(arg)
  globalThis.gc?.()
  const added = process.memoryUsage().rss - before
  // Ids and their hash map are included (about 0.2 GB at 1M).
  console.log(JSON.stringify({ variant: arg, size: index.size, rssMB: Math.round(added / 1e6) }))
} else if (mode === 'ab') {
  const rounds = Number(arg ?? 40)
  const queries = unitVectors(64, DIM, 7).data
  const a = build('binary')
  const b = build('binary-int8')
  const rate = (index) => {
    const t = performance.now()
    for (let i = 0; i < 64; i++) index.search(queries.subarray(i * DIM, (i + 1) * DIM), { topK: 10 })
    return 64_000 / (performance.now() - t)
  }
  rate(a)
  rate(b)
  const ratios = []
  const ra = []
  const rb = []
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first.
    const [x, y] = r % 2 ? [rate(b), rate(a)] : [rate(a), rate(b)]
    const [qa, qb] = r % 2 ? [y, x] : [x, y]
    ra.push(qa)
    rb.push(qb)
    ratios.push(qb / qa)
  }
  console.log(
    JSON.stringify({
      load: loadavg().map((x) => x.toFixed(2)),
      binaryQps: median(ra),
      binaryInt8Qps: median(rb),
      ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    }),
  )
} else {
  throw new Error('usage: vector-rescore.mjs rss <f32|binary|binary-int8> | ab [rounds]')
}
