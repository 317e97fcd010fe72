// VectorIndex under concurrency: reads on snapshots that never wait for a save or a batch,
// searchAsync coalescing, and exact results after interleaved changes (docs/CONCURRENCY.md).
import test from 'ava'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VectorIndex } from '../../dist/esm/index.js'
import { randomVectors } from '../../fixtures/random-vectors.mjs'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-vec-conc-'))
const ids = (n, prefix = 'v') => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const strip = (hits) => hits.map((h) => [h.id, h.score])

/** Same ids in the same order, scores equal up to float rounding (batch and single paths differ in it). */
function same(t, a, b, what) {
  t.deepEqual(
    a.map((h) => h.id),
    b.map((h) => h.id),
    what,
  )
  a.forEach((h, i) => t.true(Math.abs(h.score - b[i].score) <= 1e-4 * Math.max(1, Math.abs(h.score)), what))
}

function big(n, dim, seed = 1) {
  const index = new VectorIndex({ dim, metric: 'dot' })
  index.add(ids(n), randomVectors(n, dim, seed))
  return index
}

test('sync add, size, has and search return while a large save is still writing, and the save writes the snapshot of its call', async (t) => {
  const dim = 128
  const index = big(200_000, dim) // 100 MB of rows
  const path = join(dir, 'big.rgv')
  const saved = index.save(path)
  // Wait (without yielding to the event loop) until the save's temporary file exists: it is running.
  const deadline = Date.now() + 20_000
  while (!readdirSync(dir).some((f) => f.includes('ragrank-tmp')) && Date.now() < deadline) {}
  t.true(
    readdirSync(dir).some((f) => f.includes('ragrank-tmp')),
    'the save started',
  )
  const q = randomVectors(1, dim, 9)
  t.is(index.add(['late'], q), 1)
  t.is(index.size, 200_001)
  t.true(index.has('late'))
  t.is(index.search(q, { topK: 1 })[0].id, 'late')
  t.true(index.remove(['v0']) === 1)
  // Had any of these waited for the save, it would have been renamed into place by now.
  t.false(existsSync(path), 'the save is still writing')
  await saved
  const back = await VectorIndex.load(path)
  t.is(back.size, 200_000)
  t.false(back.has('late'))
  t.true(back.has('v0'))
})

test('sync calls do not wait for a pending searchBatch, which searches the snapshot of its call', async (t) => {
  const dim = 128
  const index = big(100_000, dim, 2)
  const queries = randomVectors(256, dim, 3)
  const started = process.hrtime.bigint()
  let batchMs = 0
  const batch = index.searchBatch(queries, { topK: 3 }).then((r) => {
    batchMs = Number(process.hrtime.bigint() - started) / 1e6
    return r
  })
  await new Promise((r) => setTimeout(r, 20))
  const t0 = process.hrtime.bigint()
  // The first query itself, added after the call: the batch must not see it.
  index.add(
    ['late'],
    queries.subarray(0, dim).map((x) => x * 100),
  )
  t.is(index.size, 100_001)
  t.is(index.search(queries.subarray(0, dim), { topK: 1 })[0].id, 'late')
  const syncMs = Number(process.hrtime.bigint() - t0) / 1e6
  const results = await batch
  t.false(
    results.some((hits) => hits.some((h) => h.id === 'late')),
    'the batch searched the snapshot of its call',
  )
  t.true(syncMs < batchMs / 2, `sync calls took ${syncMs.toFixed(1)} ms during a ${batchMs.toFixed(1)} ms batch`)
})

test('searchAsync equals search, for concurrent calls of mixed options sharing batches', async (t) => {
  const dim = 32
  const index = new VectorIndex({ dim, metric: 'cosine' })
  const data = randomVectors(3000, dim, 4)
  index.add(ids(3000).map((id, i) => ({ id, vector: data.subarray(i * dim, (i + 1) * dim), meta: { k: i % 3 } })))
  const queries = randomVectors(64, dim, 5)
  const opts = (i) =>
    [{ topK: 5 }, { topK: 2, filter: { meta: { k: 1 } } }, { topK: 7, filter: { ids: ids(50) } }][i % 3]
  const q = (i) => queries.subarray(i * dim, (i + 1) * dim)
  const got = await Promise.all(Array.from({ length: 64 }, (_, i) => index.searchAsync(q(i), opts(i))))
  got.forEach((hits, i) => same(t, hits, index.search(q(i), opts(i)), `query ${i}`))
  // Off: every call is its own batch, with the same answers.
  const plain = new VectorIndex({ dim, metric: 'cosine', coalesce: false })
  plain.add(ids(3000), data)
  t.deepEqual(
    strip(await plain.searchAsync(q(0), { topK: 4 })).map((h) => h[0]),
    strip(plain.search(q(0), { topK: 4 })).map((h) => h[0]),
  )
})

