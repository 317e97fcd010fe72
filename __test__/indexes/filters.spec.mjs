import test from 'ava'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'
import { randomVectors } from '../../fixtures/random-vectors.mjs'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-filters-'))

// Six documents whose metadata exercises every operator; `none` has no metadata.
const docs = [
  { id: 'a', meta: { tenant: 'acme', year: 2019, tags: ['x', 'y'], score: 1, nested: { lang: 'en' } } },
  { id: 'b', meta: { tenant: 'acme', year: 2021, tags: ['y'], score: 1.0, nested: { lang: 'ko' } } },
  { id: 'c', meta: { tenant: 'beta', year: 2023, tags: [], score: 2.5 } },
  { id: 'd', meta: { tenant: 'Acme', year: '2021', draft: null } },
  { id: 'e', meta: { tenant: 'beta', year: 2020.5, draft: false } },
  { id: 'none' },
]

// [filter, ids that match]
const cases = [
  [{ tenant: 'acme' }, ['a', 'b']],
  [{ tenant: ['acme', 'beta'] }, ['a', 'b', 'c', 'e']],
  [{ tenant: { $eq: 'beta' } }, ['c', 'e']],
  [{ tenant: { $ne: 'acme' } }, ['c', 'd', 'e', 'none']],
  [{ tenant: { $in: ['Acme', 'beta'] } }, ['c', 'd', 'e']],
  [{ tenant: { $nin: ['acme', 'beta'] } }, ['d', 'none']],
  [{ year: { $gt: 2020 } }, ['b', 'c', 'e']],
  [{ year: { $gte: 2021 } }, ['b', 'c']],
  [{ year: { $lt: 2020.5 } }, ['a']],
  [{ year: { $lte: 2020.5 } }, ['a', 'e']],
  [{ year: { $gte: '2000' } }, ['d']],
  [{ year: { $gte: 2020, $lt: 2022 } }, ['b', 'e']],
  [{ score: 1 }, ['a', 'b']],
  [{ tags: 'y' }, ['a', 'b']],
  [{ tags: { $in: ['x'] } }, ['a']],
  [{ draft: { $exists: true } }, ['d', 'e']],
  [{ draft: { $exists: false } }, ['a', 'b', 'c', 'none']],
  [{ draft: null }, ['d']],
  [{ draft: false }, ['e']],
  [{ 'nested.lang': 'ko' }, ['b']],
  [{ $and: [{ tenant: 'acme' }, { year: { $gt: 2020 } }] }, ['b']],
  [{ $or: [{ tenant: 'beta' }, { tags: 'x' }] }, ['a', 'c', 'e']],
  [{ $not: { tenant: 'acme' } }, ['c', 'd', 'e', 'none']],
  [{ tenant: 'beta', $or: [{ year: 2023 }, { draft: false }] }, ['c', 'e']],
  [{}, ['a', 'b', 'c', 'd', 'e', 'none']],
]

const sorted = (hits) => hits.map((h) => h.id).sort()

function bm25() {
  const index = new Bm25Index()
  index.add(docs.map((d) => ({ ...d, text: `common words for ${d.id}` })))
  return index
}

function vectors(storage) {
  const index = new VectorIndex({ dim: 4, metric: 'dot', storage })
  const data = randomVectors(docs.length, 4, 7)
  index.add(docs.map((d, i) => ({ ...d, vector: data.subarray(i * 4, (i + 1) * 4), text: `text ${d.id}` })))
  return index
}

test('every operator selects the same documents in Bm25Index and in VectorIndex (each storage, search and batch)', async (t) => {
  const indexes = [['bm25', bm25(), 'common']]
  for (const s of ['f32', 'f16', 'int8']) indexes.push([s, vectors(s), new Float32Array([0.3, -0.2, 0.5, 0.1])])
  for (const [name, index, q] of indexes) {
    for (const [meta, want] of cases) {
      const label = `${name} ${JSON.stringify(meta)}`
      t.deepEqual(sorted(index.search(q, { topK: 100, filter: { meta } })), want, label)
      const batch = typeof q === 'string' ? [q, q] : new Float32Array([...q, ...q])
      const [first, second] = await index.searchBatch(batch, { topK: 100, filter: { meta } })
      t.deepEqual(sorted(first), want, `${label} batch`)
      t.deepEqual(sorted(second), want, `${label} batch`)
    }
    t.deepEqual(sorted(index.search(q, { topK: 100, filter: { ids: ['a', 'c', 'zz'], meta: { tenant: 'acme' } } })), [
      'a',
    ])
  }
})

