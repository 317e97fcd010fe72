// bench/suites/rerank.mjs's scheduler: every repeat runs each engine once, rotating who goes first, so
// that drift of a shared machine lands on all engines alike (no model needed).
import test from 'ava'
import { interleaved } from '../../bench/suites/rerank.mjs'
import { contestant, interleavedThroughput } from '../../bench/lib/harness.mjs'

test('interleaved runs every engine once per repeat, starting one engine later each repeat', async (t) => {
  const calls = []
  const engine = (label, seconds) => ({ label, engine: { pass: async () => (calls.push(label), seconds) } })
  const requests = [
    { query: 'q', documents: ['a', 'b'] },
    { query: 'r', documents: ['c', 'd'] },
  ]
  const res = await interleaved([engine('a', 2), engine('b', 4), engine('c', 1)], requests, 3)
  t.deepEqual(calls, ['a', 'b', 'c', 'b', 'c', 'a', 'c', 'a', 'b'])
  // pairs/s = 4 pairs per pass / seconds per pass
  t.deepEqual(Object.fromEntries(Object.entries(res).map(([k, v]) => [k, [v.n, v.median]])), {
    a: [3, 2],
    b: [3, 1],
    c: [3, 4],
  })
})

test('interleaved with a single engine is plain repetition', async (t) => {
  let n = 0
  const res = await interleaved(
    [{ label: 'only', engine: { pass: async () => ++n } }],
    [{ query: 'q', documents: ['a'] }],
    4,
  )
  t.is(n, 4)
  t.deepEqual([res.only.max, res.only.min], [1, 1 / 4])
})

test('interleavedThroughput warms each contestant, sizes its passes, and times all in turn each round', async (t) => {
  const calls = []
  const between = []
  // Each pass reports its own seconds: a takes 0.1 s per pass, b 0.25 s.
  const a = contestant(10, (passes) => (calls.push(['a', passes]), 0.1 * passes))
  const b = contestant(4, (passes) => (calls.push(['b', passes]), 0.25 * passes))
  const res = await interleavedThroughput([a, b], {
    repeats: 2,
    minRepeatSeconds: 0.5,
    warmupSeconds: 0.2,
    settleMs: 0,
    between: (r) => between.push(r),
  })
  // Warm-up: passes of one until 0.2 s are spent; then ceil(0.5 / fastest pass) passes per repeat, b first in round 2.
  t.deepEqual(calls, [
    ['a', 1],
    ['a', 1],
    ['b', 1],
    ['a', 5],
    ['b', 2],
    ['b', 2],
    ['a', 5],
  ])
  t.deepEqual(between, [0, 1])
  t.deepEqual(res.get(a).rates, [100, 100])
  t.deepEqual(res.get(b).rates, [16, 16])
})
