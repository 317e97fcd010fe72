import test from 'ava'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AbortError, VectorIndex } from '../../dist/esm/index.js'
import { randomVectors } from '../../fixtures/random-vectors.mjs'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-vec-'))

const ids = (n, prefix = 'v') => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

/** Brute force in JS (f64) over the raw vectors. */
function bruteForce(data, dim, query, metric, k) {
  const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  const q = Array.from(query)
  const qn = metric === 'cosine' ? norm(q) : 1
  const scored = []
  for (let i = 0; i < data.length / dim; i++) {
    const row = Array.from(data.subarray(i * dim, (i + 1) * dim))
    const rn = metric === 'cosine' ? norm(row) : 1
    let s = 0
    for (let j = 0; j < dim; j++) {
      s += metric === 'l2' ? -((row[j] - q[j]) ** 2) : (row[j] / rn) * (q[j] / qn)
    }
    scored.push({ i, s })
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i)
  return scored.slice(0, k)
}

for (const metric of ['cosine', 'dot', 'l2']) {
  test(`${metric}: f32 and f16 hits equal a brute force; int8 keeps recall with exact scores`, (t) => {
    const dim = 48
    const data = randomVectors(2000, dim, 1)
    const queries = randomVectors(4, dim, 2)
    for (const storage of ['f32', 'f16', 'int8']) {
      const index = new VectorIndex({ dim, metric, storage })
      t.is(index.add(ids(2000), data), 2000)
      t.is(index.size, 2000)
      for (let qi = 0; qi < 4; qi++) {
        const q = queries.subarray(qi * dim, (qi + 1) * dim)
        const hits = index.search(q, { topK: 10 })
        const want = bruteForce(data, dim, q, metric, 10)
        t.is(hits.length, 10)
        for (let i = 1; i < hits.length; i++) t.true(hits[i - 1].score >= hits[i].score)
        const wantIds = want.map((w) => `v${w.i}`)
        if (storage === 'int8') {
          t.true(hits.filter((h) => wantIds.includes(h.id)).length >= 9)
        } else if (storage === 'f32') {
          t.deepEqual(
            hits.map((h) => h.id),
            wantIds,
          )
          hits.forEach((h, i) => t.true(Math.abs(h.score - want[i].s) < 1e-4))
        } else {
          // f16 rounding may swap near ties; the best hit and the scores stay close.
          t.is(hits[0].id, wantIds[0])
          hits.forEach((h, i) => t.true(Math.abs(h.score - want[i].s) < 2e-2 * Math.max(1, Math.abs(want[i].s))))
        }
      }
    }
  })
}

test('hits beyond the reusable output buffer (topK above 1024) come back complete and in order', (t) => {
  const dim = 8
  const data = randomVectors(1500, dim, 9)
  const index = new VectorIndex({ dim, metric: 'dot' })
  index.add(ids(1500, 'é'), data)
  const q = randomVectors(1, dim, 10)
  const want = bruteForce(data, dim, q, 'dot', 1500)
  for (const topK of [5, 1200, 5000]) {
    const hits = index.search(q, { topK })
    t.deepEqual(
      hits.map((h) => h.id),
      want.slice(0, topK).map((w) => `é${w.i}`),
    )
    hits.forEach((h, i) => t.true(Math.abs(h.score - want[i].s) < 1e-4))
  }
})

test('ties go to the vector added first; upsert moves a vector last', (t) => {
  const index = new VectorIndex({ dim: 2 })
  index.add(['a', 'b', 'c'], new Float32Array([1, 0, 2, 0, 3, 0]))
  t.deepEqual(
    index.search([1, 0]).map((h) => h.id),
    ['a', 'b', 'c'],
  )
  index.add(['a'], new Float32Array([4, 0]), { upsert: true })
  t.deepEqual(
    index.search([1, 0]).map((h) => h.id),
    ['b', 'c', 'a'],
  )
  t.is(index.size, 3)
})

