// Unknown or misspelled option keys are TypeErrors (ERR_INVALID_ARG) that name the key and the
// likely intended one, in every public entry point that takes options.
import test from 'ava'
import { setMaxListeners } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AutoMergingRetriever,
  Bm25Index,
  CompressionRetriever,
  CrossEncoder,
  Embedder,
  HierarchicalSplitter,
  HybridRetriever,
  LLMRanker,
  MultiQueryRetriever,
  OpenAIChatGenerator,
  QueryRewriter,
  VectorIndex,
  VectorRetriever,
  fuse,
  rerankPooled,
  resolveHubFiles,
} from '../dist/esm/index.js'
import { RagrankRetriever, RankerCompressor } from '../dist/esm/langchain.js'
import * as llamaindex from '../dist/esm/llamaindex.js'
import * as aiSdk from '../dist/esm/ai-sdk.js'
import { MockLanguageModelV3 } from 'ai/test'

const models = new URL('../fixtures/models/', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'ragrank-strict-'))

const bm25 = () => {
  const ix = new Bm25Index()
  ix.add([
    { id: 'a', text: 'the cat sat' },
    { id: 'b', text: 'a dog ran' },
  ])
  return ix
}
const vectors = () => {
  const ix = new VectorIndex({ dim: 3 })
  ix.add(['a', 'b'], [1, 0, 0, 0, 1, 0])
  return ix
}
const BM25_FILE = join(work, 'good.bm25')
const VECTOR_FILE = join(work, 'good.vec')
await bm25().save(BM25_FILE)
await vectors().save(VECTOR_FILE)
const [crossEncoder, embedder] = await Promise.all([
  CrossEncoder.load(join(models, 'tiny-cross-encoder')),
  Embedder.load(join(models, 'tiny-embedder')),
])
test.after.always(() => {
  rmSync(work, { recursive: true, force: true })
  crossEncoder.dispose?.()
  embedder.dispose?.()
})

const ranker = { rerank: async (_q, docs) => docs.map((_, index) => ({ index, score: 1 / (index + 1) })) }
const chat = { chat: async () => ({ text: '{"documents":[{"index":1}]}' }) }
const rewriterChat = {
  chat: async () => ({ text: '{"needs_retrieval":true,"standalone_query":"cat","language":"en","variants":[]}' }),
}
const embed = async () => Float32Array.of(1, 0, 0)
const tree = () => new HierarchicalSplitter({ blockSizes: [4, 2] }).split([{ id: 'd', text: 'the cat sat on the mat' }])
const generator = (o = {}) =>
  new OpenAIChatGenerator({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, timeoutMs: 2000, ...o })
const signal = new AbortController().signal
setMaxListeners(1000, signal) // one signal shared by many concurrent calls

/**
 * Every public entry point that takes an options object: `call(o)` passes `o` as that object
 * (nested ones too), `where` is how errors name it, `valid` holds known keys that must still
 * work. `mayFail`: the valid call may fail for reasons other than its options (no network).
 */
