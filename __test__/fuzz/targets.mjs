// The entry points under fuzz: every constructor, method, getter and free function that
// dist/index.js and dist/langchain.js export, and the model-free calls of dist/llamaindex.js and
// dist/ai-sdk.js (retriever, reranker, filters, reranking model, tool). Each target makes a fresh subject (`setup`),
// calls one entry point with built arguments (`call`), and, for stateful objects, prints
// the state a failed call must leave alone (`snapshot`).
import fc from 'fast-check'
import { createRequire } from 'node:module'
import { h, hostile, hostileLeaf, hostileNumber, near, options, signal } from './hostile.mjs'
import { aiSdk, api, CORPUS, FILES, langchain, llamaindex, prepare, resolvePath, tinyModels } from './fixtures.mjs'

const {
  Bm25Index,
  VectorIndex,
  fuse,
  evaluate,
  HierarchicalSplitter,
  NodeTree,
  AutoMergingRetriever,
  HybridRetriever,
  MultiQueryRetriever,
  RescoringRetriever,
  VectorRetriever,
  CompressionRetriever,
  rerankPooled,
  LLMRanker,
  QueryRewriter,
  OpenAIChatGenerator,
  CrossEncoder,
  Embedder,
  isChatGenerator,
  isHubId,
  hubCacheDir,
  resolveHubFiles,
  ensureOnnxRuntime,
  onnxRuntimePath,
  RagrankError,
  AbortError,
} = api
const { RagrankRetriever, RankerCompressor } = langchain
// The CommonJS build ragrank itself loads, so nodes are of the class the adapters check.
const { TextNode } = createRequire(import.meta.url)('@llamaindex/core/schema')

// ---- near-valid building blocks -------------------------------------------------------

const id = near(fc.constantFrom('a', 'b', 'c', 'd', 'new1', 'new2', 'a#0', 'x#1.0'))
const text = near(fc.constantFrom('the cat sat', 'dog', 'cat dog mat', '', '  ', 'roads'))
const tokens = near(fc.array(text, { maxLength: 4 }))
const metaValue = near(fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null)), 2)
const meta = near(
  fc.dictionary(fc.constantFrom('tenant', 'n', 'k', '__proto__', 'constructor', ''), metaValue, { maxKeys: 3 }),
)
const doc = near(fc.record({ id, text, tokens, meta }, { requiredKeys: ['id'] }))
const docs = near(fc.array(doc, { maxLength: 4 }))
const ids = near(fc.array(id, { maxLength: 4 }))
const topK = near(fc.constantFrom(0, 1, 3, 10, 100))
const query = near(fc.oneof(text, fc.array(text, { maxLength: 3 })))
const path = near(fc.constantFrom('@bm25', '@vector', '@garbage', '@empty', '@dir', '@missing', '@fresh'))
const bool = near(fc.boolean())
const filter = options({
  ids,
  meta: near(
    fc.dictionary(
      fc.constantFrom('tenant', 'n', 'x'),
      near(fc.oneof(fc.string({ maxLength: 2 }), fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }))),
      { maxKeys: 2 },
    ),
  ),
})
const searchOpts = options({ topK, filter, includeFields: bool })
const scored = near(fc.record({ id, score: near(fc.double()), text, meta }, { requiredKeys: ['id', 'score'] }))
const scoredList = near(fc.array(scored, { maxLength: 5 }))
const vector = (dim) =>
  near(
    fc.oneof(
      fc.array(near(fc.double({ min: -2, max: 2, noNaN: true })), { minLength: dim, maxLength: dim }),
      fc.constant(h('typed', 'f32nan')),
      fc.array(fc.double(), { maxLength: dim * 2 }),
    ),
  )
const candidate = near(
  fc.oneof(text, fc.record({ id, text, score: near(fc.double()), meta }, { requiredKeys: ['text'] })),
)
const candidates = near(fc.array(candidate, { maxLength: 5 }))
const anything = hostile
/** Extra trailing arguments nobody expects. */
const extra = fc.array(hostileLeaf, { maxLength: 1 })

/** LlamaIndex shapes: a query (string, content parts or a bundle), MetadataFilters, nodes with scores. */
const liQuery = near(
  fc.oneof(
    text,
    fc.array(near(fc.record({ type: near(fc.constantFrom('text', 'image_url')), text })), { maxLength: 2 }),
    fc.record({ query: text }),
  ),
)
const liFilters = options({
  filters: near(
    fc.array(
      options({
        key: near(fc.constantFrom('tenant', 'n', '')),
        value: near(fc.oneof(text, fc.integer(), fc.array(near(fc.oneof(text, fc.integer())), { maxLength: 2 }))),
        operator: near(
          fc.constantFrom('==', '!=', '>', '<=', 'in', 'nin', 'any', 'all', 'contains', 'text_match', 'is_empty'),
        ),
      }),
      { maxLength: 3 },
    ),
  ),
  condition: near(fc.constantFrom('and', 'or')),
})
const liNodes = near(
  fc.array(near(fc.record({ node: near(fc.record({ id_: id, text })).map(textNode), score: near(fc.double()) })), {
    maxLength: 3,
  }),
)
/** A real LlamaIndex TextNode from built fields; hostile values stay as they are. */
function textNode(fields) {
  try {
    return new TextNode(fields)
  } catch {
    return fields
  }
}

// ---- fakes for user-supplied collaborators -----------------------------------------------

