// `removeMatching(filter, { signal })` on both indexes: removes the live documents whose metadata matches a filter
// (the language and semantics of `search`'s `filter.meta`), resolves with how many, and later searches no longer see
// them; the same with and without field indexes, equal to a brute-force JS evaluation of the filter on random
// metadata; bad filters, unknown options and aborted signals are refused as elsewhere.
import test from 'ava'
import { AbortError, Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const vector = (i) => [Math.cos(i), Math.sin(i), Math.cos(2 * i), 1]

/** [name, make(options), a document as the index takes it, a query every document matches] */
const KINDS = [
  ['Bm25Index', (o) => new Bm25Index(o), (d) => ({ ...d, text: `common words ${d.id}` }), 'common'],
  [
    'VectorIndex',
    (o) => new VectorIndex({ dim: 4, metric: 'dot', ...o }),
    (d, i) => ({ ...d, vector: vector(i) }),
    [0, 0, 0, 1],
  ],
]

/** The ids a search finds (all documents, or the filter's), sorted. */
const searchIds = (index, q, filter) =>
  index
    .search(q, { topK: 100_000, ...(filter ? { filter: { meta: filter } } : {}) })
    .map((h) => h.id)
    .sort()

const docs = [
  { id: 'a', meta: { tenant: 'acme', year: 2019, tags: ['x', 'y'], src: { kind: 'pdf' } } },
  { id: 'b', meta: { tenant: 'acme', year: 2021, tags: ['y'], src: { kind: 'web' } } },
  { id: 'c', meta: { tenant: 'beta', year: 2023, tags: [] } },
  { id: 'd', meta: { tenant: 'Acme', year: '2021', draft: null } },
  { id: 'e', meta: { tenant: 'beta', year: 2020.5, draft: false } },
  { id: 'f', meta: { tenant: 'acme', year: 2024 } },
  { id: 'none' },
]

for (const [name, make, doc, q] of KINDS) {
  const liveIds = (index) => searchIds(index, q)
  const filled = (options) => {
    const index = make(options)
    index.add(docs.map(doc))
    return index
  }

  test(`${name}: a tenant's documents are removed, counted, and gone from searches and get`, async (t) => {
    const index = filled()
    t.is(await index.removeMatching({ tenant: 'acme' }), 3)
    t.is(index.size, 4)
    t.deepEqual(liveIds(index), ['c', 'd', 'e', 'none'])
    t.deepEqual(
      index.get(['a', 'b', 'f', 'd']).map((d) => d?.id),
      [undefined, undefined, undefined, 'd'],
    )
    t.false(index.has('a'))
    // Case-sensitive, as search: 'Acme' stays until asked for.
    t.is(await index.removeMatching({ tenant: { $in: ['Acme'] } }), 1)
    t.deepEqual(liveIds(index), ['c', 'e', 'none'])
  })

  test(`${name}: a range filter removes the documents in the range only`, async (t) => {
    const index = filled()
    t.is(await index.removeMatching({ year: { $gte: 2020, $lt: 2022 } }), 2)
    t.deepEqual(liveIds(index), ['a', 'c', 'd', 'f', 'none'])
    // Ranges compare strings with strings: '2021' is left to a string range.
    t.is(await index.removeMatching({ year: { $gte: '2000' } }), 1)
    t.deepEqual(liveIds(index), ['a', 'c', 'f', 'none'])
  })

  test(`${name}: a filter nothing matches removes nothing and resolves with 0`, async (t) => {
    const index = filled()
    t.is(await index.removeMatching({ tenant: 'nobody' }), 0)
    t.is(await index.removeMatching({ year: { $gt: 3000 } }), 0)
    t.is(await index.removeMatching({ $and: [{ tenant: 'acme' }, { tenant: 'beta' }] }), 0)
    t.is(index.size, docs.length)
    t.is(await make().removeMatching({ tenant: 'acme' }), 0, 'an empty index')
    // {} matches everything, as in search.
    t.is(await index.removeMatching({}), docs.length)
    t.is(index.size, 0)
  })

  test(`${name}: filters on fields with and without field indexes remove the same documents`, async (t) => {
    const configs = [
      ['dynamic field indexes', undefined],
      ['no field indexes', { dynamicFields: false }],
      ['declared nested field', { fields: { 'src.kind': true, tenant: 'keyword' } }],
      ['opted-out fields', { fields: { tenant: false, year: false } }],
    ]
    const filters = [
      { tenant: 'acme' },
      { 'src.kind': 'pdf' },
      { year: { $lte: 2021 }, tenant: { $ne: 'beta' } },
      { $or: [{ draft: { $exists: true } }, { tags: 'x' }] },
      { $not: { tenant: ['acme', 'beta'] } },
    ]
    for (const filter of filters) {
      const results = []
      for (const [label, options] of configs) {
        const index = filled(options)
        const n = await index.removeMatching(filter)
        results.push([n, liveIds(index)])
        t.deepEqual(results[results.length - 1], results[0], `${label} ${JSON.stringify(filter)}`)
      }
      t.true(results[0][0] > 0, JSON.stringify(filter))
    }
  })

  test(`${name}: writes made during the call compose with it`, async (t) => {
    const index = make()
    index.add(Array.from({ length: 5000 }, (_, i) => doc({ id: `a${i}`, meta: { tenant: 'a', n: i } }, i)))
    const removing = index.removeMatching({ tenant: 'a' })
    // Made while the filter is matched on the pool (or before, or after: either way the result below holds).
    index.add(
      Array.from({ length: 100 }, (_, i) => doc({ id: `a${i}`, meta: { tenant: 'b' } }, i)),
      { upsert: true },
    )
    index.add(Array.from({ length: 50 }, (_, i) => doc({ id: `c${i}`, meta: { tenant: 'c' } }, i)))
    const n = await removing
    // An upsert before the snapshot is no match; after it, a replacement left alone; after the removal, an add.
    t.true(n === 4900 || n === 5000, `${n}`)
    t.is(index.size, 150)
    t.deepEqual(searchIds(index, q, { tenant: 'a' }), [])
    t.is(index.get(Array.from({ length: 100 }, (_, i) => `a${i}`)).filter((d) => d?.meta.tenant === 'b').length, 100)
  })

  test(`${name}: an aborted signal rejects with an AbortError and removes nothing`, async (t) => {
    const index = filled()
    const controller = new AbortController()
    controller.abort()
    const e = await t.throwsAsync(index.removeMatching({ tenant: 'acme' }, { signal: controller.signal }), {
      instanceOf: AbortError,
    })
    t.is(e.code, 'ABORT_ERR')
    t.is(index.size, docs.length)
    // Aborted once started: it either stopped before removing (AbortError) or finished (resolves); never half.
    const late = new AbortController()
    const running = index.removeMatching({ tenant: 'acme' }, { signal: late.signal })
    late.abort()
    try {
      t.is(await running, 3)
      t.is(index.size, docs.length - 3)
    } catch (error) {
      t.true(error instanceof AbortError, String(error))
      t.is(index.size, docs.length)
    }
  })

  test(`${name}: a bad filter rejects with the error search throws for it, before any work`, async (t) => {
    const index = filled()
    const cyclic = { $or: [] }
    cyclic.$or.push(cyclic)
    const bad = [
      { year: { $gt: {} } },
      { year: { $gt: true } },
      { tenant: { $in: 'acme' } },
      { tenant: { $regex: 'a' } },
      { $nor: [{ tenant: 'a' }] },
      { $or: [] },
      { $and: ['x'] },
      { tenant: { $exists: 'yes' } },
      { tenant: { name: 'a' } },
      { tenant: {} },
      { tenant: undefined },
      { tenant: { $in: ['a', undefined] } },
      'acme',
      ['acme'],
      null,
      cyclic,
    ]
    for (const filter of bad) {
      const label = String(filter === cyclic ? 'cyclic' : JSON.stringify(filter))
      const searched = t.throws(() => index.search(q, { filter: { meta: filter } }), undefined, label)
      const e = await t.throwsAsync(index.removeMatching(filter), { instanceOf: searched.constructor }, label)
      t.is(e.code, 'ERR_INVALID_ARG', label)
      t.is(e.code, searched.code, label)
      t.is(e.message, searched.message.replace('options.filter.meta', 'filter'), label)
    }
    const missing = await t.throwsAsync(index.removeMatching(), { instanceOf: TypeError })
    t.regex(missing.message, /^filter must be an object/)
    t.is(index.size, docs.length)
  })

  test(`${name}: remove({ filter }) is a TypeError pointing at removeMatching, and removes nothing`, (t) => {
    const index = filled()
    const e = t.throws(() => index.remove({ filter: { tenant: 'acme' } }), { instanceOf: TypeError })
    t.is(e.code, 'ERR_INVALID_ARG')
    t.regex(e.message, /removeMatching\(filter\)/)
    t.is(index.size, docs.length)
  })

  test(`${name}: an unknown option is a TypeError naming it`, async (t) => {
    const index = filled()
    for (const options of [{ signl: new AbortController().signal }, { topK: 1 }, { filter: undefined }]) {
      const key = Object.keys(options)[0]
      const e = await t.throwsAsync(index.removeMatching({ tenant: 'acme' }, options), { instanceOf: TypeError })
      t.is(e.code, 'ERR_INVALID_ARG')
      t.true(e.message.startsWith(`options.${key} `), e.message)
    }
    await t.throwsAsync(index.removeMatching({ tenant: 'acme' }, 'fast'), {
      instanceOf: TypeError,
      message: /^options must be an object/,
    })
    await t.throwsAsync(index.removeMatching({ tenant: 'acme' }, { signal: 'soon' }), {
      instanceOf: TypeError,
      message: /options\.signal must be an AbortSignal/,
    })
    t.is(index.size, docs.length)
    t.is(await index.removeMatching({ tenant: 'acme' }, { signal: undefined }), 3)
  })
}

/** A small seeded generator, so a failure repeats. */
function rng(seed) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const pick = (r, xs) => xs[Math.floor(r() * xs.length)]

function randomScalar(r) {
  return pick(r, [
    () => null,
    () => r() < 0.5,
    () => pick(r, ['a', 'b', 'c', 'A', '', 'é', '2024-01-02', '2024-01-10']),
    () => pick(r, ['a', 'b', 'c']),
    () => Math.floor(r() * 7) - 3,
    () => pick(r, [0.5, 1.5, 2.5, -0.25, 1e9]),
  ])()
}

function randomValue(r) {
  const v = r()
  if (v < 0.15) return Array.from({ length: Math.floor(r() * 4) }, () => randomScalar(r))
  if (v < 0.2) return { x: randomScalar(r) }
  return randomScalar(r)
}

function randomMeta(r) {
  if (r() < 0.05) return undefined
  const meta = {}
  for (const key of ['t', 'n', 'd']) if (r() < 0.7) meta[key] = randomValue(r)
  if (r() < 0.4) meta.src = { kind: pick(r, ['web', 'pdf', 3]) }
  return meta
}

function randomFilter(r, depth = 0) {
  if (depth < 3 && r() < 0.3) {
    const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomFilter(r, depth + 1))
    return pick(r, [() => ({ $and: parts }), () => ({ $or: parts }), () => ({ $not: parts[0] })])()
  }
  const field = pick(r, ['t', 'n', 'd', 'src.kind', 'missing'])
  const x = randomScalar(r)
  const op = pick(r, ['plain', '$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', 'list', 'two'])
  if (op === 'plain') return { [field]: x }
  if (op === 'list') return { [field]: [x, randomScalar(r)] }
  if (op === '$in' || op === '$nin') return { [field]: { [op]: [x, randomScalar(r)] } }
  if (op === '$exists') return { [field]: { $exists: r() < 0.5 } }
  if (op.startsWith('$g') || op.startsWith('$l')) {
    const bound = typeof x === 'number' || typeof x === 'string' ? x : 0
    return { [field]: { [op]: bound } }
  }
  if (op === 'two') return { [field]: { $gte: -1, $lt: 2 } }
  return { [field]: { [op]: x } }
}

