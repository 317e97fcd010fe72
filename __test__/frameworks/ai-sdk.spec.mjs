import test from 'ava'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { NoSuchModelError } from '@ai-sdk/provider'
import { createProviderRegistry, embed, embedMany, generateText, rerank, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Bm25Index, CrossEncoder, Embedder, LLMRanker, QueryRewriter } from '../../dist/esm/index.js'
import {
  AiSdkChatGenerator,
  createRagrank,
  RagrankEmbeddingModel,
  RagrankRerankingModel,
  retrievalTool,
} from '../../dist/esm/ai-sdk.js'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const cross = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
// Prefixes make queries and documents embed differently, so the tests can tell which one ran.
const embedder = await Embedder.load(join(models, 'tiny-embedder'), {
  queryPrefix: 'query: ',
  documentPrefix: 'passage: ',
})

const corpus = [
  { id: 'cat', text: 'the cat sat on the mat', meta: { kind: 'pet' } },
  { id: 'dog', text: 'a dog chased the cat in the yard', meta: { kind: 'pet' } },
  { id: 'car', text: 'the car drove down the road', meta: { kind: 'vehicle' } },
]
const bm25 = new Bm25Index()
bm25.add(corpus)

const rowsOf = ({ data, dim, count }) =>
  Array.from({ length: count }, (_, i) => Array.from(data.subarray(i * dim, (i + 1) * dim)))
const aborted = () => {
  const ac = new AbortController()
  ac.abort()
  return ac.signal
}

/** A V3 generate result with this text (or these content parts). */
const reply = (content, finishReason = 'stop') => ({
  content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
  finishReason: { unified: finishReason, raw: finishReason },
  usage: {
    inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  },
  warnings: [],
  response: { modelId: 'mock-model-1' },
})

test('the subpath export is the ESM build for import and the CommonJS build for require', async (t) => {
  const esm = await import('ragrank/ai-sdk')
  const cjs = createRequire(import.meta.url)('ragrank/ai-sdk')
  t.is(esm.createRagrank, createRagrank)
  for (const name of ['createRagrank', 'RagrankEmbeddingModel', 'RagrankRerankingModel', 'retrievalTool']) {
    t.is(typeof cjs[name], 'function', name)
    t.not(cjs[name], esm[name], name) // tshy's dist/commonjs and dist/esm
  }
})

test('embed and embedMany from ai: document vectors by default, query vectors when the call says so', async (t) => {
  const model = new RagrankEmbeddingModel(embedder)
  t.is(model.specificationVersion, 'v3')
  t.is(model.modelId, 'tiny-embedder')
  const values = ['the cat sat', 'a dog ran', 'roads']
  const { embeddings } = await embedMany({ model, values })
  t.deepEqual(embeddings, rowsOf(await embedder.embedDocuments(values)))
  const { embedding } = await embed({ model, value: 'cat', providerOptions: { ragrank: { inputType: 'query' } } })
  t.deepEqual(embedding, Array.from(await embedder.embedQuery('cat')))
  t.notDeepEqual(embedding, (await embed({ model, value: 'cat' })).embedding)
  const queries = new RagrankEmbeddingModel(embedder, 'bge', { inputType: 'query' })
  t.is(queries.modelId, 'bge')
  t.deepEqual((await embedMany({ model: queries, values: ['cat', 'dog'] })).embeddings, [
    Array.from(await embedder.embedQuery('cat')),
    Array.from(await embedder.embedQuery('dog')),
  ])
  // Other providers' options are theirs; a misspelled ragrank one is a TypeError.
  await t.notThrowsAsync(embed({ model, value: 'x', providerOptions: { openai: { dimensions: 3 } } }))
  const e = await t.throwsAsync(embed({ model, value: 'x', providerOptions: { ragrank: { input_type: 'query' } } }))
  t.is(e.code, 'ERR_INVALID_ARG')
  await t.throwsAsync(embed({ model, value: 'x', providerOptions: { ragrank: { inputType: 'passage' } } }), {
    instanceOf: RangeError,
  })
})

