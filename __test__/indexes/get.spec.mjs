// `get(ids)` on both indexes: the stored text and metadata of live documents, in order, through writes, upserts,
// removes, merges and save / load; equal to a model of the writes after a random sequence of them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-get-'))
test.after.always(() => rmSync(dir, { recursive: true, force: true }))

const vector = (i) => [Math.cos(i), Math.sin(i)]
const KINDS = [
  ['Bm25Index', () => new Bm25Index(), (d) => d, Bm25Index],
  ['VectorIndex', () => new VectorIndex({ dim: 2 }), (d, i) => ({ ...d, vector: vector(i) }), VectorIndex],
]

for (const [name, make, withVector, Kind] of KINDS) {
  test(`${name}: get returns the stored text and metadata in order, undefined for unknown and removed ids`, async (t) => {
    const index = make()
    index.add(
      [
        { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme', year: 2020, tags: ['x'] } },
        { id: 'b', text: 'a river delta' },
        { id: 'c', text: 'no metadata here', meta: { nested: { k: null } } },
      ].map(withVector),
    )
    t.deepEqual(index.get(['c', 'zz', 'a', 'a']), [
      { id: 'c', text: 'no metadata here', meta: { nested: { k: null } } },
      undefined,
      { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme', year: 2020, tags: ['x'] } },
      { id: 'a', text: 'tides and the moon', meta: { tenant: 'acme', year: 2020, tags: ['x'] } },
    ])
    t.deepEqual(index.get(['b']), [{ id: 'b', text: 'a river delta' }])
    t.deepEqual(index.get([]), [])
    index.remove(['a'])
    t.deepEqual(index.get(['a']), [undefined])
    index.add([withVector({ id: 'b', text: 'replaced', meta: { v: 2 } }, 5)], { upsert: true })
    t.deepEqual(index.get(['b']), [{ id: 'b', text: 'replaced', meta: { v: 2 } }])
    const file = join(dir, `${name}.idx`)
    await index.save(file)
    const loaded = await Kind.load(file)
    t.deepEqual(loaded.get(['a', 'b', 'c']), index.get(['a', 'b', 'c']))
    for (const bad of [undefined, 'a', [1], [null]]) t.throws(() => index.get(bad), { instanceOf: TypeError })
  })

  test(`${name}: after random adds, upserts and removes (and merges), get equals a model of the writes`, async (t) => {
    const index = make()
    const model = new Map()
    let seed = 7
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    for (let step = 0; step < 60; step++) {
      const ids = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => `d${Math.floor(rand() * 150)}`)
      if (rand() < 0.3) {
        index.remove(ids)
        for (const id of ids) model.delete(id)
      } else {
        const docs = [...new Set(ids)].map((id) => {
          const doc = { id, text: `text of ${id} at ${step}` }
          if (rand() < 0.7) doc.meta = { step, id, flag: rand() < 0.5 }
          return doc
        })
        index.add(
          docs.map((d, i) => withVector(d, step * 31 + i)),
          { upsert: true },
        )
        for (const d of docs) model.set(d.id, d)
      }
      if (step % 20 === 19 && typeof index.merge === 'function') await index.merge()
    }
    const all = Array.from({ length: 150 }, (_, i) => `d${i}`)
    t.deepEqual(
      index.get(all),
      all.map((id) => model.get(id)),
    )
  })
}

test('Bm25Index: get without stored text (storeText: false, or tokens only) returns the id and metadata', (t) => {
  const index = new Bm25Index({ storeText: false })
  index.add([{ id: 'a', text: 'some text', meta: { k: 1 } }])
  t.deepEqual(index.get(['a']), [{ id: 'a', meta: { k: 1 } }])
  const tokens = new Bm25Index()
  tokens.add([{ id: 't', tokens: ['x', 'y'] }])
  t.deepEqual(tokens.get(['t']), [{ id: 't' }])
})
