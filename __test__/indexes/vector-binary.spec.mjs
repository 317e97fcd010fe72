// VectorIndex storage 'binary' (approximate): sign bits scanned by Hamming distance for a shortlist that is
// rescored exactly from f32. Filters, removes, save/load (mapped too), searchBatch, searchAsync and its
// coalescing must behave as with the exact storages; the shortlist option is checked and saved.
import test from 'ava'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VectorIndex } from '../../dist/esm/index.js'
import { clustered } from '../../fixtures/random-vectors.mjs'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-vec-bin-'))
const ids = (n) => Array.from({ length: n }, (_, i) => `v${i}`)
const idsOf = (hits) => hits.map((h) => h.id)

const n = 6000
const dim = 96
// Queries near the same centres, with noise of their own.
const data = clustered(n, dim, 150, 1, 2)
const queries = clustered(40, dim, 150, 1, 7)
const q = (i) => queries.subarray(i * dim, (i + 1) * dim)
const metas = Array.from({ length: n }, (_, i) => ({ tenant: ['a', 'b', 'c'][i % 3], year: i % 20 }))
const items = ids(n).map((id, i) => ({ id, vector: data.subarray(i * dim, (i + 1) * dim), meta: metas[i] }))

function build(options) {
  const index = new VectorIndex({ dim, ...options })
  index.add(items)
  return index
}

test('binary finds most of the exact top 10 on clustered rows, each hit with its exact f32 score', (t) => {
  const exact = build({ storage: 'f32' })
  const binary = build({ storage: 'binary' })
  t.is(binary.storage, 'binary')
  t.is(binary.shortlist, undefined, 'the default shortlist')
  let found = 0
  for (let i = 0; i < 40; i++) {
    const want = exact.search(q(i), { topK: 10 })
    const got = binary.search(q(i), { topK: 10 })
    t.is(got.length, 10)
    for (const h of got) {
      const w = want.find((x) => x.id === h.id)
      if (w) {
        found++
        t.is(h.score, w.score, 'rescored by the same kernel as f32')
      }
    }
  }
  t.true(found / 400 >= 0.95, `recall@10 ${found / 400}`)
})

test('a shortlist of every row makes binary exact; a shortlist of topK returns the nearest by sign bits', (t) => {
  const exact = build({ storage: 'f32' })
  const all = build({ storage: 'binary', shortlist: { rows: n } })
  t.deepEqual(all.shortlist, { perTopK: 1, rows: n })
  const tight = build({ storage: 'binary', shortlist: { perTopK: 1 } })
  let tightFound = 0
  for (let i = 0; i < 10; i++) {
    t.deepEqual(all.search(q(i), { topK: 10 }), exact.search(q(i), { topK: 10 }))
    const want = idsOf(exact.search(q(i), { topK: 10 }))
    tightFound += tight.search(q(i), { topK: 10 }).filter((h) => want.includes(h.id)).length
  }
  // Ranking by Hamming distance alone loses some of the exact top 10: the rescoring is what the shortlist buys.
  t.true(tightFound < 100, `a shortlist of topK found ${tightFound}/100`)
})

test('filters (ids and meta) apply inside the binary scan: the topK best matching rows', (t) => {
  const exact = build({ storage: 'f32' })
  const binary = build({ storage: 'binary', shortlist: { rows: n } })
  const meta = { tenant: 'b', year: { $gte: 10 } }
  const some = ids(n).filter((_, i) => i % 7 === 0)
  for (let i = 0; i < 5; i++) {
    for (const filter of [{ meta }, { ids: some }, { ids: some, meta }]) {
      const got = binary.search(q(i), { topK: 10, filter })
      t.deepEqual(got, exact.search(q(i), { topK: 10, filter }), JSON.stringify(filter))
      t.true(got.length > 0)
    }
  }
  // With the default shortlist the filter still holds for every hit.
  const d = build({ storage: 'binary' })
  for (const h of d.search(q(0), { topK: 20, filter: { meta } })) {
    t.is(h.meta.tenant, 'b')
    t.true(h.meta.year >= 10)
  }
})

test('removed rows never come back, and a binary index with removes equals one rebuilt from the survivors', (t) => {
  const index = build({ storage: 'binary' })
  const gone = ids(n).filter((_, i) => i % 4 === 1)
  t.is(index.remove(gone), gone.length)
  const fresh = new VectorIndex({ dim, storage: 'binary' })
  fresh.add(items.filter((_, i) => i % 4 !== 1))
  const goneSet = new Set(gone)
  for (let i = 0; i < 10; i++) {
    const hits = index.search(q(i), { topK: 10 })
    t.false(hits.some((h) => goneSet.has(h.id)))
    t.deepEqual(hits, fresh.search(q(i), { topK: 10 }))
  }
})

