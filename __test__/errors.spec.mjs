// Aborts and errors keep their promises: every error that crosses the API has a
// documented code, an abort never leaves work behind it, and an aborted call never lies.
import test from 'ava'
import { join } from 'node:path'
import {
  AbortError,
  Bm25Index,
  CrossEncoder,
  evaluate,
  HierarchicalSplitter,
  hubCacheDir,
  LLMRanker,
  NodeTree,
  OpenAIChatGenerator,
  RagrankError,
  REWRITE_STRATEGIES,
  resolveHubFiles,
  VectorIndex,
} from '../dist/esm/index.js'
import { RagrankRetriever } from '../dist/esm/langchain.js'

const models = new URL('../fixtures/models/', import.meta.url).pathname

const invalidArg = (t, fn, what) => {
  const e = t.throws(fn, undefined, what)
  t.true(e instanceof TypeError || e instanceof RangeError, `${what}: ${e?.constructor?.name} ${e?.message}`)
  t.is(e?.code, 'ERR_INVALID_ARG', what)
  return e
}
const invalidArgAsync = async (t, promise, what) => {
  const e = await t.throwsAsync(promise, undefined, what)
  t.true(e instanceof TypeError || e instanceof RangeError, `${what}: ${e?.constructor?.name} ${e?.message}`)
  t.is(e?.code, 'ERR_INVALID_ARG', what)
  return e
}

const small = () => {
  const ix = new Bm25Index()
  ix.add([
    { id: 'a', text: 'the cat sat' },
    { id: 'b', text: 'the dog ran' },
  ])
  return ix
}

