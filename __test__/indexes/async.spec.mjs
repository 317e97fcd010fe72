import test from 'ava'
import { Bm25Index, AbortError } from '../../dist/esm/index.js'

const corpus = Array.from({ length: 3000 }, (_, i) => ({
  id: `d${i}`,
  text: Array.from({ length: 20 }, (_, j) => `w${(i * 7 + j * 13) % 500}`).join(' '),
}))
const queries = Array.from({ length: 200 }, (_, i) => `w${i % 500} w${(i * 3) % 500} w${(i * 11) % 500}`)

test('addAsync indexes like add', async (t) => {
  const a = new Bm25Index()
  const b = new Bm25Index()
  t.is(await a.addAsync(corpus), corpus.length)
  b.add(corpus)
  t.deepEqual(a.search(queries[5]), b.search(queries[5]))
})

test('searchBatch equals sequential search, in query order', async (t) => {
  const index = new Bm25Index()
  index.add(corpus)
  const batch = await index.searchBatch(queries, { topK: 7 })
  t.is(batch.length, queries.length)
  batch.forEach((hits, i) => t.deepEqual(hits, index.search(queries[i], { topK: 7 })))
})

test('searchBatch equals sequential search for mixed queries: text, tokens, Korean ids, surrogates, fields', async (t) => {
  const index = new Bm25Index()
  index.add([
    { id: '학교#0', text: '학교에 갔다 school', meta: { n: 1 } },
    { id: 'plain', text: 'school bus 학교 버스' },
    { id: '😀#2', tokens: ['학교', 'x\uD800y', 'bus'] },
    { id: 'no-text', tokens: ['school', 'night'] },
  ])
  const queries = [
    '학교',
    ['bus', 'school'],
    '',
    [],
    'x\uD800y',
    ['x\uD800y'],
    '😀 school 갔다',
    ['학교', '학교'],
    'nothing',
  ]
  for (const includeFields of [true, false]) {
    const batch = await index.searchBatch(queries, { topK: 3, includeFields })
    t.is(batch.length, queries.length)
    batch.forEach((hits, i) => t.deepEqual(hits, index.search(queries[i], { topK: 3, includeFields }), `query ${i}`))
  }
  t.true((await index.searchBatch(queries, { topK: 3 }))[0].some((h) => h.id === '학교#0' && h.meta?.n === 1))
  t.deepEqual(await index.searchBatch([]), [])
})

test('a batch cut into parts sees the snapshot of its call, not a write made while it runs', async (t) => {
  const index = new Bm25Index()
  index.add(corpus)
  const queries = Array.from({ length: 2000 }, () => 'w1 w2') // several parts (see lib/internal/pipeline.ts)
  const pending = index.searchBatch(queries, { topK: 3 })
  index.add([{ id: 'late', text: 'w1 w2 w1 w2 w1 w2' }]) // published at once, while the parts still run
  const batch = await pending
  t.is(batch.length, queries.length)
  t.false(batch.some((hits) => hits.some((h) => h.id === 'late')))
  t.is(index.search('w1 w2', { topK: 1 })[0].id, 'late')
  t.deepEqual((await index.searchBatch(['w1 w2'], { topK: 1 }))[0][0].id, 'late')
})

test('a signal aborted before the call rejects and changes nothing', async (t) => {
  const index = new Bm25Index()
  const signal = AbortSignal.abort()
  await t.throwsAsync(index.addAsync(corpus, { signal }), { instanceOf: AbortError, code: 'ABORT_ERR' })
  await t.throwsAsync(index.searchBatch(queries, { signal }), { instanceOf: AbortError })
  t.is(index.size, 0)
})

test('aborting mid-call rejects promptly; the index stays consistent', async (t) => {
  const index = new Bm25Index()
  const controller = new AbortController()
  const big = Array.from({ length: 60_000 }, (_, i) => ({ id: `x${i}`, text: `alpha beta ${i} gamma`.repeat(5) }))
  const pending = index.addAsync(big, { signal: controller.signal })
  controller.abort()
  await t.throwsAsync(pending, { instanceOf: AbortError })
  // Either nothing was added (aborted before insertion) or everything was: never a part.
  await new Promise((r) => setTimeout(r, 50))
  t.true(index.size === 0 || index.size === big.length)
})

test('invalid input rejects the promise instead of throwing', async (t) => {
  const index = new Bm25Index()
  const p = index.addAsync('nope')
  t.true(p instanceof Promise)
  await t.throwsAsync(p, { instanceOf: TypeError })
  await t.throwsAsync(index.searchBatch('nope'), { instanceOf: TypeError })
  await t.throwsAsync(index.searchBatch(['x'], { signal: 'no' }), { instanceOf: TypeError })
})
