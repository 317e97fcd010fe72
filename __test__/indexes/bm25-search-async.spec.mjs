// Bm25Index.searchAsync (and retrieve, which uses it): search off the event loop with concurrent
// calls coalesced into native batches; the hits equal the sync search's.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-bm25-async-'))
test.after.always(() => rmSync(dir, { recursive: true, force: true }))

const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta']
function corpus(n) {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    text: Array.from({ length: 3 + (i % 7) }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
    meta: { group: i % 3 },
  }))
}
const queries = Array.from({ length: 48 }, (_, i) => `${words[i % 10]} ${words[(i * 3 + 1) % 10]}`)
const options = (i) =>
  [
    { topK: 5 },
    { topK: 3, filter: { meta: { group: 1 } } },
    { topK: 7, filter: { ids: ['d1', 'd2', 'd3', 'd40', 'd41'] } },
    { topK: 4, includeFields: false },
  ][i % 4]

test('concurrent searchAsync calls of mixed options equal search, hit for hit', async (t) => {
  const index = new Bm25Index()
  index.add(corpus(500))
  const got = await Promise.all(queries.map((q, i) => index.searchAsync(q, options(i))))
  got.forEach((hits, i) => t.deepEqual(hits, index.search(queries[i], options(i)), `query ${i}`))
  t.true(got.some((h) => h.length > 0))
  // Token queries too, and retrieve (the Retriever contract) gives the same.
  const tokens = await Promise.all(queries.map((q) => index.searchAsync(q.split(' '), { topK: 5 })))
  tokens.forEach((hits, i) => t.deepEqual(hits, index.search(queries[i].split(' '), { topK: 5 })))
  const retrieved = await Promise.all(queries.map((q, i) => index.retrieve(q, options(i))))
  t.deepEqual(retrieved, got)
})

test('coalesce: false runs each call alone with the same hits; bad coalesce options throw', async (t) => {
  const plain = new Bm25Index({ coalesce: false })
  plain.add(corpus(200))
  for (const [i, q] of queries.slice(0, 8).entries()) {
    t.deepEqual(await plain.searchAsync(q, options(i)), plain.search(q, options(i)))
  }
  t.throws(() => new Bm25Index({ coalesce: { maxBatch: 0 } }), { instanceOf: RangeError })
  t.throws(() => new Bm25Index({ coalesce: 'on' }), { instanceOf: TypeError })
  t.throws(() => new Bm25Index({ coalesce: { wait: 1 } }), { instanceOf: TypeError, message: /wait/ })
})

test('a bad query or option rejects its own call only; an aborted call rejects alone', async (t) => {
  const index = new Bm25Index()
  index.add(corpus(100))
  const ac = new AbortController()
  const calls = [
    index.searchAsync('alpha', { topK: 3 }),
    index.searchAsync(42, { topK: 3 }),
    index.searchAsync('alpha', { topK: 3, signal: ac.signal }),
    index.searchAsync('alpha', { topK: 3, top: 1 }),
    index.searchAsync('alpha', { topK: 3 }),
  ]
  ac.abort()
  const [a, bad, aborted, unknown, b] = await Promise.allSettled(calls)
  t.is(a.value.length, 3)
  t.deepEqual(a.value, b.value)
  t.true(bad.reason instanceof TypeError, String(bad.reason))
  t.is(aborted.reason.name, 'AbortError')
  t.true(unknown.reason instanceof TypeError && /top\b/.test(unknown.reason.message), String(unknown.reason))
  await t.throwsAsync(index.searchAsync('alpha', { topK: -1 }), { instanceOf: RangeError })
  await t.throwsAsync(index.searchAsync('alpha', { signal: AbortSignal.abort() }), { name: 'AbortError' })
})

test('searchAsync sees the writes published before the call, like search', async (t) => {
  const index = new Bm25Index()
  index.add(corpus(50))
  const before = index.searchAsync('omega', { topK: 100 })
  index.add([{ id: 'new', text: 'omega omega omega' }])
  const after = await index.searchAsync('omega', { topK: 100 })
  t.true(after.some((h) => h.id === 'new'))
  t.deepEqual(after, index.search('omega', { topK: 100 }))
  // The call made before the add searched a snapshot without it, or one with it: never a mix.
  const early = await before
  t.true(early.length === after.length - 1 || early.length === after.length)
})

test('a searchBatch that crosses in one call reads the snapshot of its call; queries without hits come back empty', async (t) => {
  const index = new Bm25Index()
  index.add(corpus(50))
  const expected = ['omega', 'nothing here', 'alpha'].map((q) => index.search(q, { topK: 100 }))
  const pending = index.searchBatch(['omega', 'nothing here', 'alpha'], { topK: 100 })
  // Published after the call started: not in its snapshot.
  index.add([{ id: 'new', text: 'omega alpha' }])
  const got = await pending
  t.deepEqual(got, expected)
  t.deepEqual(got[1], [])
  t.true(index.search('omega', { topK: 100 }).some((h) => h.id === 'new'))
  t.deepEqual(await index.searchBatch([], { topK: 3 }), [])
})

test('load takes the coalesce option too', async (t) => {
  const index = new Bm25Index()
  index.add(corpus(120))
  const path = join(dir, 'coalesce.rgrk')
  await index.save(path)
  for (const coalesce of [false, { maxBatch: 2, maxWaitMs: 1 }, undefined]) {
    const back = await Bm25Index.load(path, { coalesce })
    const got = await Promise.all(queries.slice(0, 6).map((q) => back.searchAsync(q, { topK: 4 })))
    got.forEach((hits, i) => t.deepEqual(hits, index.search(queries[i], { topK: 4 })))
  }
  await t.throwsAsync(Bm25Index.load(path, { coalesce: { maxBatch: -1 } }), { instanceOf: RangeError })
})
