// Known failures of the current code, found by `run.mjs --count` (see FINDINGS.md). The fuzz
// tests tolerate a finding's classes on its targets, so CI stays green while it is open; each
// finding has a minimal case that fuzz.spec.mjs replays under `test.failing` (a racy one is
// replayed up to `repeat` times). When a fix lands, its `test.failing` starts passing, which ava
// reports as an error: then delete the finding here, and the fuzz test guards the fix.
import { h } from './hostile.mjs'

const CONVERT = /^error: TypeError without code: Cannot convert (object to primitive value|a Symbol value to a string)/

export const FINDINGS = [
  {
    id: 'F1',
    title: 'napi conversion errors escape with napi codes (InvalidArg) for meta and filter values JSON cannot hold',
    match: { '*': /^error: Error code InvalidArg/ },
    target: 'Bm25Index.add',
    args: [[{ id: 'new1', text: 'x', meta: { n: NaN } }], undefined],
  },
  {
    id: 'F2',
    title: 'arrays with holes pass the string-array checks (`some` skips holes), then napi throws StringExpected, or JS code reads the hole',
    match: {
      '*': /^error: Error code StringExpected/,
      'Bm25Index.add': /^error: TypeError without code: Cannot convert undefined or null to object/, // docs.map keeps the hole
      'Bm25Index.addAsync': /^error: TypeError without code: Cannot convert undefined or null to object/,
      'MultiQueryRetriever.retrieve': /^error: TypeError without code: Cannot read properties of undefined/,
    },
    target: 'Bm25Index.remove',
    args: [h('sparse', { length: 1, items: [] })],
  },
  {
    id: 'F3',
    title: 'evaluate: a "__proto__" query id reaches napi as the prototype (ArrayExpected); class instances pass the plain-object checks (an AbortSignal as judgments: NumberExpected, as qrels: Object.entries fails)',
    match: { evaluate: /^error: (Error code (ArrayExpected|NumberExpected|ObjectExpected)|TypeError without code: Cannot convert undefined or null to object)/ },
    target: 'evaluate',
    args: [h('protoKey', { key: '__proto__', value: [{ id: 'a', score: 0 }], alone: true }), {}, []],
  },
  {
    id: 'F4',
    title: 'writing the error message throws: String(v) or a template on a null-prototype object or a Symbol gives an engine TypeError without code',
    match: Object.fromEntries(
      [
        'new Bm25Index', 'Bm25Index.search', 'Bm25Index.searchBatch', 'Bm25Index.retrieve', 'new VectorIndex', 'VectorIndex.search', 'VectorIndex.searchBatch', 'VectorIndex.add',
        'fuse', 'new HybridRetriever', 'HybridRetriever.retrieve', 'new MultiQueryRetriever', 'MultiQueryRetriever.retrieve', 'VectorRetriever.retrieve', 'new CompressionRetriever',
        'CompressionRetriever.retrieve', 'rerank (pooled)', 'new HierarchicalSplitter', 'new AutoMergingRetriever', 'AutoMergingRetriever.retrieve', 'new LLMRanker', 'LLMRanker.rerank',
        'new QueryRewriter', 'new OpenAIChatGenerator', 'CrossEncoder.load (bad folders)', 'Embedder.load (bad folders)', 'CrossEncoder.rerank/rerankMany',
        'Embedder.embed/embedQuery/embedDocuments', 'RagrankError/AbortError', 'new RagrankRetriever', 'new RankerCompressor', 'RankerCompressor.compressDocuments', 'Bm25Index tokenizer',
        'QueryRewriter.rewrite/variants', 'Bm25Index.add', 'Bm25Index.addAsync', 'OpenAIChatGenerator.chat', 'resolveHubFiles', 'VectorIndex.save', 'VectorIndex.load', 'Bm25Index.save', 'Bm25Index.load',
      ].map((t) => [t, CONVERT]),
    ),
    target: 'Bm25Index.search',
    args: ['cat', { topK: h('nullProto', {}) }],
  },
  {
    id: 'F5',
    title: 'a revoked Proxy makes the engine throw a TypeError without code (Array.isArray, property reads)',
    match: Object.fromEntries(['*'].map((t) => [t, /on a proxy that has been revoked/])),
    target: 'Bm25Index.remove',
    args: [h('revokedProxy')],
  },
  {
    id: 'F6',
    title: 'unhandled rejection: the abort listener stays registered when native argument conversion fails, and a later abort rejects into the void',
    match: { '*': /^unhandled-rejection/ },
    target: 'Bm25Index.addAsync',
    args: [[{ id: 'new1', text: 'x', meta: { f: h('fn', 1) } }], { signal: h('laterSignal') }],
  },
  {
    id: 'F7',
    title: 'an aborted addAsync rejects with ABORT_ERR but its documents were added',
    match: { 'Bm25Index.addAsync (abort race)': /^failed call changed the object/, 'Bm25Index.addAsync': /^failed call changed the object/ },
    target: 'Bm25Index.addAsync (abort race)',
    args: [1, { signal: h('soonSignal', 'micro') }],
    repeat: 100, // a race: about 3 tries in 4 hit it on a 2-core machine
  },
  {
    id: 'F10',
    title: 'with nothing to do (no documents, no queries, topK 0) calls resolve although their signal is already aborted',
    match: { '*': /^already-aborted/ },
    target: 'VectorIndex.searchBatch',
    args: [[], { signal: h('abortedSignal') }],
  },
  {
    id: 'F11',
    title: 'NodeTree validates nothing: a non-iterable, null entries, get() of a non-array, a BigInt or cyclic id give engine TypeErrors without code',
    match: { NodeTree: /^error: TypeError without code/, 'NodeTree methods': /^error: TypeError without code/ },
    target: 'NodeTree',
    args: [0],
  },
  {
    id: 'F12',
    title: 'a chat generator rejecting with a non-Error (undefined) breaks the fallback: the default onFailure reads e.message',
    match: { 'LLMRanker.rerank': /^error: TypeError without code: Cannot read properties of undefined/, 'QueryRewriter.rewrite/variants': /^error: TypeError without code: Cannot read properties of undefined/ },
    target: 'LLMRanker.rerank',
    args: [{ kind: 'chat', result: h('fn', 'rejectsUndefined') }, false, 'the cat sat', ['a'], undefined],
  },
  {
    id: 'F13',
    title: 'a non-Error rejection of a user callback reaches the caller as is (undefined), with no code (raiseOnFailure, LangChain adapter)',
    match: { '*': /^error: non-Error thrown/ },
    target: 'RagrankRetriever.invoke',
    args: [{ kind: 'retriever', result: h('fn', 'rejectsUndefined') }, 3, 'the cat sat'],
  },
  {
    id: 'F14',
    title: 'RagrankRetriever does not check the hits it gets: a null or undefined hit gives an engine TypeError',
    match: { 'RagrankRetriever.invoke': /^error: TypeError without code: Cannot read properties of (null|undefined)/ },
    target: 'RagrankRetriever.invoke',
    args: [{ kind: 'retriever', result: [null] }, 3, 'the cat sat'],
  },
  {
    id: 'F15',
    title: 'hub helpers: a non-string revision (v.split is not a function), hubCacheDir(null) reads a property of null',
    match: { resolveHubFiles: /^error: TypeError without code: v\.split/, 'hubCacheDir/isHubId/onnxRuntimePath/ensureOnnxRuntime': /^error: TypeError without code: Cannot read properties of null/ },
    target: 'resolveHubFiles',
    args: ['org/name', [], [], { revision: true }],
  },
  {
    id: 'F16',
    title: 'OpenAIChatGenerator.chat: a responseFormat schema JSON cannot hold (BigInt, cycle) throws from JSON.stringify without code',
    match: { 'OpenAIChatGenerator.chat': /^error: TypeError without code: (Do not know how to serialize a BigInt|Converting circular)/ },
    target: 'OpenAIChatGenerator.chat',
    args: [{ messages: [{ role: 'user', content: 'x' }], responseFormat: { name: 'n', schema: { b: h('bigint', 1) } } }],
  },
  {
    id: 'F17',
    title: 'unknown or misspelled option keys (limit, offset, topN, ...) are silently ignored by every function that takes options',
    match: { 'unknown option keys': /^accepted an unknown option key/ },
    target: 'unknown option keys',
    args: ['Bm25Index.search', 'limit', 3],
  },
]

/** Whether failure class `cls` on `target` is finding `f`. */
export const isFinding = (f, target, cls) => Object.entries(f.match).some(([t, re]) => (t === '*' || t === target) && re.test(cls))

export const knownFinding = (target, cls) => FINDINGS.some((f) => isFinding(f, target, cls))
