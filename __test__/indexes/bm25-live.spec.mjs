// Live updates: writes are staged and published by refreshes, reads run on snapshots and
// never wait for a writer, a refresh or a save.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-live-'))
test.after.always(() => rmSync(dir, { recursive: true, force: true }))

const sleepCell = new Int32Array(new SharedArrayBuffer(4))
/** Blocks the event loop (pool threads keep running): how a sync caller overlaps pool work. */
const sleepSync = (ms) => Atomics.wait(sleepCell, 0, 0, ms)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** `n` documents sharing the word `all`, with a stored text long enough to make saves slow. */
function corpus(n, prefix = 'd') {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta']
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    text: `all ${words[i % 8]} ${words[(i * 7) % 8]} w${i % 5000} w${(i * 13) % 7000} ${'filler '.repeat(12)}`,
  }))
}

const ids = (hits) => hits.map((h) => h.id)

test('a sync add is searchable at once, as before', (t) => {
  const index = new Bm25Index()
  index.add([{ id: 'a', text: 'the quick fox' }])
  t.deepEqual(ids(index.search('fox')), ['a'])
  index.add([{ id: 'b', text: 'a quick dog' }])
  t.deepEqual(ids(index.search('quick')), ['a', 'b'])
  t.is(index.remove(['a']), 1)
  t.deepEqual(ids(index.search('quick')), ['b'])
  t.is(index.size, 1)
  t.is(index.pending, 0)
})

test('staged writes are invisible until refresh(), which makes them searchable', async (t) => {
  const index = new Bm25Index({ refreshInterval: 0 })
  index.add([{ id: 'seen', text: 'apple' }])
  t.is(index.add([{ id: 'staged', text: 'apple pie' }], { refresh: false }), 1)
  t.deepEqual(ids(index.search('apple')), ['seen'])
  t.is(index.size, 1)
  t.is(index.pending, 1)
  // Duplicate checks and has() already see the staged document.
  t.true(index.has('staged'))
  t.throws(() => index.add([{ id: 'staged', text: 'again' }]), { code: 'ERR_DUPLICATE_ID' })
  await index.refresh()
  t.is(index.pending, 0)
  t.is(index.size, 2)
  t.deepEqual(ids(index.search('pie')), ['staged'])
  // A refreshing write publishes what was staged before it too.
  index.add([{ id: 'later', text: 'plum' }], { refresh: false })
  index.add([{ id: 'now', text: 'plum' }])
  t.deepEqual(ids(index.search('plum')), ['later', 'now'])
})

test('refreshInterval publishes staged writes on its own; 0 never does', async (t) => {
  const auto = new Bm25Index({ refreshInterval: 20 })
  const manual = new Bm25Index({ refreshInterval: null })
  for (const index of [auto, manual]) index.add([{ id: 'x', text: 'kiwi' }], { refresh: false })
  t.is(auto.search('kiwi').length, 0)
  let waited = 0
  while (auto.search('kiwi').length === 0 && waited < 10_000) {
    await sleep(10)
    waited += 10
  }
  t.deepEqual(ids(auto.search('kiwi')), ['x'])
  t.is(auto.pending, 0)
  // Well past the other's interval: the manual index still waits for refresh().
  await sleep(100)
  t.is(manual.search('kiwi').length, 0)
  t.is(manual.pending, 1)
  await manual.refresh()
  t.deepEqual(ids(manual.search('kiwi')), ['x'])
})

test('without refreshInterval, staged writes are published after the default second (new and load)', async (t) => {
  const path = join(dir, 'default-refresh.rgb')
  await new Bm25Index().save(path)
  for (const index of [new Bm25Index(), await Bm25Index.load(path)]) {
    const start = Date.now()
    index.add([{ id: 'x', text: 'kiwi' }], { refresh: false })
    while (index.search('kiwi').length === 0 && Date.now() - start < 10_000) await sleep(20)
    const took = Date.now() - start
    t.deepEqual(ids(index.search('kiwi')), ['x'])
    t.true(took >= 900 && took < 5000, `published after ${took} ms`)
  }
})

test('bad refresh options are rejected with the option named', async (t) => {
  t.throws(() => new Bm25Index({ refreshInterval: -1 }), { instanceOf: RangeError, message: /refreshInterval/ })
  t.throws(() => new Bm25Index({ refreshInterval: '5' }), { instanceOf: TypeError, message: /refreshInterval/ })
  t.throws(() => new Bm25Index({ refreshInterval: 1.5 }), { instanceOf: TypeError, message: /refreshInterval/ })
  const index = new Bm25Index()
  t.throws(() => index.add([{ id: 'a', text: 'x' }], { refresh: 'yes' }), { instanceOf: TypeError })
  await t.throwsAsync(index.refresh({ signal: 'nope' }), { instanceOf: TypeError })
  await t.throwsAsync(index.refresh({ bogus: true }), { instanceOf: TypeError, message: /bogus/ })
  const aborted = AbortSignal.abort()
  await t.throwsAsync(index.refresh({ signal: aborted }), { name: 'AbortError' })
})

