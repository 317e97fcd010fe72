import test from 'ava'
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bm25Index } from '../dist/index.mjs'

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
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), [])
})

test('a file saved before defaults moved to Rust loads with its options', async (t) => {
  // Saved by c74585d from { variant: 'bm25l', k1: 1.1, b: 0.6, delta: 0.3, storeText: false,
  // analyzer: { segmentation: 'regex', stopwords: 'en', stemmer: 'english' } }.
  const loaded = await Bm25Index.load(new URL('./fixtures/bm25-v1-options.rgrk', import.meta.url).pathname)
  t.deepEqual(loaded.analyze('The Runners ran a x'), ['runner', 'ran'])
  const hits = loaded.search('running cat')
  t.deepEqual(hits.map((h) => h.id), ['a', 'b', 'c'])
  t.true(Math.abs(hits[0].score - 1.2174649238586426) < 1e-6)
  t.true(Math.abs(hits[1].score - 0.5965947508811951) < 1e-6)
  t.is(hits[0].text, undefined, 'storeText: false was kept')
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
