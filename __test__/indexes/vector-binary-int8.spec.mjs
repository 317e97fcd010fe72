// VectorIndex storage 'binary' with rescore 'int8' (approximate ids and scores): the sign-bit scan of 'binary',
// its shortlist rescored from int8 codes instead of an f32 copy. Filters, removes, upserts, save/load (mapped
// too), searchBatch and searchAsync coalescing must behave as with the other storages; the option is checked.
import test from 'ava'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VectorIndex } from '../../dist/esm/index.js'
import { clustered, randomVectors } from '../../fixtures/random-vectors.mjs'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-vec-bin8-'))
const ids = (n) => Array.from({ length: n }, (_, i) => `v${i}`)
const idsOf = (hits) => hits.map((h) => h.id)

const unit = (v) => {
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0)

const n = 6000
const dim = 96
const data = clustered(n, dim, 150, 1, 2)
const queries = clustered(40, dim, 150, 1, 7)
const row = (i) => data.subarray(i * dim, (i + 1) * dim)
const q = (i) => queries.subarray(i * dim, (i + 1) * dim)
const metas = Array.from({ length: n }, (_, i) => ({ tenant: ['a', 'b', 'c'][i % 3], year: i % 20 }))
const items = ids(n).map((id, i) => ({ id, vector: row(i), meta: metas[i] }))
const INT8 = { storage: 'binary', rescore: 'int8' }

function build(options, rows = items) {
  const index = new VectorIndex({ dim, ...options })
  index.add(rows)
  return index
}

test('finds most of the exact top 10 on clustered rows; scores are int8 approximations of the exact ones', (t) => {
  const exact = build({ storage: 'f32' })
  const index = build(INT8)
  t.is(index.storage, 'binary')
  t.is(index.rescore, 'int8')
  t.is(build({ storage: 'binary' }, []).rescore, 'f32')
  t.is(build({ storage: 'binary', rescore: 'f32' }, []).rescore, 'f32')
  t.is(build({ storage: 'int8' }, []).rescore, 'f32')
  t.is(build({ storage: 'f32' }, []).rescore, undefined)
  let found = 0
  let worst = 0
  for (let i = 0; i < 40; i++) {
    const want = idsOf(exact.search(q(i), { topK: 10 }))
    const got = index.search(q(i), { topK: 10 })
    t.is(got.length, 10)
    found += got.filter((h) => want.includes(h.id)).length
    const qn = unit(Array.from(q(i)))
    for (const h of got) {
      const exactScore = dot(qn, unit(Array.from(row(Number(h.id.slice(1))))))
      worst = Math.max(worst, Math.abs(h.score - exactScore))
    }
  }
  t.true(found / 400 >= 0.95, `recall@10 ${found / 400}`)
  // Approximate, but by a few thousandths at most for unit 96-d vectors.
  t.true(worst > 0 && worst < 0.01, `largest score error ${worst}`)
})

test('returns the ids of the f32-rescored binary index when the int8 scores separate the rows', (t) => {
  // Per query, 12 rows planted at cosine 0.99, 0.97, ... among random ones: gaps far above the int8 error.
  const d = 128
  const background = randomVectors(4000, d, 30)
  const qs = randomVectors(8, d, 31)
  const noise = randomVectors(8 * 12, d, 32)
  const rows = [...ids(4000).map((id, i) => ({ id, vector: background.subarray(i * d, (i + 1) * d) }))]
  for (let i = 0; i < 8; i++) {
    const qn = unit(Array.from(qs.subarray(i * d, (i + 1) * d)))
    for (let j = 0; j < 12; j++) {
      const e = Array.from(noise.subarray((i * 12 + j) * d, (i * 12 + j + 1) * d))
      const along = dot(e, qn)
      const ortho = unit(e.map((x, k) => x - along * qn[k]))
      const c = 0.99 - 0.02 * j
      const s = Math.sqrt(1 - c * c)
      rows.push({ id: `p${i}-${j}`, vector: qn.map((x, k) => c * x + s * ortho[k]) })
    }
  }
  const f32 = new VectorIndex({ dim: d, storage: 'binary' })
  const int8 = new VectorIndex({ dim: d, ...INT8 })
  f32.add(rows)
  int8.add(rows)
  for (let i = 0; i < 8; i++) {
    const query = qs.subarray(i * d, (i + 1) * d)
    const want = f32.search(query, { topK: 10 })
    const got = int8.search(query, { topK: 10 })
    t.deepEqual(idsOf(got), idsOf(want))
    t.deepEqual(
      idsOf(got),
      Array.from({ length: 10 }, (_, j) => `p${i}-${j}`),
    )
    got.forEach((h, j) => t.true(Math.abs(h.score - want[j].score) < 0.01, `${h.score} vs ${want[j].score}`))
  }
})