/** A retriever: returns a (built) list, or behaves badly. */
const fakeRetriever = near(fc.oneof(scoredList, fc.constant(h('fn', 'rejects')))).map((r) => ({
  kind: 'retriever',
  result: r,
}))
const ranked = near(
  fc.array(
    near(fc.record({ index: near(fc.nat(6)), score: near(fc.double()), meta }, { requiredKeys: ['index', 'score'] })),
    { maxLength: 5 },
  ),
)
const fakeRanker = ranked.map((r) => ({ kind: 'ranker', result: r }))
const replyText = near(
  fc.constantFrom(
    '{"documents":[{"index":1},{"index":2}]}',
    '{"documents":[{"index":99},{"index":-1},{"index":1.5}]}',
    '{"documents":[]}',
    '{"needs_retrieval":true,"standalone_query":"cats","language":"en","variants":["a","b","c"]}',
    '{"needs_retrieval":"yes","standalone_query":7,"variants":[null]}',
    '{"__proto__":{"documents":[{"index":1}]}}',
    'not json',
    '',
  ),
)
const fakeChat = near(
  fc.oneof(fc.record({ text: replyText }), fc.constantFrom(h('fn', 'rejects'), h('fn', 'rejectsUndefined'))),
  1,
).map((r) => ({ kind: 'chat', result: r }))

/** Turns a built fake description into an object with the method; hostile stays hostile. */
function fake(f) {
  try {
    if (
      f === null ||
      typeof f !== 'object' ||
      Object.getPrototypeOf(f) !== Object.prototype ||
      !Object.hasOwn(f, 'kind')
    )
      return f
  } catch {
    return f // a throwing proxy stays one
  }
  const respond = () => (typeof f.result === 'function' ? f.result() : f.result)
  if (f.kind === 'retriever') return { retrieve: async () => respond() }
  if (f.kind === 'ranker') return { rerank: async () => respond() }
  if (f.kind === 'chat') return { chat: async () => respond() }
  return f
}

// ---- subjects --------------------------------------------------------------------------

function bm25() {
  const ix = new Bm25Index()
  ix.add(CORPUS)
  return ix
}
const bm25Snapshot = (ix) =>
  `${ix.size} ${JSON.stringify(ix.search('cat dog roads mats', { topK: 10 }))} ${ix.has('new1')}`
function vectors() {
  const ix = new VectorIndex({ dim: 3 })
  ix.add(['a', 'b', 'c'], [1, 0, 0, 0, 1, 0, 0.5, 0.5, 0])
  return ix
}
const vectorSnapshot = (ix) => `${ix.size} ${JSON.stringify(ix.search([1, 1, 0], { topK: 10 }))} ${ix.has('new1')}`
const splitterDocs = [
  { id: 'doc1', text: 'one two three four five six seven eight', meta: { tenant: 't1' } },
  { id: 'doc2', text: 'cat dog mat hat bat rat', meta: {} },
]
function tree() {
  return new HierarchicalSplitter({ blockSizes: [4, 2] }).split(splitterDocs)
}
/** A vector index big enough that its save keeps a libuv thread busy for a few milliseconds. */
let busy
function busyIndex() {
  if (!busy) {
    busy = new VectorIndex({ dim: 64 })
    busy.add(
      Array.from({ length: 5000 }, (_, i) => `v${i}`),
      Float32Array.from({ length: 5000 * 64 }, (_, i) => (i % 7) + 1),
    )
  }
  return busy
}
const QUEUED_CALLS = {
  'Bm25Index.save': (signal) => bm25().save(FILES.fresh, { signal }),
  'Bm25Index.load': (signal) => Bm25Index.load(FILES.bm25, { signal }),
  'VectorIndex.save': (signal) => vectors().save(FILES.fresh, { signal }),
  'VectorIndex.load': (signal) => VectorIndex.load(FILES.vector, { signal }),
}
function leafIndex(nodes) {
  const ix = new Bm25Index()
  ix.add(nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text })))
  return ix
}
const embedFn = (v) => async () => (typeof v === 'function' ? v() : v)
const localChat = (api = 'chat-completions') =>
  new OpenAIChatGenerator({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, timeoutMs: 300, apiKey: 'k', api })

/** A target: `call(subject, ...args)`, the args drawn from `args` plus sometimes one stray trailing argument. */
const t = (name, group, args, call, more = {}) => ({
  name,
  group,
  args: fc.tuple(...args, extra).map((a) => [...a.slice(0, -1), ...a[a.length - 1]]),
  call,
  ...more,
})
const bm25Subject = { setup: bm25, snapshot: bm25Snapshot }
const vectorSubject = { setup: vectors, snapshot: vectorSnapshot }
/** The call's AbortSignal is `options.signal` of argument `i`. */
const signalAt = (i) => (a) => a[i].signal

// ---- option shapes ---------------------------------------------------------------------