test('l2 scores are minus the squared distance', (t) => {
  const index = new VectorIndex({ dim: 2, metric: 'l2' })
  index.add(['origin', 'p'], new Float32Array([0, 0, 3, 4]))
  t.deepEqual(index.search(new Float32Array([3, 4])), [
    { id: 'p', score: 0 },
    { id: 'origin', score: -25 },
  ])
})

test('a filter restricts the scan to the given ids', (t) => {
  const dim = 16
  const data = randomVectors(300, dim, 3)
  const index = new VectorIndex({ dim, metric: 'dot' })
  index.add(ids(300), data)
  const allowed = ids(300).filter((_, i) => i % 5 === 0)
  const q = randomVectors(1, dim, 4)
  const hits = index.search(q, { topK: 7, filter: { ids: [...allowed, 'unknown'] } })
  const want = bruteForce(data, dim, q, 'dot', 300)
    .filter((w) => w.i % 5 === 0)
    .slice(0, 7)
    .map((w) => `v${w.i}`)
  t.deepEqual(
    hits.map((h) => h.id),
    want,
  )
  t.deepEqual(index.search(q, { filter: { ids: [] } }), [])
})

test('searchBatch returns what search returns, per query, in order', async (t) => {
  const dim = 32
  for (const storage of ['f32', 'f16', 'int8', 'binary']) {
    const index = new VectorIndex({ dim, storage })
    index.add(ids(5000), randomVectors(5000, dim, 5))
    const queries = randomVectors(12, dim, 6)
    const batch = await index.searchBatch(queries, { topK: 5 })
    t.is(batch.length, 12)
    batch.forEach((hits, qi) => {
      const single = index.search(queries.subarray(qi * dim, (qi + 1) * dim), { topK: 5 })
      t.deepEqual(
        hits.map((h) => h.id),
        single.map((h) => h.id),
      )
      hits.forEach((h, i) => t.true(Math.abs(h.score - single[i].score) < 1e-4))
    })
    t.deepEqual(await index.searchBatch(new Float32Array(0)), [])
  }
})

test('searchBatch honours an AbortSignal', async (t) => {
  const index = new VectorIndex({ dim: 4 })
  index.add(ids(10), randomVectors(10, 4, 7))
  const ac = new AbortController()
  ac.abort()
  const err = await t.throwsAsync(index.searchBatch(randomVectors(8, 4, 8), { signal: ac.signal }))
  t.true(err instanceof AbortError)
  t.is(err.code, 'ABORT_ERR')
})