test('save and load (copied or memory-mapped) keep the storage, the shortlist and the results', async (t) => {
  for (const shortlist of [undefined, { perTopK: 3, rows: 50 }]) {
    const index = build({ storage: 'binary', metric: 'l2', shortlist })
    index.remove(['v3'])
    const path = join(dir, `binary-${shortlist ? 'set' : 'default'}.rgv`)
    await index.save(path)
    for (const mmap of [false, true]) {
      const loaded = await VectorIndex.load(path, { mmap })
      t.is(loaded.mapped, mmap)
      t.is(loaded.storage, 'binary')
      t.deepEqual(loaded.shortlist, shortlist)
      t.is(loaded.size, n - 1)
      for (let i = 0; i < 5; i++) t.deepEqual(loaded.search(q(i), { topK: 10 }), index.search(q(i), { topK: 10 }))
      loaded.add(['new'], q(0))
      t.is(loaded.mapped, mmap, 'the mapped rows stay mapped through an add')
      t.is(loaded.search(q(0), { topK: 1 })[0].id, 'new')
    }
  }
})

test('searchBatch and coalesced searchAsync return what search returns', async (t) => {
  const index = build({ storage: 'binary', shortlist: { perTopK: 5, rows: 0 } })
  const batch = await index.searchBatch(queries, { topK: 10 })
  t.is(batch.length, 40)
  batch.forEach((hits, i) => t.deepEqual(hits, index.search(q(i), { topK: 10 }), `batch query ${i}`))
  const filter = { meta: { tenant: 'a' } }
  const filtered = await index.searchBatch(queries, { topK: 5, filter })
  filtered.forEach((hits, i) => t.deepEqual(hits, index.search(q(i), { topK: 5, filter })))
  const opts = (i) => [{ topK: 10 }, { topK: 3, filter }, { topK: 7, filter: { ids: ids(500) } }][i % 3]
  const got = await Promise.all(Array.from({ length: 40 }, (_, i) => index.searchAsync(q(i), opts(i))))
  got.forEach((hits, i) => t.deepEqual(hits, index.search(q(i), opts(i)), `searchAsync ${i}`))
})

test('bad shortlist options are TypeErrors (shape) or RangeErrors (range, storage) naming the option', (t) => {
  for (const [options, message] of [
    [{ storage: 'binary', shortlist: 100 }, /^options\.shortlist must be an object/],
    [{ storage: 'binary', shortlist: { perTopk: 2 } }, /options\.shortlist/],
    [{ storage: 'binary', shortlist: { rows: 1.5 } }, /^options\.shortlist\.rows must be an integer/],
    [{ storage: 'binary', shortlist: { perTopK: '4' } }, /^options\.shortlist\.perTopK must be an integer/],
  ]) {
    t.throws(() => new VectorIndex({ dim, ...options }), { instanceOf: TypeError, code: 'ERR_INVALID_ARG', message })
  }
  for (const [options, message] of [
    [{ shortlist: { perTopK: 4 } }, /^options\.shortlist applies to storage 'int8' or 'binary' only, not "f32"/],
    [{ storage: 'f16', shortlist: { rows: 10 } }, /^options\.shortlist applies to .* not "f16"/],
    ...[
      [{ perTopK: 0 }, /^options\.shortlist\.perTopK must be in \[1, 10000\], got 0/],
      [{ perTopK: -3 }, /^options\.shortlist\.perTopK must be in \[1, 10000\], got -3/],
      [{ perTopK: 10_001 }, /^options\.shortlist\.perTopK must be in/],
      [{ rows: 2 ** 20 + 1 }, /^options\.shortlist\.rows must be in \[0, 1048576\]/],
      [{ rows: -1 }, /^options\.shortlist\.rows must be in \[0, 1048576\], got -1/],
      // Past u32: the range message, not a wrapped count.
      [{ rows: 2 ** 32 + 5 }, /^options\.shortlist\.rows must be in \[0, 1048576\], got 4294967301/],
    ].map(([shortlist, message]) => [{ storage: 'binary', shortlist }, message]),
  ]) {
    t.throws(() => new VectorIndex({ dim, ...options }), { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message })
  }
  // int8 takes a shortlist too; null means the default.
  t.deepEqual(new VectorIndex({ dim, storage: 'int8', shortlist: { perTopK: 8 } }).shortlist, { perTopK: 8, rows: 0 })
  t.is(new VectorIndex({ dim, storage: 'binary', shortlist: null }).shortlist, undefined)
})