test('filters (ids and meta) apply inside the scan: the hits of an index of the matching rows alone', (t) => {
  const index = build({ ...INT8, shortlist: { rows: 500 } })
  const meta = { tenant: 'b', year: { $gte: 10 } }
  const some = new Set(ids(n).filter((_, i) => i % 7 === 0))
  const passes = (it) => it.meta.tenant === 'b' && it.meta.year >= 10
  for (const [filter, keep] of [
    [{ meta }, passes],
    [{ ids: [...some] }, (it) => some.has(it.id)],
    [{ ids: [...some], meta }, (it) => some.has(it.id) && passes(it)],
  ]) {
    // Scores depend on the query and the row alone, and ties on insertion order, which both keep.
    const only = build({ ...INT8, shortlist: { rows: 500 } }, items.filter(keep))
    for (let i = 0; i < 5; i++) {
      const got = index.search(q(i), { topK: 10, filter })
      t.true(got.length > 0)
      t.deepEqual(got, only.search(q(i), { topK: 10 }), JSON.stringify(filter))
    }
  }
})

test('removes and upserts: an index changed in place answers as one rebuilt from its live rows', (t) => {
  const index = build(INT8)
  const gone = ids(n).filter((_, i) => i % 4 === 1)
  t.is(index.remove(gone), gone.length)
  // The upserted row moves last in tie order and takes the query's vector.
  index.add([{ id: 'v0', vector: q(3) }], { upsert: true })
  const fresh = build(INT8, [...items.filter((_, i) => i % 4 !== 1 && i !== 0), { id: 'v0', vector: q(3) }])
  const goneSet = new Set(gone)
  for (let i = 0; i < 10; i++) {
    const hits = index.search(q(i), { topK: 10 })
    t.false(hits.some((h) => goneSet.has(h.id)))
    t.deepEqual(hits, fresh.search(q(i), { topK: 10 }))
  }
  const top = index.search(q(3), { topK: 1 })[0]
  t.is(top.id, 'v0')
  t.true(Math.abs(top.score - 1) < 0.01, `an identical vector scores about 1, got ${top.score}`)
})

test('save and load (copied or memory-mapped) keep storage, rescore, shortlist and results', async (t) => {
  for (const [metric, shortlist] of [
    ['cosine', undefined],
    ['l2', { perTopK: 3, rows: 50 }],
  ]) {
    const index = build({ ...INT8, metric, shortlist })
    index.remove(['v3'])
    const path = join(dir, `binary-int8-${metric}.rgv`)
    await index.save(path)
    for (const mmap of [false, true]) {
      const loaded = await VectorIndex.load(path, { mmap })
      t.is(loaded.mapped, mmap)
      t.is(loaded.storage, 'binary')
      t.is(loaded.rescore, 'int8')
      t.is(loaded.metric, metric)
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
  const index = build({ ...INT8, shortlist: { perTopK: 5, rows: 0 } })
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

test('rescore: a non-string is a TypeError, a bad name or a storage that takes none a RangeError; null means the default', (t) => {
  t.throws(() => new VectorIndex({ dim, storage: 'binary', rescore: 8 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
    message: /^options\.rescore must be a string, got 8/,
  })
  for (const [options, message] of [
    [{ storage: 'binary', rescore: 'int4' }, /^options\.rescore must be one of 'f32', 'int8', got "int4"/],
    [{ storage: 'binary', rescore: 'INT8' }, /^options\.rescore must be one of/],
    [{ rescore: 'int8' }, /^options\.rescore applies to storage 'binary' only, not "f32"/],
    [{ storage: 'int8', rescore: 'int8' }, /^options\.rescore applies to storage 'binary' only, not "int8"/],
    [{ storage: 'f16', rescore: 'f32' }, /^options\.rescore applies to storage 'binary' only, not "f16"/],
  ]) {
    t.throws(() => new VectorIndex({ dim, ...options }), { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message })
  }
  t.is(new VectorIndex({ dim, storage: 'binary', rescore: null }).rescore, 'f32')
  t.is(new VectorIndex({ dim, storage: 'binary', rescore: undefined }).rescore, 'f32')
  t.is(new VectorIndex({ dim, storage: null, rescore: null }).rescore, undefined)
})

test('a failed call leaves the index as it was', async (t) => {
  const index = build(INT8, items.slice(0, 500))
  const before = index.search(q(0), { topK: 10 })
  const bad = new Float32Array(2 * dim).fill(0.5)
  bad[dim + 4] = Number.NaN
  t.throws(() => index.add(['x', 'y'], bad), { instanceOf: RangeError })
  t.throws(() => index.add(['x', 'v1'], new Float32Array(2 * dim).fill(0.5)), { code: 'ERR_DUPLICATE_ID' })
  t.throws(() => index.add(['x'], new Float32Array(dim - 1)), { instanceOf: RangeError })
  t.throws(() => index.search(new Float32Array(dim + 1)), { instanceOf: RangeError })
  await t.throwsAsync(index.searchBatch(new Float32Array(dim + 1)), { instanceOf: RangeError })
  t.is(index.size, 500)
  t.false(index.has('x'))
  t.deepEqual(index.search(q(0), { topK: 10 }), before)
})