test('the original { meta: { field: [values] } } form still works on Bm25Index', (t) => {
  const index = bm25()
  t.deepEqual(
    sorted(index.search('common', { filter: { meta: { tenant: ['beta', 'Acme'], year: [2023, '2021'] } } })),
    ['c', 'd'],
  )
  t.deepEqual(sorted(index.search('common', { filter: { meta: { tenant: 'acme' } } })), ['a', 'b'])
})

test('VectorIndex hits carry meta and text unless includeFields is false', async (t) => {
  const index = vectors('f32')
  const q = new Float32Array([1, 0, 0, 0])
  const hits = index.search(q, { topK: 10 })
  const byId = Object.fromEntries(hits.map((h) => [h.id, h]))
  t.deepEqual(byId.a.meta, docs[0].meta)
  t.is(byId.a.text, 'text a')
  t.is(byId.none.meta, undefined)
  t.is(byId.none.text, 'text none')
  const bare = index.search(q, { topK: 10, includeFields: false })
  t.deepEqual(
    bare.map((h) => h.id),
    hits.map((h) => h.id),
  )
  t.true(bare.every((h) => h.meta === undefined && h.text === undefined))
  const [batch] = await index.searchBatch(q, { topK: 10 })
  t.deepEqual(batch, hits)
  // The old add(ids, vectors) form still adds vectors without fields.
  index.add(['plain'], new Float32Array([1, 0, 0, 0]))
  const plain = index.search(q, { topK: 20 }).find((h) => h.id === 'plain')
  t.deepEqual(Object.keys(plain), ['id', 'score'])
})

/** Brute force in JS (f64, dot) over the raw vectors of the rows that pass. */
function bruteForce(data, dim, q, passes, k) {
  const scored = []
  for (let i = 0; i < data.length / dim; i++) {
    if (!passes(i)) continue
    let s = 0
    for (let j = 0; j < dim; j++) s += data[i * dim + j] * q[j]
    scored.push({ i, s })
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i)
  return scored.slice(0, k).map((x) => `r${x.i}`)
}

test('a filtered VectorIndex search returns exactly the top k of the matching rows, for every storage', async (t) => {
  // 30k x 32 f32 rows are 3.8 MB: the scan is shared out in parallel, and the batch uses the blocked path.
  const n = 30000
  const dim = 32
  const data = randomVectors(n, dim, 3)
  const meta = (i) => ({ tenant: `t${i % 7}`, year: 2000 + (i % 30) })
  const filter = { meta: { tenant: 't3', year: { $gte: 2020 } } }
  const passes = (i) => i % 7 === 3 && i % 30 >= 20
  const queries = randomVectors(5, dim, 4)
  for (const storage of ['f32', 'f16', 'int8']) {
    const index = new VectorIndex({ dim, metric: 'dot', storage })
    index.add(
      Array.from({ length: n }, (_, i) => ({
        id: `r${i}`,
        vector: data.subarray(i * dim, (i + 1) * dim),
        meta: meta(i),
      })),
    )
    const batch = await index.searchBatch(queries, { topK: 10, filter, includeFields: false })
    for (let qi = 0; qi < 5; qi++) {
      const q = queries.subarray(qi * dim, (qi + 1) * dim)
      const want = bruteForce(data, dim, q, passes, 10)
      const hits = index.search(q, { topK: 10, filter })
      t.is(hits.length, 10)
      t.true(
        hits.every((h) => h.meta.tenant === 't3' && h.meta.year >= 2020),
        storage,
      )
      const got = hits.map((h) => h.id)
      if (storage === 'f16') {
        // f16 rounding may swap near-ties at the boundary.
        t.true(got.filter((id) => want.includes(id)).length >= 9, `${storage} ${got} ${want}`)
      } else {
        t.deepEqual(got, want, storage)
      }
      t.true(batch[qi].filter((h) => got.includes(h.id)).length >= 9, `${storage} batch`)
      t.true(
        batch[qi].every((h) => passes(Number(h.id.slice(1)))),
        `${storage} batch`,
      )
    }
    // A filter that leaves fewer than topK rows returns them all.
    const few = index.search(queries.subarray(0, dim), { topK: 1000, filter: { meta: { tenant: 't3', year: 2029 } } })
    t.is(few.length, Array.from({ length: n }, (_, i) => i).filter((i) => i % 7 === 3 && i % 30 === 29).length)
  }
})