test('searchAsync: a bad query rejects only its own call, an aborted call rejects alone, bad options reject', async (t) => {
  const dim = 8
  const index = new VectorIndex({ dim, metric: 'cosine' })
  index.add(ids(100), randomVectors(100, dim, 6))
  const good = randomVectors(1, dim, 7)
  const ac = new AbortController()
  const calls = [
    index.searchAsync(good, { topK: 3 }),
    index.searchAsync(new Float32Array(dim), { topK: 3 }), // a zero vector under cosine
    index.searchAsync(good, { topK: 3, signal: ac.signal }),
    index.searchAsync(good, { topK: 3 }),
  ]
  ac.abort()
  const [a, bad, aborted, b] = await Promise.allSettled(calls)
  t.is(a.value.length, 3)
  t.deepEqual(a.value, b.value)
  t.true(bad.reason instanceof RangeError, String(bad.reason))
  t.is(aborted.reason.name, 'AbortError')
  await t.throwsAsync(index.searchAsync(new Float32Array(3)), { instanceOf: RangeError })
  await t.throwsAsync(index.searchAsync(good, { top: 1 }), { instanceOf: TypeError })
  t.throws(() => new VectorIndex({ dim, coalesce: { maxBatch: 0 } }), { instanceOf: RangeError })
  t.throws(() => new VectorIndex({ dim, coalesce: 'on' }), { instanceOf: TypeError })
})

test('after interleaved adds, upserts, removes, saves and loads, every search path equals a fresh index', async (t) => {
  const dim = 16
  let seed = 11
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  for (const storage of ['f32', 'f16', 'int8', 'binary']) {
    let index = new VectorIndex({ dim, metric: 'l2', storage })
    const live = new Map() // id -> vector, in insertion order (an upsert moves the id last)
    let next = 0
    for (let step = 0; step < 400; step++) {
      const r = rand()
      if (r < 0.55) {
        const n = 1 + Math.floor(rand() * 4)
        const batch = ids(n, `s${next}-`)
        next++
        const v = randomVectors(n, dim, step + 100)
        index.add(batch, v)
        batch.forEach((id, i) => live.set(id, v.slice(i * dim, (i + 1) * dim)))
      } else if (r < 0.8 && live.size > 0) {
        const id = [...live.keys()][Math.floor(rand() * live.size)]
        t.is(index.remove([id]), 1)
        live.delete(id)
      } else if (r < 0.92 && live.size > 0) {
        const id = [...live.keys()][Math.floor(rand() * live.size)]
        const v = randomVectors(1, dim, step + 5000)
        index.add([id], v, { upsert: true })
        live.delete(id)
        live.set(id, v)
      } else if (r < 0.94) {
        const path = join(dir, `churn-${storage}.rgv`)
        await index.save(path)
        index = await VectorIndex.load(path, { mmap: step % 2 === 0 })
      }
      if (step % 40 === 39) {
        const fresh = new VectorIndex({ dim, metric: 'l2', storage })
        const liveIds = [...live.keys()]
        const rows = new Float32Array(liveIds.length * dim)
        liveIds.forEach((id, i) => rows.set(live.get(id), i * dim))
        if (liveIds.length) fresh.add(liveIds, rows)
        t.is(index.size, fresh.size)
        const queries = randomVectors(5, dim, step)
        const [a, b] = await Promise.all([
          index.searchBatch(queries, { topK: 8 }),
          fresh.searchBatch(queries, { topK: 8 }),
        ])
        a.forEach((hits, i) => same(t, hits, b[i], `${storage} step ${step}: batch`))
        for (let i = 0; i < 5; i++) {
          const q = queries.subarray(i * dim, (i + 1) * dim)
          t.deepEqual(index.search(q, { topK: 8 }), fresh.search(q, { topK: 8 }), `${storage} step ${step}: search`)
          t.deepEqual(await index.searchAsync(q, { topK: 8 }), fresh.search(q, { topK: 8 }))
        }
      }
    }
  }
})

test('load takes the coalesce option too', async (t) => {
  const dim = 8
  const index = new VectorIndex({ dim })
  index.add(ids(20), randomVectors(20, dim, 12))
  const path = join(dir, 'coalesce.rgv')
  await index.save(path)
  const q = randomVectors(1, dim, 13)
  for (const coalesce of [false, { maxBatch: 2, maxWaitMs: 1 }, undefined]) {
    const back = await VectorIndex.load(path, { coalesce })
    t.deepEqual(await Promise.all([back.searchAsync(q), back.searchAsync(q), back.searchAsync(q)]), [
      index.search(q),
      index.search(q),
      index.search(q),
    ])
  }
  await t.throwsAsync(VectorIndex.load(path, { coalesce: { maxBatch: -1 } }), { instanceOf: RangeError })
})
