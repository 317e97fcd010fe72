// Memory of a VectorIndex under churn: a fixed number of live vectors, each round adding vectors under new ids and
// removing as many old ones (plus upserts), while searches run. Removed rows are tombstones until a merge reclaims
// them, so RSS should level off instead of growing with the number of writes. Prints RSS every few seconds and the
// index's size. Reported, not a test.
//
//   node bench/probes/vector-churn.mjs [live=10000] [dim=384] [seconds=60] [writesPerRound=100]
import { VectorIndex } from 'ragrank'
import { randomVectors } from '../../fixtures/random-vectors.mjs'

const [live = 10_000, dim = 384, seconds = 60, perRound = 100] = process.argv.slice(2).map(Number)
const index = new VectorIndex({ dim })
let next = 0
const add = (n) => {
  const ids = Array.from({ length: n }, () => `d${next++}`)
  index.add(ids, randomVectors(n, dim, next))
}
add(live)
const q = randomVectors(1, dim, 1)
const mb = (b) => (b / 2 ** 20).toFixed(0)
const start = performance.now()
let oldest = 0
let writes = 0
let lastReport = 0
console.log('seconds  writes     size  rss MB')
while (performance.now() - start < seconds * 1000) {
  add(perRound)
  index.remove(Array.from({ length: perRound }, () => `d${oldest++}`))
  index.add([`d${next - 1}`], randomVectors(1, dim, writes), { upsert: true })
  writes += 2 * perRound + 1
  await index.searchAsync(q, { topK: 10 })
  const t = (performance.now() - start) / 1000
  if (t - lastReport >= seconds / 10) {
    lastReport = t
    console.log(
      `${t.toFixed(0).padStart(7)}  ${String(writes).padStart(6)}  ${String(index.size).padStart(7)}  ${mb(process.memoryUsage().rss).padStart(6)}`,
    )
  }
}
