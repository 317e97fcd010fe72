import test from 'ava'
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AbortError, Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-'))
const docs = Array.from({ length: 500 }, (_, i) => ({
  id: `d${i}`,
  text: `doc ${i} about ${['cats', 'dogs', '학교', '東京'][i % 4]} and ${i % 7 === 0 ? 'rare' : 'common'} things`,
  ...(i % 3 === 0 ? { meta: { group: i % 2, tags: ['a', 'b'] } } : {}),
}))

test('save then load gives the same results, options included', async (t) => {
  const index = new Bm25Index({ variant: 'bm25+', k1: 1.2, b: 0.5, delta: 1, analyzer: { stemmer: 'english' } })
  index.add(docs)
  index.remove(['d3', 'd4'])
  const path = join(dir, 'a.rgrk')
  await index.save(path)
  const loaded = await Bm25Index.load(path)
  t.is(loaded.size, index.size)
  t.deepEqual(loaded.analyze('running cats'), index.analyze('running cats'))
  for (const q of ['cats rare', '학교', 'common things', 'doc 42']) {
    t.deepEqual(loaded.search(q, { topK: 20 }), index.search(q, { topK: 20 }))
  }
  t.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  )
})

test('a file saved before defaults moved to Rust loads with its options', async (t) => {
  // Saved by c74585d from { variant: 'bm25l', k1: 1.1, b: 0.6, delta: 0.3, storeText: false,
  // analyzer: { segmentation: 'regex', stopwords: 'en', stemmer: 'english' } }.
  const loaded = await Bm25Index.load(new URL('../../fixtures/bm25-v1-options.rgrk', import.meta.url).pathname)
  t.deepEqual(loaded.analyze('The Runners ran a x'), ['runner', 'ran'])
  const hits = loaded.search('running cat')
  t.deepEqual(
    hits.map((h) => h.id),
    ['a', 'b', 'c'],
  )
  t.true(Math.abs(hits[0].score - 1.2174649238586426) < 1e-6)
  t.true(Math.abs(hits[1].score - 0.5965947508811951) < 1e-6)
  t.is(hits[0].text, undefined, 'storeText: false was kept')
})

test('vector files of format version 1 (before metadata) still load, copied or mapped', async (t) => {
  // Saved by a6688b3: ids a, b, c; [1,0,0,0], [0,1,0,0], [.5,.5,.5,.5]; f32 cosine and int8 l2.
  const cases = [
    ['f32', 'cosine', [0.9950371980667114, 0.5472704768180847, 0.09950371831655502]],
    ['int8', 'l2', [-0.009999990463256836, -0.9099999666213989, -1.809999942779541]],
  ]
  for (const [storage, metric, scores] of cases) {
    const path = new URL(`../../fixtures/vector-v1-${storage}.rgrk`, import.meta.url).pathname
    for (const mmap of [false, true]) {
      const loaded = await VectorIndex.load(path, { mmap })
      t.is(loaded.storage, storage)
      t.is(loaded.metric, metric)
      const hits = loaded.search([1, 0.1, 0, 0], { topK: 3 })
      t.deepEqual(
        hits.map((h) => h.id),
        ['a', 'c', 'b'],
      )
      hits.forEach((h, i) => t.true(Math.abs(h.score - scores[i]) < 1e-6))
      t.deepEqual(loaded.search([1, 0.1, 0, 0], { filter: { meta: { x: { $exists: false } } } }).length, 3)
    }
  }
})

test('truncated, corrupted and foreign files give ERR_CORRUPT_INDEX', async (t) => {
  const index = new Bm25Index()
  index.add(docs)
  const path = join(dir, 'b.rgrk')
  await index.save(path)
  const bytes = readFileSync(path)
  const cases = {
    truncated: bytes.subarray(0, bytes.length >> 1),
    flipped: Buffer.from(bytes).fill(0x41, 100, 101),
    foreign: Buffer.from('{"not":"an index"}'),
    empty: Buffer.alloc(0),
    future: Buffer.concat([bytes.subarray(0, 8), Buffer.from([9, 0, 0, 0]), bytes.subarray(12)]),
  }
  for (const [name, content] of Object.entries(cases)) {
    const p = join(dir, `${name}.rgrk`)
    writeFileSync(p, content)
    await t.throwsAsync(Bm25Index.load(p), { code: 'ERR_CORRUPT_INDEX' }, name)
  }
})

