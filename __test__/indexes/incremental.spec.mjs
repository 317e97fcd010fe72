// After any sequence of adds, removes and upserts, results equal an index built from scratch,
// and churn of unique tokens leaves neither terms nor memory behind.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-incremental-'))
test.after.always(() => rmSync(dir, { recursive: true, force: true }))

function rng(seed) {
  let s = seed >>> 0
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32
}

/** Documents of common words plus `unique` tokens no other document ever has. */
function docMaker(rand, vocab) {
  let token = 0
  const word = () => `t${Math.floor(vocab ** rand())}`
  const doc = (id, unique) => {
    const words = Array.from({ length: Math.floor(rand() * 25) }, word)
    for (let i = 0; i < unique; i++) words.push(`u${token++}`)
    return { id, text: words.join(' ') }
  }
  // Queries mix common words with words of live documents (often unique ones).
  const query = (live) =>
    Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
      const text = live.length > 0 && rand() < 0.6 ? live[Math.floor(rand() * live.length)].text : ''
      const words = text.split(' ').filter(Boolean)
      return words.length > 0 ? words[Math.floor(rand() * words.length)] : word()
    }).join(' ')
  return { doc, query, tokens: () => token }
}

/**
 * `live` is in insertion order (an upserted document counts as new), as ties follow it. A sync write
 * made while the background thread commits a merge is published when that commit ends, so the
 * comparison first awaits `refresh()` (read-your-writes).
 */
async function assertEqualsRebuilt(t, index, live, options, query) {
  t.true(
    live.every((d) => index.has(d.id)),
    'every live document is known at once',
  )
  await index.refresh()
  const scratch = new Bm25Index(options)
  scratch.add(live)
  t.is(index.size, scratch.size)
  t.is(index.stats().terms, scratch.stats().terms)
  for (let q = 0; q < 4; q++) {
    const text = query(live)
    t.deepEqual(index.search(text, { topK: 10 }), scratch.search(text, { topK: 10 }), text)
  }
}

/**
 * Where the index lives: in memory (saved and loaded again every ten rounds) or bound to a directory (committed,
 * closed and opened again every ten rounds, by turns with and without a log).
 */
const STORAGES = {
  memory: {
    create: (options) => new Bm25Index(options),
    async reopen(index, name) {
      const path = join(dir, `${name}.rgrk`)
      await index.save(path)
      return Bm25Index.load(path)
    },
  },
  directory: {
    create: (options, name) => Bm25Index.open(join(dir, name), { ...options, durability: 'sync' }),
    async reopen(index, name, round) {
      // `close` commits; then the next opening's writes are logged or not, by turns.
      await index.close()
      return Bm25Index.open(join(dir, name), { durability: round % 20 === 9 ? 'commit' : 'sync' })
    },
  },
}

for (const [storage, { create, reopen }] of Object.entries(STORAGES))
  for (const variant of ['lucene', 'robertson', 'atire', 'bm25l', 'bm25+']) {
    test(`${variant}, ${storage}: incremental equals rebuilt`, async (t) => {
      const rand = rng(42)
      const { doc, query } = docMaker(rand, 80)
      const name = `${variant}-${storage}`
      let index = await create({ variant }, name)
      let live = []
      let next = 0
      for (let round = 0; round < 40; round++) {
        const roll = rand()
        if (roll < 0.45 || live.length === 0) {
          const batch = Array.from({ length: 1 + Math.floor(rand() * 15) }, () =>
            doc(`d${next++}`, Math.floor(rand() * 3)),
          )
          index.add(batch)
          live.push(...batch)
        } else if (roll < 0.75) {
          const gone = live.filter(() => rand() < 0.3).map((d) => d.id)
          t.is(index.remove(gone), gone.length)
          live = live.filter((d) => !gone.includes(d.id))
        } else {
          const replaced = live.filter(() => rand() < 0.2)
          const batch = [...replaced.map((d) => doc(d.id, Math.floor(rand() * 3))), doc(`d${next++}`, 1)]
          t.is(index.add(batch, { upsert: true }), batch.length)
          live = [...live.filter((d) => !replaced.includes(d)), ...batch]
        }
        if (round % 10 === 9) index = await reopen(index, name, round)
        await assertEqualsRebuilt(t, index, live, { variant }, query)
      }
    })
  }

test('churning unique tokens through 1,000 live documents keeps terms and memory bounded', async (t) => {
  const rand = rng(7)
  const { doc, query, tokens } = docMaker(rand, 200)
  const index = new Bm25Index()
  let live = Array.from({ length: 1000 }, (_, i) => doc(`d${i}`, 3))
  let next = live.length
  index.add(live)
  const memory = []
  const terms = []
  for (let round = 0; round < 200; round++) {
    // 50 replaced, 25 removed, 25 added: 225 new unique tokens a round.
    const replaced = new Set(Array.from({ length: 50 }, () => live[Math.floor(rand() * live.length)]))
    const batch = [...replaced].map((d) => doc(d.id, 3))
    index.add(batch, { upsert: true })
    live = [...live.filter((d) => !replaced.has(d)), ...batch]
    const gone = new Set(Array.from({ length: 25 }, () => live[Math.floor(rand() * live.length)].id))
    t.is(index.remove([...gone]), gone.size)
    live = live.filter((d) => !gone.has(d.id))
    const fresh = Array.from({ length: 25 }, () => doc(`d${next++}`, 3))
    index.add(fresh)
    live.push(...fresh)
    index.search(query(live))
    // What the background thread does between writes, awaited so the test is deterministic.
    await index.merge()
    const s = index.stats()
    memory.push(s.memoryBytes)
    terms.push(s.terms)
  }
  t.true(tokens() > 40_000, `${tokens()} unique tokens churned`)
  const earlyMax = Math.max(...memory.slice(0, 70))
  const lateMax = Math.max(...memory.slice(70))
  t.true(lateMax <= earlyMax * 1.1, `memory grew with the rounds: ${earlyMax} then ${lateMax} bytes`)
  t.true(Math.max(...terms) < 4000, `max live terms ${Math.max(...terms)}`)
  await assertEqualsRebuilt(t, index, live, {}, query)
})
