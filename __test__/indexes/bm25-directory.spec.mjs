// `Bm25Index.open(dir)`: an index bound to a durable directory. Writes survive a process that dies without
// committing under `durability: 'sync'`, a commit makes them durable under `'commit'`, a second writer process is
// refused with ERR_LOCKED naming the holder's pid, readers in other processes see new commits at `refresh()` and on
// their own, the recorded options are checked on reopen, and bad options are TypeErrors naming them.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index } from '../../dist/esm/index.js'

const INDEX = new URL('../../dist/esm/index.js', import.meta.url).href

const temp = (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-bm25dir-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }))
  return join(dir, 'index')
}

/**
 * Runs `body` (module source, given `Bm25Index` and `dir`) in a child process; returns its stdout. Throws if it
 * exited with an error status (a child that kills itself with SIGKILL is not one: that is what the test wants).
 */
const inChild = (dir, body) => {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { Bm25Index } from '${INDEX}'; const dir = ${JSON.stringify(dir)}; ${body}`],
    { encoding: 'utf8' },
  )
  if (r.status !== 0 && r.signal !== 'SIGKILL') throw Object.assign(new Error(r.stderr), { stdout: r.stdout })
  return r.stdout
}

const docs = (from, to) =>
  Array.from({ length: to - from }, (_, k) => ({
    id: `d${from + k}`,
    text: `shared words about topic${(from + k) % 5} number${from + k}`,
    meta: { tenant: `t${(from + k) % 3}` },
  }))

const ids = (index, q = 'shared', filter) =>
  index
    .search(q, { topK: 1000, ...(filter ? { filter: { meta: filter } } : {}) })
    .map((h) => h.id)
    .sort()

test('a committed index reopens in another process with the same results and recorded options', async (t) => {
  const dir = temp(t)
  const index = await Bm25Index.open(dir, { analyzer: { stemmer: 'english', stopwords: 'en' }, k1: 1.2 })
  index.add(docs(0, 40))
  index.remove(['d3', 'd7'])
  t.true((await index.commit()) > 1)
  const expected = index.search('shared topic2', { topK: 50 }).map((h) => [h.id, h.score])
  const child = JSON.parse(
    inChild(
      dir,
      `const r = await Bm25Index.open(dir, { readOnly: true });
       console.log(JSON.stringify(r.search('shared topic2', { topK: 50 }).map((h) => [h.id, h.score])))`,
    ),
  )
  t.deepEqual(child, expected)
  t.is(index.get(['d5'])[0]?.meta?.tenant, 't2')
})

test("durability 'sync': every add that returned is there after the process is killed without a commit", async (t) => {
  const dir = temp(t)
  const out = inChild(
    dir,
    `const index = await Bm25Index.open(dir, { durability: 'sync' });
     for (let i = 0; i < 30; i++) index.add([{ id: 'd' + i, text: 'shared words number' + i }]);
     index.remove(['d4']);
     console.log('done'); process.kill(process.pid, 'SIGKILL')`,
  ).trim()
  t.is(out, 'done')
  const index = await Bm25Index.open(dir)
  t.is(index.size, 29)
  t.false(index.has('d4'))
  t.deepEqual(ids(index, 'number17'), ['d17'])
})

test("durability 'commit': writes after the last commit are lost with the process, committed ones stay", async (t) => {
  const dir = temp(t)
  t.is(
    inChild(
      dir,
      `const index = await Bm25Index.open(dir);
       index.add([{ id: 'kept', text: 'shared words' }]); await index.commit();
       index.add([{ id: 'lost', text: 'shared words' }]);
       console.log('done'); process.kill(process.pid, 'SIGKILL')`,
    ).trim(),
    'done',
  )
  const index = await Bm25Index.open(dir)
  t.deepEqual(ids(index), ['kept'])
})

test('a second writer process is refused with ERR_LOCKED naming the holder, a reader is not', async (t) => {
  const dir = temp(t)
  const index = await Bm25Index.open(dir)
  index.add(docs(0, 5))
  await index.commit()
  const err = t.throws(() =>
    inChild(
      dir,
      `try { await Bm25Index.open(dir) } catch (e) { console.log(JSON.stringify([e.code, e.message])); process.exit(3) }`,
    ),
  )
  const [code, message] = JSON.parse(err.stdout)
  t.is(code, 'ERR_LOCKED')
  t.true(message.includes(String(process.pid)), message)
  t.is(inChild(dir, `console.log((await Bm25Index.open(dir, { readOnly: true })).size)`).trim(), '5')
  // In this process the index is open already: a second one on the same path is refused too.
  await t.throwsAsync(Bm25Index.open(dir), { code: 'ERR_LOCKED' })
})

test('a reader in this process sees the writer of another process commit, at refresh() and on its own', async (t) => {
  const dir = temp(t)
  inChild(dir, `const w = await Bm25Index.open(dir); w.add([{ id: 'a', text: 'shared words' }]); await w.commit()`)
  const reader = await Bm25Index.open(dir, { readOnly: true, refreshInterval: 50 })
  t.deepEqual(ids(reader), ['a'])
  const writer = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { Bm25Index } from '${INDEX}'
       const w = await Bm25Index.open(${JSON.stringify(dir)})
       process.stdin.on('data', async (line) => {
         const [op, id] = String(line).trim().split(' ')
         if (op === 'add') w.add([{ id, text: 'shared words' }])
         if (op === 'remove') w.remove([id])
         if (op === 'uncommitted') w.add([{ id, text: 'shared words' }])
         if (op !== 'uncommitted') await w.commit()
         process.stdout.write('ok\\n')
         if (op === 'exit') process.exit(0)
       })
       process.stdout.write('ready\\n')`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  t.teardown(() => writer.kill())
  const lines = []
  let wake = () => {}
  writer.stdout.on('data', (b) => {
    lines.push(...String(b).trim().split('\n'))
    wake()
  })
  const reply = async () => {
    while (lines.length === 0) await new Promise((r) => (wake = r))
    return lines.shift()
  }
  const send = async (cmd) => {
    writer.stdin.write(`${cmd}\n`)
    t.is(await reply(), 'ok')
  }
  t.is(await reply(), 'ready')
  await send('add b')
  await reader.refresh()
  t.deepEqual(ids(reader), ['a', 'b'])
  await send('uncommitted c')
  await reader.refresh()
  t.deepEqual(ids(reader), ['a', 'b'], 'a reader sees commits, not the writes after them')
  await send('remove a')
  const deadline = Date.now() + 5000
  while (ids(reader).includes('a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.deepEqual(ids(reader), ['b', 'c'], 'the automatic refresh picked up the commit')
  t.throws(() => reader.add([{ id: 'x', text: 'words' }]), { code: 'ERR_READ_ONLY' })
  t.throws(() => reader.remove(['b']), { code: 'ERR_READ_ONLY' })
  await t.throwsAsync(reader.commit(), { code: 'ERR_READ_ONLY' })
  t.deepEqual(ids(reader), ['b', 'c'], 'the failed writes changed nothing')
  await send('exit')
})

test('options given on reopen must agree with the recorded ones; left out, they are the recorded ones', async (t) => {
  const dir = temp(t)
  inChild(
    dir,
    `const w = await Bm25Index.open(dir, { variant: 'bm25+', analyzer: { stemmer: 'english' } });
     w.add([{ id: 'a', text: 'running dogs' }]); await w.commit()`,
  )
  await t.throwsAsync(Bm25Index.open(dir, { analyzer: { stemmer: 'none' } }), {
    code: 'ERR_INVALID_ARG',
    message: /analyzer/,
  })
  const index = await Bm25Index.open(dir, { variant: 'bm25+' })
  t.deepEqual(ids(index, 'run'), ['a'], 'the recorded stemmer analyses the query')
})

test('bad open options are TypeErrors naming them, and nothing is created', async (t) => {
  const dir = temp(t)
  await t.throwsAsync(Bm25Index.open(dir, { durabilty: 'sync' }), { instanceOf: TypeError, message: /durabilty/ })
  await t.throwsAsync(Bm25Index.open(dir, { durability: 'always' }), { instanceOf: TypeError, message: /durability/ })
  await t.throwsAsync(Bm25Index.open(dir, { syncInterval: 0 }), { instanceOf: RangeError, message: /syncInterval/ })
  await t.throwsAsync(Bm25Index.open(dir, { readOnly: 'yes' }), { instanceOf: TypeError, message: /readOnly/ })
  await t.throwsAsync(Bm25Index.open(''), { instanceOf: TypeError })
  await t.throwsAsync(Bm25Index.open(dir, { readOnly: true }), { code: 'ERR_IO' })
  const again = await Bm25Index.open(dir)
  t.is(again.size, 0)
})

test('an index that is not bound to a directory cannot commit', async (t) => {
  await t.throwsAsync(new Bm25Index().commit(), { code: 'ERR_INVALID_ARG', message: /directory/ })
})

test('close() commits, takes no more writes, and lets the directory be opened again at once', async (t) => {
  const dir = temp(t)
  const first = await Bm25Index.open(dir)
  first.add(docs(0, 10))
  await first.close()
  t.throws(() => first.add(docs(10, 11)), { code: 'ERR_READ_ONLY', message: /closed/ })
  t.is(first.search('shared').length, 10, 'searches go on over what it holds')
  await first.close()
  const again = await Bm25Index.open(dir)
  t.is(again.size, 10, 'the close committed')
  t.is(inChild(dir, `console.log((await Bm25Index.open(dir, { readOnly: true })).size)`).trim(), '10')
})

/** The incremental suite's shape on an index bound to a directory: random adds, removes and upserts, reopened. */
for (const durability of ['commit', 'sync']) {
  test(`${durability}: after random writes, commits and reopenings, results equal an index built from scratch`, async (t) => {
    const dir = temp(t)
    let s = 99
    const rand = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32
    const doc = (id) => ({
      id,
      text: Array.from({ length: 1 + Math.floor(rand() * 12) }, () => `w${Math.floor(40 ** rand())}`).join(' '),
      meta: { tenant: `t${Math.floor(rand() * 3)}` },
    })
    let index = await Bm25Index.open(dir, { durability, fields: { tenant: 'keyword' } })
    let live = []
    let committed = []
    let next = 0
    for (let round = 0; round < 30; round++) {
      const roll = rand()
      if (roll < 0.5 || live.length === 0) {
        const batch = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => doc(`d${next++}`))
        index.add(batch)
        live.push(...batch)
      } else if (roll < 0.75) {
        const gone = live.filter(() => rand() < 0.3).map((d) => d.id)
        t.is(index.remove(gone), gone.length)
        live = live.filter((d) => !gone.includes(d.id))
      } else {
        const replaced = live.filter(() => rand() < 0.25)
        const batch = replaced.map((d) => doc(d.id))
        index.add(batch, { upsert: true })
        live = [...live.filter((d) => !replaced.includes(d)), ...batch]
      }
      if (round % 4 === 3) {
        await index.commit()
        committed = live
      }
      if (round % 7 === 6) {
        await index.merge()
        // Reopened after close(), which commits: the new index reads the segments from their files.
        await index.close()
        committed = live
        index = await Bm25Index.open(dir)
      }
      await index.refresh()
      const scratch = new Bm25Index({ fields: { tenant: 'keyword' } })
      scratch.add(live)
      t.is(index.size, scratch.size)
      for (const q of ['w1 w2', 'w5', 'w0 w3 w7']) {
        t.deepEqual(index.search(q, { topK: 10 }), scratch.search(q, { topK: 10 }), q)
        const filter = { meta: { tenant: 't1' } }
        t.deepEqual(index.search(q, { topK: 10, filter }), scratch.search(q, { topK: 10, filter }), q)
      }
    }
    t.true(committed.length > 0)
    await index.close()
  })
}