const analyzerOpts = options({
  segmentation: fc.constantFrom('unicode', 'regex'),
  lowercase: bool,
  stopwords: near(fc.oneof(fc.constant('en'), fc.array(text, { maxLength: 2 }))),
  stemmer: near(fc.constantFrom('english', 'klingon')),
  cjk: fc.constantFrom('bigram', 'none'),
  minTokenLength: topK,
})
const bm25Opts = options({
  variant: fc.constantFrom('lucene', 'bm25+', 'robertson'),
  k1: hostileNumber,
  b: hostileNumber,
  delta: hostileNumber,
  storeText: bool,
  analyzer: near(fc.oneof(fc.constant('bm25s'), analyzerOpts)),
  tokenizer: near(fc.constant(h('fn', ['x']))),
})
const vectorOpts = near(
  fc.record(
    {
      dim: near(fc.constantFrom(1, 3, 65536, 65537, 0)),
      metric: near(fc.constantFrom('cosine', 'dot', 'l2')),
      storage: near(fc.constantFrom('f32', 'f16', 'int8')),
    },
    { requiredKeys: [] },
  ),
)
const fuseOpts = options({
  method: fc.constantFrom('rrf', 'weighted'),
  rrfK: hostileNumber,
  weights: near(fc.array(hostileNumber, { maxLength: 3 })),
  scoreNormalization: fc.constantFrom('minmax', 'zscore', 'none'),
  keyBy: near(fc.constantFrom('id', h('fn', 'k'))),
  topK,
})
const run = near(
  fc.dictionary(
    fc.constantFrom('q1', 'q2', '__proto__'),
    near(fc.array(near(fc.record({ id, score: hostileNumber })), { maxLength: 3 })),
    { maxKeys: 2 },
  ),
)
const judgments = near(
  fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), near(fc.constantFrom(0, 1, 2, -1)), { maxKeys: 2 }),
)
const qrels = near(fc.dictionary(fc.constantFrom('q1', 'q2', '__proto__', 'constructor'), judgments, { maxKeys: 2 }))
const metrics = near(
  fc.array(
    near(fc.constantFrom('map', 'ndcg@10', 'p@5', 'recall@0', 'mrr@-1', 'bogus', 'map@1.5', 'ndcg@99999999999')),
    { maxLength: 3 },
  ),
)
const hybridSource = near(
  fc.oneof(
    fakeRetriever,
    fc.record({ retriever: fakeRetriever, topK, weight: hostileNumber }, { requiredKeys: ['retriever'] }),
  ),
)
const hybridOpts = options({
  retrievers: near(fc.array(hybridSource, { maxLength: 3 })),
  method: fc.constantFrom('rrf', 'weighted'),
  rrfK: hostileNumber,
  scoreNormalization: fc.constantFrom('minmax', 'none'),
  candidates: topK,
  onError: fc.constantFrom('reject', 'skip'),
  onSkip: fc.constant(h('fn', 'throws')),
})
const multiQueryOpts = options({
  retriever: fakeRetriever,
  queries: near(fc.oneof(fc.array(text, { maxLength: 3 }), fc.constant(h('fn', ['x'])))),
  includeOriginal: bool,
  concurrency: topK,
  merge: fc.constantFrom('rrf', 'max', 'sum'),
  rrfK: hostileNumber,
  candidates: topK,
})
const rescoringOpts = options({
  candidates: hybridSource,
  rescorers: near(fc.array(hybridSource, { maxLength: 2 })),
  scoreNormalization: fc.constantFrom('minmax', 'zscore', 'none'),
})
const variantsSource = near(fc.oneof(fc.array(text, { maxLength: 3 }), fc.constant(h('fn', 'rejects')), anything))
const vectorRetrieverOpts = options({
  index: near(fc.constant({ search: h('fn', []) })),
  embed: near(fc.constant(h('fn', [1, 0, 0]))),
  documents: near(fc.constantFrom(h('map'), h('fn', { text: 't' }))),
})
const embedResult = near(fc.oneof(vector(3), fc.constant(h('fn', 'rejects'))))
const documentLookup = near(
  fc.oneof(
    fc.constant(null),
    fc.constant(h('map')),
    fc.constant(h('fn', 'throws')),
    fc.constant(h('fn', { text: 'x', meta: { a: 1 } })),
    anything,
  ),
)
const dedupeBy = fc.constantFrom('id-or-content', 'content', 'none')
const splitterOpts = options({
  blockSizes: near(fc.oneof(fc.array(near(fc.constantFrom(1, 2, 8, 512)), { maxLength: 3 }), fc.constant(h('set')))),
  overlap: topK,
  splitBy: near(fc.constantFrom('word', 'sentence', 'char', 'token', 'page')),
  tokenizer: near(fc.constantFrom('@tokenizer', '@garbage', '@missing')),
})
const splitDocs = near(
  fc.array(near(fc.record({ id, text, meta }, { requiredKeys: ['id', 'text'] })), { maxLength: 3 }),
)
const treeNodes = near(
  fc.array(
    near(
      fc.record(
        { id, text, parentId: near(fc.constantFrom(null, 'a', 'doc1')), childrenIds: ids, level: topK },
        { requiredKeys: ['id'] },
      ),
    ),
    { maxLength: 3 },
  ),
)
const autoMergingOpts = options({
  retriever: fakeRetriever,
  store: near(fc.constantFrom('tree', { get: h('fn', []) })),
  threshold: hostileNumber,
  candidates: topK,
  parentScore: near(fc.constantFrom('max', 'mean', 'sum', h('fn', 1))),
  strict: bool,
})
const llmRankerOpts = options({
  chatGenerator: fakeChat,
  prompt: near(fc.constantFrom('{{query}} {{documents}}', '{{query}}', '{{documents}}{{documents}}{{query}}')),
  topK,
  raiseOnFailure: bool,
  window: options({ size: topK, step: topK, concurrency: topK }),
  onFailure: fc.constant(h('fn', 'throws')),
})
const rewriterOpts = options({
  chatGenerator: fakeChat,
  variants: topK,
  strategies: near(fc.array(near(fc.constantFrom('synonyms', 'cause-effect', 'bogus')), { maxLength: 2 })),
  raiseOnFailure: bool,
  onFailure: fc.constant(h('fn', 'throws')),
})
const conversation = near(
  fc.oneof(
    text,
    fc.array(near(fc.record({ role: near(fc.constantFrom('user', 'assistant', 'system')), content: text })), {
      maxLength: 3,
    }),
  ),
)
const chatGeneratorOpts = options({
  model: text,
  baseURL: near(fc.constantFrom('http://127.0.0.1:9/v1', 'ftp://x', 'not a url', 'https://api.openai.com/v1')),
  apiKey: text,
  timeoutMs: hostileNumber,
  maxRetries: topK,
  retryDelayMs: hostileNumber,
  temperature: hostileNumber,
  responseFormat: fc.constantFrom('json_schema', 'none'),
  api: fc.constantFrom('chat-completions', 'responses'),
  body: near(fc.dictionary(fc.string({ maxLength: 3 }), hostileLeaf, { maxKeys: 2 })),
  headers: near(fc.dictionary(fc.string({ maxLength: 3 }), text, { maxKeys: 2 })),
  env: near(fc.constant({ OPENAI_API_KEY: 'k' })),
})
const chatRequest = options({
  messages: near(
    fc.array(near(fc.record({ role: near(fc.constantFrom('user', 'system', 'tool')), content: text })), {
      maxLength: 2,
    }),
  ),
  responseFormat: near(fc.record({ name: text, schema: anything })),
  signal,
})
const badFolder = near(
  fc.constantFrom(
    '@modelEmpty',
    '@modelTokenizerOnly',
    '@modelGarbage',
    '@modelBadConfig',
    '@missing',
    '@garbage',
    'no-org/no-model',
  ),
)
const hubOpts = options({
  revision: near(fc.constantFrom('main', '..', 'a'.repeat(40))),
  cacheDir: near(fc.constant('@dir')),
  offline: bool,
  signal,
  fetch: near(fc.constant(h('fn', 'rejects'))),
  token: text,
  endpoint: near(fc.constant('http://127.0.0.1:9')),
})
const hubFileNames = near(
  fc.array(near(fc.constantFrom('tokenizer.json', '../etc/passwd', '/abs', 'a\\b')), { maxLength: 2 }),
)