test.serial(
  'aborting after a call failed, whatever failed, leaves no listener and no unhandled rejection',
  async (t) => {
    const unhandled = []
    const onUnhandled = (e) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    try {
      const badMeta = [{ n: NaN }, { f: () => 1 }, { s: Symbol('s') }, { u: undefined }, { b: 1n }]
      const calls = [
        ...badMeta.map((meta) => (signal) => small().addAsync([{ id: 'new', text: 'x', meta }], { signal })),
        ...badMeta.map((meta) => (signal) => small().searchBatch(['cat'], { filter: { meta }, signal })),
        ...badMeta.map((meta) => (signal) => small().retrieve('cat', { filter: { meta }, signal })),
        (signal) => small().addAsync([{ id: 'a', text: 'dup' }], { signal }), // a native error after the start
        (signal) => small().searchBatch([new Array(1)], { signal }),
        (signal) => new HierarchicalSplitter({ blockSizes: [4, 2] }).splitAsync([{ id: 'd', text: 1 }], { signal }),
        (signal) => new VectorIndex({ dim: 2 }).searchBatch(new Float32Array(3), { signal }),
      ]
      for (const call of calls) {
        const controller = new AbortController()
        const e = await t.throwsAsync(() => call(controller.signal))
        t.truthy(e.code, `${e.name}: ${e.message}`)
        controller.abort()
      }
      await new Promise((r) => setTimeout(r, 20))
      t.deepEqual(unhandled, [])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  },
)

test('an aborted addAsync either adds everything and resolves, or adds nothing and rejects (race)', async (t) => {
  let resolved = 0
  let rejected = 0
  for (let i = 0; i < 200; i++) {
    const ix = small()
    const controller = new AbortController()
    const docs = [
      { id: `n${i}`, text: `cat dog ${i}` },
      { id: `m${i}`, text: `bird ${i}` },
    ]
    const pending = ix.addAsync(docs, { signal: controller.signal })
    if (i % 2) queueMicrotask(() => controller.abort())
    else setImmediate(() => controller.abort())
    try {
      t.is(await pending, 2)
      t.is(ix.size, 4)
      resolved++
    } catch (e) {
      t.true(e instanceof AbortError, String(e))
      t.is(ix.size, 2, 'a rejected addAsync added nothing')
      t.is(ix.add(docs), 2, 'a retry works')
      rejected++
    }
  }
  t.is(resolved + rejected, 200)
})

test('napi conversion errors never escape: meta and filters are checked, holes are missing strings', async (t) => {
  const ix = small()
  for (const meta of [
    { n: NaN },
    { n: Infinity },
    { f: () => 1 },
    { s: Symbol('s') },
    { u: undefined },
    { b: 1n },
    { deep: [1, [2, NaN]] },
  ]) {
    invalidArg(t, () => ix.add([{ id: 'x', text: 'x', meta }]), `add meta ${Object.keys(meta)}`)
    invalidArg(t, () => ix.search('cat', { filter: { meta } }), `filter meta ${Object.keys(meta)}`)
  }
  const cyclic = { a: 1 }
  cyclic.self = cyclic
  invalidArg(t, () => ix.add([{ id: 'x', text: 'x', meta: cyclic }]), 'cyclic meta')
  t.is(ix.size, 2)
  invalidArg(t, () => ix.remove(new Array(1)), 'remove with a hole')
  invalidArg(t, () => ix.add(new Array(1)), 'add with a hole')
  await invalidArgAsync(t, ix.addAsync([, { id: 'y', text: 'y' }]), 'addAsync with a hole') // eslint-disable-line no-sparse-arrays
  invalidArg(t, () => ix.search(['cat', , 'dog']), 'tokens with a hole') // eslint-disable-line no-sparse-arrays
  invalidArg(t, () => new VectorIndex({ dim: 2 }).add(new Array(1), new Float32Array(2)), 'vector ids with a hole')
  invalidArg(t, () => new HierarchicalSplitter({ blockSizes: [4] }).split(new Array(1)), 'split with a hole')
  invalidArg(t, () => evaluate({ q: new Array(1) }, { q: { a: 1 } }, ['map']), 'evaluate run with a hole')
})

test('error messages are written safely: null-prototype objects and Symbols get a coded TypeError', (t) => {
  const ix = small()
  for (const v of [Object.create(null), Symbol('k'), 1n]) {
    invalidArg(t, () => ix.search('cat', { topK: v }), `topK ${typeof v}`)
    invalidArg(t, () => new Bm25Index({ k1: v }), `k1 ${typeof v}`)
    invalidArg(t, () => new Bm25Index({ variant: v }), `variant ${typeof v}`)
  }
})

test('"__proto__" keys are own keys: in evaluate and in returned meta', (t) => {
  const run = JSON.parse('{"__proto__":[{"id":"a","score":1}],"q2":[{"id":"b","score":1}]}')
  const qrels = JSON.parse('{"__proto__":{"a":1},"q2":{"__proto__":1,"b":1}}')
  const r = evaluate(run, qrels, ['recall@1'])
  t.true(Object.hasOwn(r.perQuery, '__proto__'))
  t.is(r.perQuery['__proto__']['recall@1'], 1)
  t.is(r.perQuery.q2['recall@1'], 0.5)
  t.is(Object.getPrototypeOf(r.perQuery), Object.prototype)

  const ix = new Bm25Index()
  ix.add([{ id: 'p', text: 'cat', meta: JSON.parse('{"__proto__":{"x":1},"k":"v"}') }])
  const [hit] = ix.search('cat')
  t.true(Object.hasOwn(hit.meta, '__proto__'))
  t.deepEqual(Object.keys(hit.meta), ['__proto__', 'k'])
  t.deepEqual(hit.meta['__proto__'], { x: 1 })
  t.is(Object.getPrototypeOf(hit.meta), Object.prototype)

  const vx = new VectorIndex({ dim: 2 })
  vx.add([{ id: 'p', vector: [1, 0], meta: JSON.parse('{"__proto__":{"x":1},"k":"v"}') }])
  const [vhit] = vx.search([1, 0])
  t.true(Object.hasOwn(vhit.meta, '__proto__'))
  t.deepEqual(Object.keys(vhit.meta), ['__proto__', 'k'])
  t.is(Object.getPrototypeOf(vhit.meta), Object.prototype)
})

test('splitter node ids never collide across documents: doc "a#0" and chunk 0 of doc "a"', (t) => {
  const splitter = new HierarchicalSplitter({ blockSizes: [2] })
  const nodes = splitter.split([
    { id: 'a', text: 'one two three four' },
    { id: 'a#0', text: 'five six seven eight' },
    { id: '50%', text: 'nine ten eleven twelve' },
  ])
  const ids = nodes.map((n) => n.id)
  t.is(new Set(ids).size, ids.length, ids.join(' '))
  t.true(ids.includes('a#0'), 'plain ids are unchanged')
  t.true(ids.includes('a%230'), 'the root of "a#0"')
  t.true(ids.includes('a%230#0'), 'a chunk of "a#0"')
  t.true(ids.includes('50%25#1'))
  const tree = new NodeTree(nodes)
  t.deepEqual(
    tree.leaves('a%230').map((n) => n.sourceId),
    ['a#0', 'a#0'],
  )
  t.deepEqual(
    tree.leaves('a').map((n) => n.text),
    ['one two ', 'three four'],
  )
})

test('NodeTree validates its input and arguments', async (t) => {
  for (const bad of [
    0,
    null,
    [null],
    [{ id: 1, parentId: null, childrenIds: [] }],
    [{ id: 'x', parentId: 2, childrenIds: [] }],
    [{ id: 'x', parentId: null }],
  ]) {
    invalidArg(t, () => new NodeTree(bad), JSON.stringify(bad))
  }
  const tree = new NodeTree(new HierarchicalSplitter({ blockSizes: [2] }).split([{ id: 'd', text: 'a b c d' }]))
  await invalidArgAsync(t, tree.get('d'), 'get of a string')
  invalidArg(t, () => tree.children(1n), 'children of a BigInt')
  invalidArg(t, () => tree.leaves(Symbol('x')), 'leaves of a Symbol')
  t.is(t.throws(() => tree.ancestors('nope')).code, 'ERR_INVALID_ARG')
})

test('LLMRanker falls back when the chat generator rejects with a non-Error; raiseOnFailure throws a coded error', async (t) => {
  const chatGenerator = { chat: () => Promise.reject(undefined) }
  const failures = []
  const ranker = new LLMRanker({ chatGenerator, onFailure: (e) => failures.push(e) })
  const out = await ranker.rerank('cat', ['a cat', 'a dog'])
  t.is(out.length, 2)
  t.is(failures.length, 1)
  t.true(failures[0] instanceof RagrankError)
  t.is(failures[0].code, 'ERR_LLM')
  t.true('cause' in failures[0] && failures[0].cause === undefined)
  const warned = []
  const onWarning = (w) => warned.push(w)
  process.on('warning', onWarning)
  try {
    t.is((await new LLMRanker({ chatGenerator }).rerank('cat', ['a cat'])).length, 1) // the default onFailure reads e.message
    await new Promise((r) => setImmediate(r))
    t.true(warned.some((w) => w.code === 'RAGRANK_LLM_FALLBACK'))
  } finally {
    process.off('warning', onWarning)
  }
  const raising = new LLMRanker({ chatGenerator, raiseOnFailure: true })
  const e = await t.throwsAsync(raising.rerank('cat', ['a cat']))
  t.is(e.code, 'ERR_LLM')
})

test('RagrankRetriever: a non-Error rejection becomes ERR_CALLBACK with the value as cause; bad hits are coded TypeErrors', async (t) => {
  const rejecting = new RagrankRetriever({ retriever: { retrieve: () => Promise.reject(undefined) } })
  const e = await t.throwsAsync(rejecting.invoke('q'))
  t.true(e instanceof RagrankError)
  t.is(e.code, 'ERR_CALLBACK')
  t.true(Object.hasOwn(e, 'cause'))
  const own = new Error('mine')
  t.is(
    await t.throwsAsync(new RagrankRetriever({ retriever: { retrieve: () => Promise.reject(own) } }).invoke('q')),
    own,
  )
  for (const hit of [null, undefined, 3]) {
    await invalidArgAsync(
      t,
      new RagrankRetriever({ retriever: { retrieve: async () => [hit] } }).invoke('q'),
      String(hit),
    )
  }
})

test('hub helpers check their argument types', async (t) => {
  invalidArg(t, () => hubCacheDir(null), 'hubCacheDir(null)')
  for (const revision of [true, 1, {}]) {
    await invalidArgAsync(
      t,
      resolveHubFiles('org/name', ['a'], [], { revision, offline: true }),
      `revision ${revision}`,
    )
  }
})

test('OpenAIChatGenerator.chat: a schema JSON cannot hold is a coded TypeError', async (t) => {
  const llm = new OpenAIChatGenerator({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' })
  const cyclic = {}
  cyclic.self = cyclic
  for (const schema of [{ b: 1n }, cyclic, { f: () => 1 }]) {
    await invalidArgAsync(
      t,
      llm.chat({ messages: [{ role: 'user', content: 'x' }], responseFormat: { name: 'n', schema } }),
      'schema',
    )
  }
})

test('an already-aborted signal rejects even when there is nothing to do', async (t) => {
  const signal = AbortSignal.abort()
  await t.throwsAsync(new VectorIndex({ dim: 2 }).searchBatch([], { signal }), { instanceOf: AbortError })
  await t.throwsAsync(small().searchBatch([], { signal }), { instanceOf: AbortError })
  const cross = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  await t.throwsAsync(cross.rerank('q', [], { signal }), { instanceOf: AbortError })
  await t.throwsAsync(cross.rerankMany([], { signal }), { instanceOf: AbortError })
})

test('a revoked Proxy is a coded TypeError wherever it is given', async (t) => {
  const revoked = () => {
    const p = Proxy.revocable({}, {})
    p.revoke()
    return p.proxy
  }
  invalidArg(t, () => small().remove(revoked()), 'remove')
  invalidArg(t, () => small().search('cat', revoked()), 'search options')
  invalidArg(t, () => new HierarchicalSplitter({ blockSizes: revoked() }), 'blockSizes')
  invalidArg(t, () => hubCacheDir(revoked()), 'hubCacheDir')
  invalidArg(t, () => new RagrankRetriever({ retriever: revoked() }), 'retriever')
  await invalidArgAsync(
    t,
    new RagrankRetriever({ retriever: { retrieve: async () => revoked() } }).invoke('q'),
    'resolved to one',
  )
})

test('RagrankError and AbortError take any message without throwing', (t) => {
  t.is(new RagrankError('ERR_IO', Symbol('s')).message, 'symbol')
  t.is(new RagrankError('ERR_IO', Object.create(null)).message, 'an object')
  t.is(new AbortError(Symbol('s')).code, 'ABORT_ERR')
  t.is(new AbortError().message, 'The operation was aborted')
})

test('an exported list is frozen: a push cannot add a strategy for every caller', (t) => {
  t.throws(() => REWRITE_STRATEGIES.push('made-up'), { instanceOf: TypeError })
  t.deepEqual([...REWRITE_STRATEGIES], ['synonyms', 'broader-narrower', 'cause-effect'])
})
