// Files that are safe: stale temporaries of killed saves are removed, loads refuse
// what is not a regular file and bound every length by the file, and a memory-mapped vector
// file changed in place is a clear error rather than a SIGBUS or different results.
import test from 'ava'
import { spawn, execFileSync } from 'node:child_process'
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ragrank-files-'))
const dist = new URL('../../dist/esm/index.js', import.meta.url).href
const temporaries = (name) => readdirSync(dir).filter((f) => f.startsWith(`.${name}.ragrank-tmp-`))

// --- stale temporaries ------------------------------------------------------------------

/** A child process that builds a vector index of `rows` x 256 and saves it to `target`. */
function bigSave(target, rows = 125_000) {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { VectorIndex } from ${JSON.stringify(dist)}
const dim = 256, rows = ${rows}
const v = new Float32Array(rows * dim)
for (let i = 0; i < v.length; i++) v[i] = Math.random() - 0.5
const ix = new VectorIndex({ dim, metric: 'dot' })
ix.add(Array.from({ length: rows }, (_, i) => 'r' + i), v)
process.stdout.write('saving\\n')
await ix.save(${JSON.stringify(target)})`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const saving = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('saving') && resolve())
    exited.then(() => reject(new Error('the child exited before saving')))
  })
  return { child, exited, saving }
}

/** Busy-waits until a temporary of `name` holds bytes: its writer has locked it and is writing. */
function writingTemporary(name, ms = 30_000) {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    for (const f of temporaries(name)) {
      try {
        if (statSync(join(dir, f)).size > 0) return f
      } catch {}
    }
  }
  return undefined
}

function smallVectors(seed = 1, rows = 8, dim = 4) {
  const index = new VectorIndex({ dim, metric: 'dot' })
  const v = Float32Array.from({ length: rows * dim }, (_, i) => Math.sin(seed * 7 + i))
  index.add(
    Array.from({ length: rows }, (_, i) => `v${i}`),
    v,
  )
  return index
}

test.serial(
  'a save killed with SIGKILL mid-write leaves a temporary that the next save of the target removes',
  async (t) => {
    const target = join(dir, 'killed.rgv')
    const { child, exited, saving } = bigSave(target)
    await saving
    const tmp = writingTemporary('killed.rgv')
    t.truthy(tmp, 'the child was seen writing its temporary file')
    child.kill('SIGKILL')
    t.is((await exited).signal, 'SIGKILL')
    t.deepEqual(temporaries('killed.rgv'), [tmp], 'the killed save left its temporary behind')
    t.true(statSync(join(dir, tmp)).size > 0)

    await smallVectors().save(target)
    t.deepEqual(temporaries('killed.rgv'), [], 'the next save removed the stale temporary')
    t.is((await VectorIndex.load(target)).size, 8)
  },
)

test.serial('a temporary held by a live writer is not removed by another save of the same target', async (t) => {
  const target = join(dir, 'live.rgv')
  const { child, exited, saving } = bigSave(target, 100_000)
  await saving
  const tmp = writingTemporary('live.rgv')
  t.truthy(tmp, 'the child was seen writing its temporary file')
  child.kill('SIGSTOP') // alive, holding its lock, mid-write
  try {
    await smallVectors().save(target)
    t.true(temporaries('live.rgv').includes(tmp), 'the live writer keeps its temporary')
    t.is((await VectorIndex.load(target)).size, 8)
  } finally {
    child.kill('SIGCONT')
  }
  t.is((await exited).code, 0, 'the live writer finished its save')
  t.deepEqual(temporaries('live.rgv'), [])
  t.is((await VectorIndex.load(target)).size, 100_000, 'its rename won, as the later save')
})

test('a BM25 save removes unlocked ragrank temporaries of its target and nothing else', async (t) => {
  const stale = '.b.rgrk.ragrank-tmp-999999-0123456789abcdef.tmp'
  const others = [
    '.b.rgrk.ragrank-tmp-999999-xyz.tmp',
    '.other.rgrk.ragrank-tmp-1-0123456789abcdef.tmp',
    '.b.rgrk.999999-123.tmp',
    'b.rgrk.bak',
  ]
  for (const f of [stale, ...others]) writeFileSync(join(dir, f), 'x')
  const index = new Bm25Index()
  index.add([{ id: 'a', text: 'cats and dogs' }])
  await index.save(join(dir, 'b.rgrk'))
  const left = readdirSync(dir)
  t.false(left.includes(stale))
  for (const f of others) t.true(left.includes(f), f)
})

// --- what a load reads ------------------------------------------------------------------

const loaders = {
  bm25: (p) => Bm25Index.load(p),
  'vector copied': (p) => VectorIndex.load(p),
  'vector mmap': (p) => VectorIndex.load(p, { mmap: true }),
}

/** `promise`'s outcome, or 'hung' after `ms` (then `unblock` runs, so the process can exit). */
async function within(promise, ms, unblock) {
  let timer
  const hang = new Promise((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms)
  })
  const outcome = await Promise.race([
    promise.then(
      () => 'resolved',
      (e) => e,
    ),
    hang,
  ])
  clearTimeout(timer)
  if (outcome === 'hung') unblock()
  return outcome
}

for (const [name, load] of Object.entries(loaders)) {
  test(`${name}: /dev/zero, a directory and a FIFO are refused with ERR_IO, without hanging`, async (t) => {
    await t.throwsAsync(load('/dev/zero'), { code: 'ERR_IO', message: /not a regular file \(a character device\)/ })
    const folder = join(dir, `folder-${name}`)
    mkdirSync(folder)
    await t.throwsAsync(load(folder), { code: 'ERR_IO', message: /a directory/ })
    const fifo = join(dir, `fifo-${name.replace(' ', '-')}`)
    execFileSync('mkfifo', [fifo])
    // A blocked open is released by opening the write end.
    const outcome = await within(load(fifo), 5000, () =>
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)),
    )
    t.not(outcome, 'hung', 'loading a FIFO returned')
    t.is(outcome.code, 'ERR_IO')
    t.regex(outcome.message, /a FIFO/)
  })
}

// --- what a save may replace ---------------------------------------------------------------

const savers = {
  bm25: {
    make() {
      const index = new Bm25Index()
      index.add([{ id: 'fresh', text: 'a freshly saved index' }])
      return index
    },
    size: async (p) => (await Bm25Index.load(p)).size,
  },
  vector: { make: () => smallVectors(5, 3), size: async (p) => (await VectorIndex.load(p)).size },
}

for (const [name, { make, size }] of Object.entries(savers)) {
  test(`${name}: save refuses a FIFO, a socket, a directory and a link to /dev/null, and leaves them as they were`, async (t) => {
    const at = mkdtempSync(join(dir, `save-kinds-${name}-`))
    const fifo = join(at, 'fifo.idx')
    execFileSync('mkfifo', [fifo])
    const socketPath = join(at, 'socket.idx')
    const server = createServer()
    await new Promise((resolve) => server.listen(socketPath, resolve))
    const folder = join(at, 'folder.idx')
    mkdirSync(folder)
    const devNull = join(at, 'null.idx')
    symlinkSync('/dev/null', devNull)
    const index = make()
    const cases = [
      [fifo, /is a FIFO, not a regular file/],
      [socketPath, /is a socket, not a regular file/],
      [folder, /is a directory, not a regular file/],
      [devNull, /leads to \/dev\/null, which is a character device, not a regular file/],
    ]
    try {
      for (const [path, message] of cases) {
        const outcome = await within(index.save(path), 5000, () => {})
        t.not(outcome, 'hung', path)
        t.not(outcome, 'resolved', `${path} was replaced`)
        t.is(outcome.code, 'ERR_IO', path)
        t.regex(outcome.message, message)
        t.true(outcome.message.includes(path), outcome.message)
      }
    } finally {
      server.close()
    }
    t.true(lstatSync(fifo).isFIFO())
    t.true(lstatSync(folder).isDirectory())
    t.true(lstatSync(devNull).isSymbolicLink())
    t.true(statSync('/dev/null').isCharacterDevice(), '/dev/null is still a device')
    t.deepEqual(readdirSync(at).sort(), ['fifo.idx', 'folder.idx', 'null.idx'], 'no temporary left')
  })

  test(`${name}: save follows links and replaces the file they lead to, the links kept`, async (t) => {
    const at = mkdtempSync(join(dir, `save-links-${name}-`))
    mkdirSync(join(at, 'releases'))
    await make().save(join(at, 'releases/v7.idx'))
    const before = await size(join(at, 'releases/v7.idx'))
    symlinkSync('releases/v7.idx', join(at, 'current.idx'))
    const index = make()
    index.remove([name === 'bm25' ? 'fresh' : 'v0'])
    await index.save(join(at, 'current.idx'))
    t.true(lstatSync(join(at, 'current.idx')).isSymbolicLink())
    t.is(readlinkSync(join(at, 'current.idx')), 'releases/v7.idx')
    t.is(await size(join(at, 'releases/v7.idx')), before - 1, 'the target holds the new index')
    t.deepEqual(readdirSync(join(at, 'releases')), ['v7.idx'], 'the temporary was renamed beside the target')
    // A dangling link: the file it names is created; in a missing folder, an error naming the folder.
    symlinkSync('releases/v8.idx', join(at, 'next.idx'))
    await index.save(join(at, 'next.idx'))
    t.is(await size(join(at, 'releases/v8.idx')), before - 1)
    symlinkSync('missing/v9.idx', join(at, 'lost.idx'))
    await t.throwsAsync(index.save(join(at, 'lost.idx')), {
      code: 'ERR_IO',
      message: new RegExp(`folder ${join(at, 'missing')} does not exist`),
    })
    await t.throwsAsync(index.save(join(at, 'no/such/folder.idx')), {
      code: 'ERR_IO',
      message: new RegExp(
        `cannot save to ${join(at, 'no/such/folder.idx')}: folder ${join(at, 'no/such')} does not exist`,
      ),
    })
  })
}

/** `bytes` with its envelope trailer (payload length, CRC-32) recomputed, as a valid file would have. */
function reseal(bytes) {
  const out = Buffer.from(bytes)
  const end = out.length - 12
  out.writeBigUInt64LE(BigInt(end - 12), end)
  out.writeUInt32LE(crc32(out.subarray(12, end)), end + 8)
  return out
}

test('BM25: truncated files and huge length fields (checksum valid) give ERR_CORRUPT_INDEX', async (t) => {
  const index = new Bm25Index()
  index.add(Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, text: `doc ${i} about cats ${i % 5}` })))
  const path = join(dir, 'lengths.rgrk')
  await index.save(path)
  const bytes = readFileSync(path)
  const configLen = bytes.readUInt32LE(12)
  const patch = (offset, value) => {
    const b = Buffer.from(bytes)
    b.writeUInt32LE(value, offset)
    return reseal(b)
  }
  const cases = {
    truncated: bytes.subarray(0, bytes.length - 100),
    'config length': patch(12, 0xffff_fff0),
    'term count': patch(16 + configLen, 0xffff_ffff),
    'first term length': patch(20 + configLen, 0xffff_ffff),
  }
  for (const [what, content] of Object.entries(cases)) {
    const p = join(dir, `bm25-${what.replaceAll(' ', '-')}.rgrk`)
    writeFileSync(p, content)
    await t.throwsAsync(Bm25Index.load(p), { code: 'ERR_CORRUPT_INDEX' }, what)
  }
})

test('vector: truncated files and huge length fields (checksum valid) give ERR_CORRUPT_INDEX, copied and mapped', async (t) => {
  const path = join(dir, 'lengths.rgv')
  await smallVectors().save(path)
  const bytes = readFileSync(path)
  const patch = (offset, value) => {
    const b = Buffer.from(bytes)
    if (typeof value === 'bigint') b.writeBigUInt64LE(value, offset)
    else b.writeUInt32LE(value, offset)
    return reseal(b)
  }
  const cases = {
    truncated: bytes.subarray(0, bytes.length - 40),
    dim: patch(12, 0xffff_ffff),
    'row count': patch(20, 1n << 60n),
    'row count, a little too big': patch(20, 9n),
    'id bytes': patch(28, 1n << 62n),
  }
  for (const [what, content] of Object.entries(cases)) {
    const p = join(dir, `vector-${what.replaceAll(/\W+/g, '-')}.rgv`)
    writeFileSync(p, content)
    await t.throwsAsync(VectorIndex.load(p), { code: 'ERR_CORRUPT_INDEX' }, `${what}, copied`)
    await t.throwsAsync(VectorIndex.load(p, { mmap: true }), { code: 'ERR_CORRUPT_INDEX' }, `${what}, mapped`)
  }
})

// --- a mapped file changed under the index ------------------------------------------------

const query = Float32Array.from([0.5, -0.25, 1, 0.1])

/** Saves `index` to `path`, dated an hour back as a deployed file would be. */
async function deployed(index, path) {
  await index.save(path)
  const past = new Date(Date.now() - 3600_000)
  utimesSync(path, past, past)
}

function expectChanged(t, loaded) {
  const changed = { code: 'ERR_INDEX_CHANGED', message: /changed in place.*rename it over/ }
  t.throws(() => loaded.search(query), changed)
  t.throws(() => loaded.add(['new'], query), changed)
  t.throws(() => loaded.remove(['v1']), changed)
  return Promise.all([
    t.throwsAsync(loaded.searchBatch(query), changed),
    t.throwsAsync(loaded.save(join(dir, 'never.rgv')), changed),
  ])
}

test('mmap: a truncating in-place overwrite (cp over the file) is ERR_INDEX_CHANGED, not a SIGBUS', async (t) => {
  const path = join(dir, 'cp-truncate.rgv')
  await deployed(smallVectors(1, 4000, 4), path)
  const loaded = await VectorIndex.load(path, { mmap: true })
  t.is(loaded.search(query).length, 10)
  const smaller = join(dir, 'smaller.rgv')
  await smallVectors(2, 8, 4).save(smaller)
  writeFileSync(path, readFileSync(smaller)) // O_TRUNC + write on the same inode, as cp does
  await expectChanged(t, loaded)
  t.is((await VectorIndex.load(path, { mmap: true })).size, 8, 'loading again reads the new file')
})

test('mmap: an equal-size in-place overwrite is ERR_INDEX_CHANGED, never different results', async (t) => {
  const path = join(dir, 'cp-same-size.rgv')
  const other = join(dir, 'same-size-other.rgv')
  await deployed(smallVectors(1, 200, 4), path)
  await smallVectors(2, 200, 4).save(other)
  t.is(statSync(path).size, statSync(other).size)
  const loaded = await VectorIndex.load(path, { mmap: true })
  const copied = await VectorIndex.load(path)
  const before = loaded.search(query)
  writeFileSync(path, readFileSync(other))
  await expectChanged(t, loaded)
  t.deepEqual(copied.search(query), before, 'a copied index does not read the file again')
  t.notDeepEqual((await VectorIndex.load(path)).search(query), before, 'the file did change')
})

test('mmap: a rename-over deploy keeps the old mapping working until the index is loaded again', async (t) => {
  const path = join(dir, 'renamed.rgv')
  await deployed(smallVectors(1, 200, 4), path)
  const loaded = await VectorIndex.load(path, { mmap: true })
  const before = loaded.search(query)
  await smallVectors(3, 50, 4).save(path) // save writes a temporary file and renames it over
  t.true(loaded.mapped)
  t.deepEqual(loaded.search(query), before)
  t.deepEqual((await loaded.searchBatch(query))[0], before)
  const reloaded = await VectorIndex.load(path, { mmap: true })
  t.is(reloaded.size, 50)
  t.notDeepEqual(reloaded.search(query), before)
})
