// Field indexes: filters answered from bitmaps give exactly the hits of the scan (an index with
// `dynamicFields: false` tests every candidate's metadata), through writes and a save; declared
// types are checked at add, and stats() says which filters scanned.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

/** A small seeded generator, so a failure repeats. */
function rng(seed) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function randomMeta(r) {
  const meta = { tenant: `t${Math.floor(r() * 50)}`, g: Math.floor(r() * 3) }
  const y = r()
  if (y < 0.6) meta.year = 1990 + Math.floor(r() * 20)
  else if (y < 0.8) meta.year = `${1990 + Math.floor(r() * 20)}-06-01`
  if (r() < 0.4) meta.tags = [`k${Math.floor(r() * 4)}`, `k${Math.floor(r() * 4)}`]
  if (r() < 0.3) meta.src = { kind: r() < 0.5 ? 'web' : 'pdf' }
  return meta
}

function randomFilter(r) {
  const t = () => `t${Math.floor(r() * 50)}`
  const all = [
    { tenant: t() },
    { tenant: t(), year: { $gte: 2000 } },
    { year: { $gte: 1995, $lt: 2005 } },
    { year: { $lt: '2000-01-01' } },
    { tags: { $in: ['k1', 'k2'] }, g: { $ne: 1 } },
    { $or: [{ tenant: t() }, { year: { $exists: false } }] },
    { 'src.kind': 'pdf', tenant: { $nin: [t(), t()] } },
    { $not: { g: 0 } },
  ]
  return all[Math.floor(r() * all.length)]
}

const words = Array.from({ length: 80 }, (_, i) => `w${i}`)
const text = (r) => Array.from({ length: 3 + Math.floor(r() * 12) }, () => words[Math.floor(r() ** 2 * 80)]).join(' ')

test('BM25 filters through field indexes equal the scan, through adds, removes, upserts, merges and a save', async (t) => {
  const r = rng(11)
  const indexed = new Bm25Index()
  const scanned = new Bm25Index({ dynamicFields: false })
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-fields-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let next = 0
  let live = []
  let a = indexed
  for (let round = 0; round < 30; round++) {
    const docs = Array.from({ length: 1 + Math.floor(r() * 300) }, () => ({
      id: `d${next++}`,
      text: text(r),
      meta: randomMeta(r),
    }))
    a.add(docs)
    scanned.add(docs)
    live.push(...docs.map((d) => d.id))
    if (r() < 0.4 && live.length > 10) {
      const gone = live.filter(() => r() < 0.1)
      a.remove(gone)
      scanned.remove(gone)
      live = live.filter((id) => !gone.includes(id))
    }
    if (r() < 0.3 && live.length > 0) {
      const again = live.slice(0, 5).map((id) => ({ id, text: text(r), meta: randomMeta(r) }))
      a.add(again, { upsert: true })
      scanned.add(again, { upsert: true })
      live = [...live.slice(5), ...again.map((d) => d.id)]
    }
    if (round % 10 === 9) {
      const path = join(dir, `b${round}.idx`)
      await a.save(path)
      a = await Bm25Index.load(path)
    }
    for (let q = 0; q < 8; q++) {
      const query = text(r)
      const filter = randomFilter(r)
      const opts = { topK: 10, filter: { meta: filter } }
      t.deepEqual(a.search(query, opts), scanned.search(query, opts), JSON.stringify({ round, query, filter }))
    }
  }
  const stats = a.stats()
  t.true(stats.filteredSearches > 0)
  t.true(stats.scannedFilterSearches > 0, 'src.kind is nested: not indexed dynamically')
  t.deepEqual(stats.scannedFilterFields, ['src.kind'])
  t.true(stats.fieldIndexBytes.tenant > 0)
})

test('a declared field of the wrong type is a RangeError naming the document and field, nothing added', (t) => {
  const index = new Bm25Index({ fields: { year: 'number', tenant: 'keyword', notes: false } })
  const err = t.throws(
    () =>
      index.add([
        { id: 'a', text: 'x', meta: { year: 2001 } },
        { id: 'b', text: 'y', meta: { year: '2001' } },
      ]),
    { instanceOf: RangeError },
  )
  t.is(err.code, 'ERR_INVALID_ARG')
  t.regex(err.message, /document 1 \("b"\): meta\.year is declared number/)
  t.is(index.size, 0)
  t.throws(() => new Bm25Index({ fields: { year: 'integer' } }), {
    instanceOf: RangeError,
    message: /options\.fields\.year/,
  })
  t.throws(() => new Bm25Index({ fields: { year: 2 } }), { instanceOf: TypeError, message: /options\.fields\.year/ })
  t.throws(() => new Bm25Index({ fields: ['year'] }), { instanceOf: TypeError, message: /options\.fields/ })
  t.throws(() => new Bm25Index({ dynamicFields: 'no' }), { instanceOf: TypeError, message: /dynamicFields/ })
  const vectors = new VectorIndex({ dim: 2, fields: { year: 'number' } })
  t.throws(() => vectors.add([{ id: 'c', vector: [1, 0], meta: { year: 'x' } }]), {
    instanceOf: RangeError,
    message: /id "c"\): meta\.year is declared number/,
  })
  t.is(vectors.size, 0)
})

test('vector filters through field indexes equal the scan, and declared fields survive a save', async (t) => {
  const r = rng(5)
  const dim = 8
  const items = Array.from({ length: 4000 }, (_, i) => ({
    id: `v${i}`,
    vector: Array.from({ length: dim }, () => r() - 0.5),
    meta: randomMeta(r),
  }))
  const indexed = new VectorIndex({ dim, fields: { 'src.kind': 'keyword' } })
  const scanned = new VectorIndex({ dim, dynamicFields: false })
  indexed.add(items)
  scanned.add(items)
  const gone = items.filter((_, i) => i % 9 === 0).map((d) => d.id)
  indexed.remove(gone)
  scanned.remove(gone)
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-vfields-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await indexed.save(join(dir, 'v.idx'))
  const loaded = await VectorIndex.load(join(dir, 'v.idx'))
  for (let q = 0; q < 40; q++) {
    const query = Array.from({ length: dim }, () => r() - 0.5)
    const opts = { topK: 10, filter: { meta: randomFilter(r) } }
    const want = scanned.search(query, opts)
    t.deepEqual(indexed.search(query, opts), want)
    t.deepEqual(loaded.search(query, opts), want)
  }
  // The declaration came back with the file.
  t.throws(() => loaded.add([{ id: 'n', vector: Array(dim).fill(0.1), meta: { src: { kind: 3 } } }]), {
    instanceOf: RangeError,
    message: /meta\.src\.kind is declared keyword/,
  })
})