const ENTRY_POINTS = [
  {
    name: 'new Bm25Index',
    call: (o) => new Bm25Index(o),
    valid: { variant: 'bm25+', k1: 1.2, b: 0.7, delta: 0.5, storeText: false },
  },
  {
    name: 'Bm25Index analyzer',
    where: 'options.analyzer',
    call: (o) => new Bm25Index({ analyzer: o }),
    valid: { lowercase: true, stemmer: 'english', stopwords: 'en', minTokenLength: 2 },
  },
  { name: 'Bm25Index.add', call: (o) => bm25().add([{ id: 'n', text: 'x' }], o), valid: { upsert: true } },
  {
    name: 'Bm25Index.addAsync',
    call: (o) => bm25().addAsync([{ id: 'n', text: 'x' }], o),
    valid: { upsert: true, signal },
  },
  {
    name: 'Bm25Index.search',
    call: (o) => bm25().search('cat', o),
    valid: { topK: 1, includeFields: false, filter: { ids: ['a'] } },
  },
  {
    name: 'Bm25Index.searchBatch',
    call: (o) => bm25().searchBatch(['cat'], o),
    valid: { topK: 1, includeFields: true, filter: { ids: ['a'] }, signal },
  },
  {
    name: 'Bm25Index.retrieve',
    call: (o) => bm25().retrieve('cat', o),
    valid: { topK: 1, signal, filter: { ids: ['a'] } },
  },
  {
    name: 'Bm25Index.removeMatching',
    call: (o) => bm25().removeMatching({ tenant: 'a' }, o),
    valid: { signal },
  },
  { name: 'Bm25Index.save', call: (o) => bm25().save(join(work, 'saved.bm25'), o), valid: { signal } },
  {
    name: 'Bm25Index.load',
    call: (o) => Bm25Index.load(BM25_FILE, o),
    valid: { signal, tokenizer: (s) => s.split(' ') },
  },
  { name: 'new VectorIndex', call: (o) => new VectorIndex({ dim: 3, ...o }), valid: { metric: 'dot', storage: 'f16' } },
  { name: 'VectorIndex.add', call: (o) => vectors().add(['n'], [0, 0, 1], o), valid: { upsert: false } },
  {
    name: 'VectorIndex.search',
    call: (o) => vectors().search([1, 0, 0], o),
    valid: { topK: 1, filter: { ids: ['a'] } },
  },
  { name: 'VectorIndex.searchBatch', call: (o) => vectors().searchBatch([1, 0, 0], o), valid: { topK: 1, signal } },
  {
    name: 'VectorIndex.removeMatching',
    call: (o) => vectors().removeMatching({ tenant: 'a' }, o),
    valid: { signal },
  },
  { name: 'VectorIndex.save', call: (o) => vectors().save(join(work, 'saved.vec'), o), valid: { signal } },
  { name: 'VectorIndex.load', call: (o) => VectorIndex.load(VECTOR_FILE, o), valid: { mmap: true, signal } },
  {
    name: 'fuse',
    call: (o) => fuse([[{ id: 'a', score: 1 }]], o),
    valid: { method: 'rrf', rrfK: 10, weights: [1], keyBy: 'id', topK: 1 },
  },
  {
    name: 'rerankPooled',
    call: (o) => rerankPooled('q', ['a', 'b'], ranker, o),
    valid: { topK: 1, signal, dedupeBy: 'content' },
  },
  {
    name: 'new CompressionRetriever',
    call: (o) => new CompressionRetriever({ ranker, ...o }),
    valid: { retriever: bm25(), candidates: 5, dedupeBy: 'none' },
  },
  {
    name: 'CompressionRetriever.retrieve',
    call: (o) => new CompressionRetriever({ ranker }).retrieve('q', { documents: ['a'], ...o }),
    valid: { topK: 1, signal, dedupeBy: 'content' },
  },
  {
    name: 'new VectorRetriever',
    call: (o) => new VectorRetriever({ index: vectors(), embed, ...o }),
    valid: { documents: new Map() },
  },
  {
    name: 'VectorRetriever.retrieve',
    call: (o) => new VectorRetriever({ index: vectors(), embed }).retrieve('q', o),
    valid: { topK: 1, signal },
  },
  {
    name: 'new HybridRetriever',
    call: (o) => new HybridRetriever({ retrievers: [bm25()], ...o }),
    valid: { method: 'rrf', rrfK: 30, candidates: 5, onError: 'skip', onSkip: () => {} },
  },
  {
    name: 'HybridRetriever source',
    where: 'options.retrievers[0]',
    call: (o) => new HybridRetriever({ retrievers: [{ retriever: bm25(), ...o }] }),
    valid: { topK: 5, weight: 2 },
  },
  {
    name: 'HybridRetriever.retrieve',
    call: (o) => new HybridRetriever({ retrievers: [bm25()] }).retrieve('cat', o),
    valid: { topK: 1, signal },
  },
  {
    name: 'new MultiQueryRetriever',
    call: (o) => new MultiQueryRetriever({ retriever: bm25(), ...o }),
    valid: { queries: ['cat'], includeOriginal: false, concurrency: 2, rrfK: 5, candidates: 5 },
  },
  {
    name: 'MultiQueryRetriever.retrieve',
    call: (o) => new MultiQueryRetriever({ retriever: bm25() }).retrieve('cat', o),
    valid: { topK: 1, signal, queries: ['dog'] },
  },
  {
    name: 'new HierarchicalSplitter',
    call: (o) => new HierarchicalSplitter({ blockSizes: [4], ...o }),
    valid: { overlap: 1, splitBy: 'word' },
  },
  {
    name: 'HierarchicalSplitter.splitAsync',
    call: (o) => new HierarchicalSplitter({ blockSizes: [4] }).splitAsync([{ id: 'd', text: 'a b c d e' }], o),
    valid: { signal },
  },
  {
    name: 'new AutoMergingRetriever',
    call: (o) => new AutoMergingRetriever({ retriever: bm25(), store: tree(), ...o }),
    valid: { threshold: 0.4, candidates: 8, parentScore: 'mean', strict: false },
  },
  {
    name: 'AutoMergingRetriever.retrieve',
    call: (o) => new AutoMergingRetriever({ retriever: bm25(), store: tree() }).retrieve('cat', o),
    valid: { topK: 2, signal },
  },
  {
    name: 'new LLMRanker',
    call: (o) => new LLMRanker({ chatGenerator: chat, ...o }),
    valid: { topK: 3, raiseOnFailure: true, onFailure: () => {}, window: { size: 4 } },
  },
  {
    name: 'LLMRanker window',
    where: 'options.window',
    call: (o) => new LLMRanker({ chatGenerator: chat, window: { size: 4, ...o } }),
    valid: { step: 2, concurrency: 1 },
  },
  {
    name: 'LLMRanker.rerank',
    call: (o) => new LLMRanker({ chatGenerator: chat }).rerank('q', ['a', 'b'], o),
    valid: { topK: 1, signal },
  },
  {
    name: 'new OpenAIChatGenerator',
    call: (o) => generator(o),
    valid: {
      model: 'm',
      apiKey: 'k',
      temperature: 0.5,
      responseFormat: 'json_object',
      body: { seed: 1 },
      headers: { x: 'y' },
      env: {},
    },
  },
  {
    name: 'OpenAIChatGenerator.chat',
    where: 'request',
    call: (o) => generator().chat({ messages: [{ role: 'user', content: 'hi' }], ...o }),
    valid: { signal },
    mayFail: true,
  },
  {
    name: 'OpenAIChatGenerator.chat responseFormat',
    where: 'request.responseFormat',
    call: (o) =>
      generator().chat({
        messages: [{ role: 'user', content: 'hi' }],
        responseFormat: { name: 'n', schema: {}, ...o },
      }),
    valid: {},
    mayFail: true,
  },
  {
    name: 'new QueryRewriter',
    call: (o) => new QueryRewriter({ chatGenerator: rewriterChat, ...o }),
    valid: { variants: 1, strategies: ['synonyms'], raiseOnFailure: true },
  },
  {
    name: 'QueryRewriter.rewrite',
    call: (o) => new QueryRewriter({ chatGenerator: rewriterChat }).rewrite('cat?', o),
    valid: { signal },
  },
  {
    name: 'QueryRewriter.variants',
    call: (o) => new QueryRewriter({ chatGenerator: rewriterChat }).variants('cat?', o),
    valid: { signal },
  },
  {
    name: 'CrossEncoder.load',
    call: (o) => CrossEncoder.load(join(models, 'tiny-cross-encoder'), o).then((m) => m.dispose?.()),
    valid: { topK: 2, activation: 'none', maxLength: 32, batchSize: 4, threads: 1, sessions: 1 },
  },
  {
    name: 'CrossEncoder.rerank',
    call: (o) => crossEncoder.rerank('q', ['a', 'b'], o),
    valid: { topK: 1, scoreThreshold: -100, activation: 'sigmoid', batchSize: 1, maxLength: 16, signal },
  },
  {
    name: 'CrossEncoder.rerankMany',
    call: (o) => crossEncoder.rerankMany([{ query: 'q', documents: ['a'] }], o),
    valid: { topK: 1 },
  },
  {
    name: 'Embedder.load',
    call: (o) => Embedder.load(join(models, 'tiny-embedder'), o).then((m) => m.dispose?.()),
    valid: { pooling: 'cls', normalize: false, queryPrefix: 'q: ', documentPrefix: 'p: ' },
  },
  {
    name: 'Embedder.embed',
    call: (o) => embedder.embed(['a'], o),
    valid: { pooling: 'mean', normalize: true, batchSize: 2, maxLength: 8, signal },
  },
  { name: 'Embedder.embedQuery', call: (o) => embedder.embedQuery('a', o), valid: { normalize: false } },
  { name: 'Embedder.embedDocuments', call: (o) => embedder.embedDocuments(['a'], o), valid: { pooling: 'cls' } },
  {
    name: 'resolveHubFiles',
    call: (o) =>
      resolveHubFiles('org/model', ['config.json'], [], { offline: true, cacheDir: join(work, 'hub'), ...o }),
    valid: { revision: 'main', env: {} },
    mayFail: true,
  },
  {
    name: 'new RagrankRetriever',
    where: 'fields',
    call: (o) => new RagrankRetriever({ retriever: bm25(), ...o }),
    valid: { topK: 2, scoreKey: 's', tags: ['t'], metadata: {}, verbose: false },
  },
  {
    name: 'new RankerCompressor',
    where: 'fields',
    call: (o) => new RankerCompressor({ ranker, ...o }),
    valid: { topK: 1, scoreKey: 's' },
  },
  // ragrank/llamaindex and ragrank/ai-sdk
  {
    name: 'new llamaindex.RagrankRetriever',
    call: (o) => new llamaindex.RagrankRetriever({ retriever: bm25(), ...o }),
    valid: { topK: 2, filter: { meta: { a: 'x' } }, filters: { filters: [] } },
  },
  {
    name: 'new llamaindex.RagrankReranker',
    call: (o) => new llamaindex.RagrankReranker({ ranker, ...o }),
    valid: { topN: 1 },
  },
  {
    name: 'new llamaindex.RagrankEmbedding',
    call: (o) => new llamaindex.RagrankEmbedding({ embedder, ...o }),
    valid: { embedBatchSize: 8 },
  },
  {
    name: 'new aiSdk.RagrankEmbeddingModel',
    where: 'settings',
    call: (o) => new aiSdk.RagrankEmbeddingModel(embedder, 'e', o),
    valid: { inputType: 'query' },
  },
  {
    name: 'RagrankEmbeddingModel.doEmbed',
    where: 'providerOptions.ragrank',
    call: (o) => new aiSdk.RagrankEmbeddingModel(embedder).doEmbed({ values: ['a'], providerOptions: { ragrank: o } }),
    valid: { inputType: 'document' },
  },
  {
    name: 'new aiSdk.RagrankRerankingModel',
    where: 'settings',
    call: (o) => new aiSdk.RagrankRerankingModel(ranker, 'r', o),
    valid: { documentText: () => 'x' },
  },
  {
    name: 'aiSdk.createRagrank',
    where: 'settings',
    call: (o) => aiSdk.createRagrank(o),
    valid: { embedder, ranker },
  },
  {
    name: 'aiSdk.retrievalTool',
    call: (o) => aiSdk.retrievalTool({ retriever: bm25(), ...o }),
    valid: { topK: 2, description: 'search', filter: { meta: { a: 'x' } } },
  },
  {
    name: 'new aiSdk.AiSdkChatGenerator',
    call: (o) => new aiSdk.AiSdkChatGenerator(new MockLanguageModelV3(), o),
    valid: { maxRetries: 0, providerOptions: {} },
  },
]