test('the embedding call is cancelled by the SDK abortSignal', async (t) => {
  const model = new RagrankEmbeddingModel(embedder)
  for (const inputType of ['document', 'query']) {
    const e = await t.throwsAsync(
      embedMany({ model, values: ['a', 'b'], abortSignal: aborted(), providerOptions: { ragrank: { inputType } } }),
    )
    t.is(e.code, 'ABORT_ERR', inputType)
  }
  const seen = []
  const spy = {
    dim: 2,
    embedQuery: async () => new Float32Array(2),
    embedDocuments: async (texts, o) => (
      seen.push(o.signal), { data: new Float32Array(2 * texts.length), dim: 2, count: texts.length }
    ),
  }
  const ac = new AbortController()
  await embedMany({ model: new RagrankEmbeddingModel(spy), values: ['a'], abortSignal: ac.signal })
  t.true(seen[0] instanceof AbortSignal)
  ac.abort()
  t.true(seen[0].aborted, 'the signal the Embedder got follows the caller')
})

test('rerank from ai: the CrossEncoder order and scores; topN; object documents; abort', async (t) => {
  const model = new RagrankRerankingModel(cross)
  t.is(model.modelId, 'tiny-cross-encoder')
  const documents = corpus.map((d) => d.text)
  const want = await cross.rerank('a cat on a mat', documents)
  const { ranking } = await rerank({ model, query: 'a cat on a mat', documents })
  t.deepEqual(
    ranking.map((r) => [r.originalIndex, r.score, r.document]),
    want.map((w) => [w.index, w.score, w.text]),
  )
  const top = await rerank({ model, query: 'a cat on a mat', documents, topN: 1 })
  t.is(top.ranking.length, 1)
  t.is(top.ranking[0].originalIndex, want[0].index)
  // Objects: ranked on `text`, or on a field the settings name.
  const objects = await rerank({ model, query: 'a cat on a mat', documents: corpus })
  t.deepEqual(
    objects.ranking.map((r) => r.document.id),
    want.map((w) => corpus[w.index].id),
  )
  const byTitle = new RagrankRerankingModel(cross, 'ce', { documentText: (d) => d.title })
  const titled = await rerank({ model: byTitle, query: 'cat', documents: [{ title: 'roads' }, { title: 'a cat' }] })
  const titleWant = await cross.rerank('cat', ['roads', 'a cat'])
  t.deepEqual(
    titled.ranking.map((r) => r.originalIndex),
    titleWant.map((w) => w.index),
  )
  await t.throwsAsync(
    rerank({
      model: new RagrankRerankingModel(cross, 'x', { documentText: () => 1 }),
      query: 'q',
      documents: [{ a: 1 }],
    }),
    {
      instanceOf: TypeError,
    },
  )
  t.is((await t.throwsAsync(rerank({ model, query: 'q', documents, abortSignal: aborted() }))).code, 'ABORT_ERR')
  t.deepEqual((await rerank({ model, query: 'q', documents: [] })).ranking, [])
  t.throws(() => new RagrankRerankingModel({}), { instanceOf: TypeError })
  // The spec's call with what the SDK would never send: coded TypeErrors, never a crash.
  for (const documents of [
    { values: ['a'] },
    { type: 'text', values: ['a', 1] },
    { type: 'text', values: [, 'a'] },
    { type: 'object', values: ['a'] },
    { type: 'object', values: [{ n: 1n }] },
  ]) {
    const e = await t.throwsAsync(model.doRerank({ query: 'q', documents }), { instanceOf: TypeError })
    t.is(
      e.code,
      'ERR_INVALID_ARG',
      JSON.stringify(documents, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    )
  }
  await t.throwsAsync(model.doRerank(undefined), { instanceOf: TypeError })
  // A custom ranker's bad result: a hole or an index outside the input is a TypeError, never passed on.
  for (const result of [
    [, { index: 0, score: 1 }],
    [{ index: 5, score: 1 }],
    [{ index: 0.5, score: 1 }],
    [{ index: 0 }],
  ]) {
    const bad = new RagrankRerankingModel({ rerank: async () => result })
    await t.throwsAsync(rerank({ model: bad, query: 'q', documents: ['a', 'b'] }), { instanceOf: TypeError })
  }
})

test('an LLMRanker is a reranking model too, on an AI SDK language model', async (t) => {
  const llm = new MockLanguageModelV3({ doGenerate: reply('{"documents":[{"index":3},{"index":1}]}') })
  const ranker = new LLMRanker({ chatGenerator: new AiSdkChatGenerator(llm), raiseOnFailure: true })
  const { ranking } = await rerank({
    model: new RagrankRerankingModel(ranker),
    query: 'cat',
    documents: corpus.map((d) => d.text),
  })
  t.deepEqual(
    ranking.map((r) => r.originalIndex),
    [2, 0],
  )
})

test('createRagrank: a ProviderV3 with embedding and reranking models; NoSuchModelError for the rest', async (t) => {
  const ragrank = createRagrank({ embedder, ranker: cross })
  t.is(ragrank.specificationVersion, 'v3')
  t.is(ragrank.textEmbeddingModel, undefined)
  for (const make of [ragrank.embedding, ragrank.embeddingModel]) {
    const m = make('tiny')
    t.true(m instanceof RagrankEmbeddingModel)
    t.is(m.modelId, 'tiny')
  }
  t.true(ragrank.reranking() instanceof RagrankRerankingModel)
  t.true(ragrank.rerankingModel('ce') instanceof RagrankRerankingModel)
  t.is(ragrank.embedding(undefined, { inputType: 'query' }).inputType, 'query')
  t.true(NoSuchModelError.isInstance(t.throws(() => ragrank.languageModel('gpt'))))
  t.true(NoSuchModelError.isInstance(t.throws(() => ragrank.imageModel('dall-e'))))
  const embedOnly = createRagrank({ embedder })
  const e = t.throws(() => embedOnly.reranking())
  t.true(NoSuchModelError.isInstance(e))
  t.is(e.modelType, 'rerankingModel')
  // In a registry, as any provider.
  const registry = createProviderRegistry({ ragrank })
  const { embedding } = await embed({ model: registry.embeddingModel('ragrank:tiny-embedder'), value: 'cat' })
  t.deepEqual(embedding, rowsOf(await embedder.embedDocuments(['cat']))[0])
  const { ranking } = await rerank({
    model: registry.rerankingModel('ragrank:ce'),
    query: 'cat',
    documents: ['roads', 'a cat'],
  })
  t.is(ranking.length, 2)
  t.throws(() => createRagrank({}), { instanceOf: TypeError })
  t.throws(() => createRagrank({ embedder: {} }), { instanceOf: TypeError })
  t.throws(() => createRagrank({ ranker: {} }), { instanceOf: TypeError })
  t.throws(() => createRagrank({ embedder, crossEncoder: cross }), { instanceOf: TypeError, message: /crossEncoder/ })
})

test('retrievalTool: execute returns the hits with id, text, score and meta; filters; bad options', async (t) => {
  const search = retrievalTool({ retriever: bm25, topK: 2 })
  const hits = await bm25.retrieve('cat', { topK: 2 })
  const out = await search.execute({ query: 'cat' }, { toolCallId: 'c', messages: [] })
  t.deepEqual(
    out,
    hits.map(({ id, text, score, meta }) => ({ id, text, score, meta })),
  )
  const pets = retrievalTool({ retriever: bm25, filter: { meta: { kind: 'vehicle' } } })
  t.deepEqual(
    (await pets.execute({ query: 'the' }, { toolCallId: 'c', messages: [] })).map((d) => d.id),
    ['car'],
  )
  t.throws(() => retrievalTool({ retriever: { retrieve: async () => [] }, filter: { meta: { a: 1 } } }), {
    instanceOf: TypeError,
    message: /supportsFilter/,
  })
  t.throws(() => retrievalTool({ retriever: {} }), { instanceOf: TypeError })
  t.throws(() => retrievalTool({ retriever: bm25, k: 3 }), { instanceOf: TypeError, message: /topK/ })
  t.throws(() => retrievalTool({ retriever: bm25, topK: 0 }), { instanceOf: RangeError })
  const bad = retrievalTool({ retriever: { retrieve: async () => [{ id: 'a' }] } })
  await t.throwsAsync(bad.execute({ query: 'q' }, { toolCallId: 'c', messages: [] }), { instanceOf: TypeError })
})

test('retrievalTool through generateText (mock model): the model calls it, gets the documents, answers; abort reaches the retriever', async (t) => {
  const signals = []
  const retriever = {
    retrieve: (query, options) => (signals.push(options.signal), bm25.retrieve(query, options)),
  }
  const model = new MockLanguageModelV3({
    doGenerate: [
      reply([{ type: 'tool-call', toolCallId: 'call-1', toolName: 'search', input: '{"query":"cat"}' }], 'tool-calls'),
      reply('The cat sat on the mat.'),
    ],
  })
  const ac = new AbortController()
  const result = await generateText({
    model,
    tools: { search: retrievalTool({ retriever, topK: 2 }) },
    stopWhen: stepCountIs(3),
    prompt: 'Where did the cat sit?',
    abortSignal: ac.signal,
  })
  t.is(result.text, 'The cat sat on the mat.')
  const [toolResult] = result.steps[0].toolResults
  t.deepEqual(
    toolResult.output.map((d) => d.id),
    (await bm25.retrieve('cat', { topK: 2 })).map((h) => h.id),
  )
  t.is(toolResult.output[0].text, 'the cat sat on the mat')
  // The second model call saw the tool's result.
  const prompt = JSON.stringify(model.doGenerateCalls[1].prompt)
  t.true(prompt.includes('the cat sat on the mat'))
  t.true(
    model.doGenerateCalls[0].tools.some((tool) => tool.name === 'search' && tool.inputSchema.required[0] === 'query'),
  )
  t.true(signals[0] instanceof AbortSignal)
  ac.abort()
  t.true(signals[0].aborted, 'the signal the retriever got follows the generateText abortSignal')
})

test('AiSdkChatGenerator: an LLMRanker on an AI SDK model; the JSON schema goes as structured output', async (t) => {
  const model = new MockLanguageModelV3({ doGenerate: reply('{"documents":[{"index":2},{"index":1}]}') })
  const chat = new AiSdkChatGenerator(model, { maxRetries: 0 })
  const ranker = new LLMRanker({ chatGenerator: chat, raiseOnFailure: true })
  const ranked = await ranker.rerank('cat', corpus)
  t.deepEqual(
    ranked.map((r) => r.id),
    ['dog', 'cat'],
  )
  const [call] = model.doGenerateCalls
  t.is(call.responseFormat.type, 'json')
  t.is(call.responseFormat.name, 'document_ranking')
  t.deepEqual(call.responseFormat.schema.required, ['documents'])
  const direct = await chat.chat({ messages: [{ role: 'user', content: 'hi' }] })
  t.deepEqual(direct, {
    text: '{"documents":[{"index":2},{"index":1}]}',
    usage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 },
    model: 'mock-model-1',
  })
  t.is(model.doGenerateCalls[1].responseFormat?.type ?? 'text', 'text', 'no schema: plain text')
})

