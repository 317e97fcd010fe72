import test from 'ava'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VectorIndex } from '../../dist/esm/index.js'

const lib = new URL('../../dist/esm/index.js', import.meta.url).href
const fresh = () => mkdtempSync(join(tmpdir(), 'ragrank-vecdir-'))

/** Runs `code` in another Node process with `VectorIndex` and `dir` in scope; returns its stdout. */
function child(dir, code) {
  const script = `import { VectorIndex } from ${JSON.stringify(lib)}\nconst dir = ${JSON.stringify(dir)}\n${code}`
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()
}

/** Deterministic rows: row i of dim 4. */
const ROWS = `const row = (i) => [Math.sin(i + 1), Math.cos(i * 3 + 1), Math.sin(i * 7 + 2), 1 + (i % 5)]`
const row = (i) => [Math.sin(i + 1), Math.cos(i * 3 + 1), Math.sin(i * 7 + 2), 1 + (i % 5)]
const QUERY = [0.3, -0.2, 0.9, 1]

test('an index committed by one process reopens in another with the same hits and scores', async (t) => {
  const dir = fresh()
  child(
    dir,
    `${ROWS}
    const index = await VectorIndex.open(dir, { dim: 4, metric: 'l2', fields: { tenant: 'keyword' } })
    index.add(Array.from({ length: 50 }, (_, i) => ({ id: 'v' + i, vector: row(i), meta: { tenant: 't' + (i % 3) }, text: 'text ' + i })))
    index.remove(['v3', 'v4'])
    await index.commit()
    index.add([{ id: 'lost', vector: row(99) }]) // never committed (durability 'commit')`,
  )
  const memory = new VectorIndex({ dim: 4, metric: 'l2' })
  memory.add(Array.from({ length: 50 }, (_, i) => ({ id: `v${i}`, vector: row(i) })))
  memory.remove(['v3', 'v4'])
  const index = await VectorIndex.open(dir)
  t.is(index.size, 48)
  t.is(index.dim, 4)
  t.is(index.metric, 'l2')
  t.true(index.mapped)
  t.false(index.has('lost'))
  const strip = (hits) => hits.map(({ id, score }) => ({ id, score }))
  t.deepEqual(strip(index.search(QUERY, { topK: 60 })), strip(memory.search(QUERY, { topK: 60 })))
  t.deepEqual(index.get(['v7'])[0], { id: 'v7', text: 'text 7', meta: { tenant: 't1' } })
  t.deepEqual(
    index.search(QUERY, { topK: 100, filter: { meta: { tenant: 't2' } } }).length,
    memory.search(QUERY, { topK: 100, filter: { ids: ids48().filter((id) => Number(id.slice(1)) % 3 === 2) } }).length,
  )
  // Writes go on from the reopened state, and commit.
  index.add([{ id: 'w', vector: row(7) }])
  const { generation } = await index.commit()
  t.true(Number.isInteger(generation) && generation > 1)
  t.is(
    child(dir, `const r = await VectorIndex.open(dir, { readOnly: true }); console.log(r.size, r.has('w'))`),
    '49 true',
  )
})

function ids48() {
  return Array.from({ length: 50 }, (_, i) => `v${i}`).filter((id) => id !== 'v3' && id !== 'v4')
}

test("durability 'sync' keeps a write that returned in a process that died without a commit", (t) => {
  const dir = fresh()
  child(
    dir,
    `${ROWS}
    const index = await VectorIndex.open(dir, { dim: 4, durability: 'sync' })
    index.add([{ id: 'a', vector: row(1) }, { id: 'b', vector: row(2) }])
    index.remove(['a'])
    process.exit(0) // no commit`,
  )
  t.is(
    child(
      dir,
      `const r = await VectorIndex.open(dir, { durability: 'sync' }); console.log(r.size, r.has('a'), r.has('b'))`,
    ),
    '1 false true',
  )
})

test('a reader in another process than the writer sees its commits at refresh and takes no writes', async (t) => {
  const dir = fresh()
  child(dir, `${ROWS}\nconst w = await VectorIndex.open(dir, { dim: 4 }); w.add(['a'], row(1)); await w.commit()`)
  const reader = await VectorIndex.open(dir, { readOnly: true, refreshInterval: 0 })
  t.is(reader.size, 1)
  child(
    dir,
    `${ROWS}\nconst w = await VectorIndex.open(dir); w.add(['b', 'c'], [...row(2), ...row(3)]); await w.commit()`,
  )
  t.is(reader.size, 1, 'a commit is seen at refresh, not before')
  t.true(await reader.refresh())
  t.is(reader.size, 3)
  t.false(await reader.refresh())
  t.false(await new VectorIndex({ dim: 4 }).refresh(), 'an index in memory has nothing newer to read')
  t.throws(() => reader.add(['d'], row(4)), { code: 'ERR_READ_ONLY' })
  t.throws(() => reader.remove(['a']), { code: 'ERR_READ_ONLY' })
  await t.throwsAsync(reader.commit(), { code: 'ERR_READ_ONLY' })
  await t.throwsAsync(reader.removeMatching({ x: 1 }), { code: 'ERR_READ_ONLY' })
  t.is(reader.size, 3)
})

