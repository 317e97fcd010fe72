// searchBatch's `threads` cap, the token path of sync `search` (U+0000 found by Rust) and the segment term table
// (lookups on one segment and on several give the scores of an index built from scratch).
import test from 'ava'
import { Bm25Index } from '../../dist/esm/index.js'

const words = Array.from({ length: 400 }, (_, i) => `w${i}`)
const corpus = Array.from({ length: 2000 }, (_, i) => ({
  id: i % 5 === 0 ? `학교#${i}` : `d${i}`,
  text: Array.from({ length: 12 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' '),
  meta: i % 3 === 0 ? { n: i } : undefined,
}))
// 600 queries: more than one 256-query part, text and tokens mixed, some with unknown or repeated terms.
const queries = Array.from({ length: 600 }, (_, i) => {
  const q = [words[i % 400], words[(i * 3) % 400], words[(i * 11) % 400], i % 4 === 0 ? 'unknown' : words[i % 400]]
  return i % 2 === 0 ? q.join(' ') : q
})

function built(options) {
  const index = new Bm25Index(options)
  index.add(corpus)
  return index
}

test('searchBatch gives the same hits for every threads value, with and without fields and filters', async (t) => {
  const index = built()
  const variants = [{ topK: 7 }, { topK: 3, includeFields: false }, { topK: 5, filter: { meta: { n: { $gte: 300 } } } }]
  for (const options of variants) {
    const expected = queries.map((q) => index.search(q, options))
    t.true(expected.some((hits) => hits.length > 0))
    for (const threads of [undefined, 1, 2, 3, 7, 599, 600, 1000, 2 ** 40]) {
      const got = await index.searchBatch(queries, { ...options, threads })
      t.deepEqual(got, expected, `threads ${threads}, ${JSON.stringify(options)}`)
    }
  }
  t.deepEqual(await index.searchBatch([], { threads: 1 }), [])
  t.deepEqual(await index.searchBatch([queries[1]], { threads: 4 }), [index.search(queries[1])])
})

test('searchBatch threads: an integer >= 1, else TypeError or RangeError naming it', async (t) => {
  const index = built()
  for (const threads of [0, -1, -7]) {
    await t.throwsAsync(index.searchBatch(queries, { threads }), {
      instanceOf: RangeError,
      message: /options\.threads must be >= 1/,
    })
  }
  for (const threads of [1.5, '2', null, Number.NaN, Infinity, -Infinity, 2n]) {
    await t.throwsAsync(index.searchBatch(queries, { threads }), { instanceOf: TypeError, message: /options\.threads/ })
  }
  // Only searchBatch has it: a coalesced searchAsync or retrieve call shares its batch with others.
  await t.throwsAsync(index.searchAsync('w1', { threads: 1 }), { instanceOf: TypeError, message: /threads/ })
  await t.throwsAsync(index.retrieve('w1', { threads: 1 }), { instanceOf: TypeError, message: /threads/ })
})

test('search: a token holding U+0000 is a RangeError, a non-string token a TypeError naming it first', (t) => {
  const index = built()
  for (const tokens of [['a\0b'], ['\0'], ['w1', '', '\0'], ['w1', 'w2\0'], ['\0\0', 'w1']]) {
    t.throws(() => index.search(tokens), { instanceOf: RangeError, message: 'query: tokens must not contain U+0000' })
  }
  t.throws(() => index.search(['\0', 5]), { instanceOf: TypeError, message: /query\[1\]/ })
  t.throws(() => index.search(['w1', undefined]), { instanceOf: TypeError, message: /query\[1\]/ })
  // Empty tokens are no terms, and change nothing.
  t.deepEqual(index.search(['', 'w1', '', '']), index.search(['w1']))
  t.deepEqual(index.search(['']), [])
  t.deepEqual(index.search([]), [])
  t.true(index.search(['w1']).length > 0)
  // The same tokens as text and as an array give the same hits; repeats weigh a term again.
  t.deepEqual(index.search(['w5', 'w9', 'w5']), index.search('w5 w9 w5'))
  t.notDeepEqual(index.search(['w5', 'w9', 'w5']), index.search(['w5', 'w9']))
  // searchBatch keeps its own check.
  return t.throwsAsync(index.searchBatch([['ok'], ['a\0']]), {
    instanceOf: RangeError,
    message: 'queries[1]: tokens must not contain U+0000',
  })
})

test('term lookups on one segment and on several give the hits of an index built from scratch', async (t) => {
  // Three segments (one add each: below the 8 a merge waits for), removals (11%: below the 25% that rewrites a
  // segment), so the searches run off the sole-segment path; then a merge.
  const live = new Bm25Index({ refreshInterval: 0 })
  for (let i = 0; i < corpus.length; i += 700) live.add(corpus.slice(i, i + 700))
  const removed = new Set(corpus.filter((_, i) => i % 9 === 4).map((d) => d.id))
  live.remove([...removed])
  const fresh = new Bm25Index()
  fresh.add(corpus.filter((d) => !removed.has(d.id)))
  t.is(live.stats().segments, 3)
  t.true(live.stats().deletedDocs > 0)
  t.is(fresh.stats().segments, 1)
  const sample = queries.slice(0, 120).concat([['학교'], ['w1', 'w1', 'w1'], ['nothing'], 'w399 w0'])
  for (const q of sample) t.deepEqual(live.search(q, { topK: 10 }), fresh.search(q, { topK: 10 }), JSON.stringify(q))
  await live.merge()
  for (const q of sample) t.deepEqual(live.search(q, { topK: 10 }), fresh.search(q, { topK: 10 }), JSON.stringify(q))
  // Terms of every length and script resolve on the sole segment (the table's arena holds them all).
  const odd = ['', 'x', 'ü', '学校', '😀😀', 'a'.repeat(300), 'tab\tspace']
  const one = new Bm25Index()
  one.add(odd.filter((w) => w !== '').map((w, i) => ({ id: `o${i}`, tokens: [w, 'common'] })))
  for (const [i, w] of odd.filter((w) => w !== '').entries()) t.is(one.search([w])[0]?.id, `o${i}`, w)
  t.deepEqual(one.search(['a'.repeat(299)]), [])
})
