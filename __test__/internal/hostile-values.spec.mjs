// Values built to make a check do unbounded work: metadata and filters whose objects are shared
// (a DAG that expands exponentially) or nested past any stack. Each case runs in a child process
// with a timeout, since a hang would block the test process's own event loop.
import test from 'ava'
import { spawn } from 'node:child_process'

const dist = new URL('../../dist/esm/index.js', import.meta.url).href

/**
 * Runs `body` (an ES module body with `Bm25Index`, `VectorIndex`, `dag(n)` and `deep(n)` in scope)
 * in a child; resolves with what it printed as JSON, or `{ timedOut: true }` after `ms`.
 */
function inChild(body, ms = 10_000) {
  const source = `import { Bm25Index, VectorIndex } from ${JSON.stringify(dist)}
/** { a: o, b: o } nested n deep: 2^n paths through n + 1 objects. */
const dag = (n) => { let o = { leaf: 1 }; for (let i = 0; i < n; i++) o = { a: o, b: o }; return o }
/** { a: { a: ... } } n deep. */
const deep = (n) => { let o = { leaf: 1 }; for (let i = 0; i < n; i++) o = { a: o }; return o }
const caught = (f) => { const t0 = Date.now(); try { f(); return { ok: true } } catch (e) {
  return { name: e?.constructor?.name, code: e?.code, message: String(e?.message), ms: Date.now() - t0 } } }
const out = await (async () => { ${body} })()
process.stdout.write(JSON.stringify(out))`
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), ms)
    // 'close', not 'exit': the child's output may still be in the pipe when it has exited.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL') return resolve({ timedOut: true })
      try {
        resolve(JSON.parse(stdout))
      } catch {
        resolve({ exit: code, stdout, stderr })
      }
    })
  })
}

const invalid = (t, r, kind, pattern, what) => {
  t.falsy(r.timedOut, `${what}: timed out`)
  t.is(r.name, kind, `${what}: ${JSON.stringify(r)}`)
  t.is(r.code, 'ERR_INVALID_ARG', what)
  t.regex(r.message, pattern, what)
}

test('metadata and filters of shared objects (a DAG 40 deep) fail fast with a RangeError naming the field', async (t) => {
  const r = await inChild(`
const bm = new Bm25Index()
bm.add([{ id: 'x', text: 'cat' }])
const vec = new VectorIndex({ dim: 2 })
return {
  add: caught(() => bm.add([{ id: 'd', text: 'cat', meta: dag(40) }])),
  search: caught(() => bm.search('cat', { filter: { meta: { tag: dag(40) } } })),
  vector: caught(() => vec.add([{ id: 'v', vector: [1, 0], meta: dag(40) }])),
  size: bm.size,
}`)
  t.falsy(r.timedOut, 'the check of a 2^40-path DAG did not finish in 10 s')
  invalid(t, r.add, 'RangeError', /docs\[0\]\.meta has more than 1,000,000 values/, 'Bm25Index.add')
  invalid(t, r.search, 'RangeError', /options\.filter\.meta has more than 1,000,000 values/, 'Bm25Index.search')
  invalid(t, r.vector, 'RangeError', /meta has more than 1,000,000 values/, 'VectorIndex.add')
  for (const k of ['add', 'search', 'vector']) t.true(r[k].ms < 2000, `${k} took ${r[k].ms} ms`)
  t.is(r.size, 1, 'the failed add changed nothing')
})

test('a shared object that stays small is accepted (a DAG is not a cycle)', async (t) => {
  const r = await inChild(`
const bm = new Bm25Index()
const shared = { lang: 'en' }
const add = caught(() => bm.add([{ id: 'd', text: 'cat', meta: { a: shared, b: shared, list: [shared, shared] } }]))
return { add, hits: bm.search('cat').map((h) => h.meta) }`)
  t.deepEqual(r.add, { ok: true })
  t.deepEqual(r.hits, [{ a: { lang: 'en' }, b: { lang: 'en' }, list: [{ lang: 'en' }, { lang: 'en' }] }])
})

test('metadata nested past 128 levels is a coded RangeError, even 100,000 levels deep (no stack overflow)', async (t) => {
  const r = await inChild(`
const bm = new Bm25Index()
return {
  ok: caught(() => bm.add([{ id: 'ok', text: 'cat', meta: deep(127) }])),
  over: caught(() => bm.add([{ id: 'd1', text: 'cat', meta: deep(128) }])),
  deep: caught(() => bm.add([{ id: 'd2', text: 'cat', meta: deep(100_000) }])),
  filter: caught(() => bm.search('cat', { filter: { meta: { x: deep(100_000) } } })),
  arrays: caught(() => { let a = [1]; for (let i = 0; i < 100_000; i++) a = [a]; bm.add([{ id: 'd3', text: 'cat', meta: { a } }]) }),
  size: bm.size,
}`)
  t.deepEqual(r.ok, { ok: true }, '128 levels (the root and 127 below it) are allowed')
  invalid(t, r.over, 'RangeError', /docs\[0\]\.meta is nested deeper than 128 levels/, '129 levels')
  invalid(t, r.deep, 'RangeError', /docs\[0\]\.meta is nested deeper than 128 levels/, '100,000 levels')
  invalid(t, r.filter, 'RangeError', /options\.filter\.meta is nested deeper than 128 levels/, 'filter')
  invalid(t, r.arrays, 'RangeError', /docs\[0\]\.meta is nested deeper than 128 levels/, 'nested arrays')
  t.is(r.size, 1)
})

test('the checks still name the bad field of a deep value, and cycles are still cycles', async (t) => {
  const r = await inChild(`
const bm = new Bm25Index()
const cyclic = { a: [1, { b: 2 }] }
cyclic.a[1].back = cyclic
return {
  nan: caught(() => bm.add([{ id: 'x', text: 'cat', meta: { a: [1, { b: [NaN] }] } }])),
  undef: caught(() => bm.add([{ id: 'x', text: 'cat', meta: { a: { b: undefined } } }])),
  cyclic: caught(() => bm.add([{ id: 'x', text: 'cat', meta: cyclic }])),
}`)
  invalid(t, r.nan, 'TypeError', /docs\[0\]\.meta\.a\[1\]\.b\[0\] must be a JSON value: got NaN/, 'NaN')
  invalid(t, r.undef, 'TypeError', /docs\[0\]\.meta\.a\.b is undefined/, 'undefined')
  invalid(t, r.cyclic, 'TypeError', /docs\[0\]\.meta\.a\[1\]\.back must be a JSON value: it contains itself/, 'cycle')
})