// The semantics of docs/FILTERS.md, by brute force: numbers by value, strings by code point (ASCII and BMP here),
// ranges never across types, an array field matches when any element does, a missing field matches only $ne, $nin
// and $exists: false, `a.b` reads nested objects unless the key itself exists.
function lookup(meta, path) {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined
  if (Object.hasOwn(meta, path)) return meta[path]
  if (!path.includes('.')) return undefined
  let cur = meta
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, key)) return undefined
    cur = cur[key]
  }
  return cur
}
const isScalar = (v) => v === null || typeof v !== 'object'
const equal = (a, b) => isScalar(a) && a === b
const compare = (a, b) =>
  (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string')
    ? Math.sign(a < b ? -1 : a > b ? 1 : 0)
    : undefined
const some = (v, test) => (Array.isArray(v) ? v.some(test) : test(v))

function holds(op, x, v) {
  const present = v !== undefined
  switch (op) {
    case '$eq':
      return present && some(v, (e) => equal(e, x))
    case '$ne':
      return !(present && some(v, (e) => equal(e, x)))
    case '$in':
      return present && some(v, (e) => x.some((y) => equal(e, y)))
    case '$nin':
      return !(present && some(v, (e) => x.some((y) => equal(e, y))))
    case '$exists':
      return present === x
    default: {
      const want = { $gt: [1], $gte: [1, 0], $lt: [-1], $lte: [-1, 0] }[op]
      return present && some(v, (e) => want.includes(compare(e, x)))
    }
  }
}

function matches(filter, meta) {
  return Object.entries(filter).every(([key, value]) => {
    if (key === '$and') return value.every((f) => matches(f, meta))
    if (key === '$or') return value.some((f) => matches(f, meta))
    if (key === '$not') return !matches(value, meta)
    const v = lookup(meta, key)
    if (Array.isArray(value)) return holds('$in', value, v)
    if (value !== null && typeof value === 'object') return Object.entries(value).every(([op, x]) => holds(op, x, v))
    return holds('$eq', value, v)
  })
}

test('removeMatching equals a brute-force JS evaluation of 50 random filters on 200 random documents, both indexes, with and without field indexes', async (t) => {
  const r = rng(20261207)
  const corpus = Array.from({ length: 200 }, (_, i) => {
    const meta = randomMeta(r)
    return meta === undefined ? { id: `d${i}` } : { id: `d${i}`, meta }
  })
  const indexes = [
    ['bm25', () => new Bm25Index(), 'common'],
    ['bm25 without field indexes', () => new Bm25Index({ dynamicFields: false }), 'common'],
    ['bm25 with src.kind indexed', () => new Bm25Index({ fields: { 'src.kind': true } }), 'common'],
    ['vector', () => new VectorIndex({ dim: 4, metric: 'dot' }), [0, 0, 0, 1]],
    [
      'vector without field indexes',
      () => new VectorIndex({ dim: 4, metric: 'dot', dynamicFields: false }),
      [0, 0, 0, 1],
    ],
  ]
  let removedSome = 0
  for (let f = 0; f < 50; f++) {
    const filter = randomFilter(r)
    const want = corpus.filter((d) => matches(filter, d.meta)).map((d) => d.id)
    const left = corpus
      .map((d) => d.id)
      .filter((id) => !want.includes(id))
      .sort()
    if (want.length > 0 && left.length > 0) removedSome++
    for (const [label, make, q] of indexes) {
      const index = make()
      index.add(
        corpus.map((d, i) => (typeof q === 'string' ? { ...d, text: `common ${d.id}` } : { ...d, vector: vector(i) })),
      )
      // What search selects with the same filter, before the removal.
      t.deepEqual(searchIds(index, q, filter), [...want].sort(), `${label} search ${JSON.stringify(filter)}`)
      t.is(await index.removeMatching(filter), want.length, `${label} ${JSON.stringify(filter)}`)
      t.deepEqual(searchIds(index, q), left, `${label} ${JSON.stringify(filter)}`)
      t.is(index.size, left.length)
    }
  }
  t.true(removedSome >= 15, `${removedSome} of the filters removed some but not all documents`)
})