test('missing files and bad paths are clear errors', async (t) => {
  await t.throwsAsync(Bm25Index.load(join(dir, 'nope.rgrk')), { code: 'ERR_IO' })
  await t.throwsAsync(Bm25Index.load(''), { instanceOf: TypeError })
  const index = new Bm25Index()
  await t.throwsAsync(index.save(join(dir, 'no/such/dir/x.rgrk')), { code: 'ERR_IO' })
})

// Cancellation: save and load take the one cancel path of every async call (lib's
// runCancellable and the native CancelToken), so a save stops while it runs.
const listTmp = (d) => readdirSync(d).filter((f) => f.endsWith('.tmp'))

test('save and load with an already-aborted signal reject with AbortError and do nothing', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ragrank-abort-'))
  const bm25 = new Bm25Index()
  bm25.add(docs)
  const vector = new VectorIndex({ dim: 4 })
  vector.add(['a', 'b'], new Float32Array([1, 0, 0, 0, 0, 1, 0, 0]))
  const signal = AbortSignal.abort()
  for (const [name, index, file] of [
    ['bm25', bm25, 'b.rgrk'],
    ['vector', vector, 'v.rgv'],
  ]) {
    const path = join(d, file)
    await t.throwsAsync(index.save(path, { signal }), { instanceOf: AbortError, code: 'ABORT_ERR' }, name)
    t.deepEqual(
      readdirSync(d).filter((f) => f.startsWith(file) || f.includes(`.${file}.`)),
      [],
      `${name}: nothing written`,
    )
    await index.save(path)
    const before = readFileSync(path)
    await t.throwsAsync(index.save(path, { signal }), { code: 'ABORT_ERR' }, name)
    t.deepEqual(readFileSync(path), before, `${name}: old file intact`)
  }
  await t.throwsAsync(Bm25Index.load(join(d, 'b.rgrk'), { signal }), { instanceOf: AbortError, code: 'ABORT_ERR' })
  await t.throwsAsync(VectorIndex.load(join(d, 'v.rgv'), { signal }), { instanceOf: AbortError, code: 'ABORT_ERR' })
  await t.throwsAsync(VectorIndex.load(join(d, 'v.rgv'), { signal, mmap: true }), { code: 'ABORT_ERR' })
  t.deepEqual(listTmp(d), [])
})

test('a save aborted while it runs stops, removes its temporary file and keeps the old file', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ragrank-abort-run-'))
  const dim = 64
  const n = 250_000
  const vectors = new Float32Array(n * dim)
  for (let i = 0; i < vectors.length; i++) vectors[i] = ((i * 2654435761) % 1000) / 1000 - 0.5
  const index = new VectorIndex({ dim })
  index.add(
    Array.from({ length: n }, (_, i) => `v${i}`),
    vectors,
  )
  const path = join(d, 'big.rgv')
  await index.save(path)
  const before = readFileSync(path)
  index.remove(['v0'])
  const query = vectors.subarray(dim, 2 * dim)
  const hits = index.search(query, { topK: 5 })

  const controller = new AbortController()
  const saving = index.save(path, { signal: controller.signal })
  // Abort once the save is under way: its temporary file exists.
  const started = Date.now()
  while (listTmp(d).length === 0 && Date.now() - started < 10_000) await new Promise((r) => setImmediate(r))
  t.is(listTmp(d).length, 1, 'the save started')
  controller.abort()
  await t.throwsAsync(saving, { instanceOf: AbortError, code: 'ABORT_ERR' })
  // The native work notices the cancel at its next chunk and cleans up.
  while (listTmp(d).length > 0 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 5))
  t.deepEqual(listTmp(d), [])
  t.true(readFileSync(path).equals(before), 'the old file is intact')
  t.is(index.size, n - 1)
  t.deepEqual(index.search(query, { topK: 5 }), hits)
  const loaded = await VectorIndex.load(path)
  t.is(loaded.size, n)
})

test('a bad signal rejects (never throws) in save and load of both indexes', async (t) => {
  const bm25 = new Bm25Index()
  const vector = new VectorIndex({ dim: 2 })
  const path = join(dir, 'bad-signal')
  for (const signal of ['yes', 1, {}]) {
    for (const [name, call] of [
      ['Bm25Index.save', () => bm25.save(path, { signal })],
      ['VectorIndex.save', () => vector.save(path, { signal })],
      ['Bm25Index.load', () => Bm25Index.load(path, { signal })],
      ['VectorIndex.load', () => VectorIndex.load(path, { signal })],
    ]) {
      let promise
      t.notThrows(() => {
        promise = call()
      }, name)
      await t.throwsAsync(promise, { instanceOf: TypeError, message: /signal/ }, name)
    }
  }
  t.deepEqual(listTmp(dir), [])
})