/** A plain options object whose `chatGenerator` was left out gets an unreachable local one (no real API call). */
const withLocalChat = (o) =>
  attempt(() => o && typeof o === 'object' && !('chatGenerator' in o)) ? { ...o, chatGenerator: localChat() } : o
/** A quiet LLM component: the default onFailure (a process warning) only when raise is exactly false, to cover it too. */
const failureOptions = (raise) => ({
  raiseOnFailure: raise === true,
  ...(raise === false ? {} : { onFailure: () => {} }),
})

// ---- the targets -----------------------------------------------------------------------

export const TARGETS = [
  // Bm25Index
  t('new Bm25Index', 'bm25', [bm25Opts], (_, o) => new Bm25Index(o)),
  t(
    'Bm25Index tokenizer',
    'bm25',
    [anything, near(fc.constantFrom('add', 'search', 'analyze', 'searchBatch'))],
    async (_, result, method) => {
      const ix = new Bm25Index({ tokenizer: () => result })
      if (method === 'add') return ix.add([{ id: 'x', text: 'a b' }])
      if (method === 'searchBatch') return ix.searchBatch(['a b'])
      return method === 'analyze' ? ix.analyze('a b') : ix.search('a b')
    },
  ),
  t('Bm25Index.add', 'bm25', [docs, options({ upsert: bool })], (ix, d, o) => ix.add(d, o), bm25Subject),
  t('Bm25Index.addAsync', 'bm25', [docs, options({ upsert: bool, signal })], (ix, d, o) => ix.addAsync(d, o), {
    ...bm25Subject,
    signalOf: signalAt(1),
  }),
  // valid new documents and a signal that fires while the work runs: abort must mean "nothing changed"
  t(
    'Bm25Index.addAsync (abort race)',
    'bm25',
    [
      fc.integer({ min: 1, max: 300 }),
      fc.constantFrom('micro', 'turn', 'ms').map((when) => ({ signal: h('soonSignal', when) })),
    ],
    (ix, n, o) =>
      ix.addAsync(
        Array.from({ length: n }, (_, i) => ({ id: `new${i}`, text: `cat dog ${i}` })),
        o,
      ),
    bm25Subject,
  ),
  t('Bm25Index.remove', 'bm25', [ids], (ix, i) => ix.remove(i), bm25Subject),
  t('Bm25Index.search', 'bm25', [query, searchOpts], (ix, q, o) => ix.search(q, o), bm25Subject),
  t(
    'Bm25Index.searchBatch',
    'bm25',
    [near(fc.array(query, { maxLength: 3 })), options({ topK, filter, includeFields: bool, signal })],
    (ix, q, o) => ix.searchBatch(q, o),
    {
      ...bm25Subject,
      signalOf: signalAt(1),
    },
  ),
  t('Bm25Index.retrieve', 'bm25', [query, options({ topK, signal, filter })], (ix, q, o) => ix.retrieve(q, o), {
    ...bm25Subject,
    signalOf: signalAt(1),
  }),
  t(
    'Bm25Index.has/analyze/stats/size',
    'bm25',
    [anything, fc.constantFrom('has', 'analyze', 'stats', 'size')],
    (ix, v, m) => (m === 'size' ? ix.size : ix[m](v)),
    bm25Subject,
  ),
  t('Bm25Index.save', 'bm25', [path, options({ signal })], (ix, p, o) => ix.save(resolvePath(p), o), {
    ...bm25Subject,
    signalOf: signalAt(1),
  }),
  t(
    'Bm25Index.load',
    'bm25',
    [path, options({ tokenizer: near(fc.constant(h('fn', ['t']))), signal })],
    (_, p, o) => Bm25Index.load(resolvePath(p), o),
    { signalOf: signalAt(1) },
  ),

  // VectorIndex
  t('new VectorIndex', 'vector', [vectorOpts], (_, o) => new VectorIndex(o)),
  t(
    'VectorIndex.add',
    'vector',
    [ids, near(fc.oneof(vector(3), vector(6))), options({ upsert: bool })],
    (ix, i, v, o) => ix.add(i, v, o),
    vectorSubject,
  ),
  t('VectorIndex.remove', 'vector', [ids], (ix, i) => ix.remove(i), vectorSubject),
  t(
    'VectorIndex.search',
    'vector',
    [vector(3), options({ topK, filter })],
    (ix, q, o) => ix.search(q, o),
    vectorSubject,
  ),
  t(
    'VectorIndex.searchBatch',
    'vector',
    [near(fc.oneof(vector(3), vector(6))), options({ topK, signal })],
    (ix, q, o) => ix.searchBatch(q, o),
    { ...vectorSubject, signalOf: signalAt(1) },
  ),
  t(
    'VectorIndex.has/getters',
    'vector',
    [anything, fc.constantFrom('has', 'size', 'dim', 'metric', 'storage', 'mapped')],
    (ix, v, m) => (m === 'has' ? ix.has(v) : ix[m]),
    vectorSubject,
  ),
  t('VectorIndex.save', 'vector', [path, options({ signal })], (ix, p, o) => ix.save(resolvePath(p), o), {
    ...vectorSubject,
    signalOf: signalAt(1),
  }),
  // the same abort, but while the call waits in a saturated libuv pool: deterministic, unlike the race above
  t(
    'save/load aborted in the queue',
    'vector',
    [
      fc.constantFrom('Bm25Index.save', 'Bm25Index.load', 'VectorIndex.save', 'VectorIndex.load'),
      fc.integer({ min: 4, max: 12 }),
    ],
    async (_, call, busyCount) => {
      const busy = Array.from({ length: busyCount }, (_, i) => busyIndex().save(`${FILES.dir}/busy-${i}.vec`))
      const c = new AbortController()
      const queued = QUEUED_CALLS[call](c.signal)
      c.abort()
      const [r] = await Promise.allSettled([queued])
      await Promise.all(busy)
      if (r.status === 'rejected') throw r.reason
      return r.value
    },
  ),
  t(
    'VectorIndex.load',
    'vector',
    [path, options({ mmap: bool, signal })],
    (_, p, o) => VectorIndex.load(resolvePath(p), o),
    { signalOf: signalAt(1) },
  ),

  // fusion and evaluation
  t('fuse', 'retrieval', [near(fc.array(scoredList, { maxLength: 3 })), fuseOpts], (_, l, o) => fuse(l, o)),
  t(
    'evaluate',
    'retrieval',
    [run, qrels, metrics, options({ convention: fc.constantFrom('trec_eval', 'competition') })],
    (_, r, q, m, o) => evaluate(r, q, m, o),
  ),

  // retrievers
  t('new HybridRetriever', 'retrieval', [hybridOpts], (_, o) => new HybridRetriever(withFakes(o))),
  t(
    'HybridRetriever.retrieve',
    'retrieval',
    [
      near(fc.array(fakeRetriever, { minLength: 1, maxLength: 3 })),
      fc.constantFrom('reject', 'skip'),
      text,
      options({ topK, signal, filter }),
    ],
    (_, rs, onError, q, o) =>
      new HybridRetriever({ retrievers: [bm25(), ...(isRealArray(rs) ? rs.map(fake) : [])], onError }).retrieve(q, o),
    { signalOf: signalAt(3) },
  ),
  t('new MultiQueryRetriever', 'retrieval', [multiQueryOpts], (_, o) => new MultiQueryRetriever(withFakes(o))),
  t(
    'MultiQueryRetriever.retrieve',
    'retrieval',
    [variantsSource, text, options({ topK, signal, queries: near(fc.array(text, { maxLength: 3 })) })],
    (_, qs, q, o) =>
      new MultiQueryRetriever({
        retriever: bm25(),
        queries: typeof qs === 'function' || isRealArray(qs) ? qs : () => qs,
      }).retrieve(q, o),
    { signalOf: signalAt(2) },
  ),
  t('new RescoringRetriever', 'retrieval', [rescoringOpts], (_, o) => new RescoringRetriever(withFakes(o))),
  t(
    'RescoringRetriever.retrieve',
    'retrieval',
    [fakeRetriever, text, options({ topK, signal, filter })],
    (_, r, q, o) => new RescoringRetriever({ candidates: fake(r), rescorers: [bm25()] }).retrieve(q, o),
    { signalOf: signalAt(2) },
  ),
  t('new VectorRetriever', 'retrieval', [vectorRetrieverOpts], (_, o) => new VectorRetriever(o)),
  t(
    'VectorRetriever.retrieve',
    'retrieval',
    [embedResult, documentLookup, text, options({ topK, signal, filter })],
    (_, v, d, q, o) => {
      const documents = d === null ? undefined : typeof d === 'function' || isMap(d) ? d : () => d
      return new VectorRetriever({ index: vectors(), embed: embedFn(v), documents }).retrieve(q, o)
    },
    { signalOf: signalAt(3) },
  ),
  t(
    'new CompressionRetriever',
    'retrieval',
    [options({ ranker: fakeRanker, retriever: fakeRetriever, candidates: topK, dedupeBy })],
    (_, o) => new CompressionRetriever(withFakes(o)),
  ),
  t(
    'CompressionRetriever.retrieve',
    'retrieval',
    [fakeRanker, text, options({ topK, signal, documents: candidates, dedupeBy: fc.constantFrom('content', 'none') })],
    (_, r, q, o) => new CompressionRetriever({ ranker: fake(r), retriever: bm25() }).retrieve(q, o),
    { signalOf: signalAt(2) },
  ),
  t(
    'rerankPooled',
    'retrieval',
    [text, candidates, fakeRanker, options({ topK, signal, dedupeBy })],
    (_, q, d, r, o) => rerankPooled(q, d, fake(r), o),
    { signalOf: signalAt(3) },
  ),

  // splitting
  t(
    'new HierarchicalSplitter',
    'splitting',
    [splitterOpts],
    (_, o) =>
      new HierarchicalSplitter(
        attempt(() => o && typeof o === 'object' && typeof o.tokenizer === 'string')
          ? { ...o, tokenizer: resolvePath(o.tokenizer) }
          : o,
      ),
  ),
  t('HierarchicalSplitter.split', 'splitting', [splitDocs], (_, d) =>
    new HierarchicalSplitter({ blockSizes: [4, 2] }).split(d),
  ),
  t(
    'HierarchicalSplitter.splitAsync',
    'splitting',
    [splitDocs, options({ signal })],
    (_, d, o) => new HierarchicalSplitter({ blockSizes: [4, 2] }).splitAsync(d, o),
    { signalOf: signalAt(1) },
  ),
  t('NodeTree', 'splitting', [treeNodes], (_, n) => new NodeTree(n)),
  t(
    'NodeTree methods',
    'splitting',
    [
      fc.constantFrom('node', 'get', 'children', 'ancestors', 'leaves'),
      near(fc.oneof(id, fc.constantFrom('doc1', 'doc1#0', 'doc1#0.1'), ids)),
    ],
    (_, m, a) => new NodeTree(tree())[m](a),
  ),
  t(
    'new AutoMergingRetriever',
    'splitting',
    [autoMergingOpts],
    (_, o) =>
      new AutoMergingRetriever(
        withFakes(attempt(() => o && typeof o === 'object' && o.store === 'tree') ? { ...o, store: tree() } : o),
      ),
  ),
  t(
    'AutoMergingRetriever.retrieve',
    'splitting',
    [
      near(fc.oneof(fc.constant('real'), fakeRetriever)),
      bool,
      near(fc.constantFrom('max', 'mean', 'sum', h('fn', NaN), h('fn', 'throws'))),
      text,
      options({ topK, signal, filter }),
    ],
    (_, r, strict, parentScore, q, o) => {
      const nodes = tree()
      const score = typeof parentScore === 'string' || typeof parentScore === 'function' ? parentScore : 'max'
      return new AutoMergingRetriever({
        retriever: r === 'real' ? leafIndex(nodes) : fake(r),
        store: nodes,
        strict: strict === true,
        parentScore: score,
      }).retrieve(q, o)
    },
    { signalOf: signalAt(4) },
  ),

  // LLM
  t('new LLMRanker', 'llm', [llmRankerOpts], (_, o) => new LLMRanker(withFakes(withLocalChat(o)))),
  t(
    'LLMRanker.rerank',
    'llm',
    [fakeChat, bool, text, candidates, options({ topK, signal })],
    (_, c, raise, q, d, o) => new LLMRanker({ chatGenerator: fake(c), ...failureOptions(raise) }).rerank(q, d, o),
    { signalOf: signalAt(4) },
  ),
  t('new QueryRewriter', 'llm', [rewriterOpts], (_, o) => new QueryRewriter(withFakes(withLocalChat(o)))),
  t(
    'QueryRewriter.rewrite/variants',
    'llm',
    [fakeChat, bool, fc.constantFrom('rewrite', 'variants'), conversation, options({ signal })],
    (_, c, raise, m, conv, o) => new QueryRewriter({ chatGenerator: fake(c), ...failureOptions(raise) })[m](conv, o),
    { signalOf: signalAt(4) },
  ),
  t('new OpenAIChatGenerator', 'llm', [chatGeneratorOpts], (_, o) => new OpenAIChatGenerator(o).usage),
  t('OpenAIChatGenerator.chat', 'llm', [chatRequest], (_, r) => localChat().chat(r), { signalOf: signalAt(0) }),
  t('OpenAIChatGenerator.chat (responses)', 'llm', [chatRequest], (_, r) => localChat('responses').chat(r), {
    signalOf: signalAt(0),
  }),
  t('isChatGenerator', 'llm', [anything], (_, v) => isChatGenerator(v)),

  // models
  t(
    'CrossEncoder.load (bad folders)',
    'models',
    [badFolder, loadOptions({ activation: near(fc.constantFrom('sigmoid', 'none', 'softmax')) })],
    (_, p, o) => CrossEncoder.load(resolvePath(p), o),
    {
      signalOf: signalAt(1),
    },
  ),
  t(
    'Embedder.load (bad folders)',
    'models',
    [
      badFolder,
      loadOptions({
        pooling: near(fc.constantFrom('mean', 'cls', 'max')),
        normalize: bool,
        queryPrefix: text,
        documentPrefix: text,
      }),
    ],
    (_, p, o) => Embedder.load(resolvePath(p), o),
    { signalOf: signalAt(1) },
  ),
  t(
    'CrossEncoder.rerank/rerankMany',
    'models',
    [
      fc.constantFrom('rerank', 'rerankMany'),
      text,
      candidates,
      options({ activation: near(fc.constantFrom('sigmoid', 'none')), batchSize: topK, maxLength: topK, signal }),
    ],
    async (_, m, q, d, o) => {
      const [cross] = await tinyModels()
      return m === 'rerank'
        ? cross.rerank(q, d, o)
        : cross.rerankMany(
            isRealArray(d)
              ? [
                  { query: q, documents: d },
                  { query: q, documents: d },
                ]
              : d,
            o,
          )
    },
    { signalOf: signalAt(3) },
  ),
  t(
    'Embedder.embed/embedQuery/embedDocuments',
    'models',
    [
      fc.constantFrom('embed', 'embedQuery', 'embedDocuments'),
      near(fc.oneof(text, fc.array(text, { maxLength: 3 }))),
      options({ batchSize: topK, maxLength: topK, signal }),
    ],
    async (_, m, x, o) => {
      const [, emb] = await tinyModels()
      return emb[m](x, o)
    },
    { signalOf: signalAt(2) },
  ),
  t(
    'CrossEncoder/Embedder getters after dispose',
    'models',
    [fc.constantFrom('cross', 'emb'), fc.constantFrom('maxLength', 'dim', 'runtime', 'files', 'dispose')],
    async (_, which, prop) => {
      const m = which === 'cross' ? await CrossEncoder.load(FILES.tinyCross) : await Embedder.load(FILES.tinyEmbedder)
      m.dispose()
      const v = prop === 'dispose' ? m.dispose() : m[prop]
      return which === 'cross' ? m.rerank('q', ['d']).then(() => v) : m.embed(['d']).then(() => v)
    },
    { runsFactor: 0.1 }, // two model loads per case: slow, and the inputs are few
  ),
  t(
    'resolveHubFiles',
    'models',
    [
      near(fc.constantFrom('org/name', 'bad', '../x/y', 'a/b/c')),
      hubFileNames,
      near(fc.array(text, { maxLength: 2 })),
      hubOpts,
    ],
    (_, r, req, opt, o) => {
      // never the network: a plain options object without fetch gets one that answers 404
      const safe =
        o && typeof o === 'object' && attempt(() => !('fetch' in o)) // a revoked Proxy makes `in` throw
          ? { ...o, fetch: async () => new Response('', { status: 404 }), cacheDir: resolvePath(o.cacheDir ?? '@dir') }
          : o
      return resolveHubFiles(r, req, opt, safe)
    },
    { signalOf: signalAt(3) },
  ),
  t(
    'hubCacheDir/isHubId/onnxRuntimePath/ensureOnnxRuntime',
    'models',
    [fc.constantFrom('hubCacheDir', 'isHubId', 'onnxRuntimePath', 'ensureOnnxRuntime'), anything],
    (_, f, v) => ({ hubCacheDir, isHubId, onnxRuntimePath, ensureOnnxRuntime })[f](v),
  ),

  // errors
  t('RagrankError/AbortError', 'misc', [anything, anything], (_, a, b) =>
    [new RagrankError(a, b), new AbortError(a)].map((e) => e.message),
  ),

  // LangChain adapters
  t(
    'new RagrankRetriever',
    'langchain',
    [options({ retriever: fakeRetriever, topK, scoreKey: text, callbacks: anything, tags: anything })],
    (_, o) => new RagrankRetriever(withFakes(o)),
  ),
  t('RagrankRetriever.invoke', 'langchain', [fakeRetriever, near(fc.constantFrom(3, 10)), text], (_, r, k, q) =>
    new RagrankRetriever({
      retriever: fake(r),
      topK: typeof k === 'number' && Number.isInteger(k) && k > 0 ? k : 3,
    }).invoke(q),
  ),
  t(
    'new RankerCompressor',
    'langchain',
    [options({ ranker: fakeRanker, topK, scoreKey: text })],
    (_, o) => new RankerCompressor(withFakes(o)),
  ),
  t(
    'RankerCompressor.compressDocuments',
    'langchain',
    [fakeRanker, near(fc.array(near(fc.record({ pageContent: text, metadata: meta, id })), { maxLength: 3 })), text],
    (_, r, d, q) => new RankerCompressor({ ranker: fake(r) }).compressDocuments(d, q),
  ),

  // LlamaIndex.TS and Vercel AI SDK adapters
  t(
    'new llamaindex.RagrankRetriever',
    'frameworks',
    [options({ retriever: fakeRetriever, topK, filter, filters: liFilters })],
    (_, o) => new llamaindex.RagrankRetriever(withFakes(o)),
  ),
  t('llamaindex.RagrankRetriever.retrieve', 'frameworks', [fakeRetriever, liQuery], (_, r, q) =>
    new llamaindex.RagrankRetriever({ retriever: fake(r), topK: 3 }).retrieve(q),
  ),
  t('llamaindex.RagrankReranker.postprocessNodes', 'frameworks', [fakeRanker, liNodes, liQuery], (_, r, n, q) =>
    new llamaindex.RagrankReranker({ ranker: fake(r) }).postprocessNodes(n, q),
  ),
  t('llamaindex.fromMetadataFilters', 'frameworks', [liFilters, text], (_, f, name) =>
    llamaindex.fromMetadataFilters(f, name),
  ),
  t(
    'aiSdk.RagrankRerankingModel.doRerank',
    'frameworks',
    [
      fakeRanker,
      options({
        documents: options({
          type: near(fc.constantFrom('text', 'object')),
          values: near(fc.array(near(fc.oneof(text, meta)), { maxLength: 4 })),
        }),
        query: text,
        topN: topK,
        abortSignal: signal,
        providerOptions: anything,
      }),
    ],
    (_, r, o) => new aiSdk.RagrankRerankingModel(fake(r), 'm').doRerank(o),
    { signalOf: (a) => a[1]?.abortSignal },
  ),
  t(
    'aiSdk.retrievalTool.execute',
    'frameworks',
    [fakeRetriever, options({ query: text }), options({ abortSignal: signal })],
    (_, r, input, o) => aiSdk.retrievalTool({ retriever: fake(r) }).execute(input, o),
  ),
]