test('a reader refreshes on its refreshInterval by itself', async (t) => {
  const dir = fresh()
  child(dir, `${ROWS}\nconst w = await VectorIndex.open(dir, { dim: 4 }); w.add(['a'], row(1)); await w.commit()`)
  const reader = await VectorIndex.open(dir, { readOnly: true, refreshInterval: 20 })
  t.is(reader.size, 1)
  child(dir, `${ROWS}\nconst w = await VectorIndex.open(dir); w.add(['b'], row(2)); await w.commit()`)
  const until = Date.now() + 5000
  while (reader.size !== 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10))
  t.is(reader.size, 2, 'the automatic refresh read the new commit')
})

test('a second writer in another process is ERR_LOCKED', async (t) => {
  const dir = fresh()
  const writer = await VectorIndex.open(dir, { dim: 4 })
  writer.add(['a'], row(1))
  await writer.commit()
  const out = child(dir, `try { await VectorIndex.open(dir) } catch (e) { console.log(e.code, e.message) }`)
  t.regex(out, new RegExp(`^ERR_LOCKED .*${process.pid}`))
  // A reader needs no lock.
  t.is(child(dir, `console.log((await VectorIndex.open(dir, { readOnly: true })).size)`), '1')
})

test('unknown options are TypeErrors, options that differ from the recorded ones ERR_INVALID_ARG RangeErrors, each naming them', async (t) => {
  const dir = fresh()
  await t.throwsAsync(VectorIndex.open(dir, { dim: 4, dims: 3 }), { instanceOf: TypeError, message: /dims/ })
  await t.throwsAsync(VectorIndex.open(dir, { dim: 4, durability: 'never' }), { instanceOf: TypeError })
  child(
    dir,
    `await VectorIndex.open(dir, { dim: 4, storage: 'f16', embedder: { model: 'Xenova/all-MiniLM-L6-v2', pooling: 'mean' } })`,
  )
  await t.throwsAsync(VectorIndex.open(dir, { dim: 8, metric: 'dot', storage: 'f16' }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
    message: /options dim, metric differ/,
  })
  await t.throwsAsync(VectorIndex.open(dir, { embedder: { model: 'other' } }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
    message: /options embedder differ/,
  })
  await t.throwsAsync(VectorIndex.open(fresh()), { message: /options\.dim is required/ })
  const index = await VectorIndex.open(dir, { dim: 4, storage: 'f16', readOnly: true })
  t.is(index.storage, 'f16')
})

test('close() commits, takes no more writes, and lets the directory be opened again at once', async (t) => {
  const dir = fresh()
  const first = await VectorIndex.open(dir, { dim: 4 })
  first.add(Array.from({ length: 10 }, (_, i) => ({ id: `v${i}`, vector: row(i) })))
  await first.close()
  t.throws(() => first.add([{ id: 'late', vector: row(11) }]), { code: 'ERR_READ_ONLY', message: /closed/ })
  t.is(first.search(QUERY, { topK: 20 }).length, 10, 'searches go on over what it holds')
  await first.close()
  const again = await VectorIndex.open(dir)
  t.is(again.size, 10, 'the close committed')
  t.is(child(dir, `console.log((await VectorIndex.open(dir, { readOnly: true })).size)`), '10')
})

for (const durability of ['commit', 'sync']) {
  test(`${durability}: after random writes, commits and reopenings, hits equal an index built from scratch`, async (t) => {
    const dir = fresh()
    let s = 7
    const rand = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32
    const item = (id) => ({ id, vector: [rand() - 0.5, rand() - 0.5, rand() - 0.5, rand() + 0.5] })
    let index = await VectorIndex.open(dir, { dim: 4, durability })
    let live = []
    let next = 0
    for (let round = 0; round < 30; round++) {
      const roll = rand()
      if (roll < 0.5 || live.length === 0) {
        const batch = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => item(`v${next++}`))
        index.add(batch)
        live.push(...batch)
      } else if (roll < 0.75) {
        const gone = live.filter(() => rand() < 0.3).map((d) => d.id)
        t.is(index.remove(gone), gone.length)
        live = live.filter((d) => !gone.includes(d.id))
      } else {
        const replaced = live.filter(() => rand() < 0.2).map((d) => item(d.id))
        index.add(replaced, { upsert: true })
        const ids = new Set(replaced.map((d) => d.id))
        live = [...live.filter((d) => !ids.has(d.id)), ...replaced]
      }
      if (round % 5 === 4) await index.commit()
      if (round % 10 === 9) {
        await index.close()
        index = await VectorIndex.open(dir, { durability })
      }
      const scratch = new VectorIndex({ dim: 4 })
      if (live.length > 0) scratch.add(live)
      t.is(index.size, scratch.size)
      t.deepEqual(index.search(QUERY, { topK: 15 }), scratch.search(QUERY, { topK: 15 }), `round ${round}`)
    }
  })
}
