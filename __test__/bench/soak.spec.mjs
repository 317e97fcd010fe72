// The short soak (the long one: npm run bench -- --suite server --soak 30): churn with fresh unique tokens
// (adds, removes, upserts, sync and async, searches in between, a save and load midway) keeps the live set
// constant, so the index's memory and its live term count must stay bounded: terms that no live document
// has any more are reclaimed. Behavioural bounds only; no timing.
import test from 'ava'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const LIVE = 1000
const ROUNDS = 60
const PER_ROUND = 2000 // adds per round, each with a remove; an upsert per 5 adds
const DIM = 16
const BASE = 'harbor tide lantern granite orchard meadow ember quarry falcon willow cinder marsh'.split(' ')

/** A token no other document (or version of a document) has: letters only, so every analyzer keeps it whole. */
const fresh = (n) => `fresh${n.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[d])}`
const text = (i, version) => `${BASE[i % 12]} ${BASE[(i * 7 + 3) % 12]} ${fresh(2 * version)} ${fresh(2 * version + 1)}`
const vector = (i) => Float32Array.from({ length: DIM }, (_, j) => Math.sin(i * 31 + j) + (j === 0 ? 2 : 0))
const refresh = async (index) => {
  if (typeof index.refresh === 'function') await index.refresh()
}

test('index memory and live terms stay bounded under churn with fresh tokens', async (t) => {
  const bm25 = new Bm25Index()
  const vectors = new VectorIndex({ dim: DIM })
  let version = 0
  const doc = (i) => ({ id: `d${i}`, text: text(i, version++) })
  bm25.add(Array.from({ length: LIVE }, (_, i) => doc(i)))
  vectors.add(Array.from({ length: LIVE }, (_, i) => ({ id: `d${i}`, vector: vector(i) })))
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-soak-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let next = LIVE
  const samples = []
  for (let round = 0; round < ROUNDS; round++) {
    const async = round % 2 === 1 // odd rounds write through addAsync, in batches, while a search batch runs
    for (let k = 0; k < PER_ROUND; k += async ? 50 : 1) {
      const n = async ? 50 : 1
      const ids = Array.from({ length: n }, (_, j) => next + j)
      const added = ids.map(doc)
      if (async) await Promise.all([bm25.addAsync(added), bm25.searchBatch(['harbor tide', 'ember'])])
      else bm25.add(added)
      vectors.add(ids.map((i) => ({ id: `d${i}`, vector: vector(i) })))
      const old = ids.map((i) => `d${i - LIVE}`)
      t.is(bm25.remove(old), n)
      t.is(vectors.remove(old), n)
      const upsert = next - 1 - (k % (LIVE - n)) // a live document
      if (k % 5 === 0) bm25.add([doc(upsert)], { upsert: true })
      if (k % 5 === 0) vectors.add([{ id: `d${upsert}`, vector: vector(upsert + 7) }], { upsert: true })
      next += n
    }
    await Promise.all([refresh(bm25), refresh(vectors)])
    t.true(bm25.search('harbor').length > 0)
    if (round === ROUNDS / 2) {
      // A save in the middle of the churn holds exactly the live documents.
      await bm25.save(join(dir, 'bm25.rgrk'))
      const loaded = await Bm25Index.load(join(dir, 'bm25.rgrk'))
      const { documents, terms, postings } = bm25.stats()
      t.like(loaded.stats(), { documents, terms, postings })
      t.deepEqual(loaded.search('harbor tide', { topK: 20 }), bm25.search('harbor tide', { topK: 20 }))
    }
    samples.push(bm25.stats())
  }
  t.is(vectors.size, LIVE)
  for (const s of samples) {
    t.is(s.documents, LIVE)
    // Two fresh tokens per live document (upserts replace them) plus the shared words.
    t.true(s.terms <= 2 * LIVE + BASE.length, `terms ${s.terms}`)
  }
  const warm = samples.slice(ROUNDS / 4) // the first quarter: allocations settle
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  const first = median(warm.slice(0, 5).map((s) => s.memoryBytes))
  // Medians both ends: one sample taken while a merge is still reclaiming removed documents is not growth.
  const last = median(warm.slice(-5).map((s) => s.memoryBytes))
  t.true(last <= 1.5 * first, `index memory ${first} -> ${last} bytes`)
  t.true(next - LIVE >= ROUNDS * PER_ROUND, 'every round churned its documents')
})