/** What a call did, whether it throws or rejects. */
async function outcome(call) {
  try {
    await call()
    return { ok: true }
  } catch (error) {
    return { ok: false, error }
  }
}

async function rejection(t, call, where, key, message) {
  const r = await outcome(call)
  if (r.ok) return t.fail(`accepted ${where}.${key}`)
  t.true(r.error instanceof TypeError, `${where}.${key}: ${r.error}`)
  t.is(r.error.code, 'ERR_INVALID_ARG')
  t.true(r.error.message.startsWith(`${where}.${key} `), r.error.message)
  if (message) t.regex(r.error.message, message)
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const hint = (where, key) => new RegExp(`did you mean ${escape(`${where}.${key}`)}\\?`)
/** A near miss of `key`: one letter changed in the middle, e.g. `topK` -> `toqK`. */
const typo = (key) => {
  const i = Math.floor(key.length / 2)
  return key.slice(0, i) + (key[i] === 'q' ? 'x' : 'q') + key.slice(i + 1)
}

for (const e of ENTRY_POINTS) {
  const where = e.where ?? 'options'
  test(`${e.name}: an unknown key is a TypeError naming it, even when undefined`, async (t) => {
    await rejection(t, () => e.call({ ...e.valid, notAnOption: 1 }), where, 'notAnOption')
    await rejection(t, () => e.call({ notAnOption: undefined }), where, 'notAnOption')
  })

  test(`${e.name}: the known keys still work`, async (t) => {
    const r = await outcome(() => e.call({ ...e.valid }))
    if (e.mayFail) t.false(!r.ok && /is not a known option|is not supported/.test(r.error.message), r.error?.message)
    else t.true(r.ok, r.error?.message)
  })

  test(`${e.name}: a near miss of a known key suggests it; offset is not supported`, async (t) => {
    for (const key of Object.keys(e.valid).filter((k) => k.length >= 4)) {
      await rejection(t, () => e.call({ [typo(key)]: e.valid[key] }), where, typo(key), hint(where, key))
      await rejection(
        t,
        () => e.call({ [key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase()]: e.valid[key] }),
        where,
        key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase(),
        hint(where, key),
      )
    }
    await rejection(t, () => e.call({ offset: 2 }), where, 'offset', /is not supported/)
  })
}

const TOP_K_CALLS = ENTRY_POINTS.filter((e) => 'topK' in e.valid)

test('the names other libraries use for topK suggest topK, wherever topK is an option', async (t) => {
  t.true(TOP_K_CALLS.length >= 15)
  for (const e of TOP_K_CALLS) {
    const where = e.where ?? 'options'
    for (const key of ['limit', 'topN', 'top_k', 'topk', 'maxResults', 'n']) {
      await rejection(t, () => e.call({ [key]: 3 }), where, key, hint(where, 'topK'))
    }
    await rejection(t, () => e.call({ k: 3 }), where, 'k', hint(where, 'topK'))
  }
})

test('the common misspellings get the right hint', async (t) => {
  const search = (o) => bm25().search('cat', o)
  await rejection(t, () => search({ k: 3 }), 'options', 'k', /did you mean options\.topK\?/)
  await rejection(t, () => search({ filters: { ids: ['a'] } }), 'options', 'filters', /did you mean options\.filter\?/)
  await rejection(
    t,
    () => search({ offset: 1 }),
    'options',
    'offset',
    /not supported: no ragrank call pages its results; ask for topK = offset \+ page size and slice\(offset\)/,
  )
  await rejection(
    t,
    () => bm25().searchBatch(['cat'], { signals: signal }),
    'options',
    'signals',
    /did you mean options\.signal\?/,
  )
  await rejection(
    t,
    () => rerankPooled('q', ['a'], ranker, { topN: 1 }),
    'options',
    'topN',
    /did you mean options\.topK\?/,
  )
  await rejection(
    t,
    () => new Bm25Index({ analyzer: { stemer: 'english' } }),
    'options.analyzer',
    'stemer',
    /did you mean options\.analyzer\.stemmer\?/,
  )
  await rejection(
    t,
    () => new LLMRanker({ chatGenerator: chat, window: { size: 4, stpe: 2 } }),
    'options.window',
    'stpe',
    /did you mean options\.window\.step\?/,
  )
  // A key close to nothing gets no guess, but the list of known options.
  await rejection(
    t,
    () => search({ zzzzzz: 1 }),
    'options',
    'zzzzzz',
    /^options\.zzzzzz is not a known option; known options: topK, filter, includeFields$/,
  )
})

test('only own keys count: an inherited enumerable key is not an option', (t) => {
  const options = Object.create({ inherited: true })
  options.topK = 1
  t.is(bm25().search('cat', options).length, 1)
})

test('filter is a known key of every retrieve and search call', async (t) => {
  // The filter's own checks are in filters.spec.mjs; here: never reported as a typo.
  for (const e of ENTRY_POINTS.filter((x) => /\.(retrieve|search|searchBatch)$/.test(x.name))) {
    const r = await outcome(() => e.call({ filter: { ids: ['a'] } }))
    t.false(!r.ok && /filter is not a known option/.test(r.error.message), `${e.name}: ${r.error?.message}`)
  }
})

test('fuse: rrfK is the RRF constant, and k is not an option', (t) => {
  const lists = [
    [
      { id: 'a', score: 3 },
      { id: 'b', score: 1 },
    ],
  ]
  t.is(fuse(lists, { rrfK: 2 })[0].score, 1 / 3)
  t.is(fuse(lists)[0].score, 1 / 61)
  t.throws(() => fuse(lists, { k: 2 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
    message: /options\.k is not a known option \(did you mean options\.topK\?\)/,
  })
  t.throws(() => fuse(lists, { rrfK: 0 }), { instanceOf: RangeError, message: /options\.rrfK must be > 0/ })
  t.throws(() => fuse(lists, { method: 'weighted', rrfK: 5 }), {
    instanceOf: RangeError,
    message: /options\.rrfK applies to method 'rrf' only/,
  })
})

test('HybridRetriever and MultiQueryRetriever take rrfK, and k is not an option', async (t) => {
  const ix = bm25()
  const hybrid = (o) => new HybridRetriever({ retrievers: [ix, ix], ...o }).retrieve('cat')
  t.is((await hybrid({ rrfK: 3 }))[0].fusion[0].contribution, 1 / 4)
  const multi = (o) => new MultiQueryRetriever({ retriever: ix, queries: ['cat sat'], ...o }).retrieve('cat')
  t.is((await multi({ rrfK: 3 }))[0].fusion[0].contribution, 1 / 4)
  t.throws(() => new HybridRetriever({ retrievers: [ix], k: 1 }), {
    instanceOf: TypeError,
    message: /options\.k is not a known option/,
  })
  t.throws(() => new MultiQueryRetriever({ retriever: ix, k: 1 }), {
    instanceOf: TypeError,
    message: /options\.k is not a known option/,
  })
  t.throws(() => new MultiQueryRetriever({ retriever: ix, rrfK: 0 }), {
    instanceOf: RangeError,
    message: /options\.rrfK must be > 0/,
  })
})