test('sync search, size and add return while a save is still writing', async (t) => {
  const index = new Bm25Index()
  const n = 150_000
  await index.addAsync(corpus(n))
  const path = join(dir, 'during-save.rgrk')
  const saving = index.save(path)
  // Wait (blocking the loop, so the save cannot be observed finishing in JS) until the
  // save is writing its temporary file.
  const deadline = Date.now() + 60_000
  while (!readdirSync(dir).some((f) => f.startsWith('.during-save.rgrk.ragrank-tmp-')) && Date.now() < deadline) {
    sleepSync(1)
  }
  t.true(existsSync(dir) && readdirSync(dir).some((f) => f.includes('ragrank-tmp')), 'the save started')
  t.is(index.size, n)
  t.is(index.search('alpha', { topK: 3 }).length, 3)
  index.add([{ id: 'during', text: 'zucchini' }])
  t.deepEqual(ids(index.search('zucchini')), ['during'])
  t.is(index.size, n + 1)
  t.is(index.remove(['d0']), 1)
  // Had any of these waited for the save, it would be done: the file would be in place.
  t.false(existsSync(path), 'the save was still running when the sync calls returned')
  await saving
  // The file holds the snapshot the save started from.
  const loaded = await Bm25Index.load(path)
  t.is(loaded.size, n)
  t.false(loaded.has('during'))
  t.true(loaded.has('d0'))
})

test('a write during a long addAsync refresh returns at once and is published when it ends', async (t) => {
  const index = new Bm25Index({ refreshInterval: 0 })
  index.add([{ id: 'first', text: 'fig' }])
  const big = index.addAsync(corpus(200_000))
  // Until the big batch is staged (its analysis runs on the pool first).
  const deadline = Date.now() + 60_000
  while (index.pending === 0 && index.size === 1 && Date.now() < deadline) sleepSync(1)
  const refreshing = index.size === 1
  index.add([{ id: 'small', text: 'fig' }])
  if (refreshing && index.size === 1) {
    // The big refresh holds the refresh mutex: the small write is staged, not lost.
    t.true(index.pending >= 1)
    t.true(index.has('small'))
    t.deepEqual(ids(index.search('fig')), ['first'])
  } else {
    t.log('the big refresh ended before the small write: only the end state is checked')
  }
  await big
  t.is(index.pending, 0)
  t.deepEqual(ids(index.search('fig')), ['first', 'small'])
  t.is(index.size, 200_002)
})

test('a save during writes loads back to one consistent snapshot', async (t) => {
  const index = new Bm25Index()
  await index.addAsync(corpus(20_000))
  const path = join(dir, 'consistent.rgrk')
  // Every state the index goes through (each write is published whole, in order).
  let live = new Set(index.search('all', { topK: 1e6 }).map((h) => h.id))
  const states = [live]
  const saving = index.save(path)
  for (let i = 0; i < 30; i++) {
    index.add([{ id: `n${i}`, text: `all extra${i}` }])
    live = new Set([...live, `n${i}`])
    states.push(live)
    t.is(index.remove([`d${i * 3}`]), 1)
    live = new Set([...live].filter((id) => id !== `d${i * 3}`))
    states.push(live)
  }
  await saving
  const loaded = await Bm25Index.load(path)
  const got = new Set(loaded.search('all', { topK: 1e6 }).map((h) => h.id))
  t.is(got.size, loaded.size)
  const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x))
  t.true(
    states.some((s) => same(s, got)),
    'the file is one of the states the index went through',
  )
  // And it scores as an index built from scratch on those documents.
  const scratch = new Bm25Index()
  const byId = new Map(
    [...corpus(20_000), ...Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, text: `all extra${i}` }))].map((d) => [
      d.id,
      d,
    ]),
  )
  scratch.add(
    loaded
      .search('all', { topK: 1e6 })
      .map((h) => byId.get(h.id))
      .sort((a, b) => order(a.id) - order(b.id)),
  )
  for (const q of ['alpha w17', 'extra3 gamma', 'theta sigma w4999']) {
    t.deepEqual(
      loaded.search(q, { topK: 10, includeFields: false }),
      scratch.search(q, { topK: 10, includeFields: false }),
    )
  }
})

/** Insertion order of the consistency test's ids: the corpus first, then n0, n1, ... */
function order(id) {
  return id.startsWith('d') ? Number(id.slice(1)) : 1e6 + Number(id.slice(1))
}

test('stats report segments and removed documents', (t) => {
  const index = new Bm25Index({ refreshInterval: 0 })
  index.add(corpus(100))
  index.add(corpus(10, 'e'))
  t.is(index.remove(['d1', 'd2']), 2)
  const s = index.stats()
  t.is(s.documents, 108)
  t.true(s.segments >= 1)
  t.true(s.deletedDocs <= 2)
  t.is(s.denseTerms, 0)
})
