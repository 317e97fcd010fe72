// bench/rerank.mjs's scheduler: every repeat runs each engine once, rotating who goes first, so
// that drift of a shared machine lands on all engines alike (no model needed).
import test from 'ava'
import { interleaved } from '../bench/rerank.mjs'

test('interleaved runs every engine once per repeat, starting one engine later each repeat', async (t) => {
  const calls = []
  const engine = (label, seconds) => ({ label, engine: { pass: async () => (calls.push(label), seconds) } })
  const requests = [{ query: 'q', documents: ['a', 'b'] }, { query: 'r', documents: ['c', 'd'] }]
  const res = await interleaved([engine('a', 2), engine('b', 4), engine('c', 1)], requests, 3)
  t.deepEqual(calls, ['a', 'b', 'c', 'b', 'c', 'a', 'c', 'a', 'b'])
  // pairs/s = 4 pairs per pass / seconds per pass
  t.deepEqual(
    Object.fromEntries(Object.entries(res).map(([k, v]) => [k, [v.n, v.median]])),
    { a: [3, 2], b: [3, 1], c: [3, 4] },
  )
})

test('interleaved with a single engine is plain repetition', async (t) => {
  let n = 0
  const res = await interleaved([{ label: 'only', engine: { pass: async () => ++n } }], [{ query: 'q', documents: ['a'] }], 4)
  t.is(n, 4)
  t.deepEqual([res.only.max, res.only.min], [1, 1 / 4])
})