test('save and load keep vector metadata and texts, in memory and mapped, and filters still apply', async (t) => {
  for (const storage of ['f32', 'f16', 'int8']) {
    const index = vectors(storage)
    index.remove(['b'])
    const path = join(dir, `fields-${storage}.rgv`)
    await index.save(path)
    const q = new Float32Array([0.3, -0.2, 0.5, 0.1])
    for (const mmap of [false, true]) {
      const loaded = await VectorIndex.load(path, { mmap })
      t.deepEqual(loaded.search(q, { topK: 10 }), index.search(q, { topK: 10 }))
      t.deepEqual(sorted(loaded.search(q, { filter: { meta: { tenant: 'acme' } } })), ['a'])
    }
  }
})

test('bad filters reject with ERR_INVALID_ARG before any work, on both indexes', async (t) => {
  const cyclic = { $or: [] }
  cyclic.$or.push(cyclic)
  const bad = [
    [{ meta: { year: { $gt: {} } } }, RangeError, /year\.\$gt must be a number or a string/],
    [{ meta: { year: { $gt: true } } }, RangeError, /\$gt/],
    [{ meta: { tenant: { $in: 'acme' } } }, RangeError, /\$in must be an array/],
    [{ meta: { tenant: { $regex: 'a' } } }, RangeError, /\$regex is not a field operator/],
    [{ meta: { $nor: [{ tenant: 'a' }] } }, RangeError, /\$nor is not a filter operator/],
    [{ meta: { $or: [] } }, RangeError, /non-empty array/],
    [{ meta: { $and: ['x'] } }, RangeError, /must be an object/],
    [{ meta: { tenant: { $exists: 'yes' } } }, RangeError, /true or false/],
    [{ meta: { tenant: { name: 'a' } } }, RangeError, /mixes a field name/],
    [{ tenant: 'acme' }, TypeError, /options\.filter\.tenant is not a filter key/],
    [{ meta: 'acme' }, TypeError, /options\.filter\.meta must be an object/],
    [{ meta: ['acme'] }, TypeError, /options\.filter\.meta must be an object/],
    ['acme', TypeError, /options\.filter must be an object/],
    [{ ids: 'a' }, TypeError, /options\.filter\.ids/],
    // { tenant: req.tenant } without a tenant would cross as {} and match everything.
    [{ meta: { tenant: undefined } }, TypeError, /options\.filter\.meta\.tenant is undefined/],
    [{ meta: { $or: [{ tenant: 'a' }, { tenant: undefined }] } }, TypeError, /meta\.\$or\[1\]\.tenant is undefined/],
    [{ meta: { tenant: { $in: ['a', undefined] } } }, TypeError, /\$in\[1\] is undefined/],
    [{ meta: cyclic }, TypeError, /cyclic/],
  ]
  const indexes = [
    [bm25(), 'common'],
    [vectors('f32'), new Float32Array([1, 0, 0, 0])],
    [vectors('int8'), new Float32Array([1, 0, 0, 0])],
  ]
  for (const [index, q] of indexes) {
    for (const [i, [filter, type, message]] of bad.entries()) {
      const e = t.throws(() => index.search(q, { filter }), { instanceOf: type, message }, `bad[${i}]`)
      t.is(e.code, 'ERR_INVALID_ARG')
      const batch = typeof q === 'string' ? [q] : q
      const r = await t.throwsAsync(index.searchBatch(batch, { filter }), { instanceOf: type, message })
      t.is(r.code, 'ERR_INVALID_ARG')
    }
  }
})

test('VectorIndex.add with items validates them and changes nothing on failure', (t) => {
  const index = new VectorIndex({ dim: 2 })
  const rejects = [
    [() => index.add([{ id: 'a', vector: [1, 0], meta: 'x' }]), TypeError, /items\[0\]\.meta must be a plain object/],
    [() => index.add([{ id: 'a', vector: [1, 0], text: 3 }]), TypeError, /items\[0\]\.text must be a string/],
    [() => index.add([{ id: 'a', vector: [1, 0, 0] }]), RangeError, /items\[0\]\.vector has 3 values/],
    [() => index.add([{ id: 'a', vector: 'v' }]), TypeError, /items\[0\]\.vector/],
    [() => index.add(['a']), TypeError, /items\[0\] must be an object/],
    [
      () =>
        index.add([
          { id: 'a', vector: [1, 0] },
          { id: 'a', vector: [0, 1] },
        ]),
      Error,
      /more than once/,
    ],
  ]
  for (const [fn, type, message] of rejects) {
    const e = t.throws(fn, { instanceOf: type, message })
    t.truthy(e.code)
    t.is(index.size, 0)
  }
  t.is(index.add([{ id: 'a', vector: [1, 0], meta: { k: 1 } }]), 1)
  t.is(index.add([{ id: 'a', vector: [0, 1] }], { upsert: true }), 1)
  t.deepEqual(index.search([0, 1]), [{ id: 'a', score: 1 }], 'an upsert replaces the fields too')
})
