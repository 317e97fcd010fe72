// Many small adds staged without a refresh: what an add and a `has` cost as the staged writes pile up
// (each staged write's ids were once a set of their own that every later write and `has` walked).
//   node bench/probes/staged-adds.mjs [adds=40000]
import { Bm25Index } from '../../dist/esm/index.js'

const adds = Number(process.argv[2] ?? 40_000)
const index = new Bm25Index({ refreshInterval: null })
const window = adds / 4
let t0 = performance.now()
for (let i = 0; i < adds; i++) {
  index.add([{ id: `d${i}`, text: `token${i % 997} word${i % 31} staged` }], { refresh: false })
  if ((i + 1) % window === 0) {
    const t1 = performance.now()
    for (let j = 0; j < 1000; j++) index.has(`d${(j * 7919) % (i + 1)}`)
    const has = (performance.now() - t1) / 1000
    console.log(
      `${(i + 1).toLocaleString('en-US')} staged: ${((1000 * (performance.now() - t0 - has * 1000)) / window).toFixed(1)} us an add (last ${window}), has ${(1000 * has).toFixed(1)} us`,
    )
    t0 = performance.now()
  }
}
t0 = performance.now()
await index.refresh()
console.log(
  `refresh of ${index.pending} left, ${adds} searchable: ${(performance.now() - t0).toFixed(0)} ms, size ${index.size}`,
)
