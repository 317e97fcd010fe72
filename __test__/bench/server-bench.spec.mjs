// The server suite's own logic, without a benchmark run: the peers answer what ragrank answers on the same
// data (so the suite compares like with like), the targets are marked from the numbers, and the soak's trend.
import test from 'ava'
import { Bm25Index, VectorIndex, fuse } from '../../dist/esm/index.js'
import { jsStack, oramaStack } from '../../bench/server/peer-stacks.mjs'
import { targets } from '../../bench/server/report.mjs'
import { trend } from '../../bench/server/soak.mjs'
import { generateUnitVectors } from '../../bench/lib/vectors.mjs'

const DIM = 8
const N = 300
const data = generateUnitVectors(N, DIM, 1)
const vectorOf = (i) => data.subarray(i * DIM, (i + 1) * DIM)
const words = 'amber basalt cobalt dune ember fjord garnet heath inlet jade'.split(' ')
const docs = Array.from({ length: N }, (_, i) => ({
  id: `d${i}`,
  text: `${words[i % 10]} ${words[(i * 3) % 10]} ${words[(i * 7 + 1) % 10]}`,
}))
const query = Array.from(generateUnitVectors(1, DIM, 2))
const ids = (hits) => hits.map((h) => h.id)

function ragrankVectors() {
  const v = new VectorIndex({ dim: DIM })
  v.add(docs.map((d, i) => ({ id: d.id, vector: vectorOf(i) })))
  return v
}

test('the JS cosine loop finds the same top 10 as VectorIndex, and follows adds and removes', (t) => {
  const js = jsStack({ docs, nVectors: N, vectorOf, dim: DIM })
  const ours = ragrankVectors()
  t.deepEqual(ids(js.vector(query, 10)), ids(ours.search(Float32Array.from(query), { topK: 10 })))
  const best = js.vector(query, 1)[0].id
  t.is(js.remove(best), 1)
  ours.remove([best])
  t.deepEqual(ids(js.vector(query, 10)), ids(ours.search(Float32Array.from(query), { topK: 10 })))
  js.add([{ id: 'new', text: 'zircon', vector: query }])
  t.is(js.vector(query, 1)[0].id, 'new')
  t.deepEqual(ids(js.bm25('zircon', 5)), ['new'])
})

test("the JS hybrid is RRF of its two lists, as ragrank's fuse computes it", (t) => {
  const js = jsStack({ docs, nVectors: N, vectorOf, dim: DIM })
  const lists = [js.bm25('ember jade', 50), js.vector(query, 50)]
  const want = fuse(lists, { method: 'rrf', topK: 10 })
  const got = js.hybrid('ember jade', query, 10)
  t.deepEqual(ids(got), ids(want))
})

test('Orama answers the three searches and the writer', async (t) => {
  const orama = await oramaStack({ docs, nVectors: N, vectorOf, dim: DIM })
  const ours = ragrankVectors()
  // Its threshold keeps the best matches of unit vectors in 8 dimensions.
  t.deepEqual(ids(await orama.vector(query, 5)), ids(ours.search(Float32Array.from(query), { topK: 5 })))
  const bm25 = new Bm25Index()
  bm25.add(docs)
  // The same matches (the scores differ: Orama's BM25 parameters are its own).
  const text = await orama.bm25('garnet', N)
  t.true(text.length > 0)
  t.deepEqual(ids(text).sort(), ids(bm25.search('garnet', { topK: N })).sort())
  t.true((await orama.hybrid('garnet', query, 10)).length === 10)
  await orama.add([{ id: 'new', text: 'zircon', vector: query }])
  t.deepEqual(ids(await orama.bm25('zircon', 5)), ['new'])
  t.is(await orama.remove('new'), 1)
  t.deepEqual(await orama.bm25('zircon', 5), [])
  t.is(await orama.remove('new'), 0)
})

const cell = (stack, endpoint, concurrency, writer, rps, p99, more = {}) => ({
  stack,
  endpoint,
  concurrency,
  writer,
  rps,
  p99,
  loopP99: 2,
  ...more,
})

test('targets are marked from the numbers: met, not met, or not measured', (t) => {
  const probe = {
    docs: 1_000_000,
    frozen: { p99: 10 },
    live: { p99: 25 },
    freshnessMs: [100, 300, 900],
    worstStallMs: 4,
  }
  const cells = [
    cell('ragrank', 'bm25', 16, false, 3000, 5),
    cell('js', 'bm25', 16, false, 900, 9),
    cell('orama', 'bm25', 16, false, 1100, 8),
    cell('ragrank', 'vector', 64, false, 800, 90),
    cell('ragrank-per-call', 'vector', 64, false, 150, 400),
    cell('js', 'vector', 64, false, 100, 900),
  ]
  const soak = { minutes: 30, indexBytes: { ratio: 1.02 }, rss: { ratio: 1.3 } }
  const out = targets({ cells, probe, soak })
  const byStart = (s) => out.find((x) => x.target.startsWith(s))
  t.false(byStart('BM25 search p99').met, '25 ms is 2.5x the frozen 10 ms')
  t.true(byStart('a new document').met)
  t.true(byStart('no call blocks').met)
  t.is(byStart('index build').met, null)
  t.true(byStart('vector endpoint').met, '800 / 150 >= 4 and loop p99 2 ms')
  // bm25: 3000 < 3 x 1100 (the better peer); vector: 800 >= 3 x 100 at a lower p99.
  const peers = byStart('every endpoint')
  t.false(peers.met)
  t.regex(peers.measured, /1 of 2 cells met; not met: bm25 c=16/)
  t.false(byStart('memory flat').met, 'RSS grew 1.3x')
  t.is(targets({ cells: [], probe: null, soak: null }).filter((x) => x.met !== null).length, 0)
})

test('trend: medians of the first and last thirds, and the least-squares slope', (t) => {
  const minutes = [0, 1, 2, 3, 4, 5]
  const r = trend(minutes, [10, 12, 14, 16, 18, 20])
  t.is(r.firstThird, 11)
  t.is(r.lastThird, 19)
  t.true(Math.abs(r.slopePerMinute - 2) < 1e-9)
  t.is(trend(minutes, [5, 5, 5, 5, 5, 5]).slopePerMinute, 0)
})