// Misspelled or unknown option keys: each must be a TypeError naming the key. One call per
// public function that takes options, each valid but for one extra key.
const STRICT_CALLS = {
  'Bm25Index.search': (o) => bm25().search('cat', o),
  'Bm25Index.searchBatch': (o) => bm25().searchBatch(['cat'], o),
  'Bm25Index.retrieve': (o) => bm25().retrieve('cat', o),
  'Bm25Index.add': (o) => bm25().add([{ id: 'n', text: 'x' }], o),
  'Bm25Index.addAsync': (o) => bm25().addAsync([{ id: 'n', text: 'x' }], o),
  'new Bm25Index': (o) => new Bm25Index(o),
  'Bm25Index.load': (o) => Bm25Index.load(FILES.bm25, o),
  'VectorIndex.search': (o) => vectors().search([1, 0, 0], o),
  'VectorIndex.searchBatch': (o) => vectors().searchBatch([1, 0, 0], o),
  'VectorIndex.add': (o) => vectors().add(['n'], [1, 0, 0], o),
  'new VectorIndex': (o) => new VectorIndex({ dim: 3, ...o }),
  'VectorIndex.load': (o) => VectorIndex.load(FILES.vector, o),
  fuse: (o) => fuse([[{ id: 'a', score: 1 }]], o),
  rerankPooled: (o) => rerankPooled('q', ['a'], { rerank: async () => [{ index: 0, score: 1 }] }, o),
  'new HybridRetriever': (o) => new HybridRetriever({ retrievers: [bm25()], ...o }),
  'HybridRetriever.retrieve': (o) => new HybridRetriever({ retrievers: [bm25()] }).retrieve('cat', o),
  'MultiQueryRetriever.retrieve': (o) => new MultiQueryRetriever({ retriever: bm25() }).retrieve('cat', o),
  'new RescoringRetriever': (o) => new RescoringRetriever({ candidates: bm25(), rescorers: [bm25()], ...o }),
  'RescoringRetriever.retrieve': (o) =>
    new RescoringRetriever({ candidates: bm25(), rescorers: [bm25()] }).retrieve('cat', o),
  evaluate: (o) => evaluate({}, {}, ['map@3'], o),
  'new HierarchicalSplitter': (o) => new HierarchicalSplitter({ blockSizes: [4], ...o }),
  'AutoMergingRetriever.retrieve': (o) =>
    new AutoMergingRetriever({ retriever: bm25(), store: tree() }).retrieve('cat', o),
  'LLMRanker.rerank': (o) =>
    new LLMRanker({ chatGenerator: { chat: async () => ({ text: '{"documents":[]}' }) } }).rerank('q', ['a'], o),
  'new OpenAIChatGenerator': (o) => new OpenAIChatGenerator({ baseURL: 'http://127.0.0.1:9/v1', ...o }),
  'CrossEncoder.rerank': async (o) => (await tinyModels())[0].rerank('q', ['a'], o),
  'Embedder.embed': async (o) => (await tinyModels())[1].embed(['a'], o),
}
TARGETS.push(
  t(
    'unknown option keys',
    'strict',
    [
      fc.constantFrom(...Object.keys(STRICT_CALLS)),
      fc.constantFrom('limit', 'offset', 'topN', 'top_k', 'filters', 'signals', 'maxResults'),
      fc.constantFrom(3, 0, 'x', true),
    ],
    (_, call, key, value) => STRICT_CALLS[call]({ [key]: value }),
    { mustThrow: true },
  ),
)