test('bad input throws a clear error and leaves the index unchanged', async (t) => {
  const index = new VectorIndex({ dim: 3, storage: 'int8' })
  index.add(['a', 'b'], new Float32Array([1, 0, 0, 0, 1, 0]))
  const q = new Float32Array([0.5, 0.4, 0.1])
  const before = index.search(q)
  const rejects = [
    [() => index.add(['x'], new Float32Array([1, 2])), RangeError, 'ERR_INVALID_ARG', /3 values|need 3/],
    [() => index.add(['x'], new Float32Array([1, NaN, 0])), RangeError, 'ERR_INVALID_ARG', /non-finite/],
    [() => index.add(['x'], new Float32Array([1, Infinity, 0])), RangeError, 'ERR_INVALID_ARG', /non-finite/],
    [() => index.add(['x'], new Float32Array([0, 0, 0])), RangeError, 'ERR_INVALID_ARG', /zero/],
    [() => index.add(['a'], new Float32Array([1, 1, 1])), Error, 'ERR_DUPLICATE_ID', /upsert/],
    [
      () => index.add(['y', 'y'], new Float32Array(6).fill(1), { upsert: true }),
      Error,
      'ERR_DUPLICATE_ID',
      /more than once/,
    ],
    [
      () => index.add(['a', 'z'], new Float32Array([1, 1, 1, 0, 0, 0]), { upsert: true }),
      RangeError,
      'ERR_INVALID_ARG',
      /zero/,
    ],
    [() => index.add([''], new Float32Array(3).fill(1)), TypeError, 'ERR_INVALID_ARG', /id/],
    [() => index.add(['x'], 'not a vector'), TypeError, 'ERR_INVALID_ARG', /Float32Array/],
    [() => index.search(new Float32Array(4)), RangeError, 'ERR_INVALID_ARG', /dim 3/],
    [() => index.search(new Float32Array([NaN, 0, 0])), RangeError, 'ERR_INVALID_ARG', /non-finite/],
    [() => index.search(new Float32Array([0, 0, 0])), RangeError, 'ERR_INVALID_ARG', /zero/],
    [() => index.search(q, { topK: -1 }), RangeError, 'ERR_INVALID_ARG', /topK/],
    [() => index.search(q, { topK: 1.5 }), TypeError, 'ERR_INVALID_ARG', /topK/],
    [() => index.search(q, { filter: { ids: [1] } }), TypeError, 'ERR_INVALID_ARG', /filter/],
    [() => index.remove('a'), TypeError, 'ERR_INVALID_ARG', /ids/],
  ]
  for (const [fn, type, code, message] of rejects) {
    const err = t.throws(fn, { instanceOf: type, message })
    t.is(err.code, code)
    t.is(index.size, 2)
    t.deepEqual(index.search(q), before)
  }
  await t.throwsAsync(index.searchBatch(new Float32Array(4)), { instanceOf: RangeError })
  t.throws(() => new VectorIndex({ dim: 0 }), { instanceOf: RangeError })
  t.throws(() => new VectorIndex({}), { instanceOf: TypeError })
  t.throws(() => new VectorIndex({ dim: 3, metric: 'manhattan' }), { instanceOf: RangeError })
  t.throws(() => new VectorIndex({ dim: 3, storage: 'int4' }), { instanceOf: RangeError })
  for (const [opts, message] of [
    [{ dim: 0 }, /^options\.dim must be in \[1, 65536\], got 0/],
    [{ dim: -1 }, /^options\.dim must be in \[1, 65536\], got -1/],
    [{ dim: 65537 }, /^options\.dim /],
    [{ dim: 3, metric: 'manhattan' }, /^options\.metric must be one of 'cosine', 'dot', 'l2', got "manhattan"/],
    [{ dim: 3, storage: 'int4' }, /^options\.storage must be one of 'f32', 'f16', 'int8', 'binary', got "int4"/],
  ]) {
    t.throws(
      () => new VectorIndex(opts),
      { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message },
      JSON.stringify(opts),
    )
  }
  for (const opts of [{ dim: 1.5 }, { dim: '3' }, { dim: 3, metric: 1 }]) {
    t.throws(() => new VectorIndex(opts), { instanceOf: TypeError, code: 'ERR_INVALID_ARG' }, JSON.stringify(opts))
  }
  t.throws(() => new VectorIndex({ dim: 1, metric: 'dot', storage: 'f16' }).add(['big'], [1e6]), {
    instanceOf: RangeError,
  })
})

test('documented edge results: topK 0, topK above size, empty index, unknown ids on remove', (t) => {
  const empty = new VectorIndex({ dim: 2 })
  t.deepEqual(empty.search([1, 0]), [])
  const index = new VectorIndex({ dim: 2 })
  index.add(['a', 'b'], [1, 0, 0, 1])
  t.deepEqual(index.search([1, 0], { topK: 0 }), [])
  t.deepEqual(
    index.search([1, 0], { topK: 1000 }).map((h) => h.id),
    ['a', 'b'],
  )
  t.is(index.remove(['nope', 'a', 'a']), 1)
  t.false(index.has('a'))
  t.true(index.has('b'))
  t.is(index.size, 1)
  t.is(index.remove(['a']), 0)
})

test('save and load (copied or memory-mapped) give the same results; a mapped index stays mapped through an add', async (t) => {
  const dim = 24
  for (const storage of ['f32', 'f16', 'int8', 'binary']) {
    const index = new VectorIndex({ dim, metric: 'l2', storage })
    index.add(ids(400), randomVectors(400, dim, 9))
    index.remove(['v3'])
    const path = join(dir, `${storage}.rgv`)
    await index.save(path)
    const q = randomVectors(1, dim, 10)
    for (const mmap of [false, true]) {
      const loaded = await VectorIndex.load(path, { mmap })
      t.is(loaded.mapped, mmap)
      t.is(loaded.size, 399)
      t.is(loaded.storage, storage)
      t.is(loaded.metric, 'l2')
      t.deepEqual(loaded.search(q, { topK: 20 }), index.search(q, { topK: 20 }))
      // The new vector goes to a chunk of its own: the mapped rows stay mapped.
      const v = randomVectors(1, dim, 11)
      loaded.add(['new'], v)
      t.is(loaded.mapped, mmap)
      t.is(loaded.size, 400)
      t.is(loaded.search(v, { topK: 1 })[0].id, 'new')
    }
  }
  t.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  )
})