test('AiSdkChatGenerator: a fenced or malformed reply reaches ragrank parsing (and its fallback), not an SDK error', async (t) => {
  const fenced = new MockLanguageModelV3({ doGenerate: reply('```json\n{"documents":[{"index":3}]}\n```') })
  const ranked = await new LLMRanker({ chatGenerator: new AiSdkChatGenerator(fenced), raiseOnFailure: true }).rerank(
    'cat',
    corpus,
  )
  t.deepEqual(
    ranked.map((r) => r.id),
    ['car'],
  )
  const prose = new MockLanguageModelV3({ doGenerate: reply('I cannot rank these.') })
  const failures = []
  const fallback = await new LLMRanker({
    chatGenerator: new AiSdkChatGenerator(prose),
    onFailure: (e) => failures.push(e),
  }).rerank('cat', corpus)
  t.deepEqual(
    fallback.map((r) => r.id),
    ['cat', 'dog', 'car'],
  )
  t.is(failures[0].code, 'ERR_LLM_REPLY')
  const strict = new LLMRanker({ chatGenerator: new AiSdkChatGenerator(prose), raiseOnFailure: true })
  t.is((await t.throwsAsync(strict.rerank('cat', corpus))).code, 'ERR_LLM_REPLY')
})

test('AiSdkChatGenerator: a QueryRewriter on an AI SDK model; abort reaches the model; bad input', async (t) => {
  const model = new MockLanguageModelV3({
    doGenerate: reply(
      JSON.stringify({
        needs_retrieval: true,
        standalone_query: 'where does photosynthesis happen',
        variants: ['chloroplast'],
      }),
    ),
  })
  const rewriter = new QueryRewriter({
    chatGenerator: new AiSdkChatGenerator(model),
    variants: 1,
    raiseOnFailure: true,
  })
  const r = await rewriter.rewrite([
    { role: 'user', content: 'what is photosynthesis?' },
    { role: 'assistant', content: 'how plants make sugar from light' },
    { role: 'user', content: 'where does it happen?' },
  ])
  t.is(r.query, 'where does photosynthesis happen')
  t.deepEqual(
    r.variants.map((v) => v.query),
    ['chloroplast'],
  )
  t.is(model.doGenerateCalls[0].responseFormat.name, 'query_rewrite')
  t.is(model.doGenerateCalls[0].prompt[0].role, 'system', "ragrank's system prompt is sent as a system message")
  // The model sees ragrank's signal: aborting the rewrite aborts the call in flight.
  let seen
  const slow = new MockLanguageModelV3({
    doGenerate: ({ abortSignal }) =>
      new Promise((_, reject) => {
        seen = abortSignal
        abortSignal.addEventListener('abort', () => reject(abortSignal.reason))
      }),
  })
  const ac = new AbortController()
  const pending = new QueryRewriter({ chatGenerator: new AiSdkChatGenerator(slow, { maxRetries: 0 }) }).rewrite('q', {
    signal: ac.signal,
  })
  await new Promise((resolve) => setTimeout(resolve, 20))
  ac.abort()
  t.is((await t.throwsAsync(pending)).code, 'ABORT_ERR')
  t.true(seen.aborted)
  t.throws(() => new AiSdkChatGenerator({}), { instanceOf: TypeError })
  t.throws(() => new AiSdkChatGenerator(model, { retries: 1 }), { instanceOf: TypeError })
  t.throws(() => new AiSdkChatGenerator(model, { maxRetries: -1 }), { instanceOf: RangeError })
})

test('examples/frameworks/ai-sdk/index.mjs runs offline and checks what it prints', async (t) => {
  const { execFile } = await import('node:child_process')
  const { promisify } = await import('node:util')
  const example = new URL('../../examples/frameworks/ai-sdk/index.mjs', import.meta.url).pathname
  const { stdout } = await promisify(execFile)(process.execPath, [example], { timeout: 110_000 })
  t.regex(stdout, /embedMany \+ embed[\s\S]*rerank \(top 2\)[\s\S]*generateText called search[\s\S]*example: ok\n$/)
})