function loadOptions(more) {
  return options({
    maxLength: topK,
    threads: near(fc.constantFrom(1, 2, 0)),
    sessions: near(fc.constantFrom(1, 2, 0)),
    batchSize: topK,
    tokenBudget: topK,
    file: near(fc.constantFrom('model.onnx', 'onnx/model.onnx', '../x.onnx')),
    quantized: bool,
    ortLibrary: near(fc.constantFrom('@garbage', '@missing')),
    offline: near(fc.constant(true)),
    signal,
    ...more,
  })
}

/** Fakes inside a built options object become real collaborators. */
// The harness's own reads must not throw on a revoked Proxy: the library under test should meet it.
const isArrayOrRevoked = (v) => {
  try {
    return Array.isArray(v)
  } catch {
    return true
  }
}
/** `read()`, or false when it throws (a revoked Proxy): the harness's own look at a value. */
const attempt = (read) => {
  try {
    return read()
  } catch {
    return false
  }
}
const isRealArray = (v) => attempt(() => Array.isArray(v))
const isMap = (v) => attempt(() => v instanceof Map)

function withFakes(o) {
  if (o === null || typeof o !== 'object' || isArrayOrRevoked(o) || Object.isFrozen(o)) return o
  let desc
  try {
    desc = Object.getOwnPropertyDescriptors(o)
  } catch {
    return o
  }
  for (const [k, d] of Object.entries(desc)) {
    if (!('value' in d) || !d.writable) continue
    if (k === 'retrievers' && isRealArray(d.value))
      o[k] = d.value.map((s) =>
        attempt(() => s && typeof s === 'object' && 'retriever' in s && !('kind' in s))
          ? { ...s, retriever: fake(s.retriever) }
          : fake(s),
      )
    else if (k === 'ortLibrary' && typeof d.value === 'string') o[k] = resolvePath(d.value)
    else o[k] = fake(d.value)
  }
  return o
}

export const GROUPS = [...new Set(TARGETS.map((x) => x.group))]
export { prepare }