test('another process can map the same file and gets the same hits', async (t) => {
  const dim = 8
  const index = new VectorIndex({ dim })
  index.add(ids(100), randomVectors(100, dim, 12))
  const path = join(dir, 'shared.rgv')
  await index.save(path)
  const entry = fileURLToPath(new URL('../../dist/esm/index.js', import.meta.url))
  const script = `
    const { VectorIndex } = await import(${JSON.stringify(entry)})
    const index = await VectorIndex.load(${JSON.stringify(path)}, { mmap: true })
    console.log(JSON.stringify(index.search(new Float32Array(${JSON.stringify(Array.from(randomVectors(1, dim, 13)))}), { topK: 5 })))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  const theirs = JSON.parse(out)
  const mine = (await VectorIndex.load(path, { mmap: true })).search(randomVectors(1, dim, 13), { topK: 5 })
  t.deepEqual(theirs, mine)
})

test('damaged, foreign and missing files are rejected with a code', async (t) => {
  const index = new VectorIndex({ dim: 4 })
  index.add(ids(50), randomVectors(50, 4, 14))
  const path = join(dir, 'c.rgv')
  await index.save(path)
  const bytes = readFileSync(path)
  const cases = {
    truncated: bytes.subarray(0, bytes.length - 5),
    flipped: Buffer.from(bytes).fill(0x41, 300, 301),
    foreign: Buffer.from('{"not":"an index"}'.repeat(10)),
    empty: Buffer.alloc(0),
  }
  for (const [name, b] of Object.entries(cases)) {
    const p = join(dir, `bad-${name}.rgv`)
    writeFileSync(p, b)
    for (const mmap of [false, true]) {
      const err = await t.throwsAsync(VectorIndex.load(p, { mmap }))
      t.is(err.code, 'ERR_CORRUPT_INDEX', name)
    }
  }
  const missing = await t.throwsAsync(VectorIndex.load(join(dir, 'missing.rgv')))
  t.is(missing.code, 'ERR_IO')
  await t.throwsAsync(VectorIndex.load(path, { mmap: 'yes' }), { instanceOf: TypeError })
})

test('metric and storage default to cosine and f32', (t) => {
  const index = new VectorIndex({ dim: 2 })
  t.is(index.metric, 'cosine')
  t.is(index.storage, 'f32')
  t.is(index.dim, 2)
  t.is(new VectorIndex({ dim: 2, metric: null, storage: null }).storage, 'f32', 'null means the default, as before')
})

test('stored texts and ids in any script come back intact from vector search', async (t) => {
  const items = [
    { id: '학교', vector: [1, 0], text: '학교에 가는 길 '.repeat(100) },
    { id: 'emoji', vector: [0.9, 0.1], text: '😺 𝒳 고양이' },
    { id: 'latin', vector: [0.8, 0.2], text: 'café crème' },
    { id: 'ascii', vector: [0.7, 0.3], text: 'plain' },
    { id: 'bare', vector: [0.6, 0.4] },
  ]
  const index = new VectorIndex({ dim: 2, metric: 'cosine' })
  index.add(items)
  const want = new Map(items.map((d) => [d.id, d.text]))
  for (const hits of [
    index.search([1, 0], { topK: 10 }),
    (await index.searchBatch(new Float32Array([1, 0]), { topK: 10 }))[0],
  ]) {
    t.deepEqual(
      hits.map((h) => h.id),
      items.map((d) => d.id),
    )
    for (const h of hits) t.is(h.text, want.get(h.id), h.id)
  }
})
