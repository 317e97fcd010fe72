import test from 'ava'
import {
  AbortError,
  Bm25Index,
  MultiQueryRetriever,
  OpenAIChatGenerator,
  QueryRewriter,
  fuse,
} from '../../dist/esm/index.js'
import { startChatServer } from '../../fixtures/chat-server.mjs'

const conversation = [
  { role: 'user', content: '광합성이 뭐야?' },
  { role: 'assistant', content: '식물이 빛 에너지로 포도당을 만드는 과정입니다.' },
  { role: 'user', content: '그건 어디에서 일어나?' },
]

async function setup(t, script, options = {}) {
  const srv = await startChatServer(typeof script === 'function' ? { route: script } : { script })
  t.teardown(srv.close)
  const failures = []
  const rewriter = new QueryRewriter({
    chatGenerator: new OpenAIChatGenerator({ baseURL: srv.baseURL, maxRetries: 0, timeoutMs: 2000 }),
    onFailure: (e) => failures.push(e),
    ...options,
  })
  return { srv, rewriter, failures }
}

const reply = (o) => JSON.stringify(o)

test('a multi-turn conversation: standalone query, retrieval needed, variants tagged by strategy in turn, language', async (t) => {
  const { srv, rewriter, failures } = await setup(t, [
    reply({
      needs_retrieval: true,
      standalone_query: '광합성은 세포의 어디에서 일어나나?',
      language: 'ko',
      variants: [
        '광합성 장소 엽록체',
        '광합성은 세포의 어디에서 일어나나?',
        '식물 세포 소기관 에너지 생산',
        '빛 흡수 결과 포도당 생성 위치',
        'one too many',
      ],
    }),
  ])
  const r = await rewriter.rewrite(conversation)
  t.deepEqual(failures, [])
  t.is(r.query, '광합성은 세포의 어디에서 일어나나?')
  t.true(r.needsRetrieval)
  t.is(r.language, 'ko')
  t.false(r.fallback)
  // The repeat of the standalone query is dropped; the entry beyond the 3 asked for too.
  // Variant i follows strategy i: the second (broader-narrower) repeated the standalone query and is dropped,
  // as is the entry beyond the 3 asked for.
  t.deepEqual(r.variants, [
    { strategy: 'synonyms', query: '광합성 장소 엽록체' },
    { strategy: 'cause-effect', query: '식물 세포 소기관 에너지 생산' },
  ])
  const { messages, response_format: format } = srv.requests[0].body
  t.is(messages[0].role, 'system')
  t.regex(messages[0].content, /exactly 3 alternative/)
  t.regex(messages[0].content, /synonyms[\s\S]*generality[\s\S]*causes/)
  t.regex(messages[0].content, /language of the conversation/)
  t.is(
    messages[1].content,
    `Conversation:\nuser: 광합성이 뭐야?\nassistant: 식물이 빛 에너지로 포도당을 만드는 과정입니다.\nuser: 그건 어디에서 일어나?`,
  )
  t.is(format.json_schema.name, 'query_rewrite')
})

test('chit-chat needs no retrieval and gets no variants', async (t) => {
  const { rewriter } = await setup(t, [
    `\`\`\`json\n${reply({ needs_retrieval: false, standalone_query: '', language: 'ko', variants: ['x'] })}\n\`\`\``,
  ])
  const r = await rewriter.rewrite([
    ...conversation,
    { role: 'assistant', content: '엽록체입니다.' },
    { role: 'user', content: '고마워!' },
  ])
  t.deepEqual(r, { query: '', needsRetrieval: false, variants: [], language: 'ko', fallback: false })
})

test('strategies and variant count are configurable; 0 variants asks for none', async (t) => {
  const { srv, rewriter } = await setup(
    t,
    [reply({ needs_retrieval: true, standalone_query: 'q', language: 'en', variants: ['a', 'b'] })],
    {
      strategies: ['broader-narrower'],
      variants: 2,
    },
  )
  const r = await rewriter.rewrite('q')
  t.deepEqual(r.variants, [
    { strategy: 'broader-narrower', query: 'a' },
    { strategy: 'broader-narrower', query: 'b' },
  ])
  t.notRegex(srv.requests[0].body.messages[0].content, /synonyms|causes/)
  const none = await setup(
    t,
    [reply({ needs_retrieval: true, standalone_query: 'q', language: 'en', variants: ['a'] })],
    { variants: 0 },
  )
  t.deepEqual((await none.rewriter.rewrite('q')).variants, [])
  t.regex(none.srv.requests[0].body.messages[0].content, /"variants": an empty list/)
})

test('malformed replies fall back to the last user turn', async (t) => {
  const bad = [
    'no json here',
    reply({ needs_retrieval: 'yes', standalone_query: 'x', language: 'ko', variants: [] }),
    reply({ needs_retrieval: true, standalone_query: 42, language: 'ko', variants: [] }),
    reply({ needs_retrieval: true, standalone_query: '  ', language: 'ko', variants: [] }),
    reply({ needs_retrieval: true, standalone_query: 'x', language: 'ko', variants: 'x' }),
    '[1, 2]',
    { status: 500 },
  ]
  const srv = await startChatServer({ script: bad })
  t.teardown(srv.close)
  const failures = []
  const rewriter = new QueryRewriter({
    chatGenerator: new OpenAIChatGenerator({ baseURL: srv.baseURL, maxRetries: 0 }),
    onFailure: (e) => failures.push(e.code),
  })
  for (const b of bad) {
    t.deepEqual(
      await rewriter.rewrite(conversation),
      { query: '그건 어디에서 일어나?', needsRetrieval: true, variants: [], fallback: true },
      JSON.stringify(b),
    )
  }
  t.deepEqual(failures, [...Array(6).fill('ERR_LLM_REPLY'), 'ERR_LLM'])
  const hanging = await startChatServer({ script: [{ hang: true }] })
  t.teardown(hanging.close)
  const slow = new QueryRewriter({
    chatGenerator: new OpenAIChatGenerator({ baseURL: hanging.baseURL, maxRetries: 0, timeoutMs: 150 }),
    onFailure: (e) => failures.push(e.code),
  })
  t.true((await slow.rewrite(conversation)).fallback)
  t.is(failures.at(-1), 'ERR_NETWORK')
  const strict = await setup(t, ['garbage'], { raiseOnFailure: true })
  await t.throwsAsync(strict.rewriter.rewrite(conversation), { code: 'ERR_LLM_REPLY' })
})

test('non-string variants are dropped, the rest kept with their strategy', async (t) => {
  const { rewriter, failures } = await setup(t, [
    reply({ needs_retrieval: true, standalone_query: 'q', language: 'en', variants: [1, ' b ', null] }),
  ])
  t.deepEqual((await rewriter.rewrite('q')).variants, [{ strategy: 'broader-narrower', query: 'b' }])
  t.deepEqual(failures, [])
})

const corpus = [
  { id: 'chloro', text: 'chloroplasts are where photosynthesis happens in plant cells' },
  { id: 'glucose', text: 'light energy is turned into glucose by plants' },
  { id: 'mito', text: 'mitochondria release energy in cells' },
  { id: 'car', text: 'the car drove down the road' },
]

test('MultiQueryRetriever takes the rewriter as its variant source', async (t) => {
  const index = new Bm25Index()
  index.add(corpus)
  const asked = []
  const spy = { retrieve: (q, o) => (asked.push(q), index.retrieve(q, o)) }
  const { rewriter } = await setup(t, [
    reply({
      needs_retrieval: true,
      standalone_query: 'where does photosynthesis happen',
      language: 'en',
      variants: ['chloroplasts plant cells', 'glucose from light energy'],
    }),
    reply({ needs_retrieval: false, standalone_query: '', language: 'en', variants: [] }),
  ])
  const mq = new MultiQueryRetriever({ retriever: spy, queries: rewriter })
  const out = await mq.retrieve('where does it happen', { topK: 3 })
  t.deepEqual(asked, [
    'where does it happen',
    'where does photosynthesis happen',
    'chloroplasts plant cells',
    'glucose from light energy',
  ])
  const lists = await Promise.all(asked.map((q) => index.retrieve(q, { topK: 50 })))
  t.deepEqual(
    out.map((d) => d.id),
    fuse(lists, { topK: 3 }).map((d) => d.id),
  )
  t.is(out[0].id, 'chloro')
  asked.length = 0
  await mq.retrieve('thanks!', { topK: 3 })
  t.deepEqual(asked, ['thanks!'], 'chit-chat: only the original query runs')
})

test('bad input and abort', async (t) => {
  const gen = { chat: async () => ({ text: '{}' }) }
  t.throws(() => new QueryRewriter({ chatGenerator: gen, strategies: ['rhymes'] }), { instanceOf: RangeError })
  t.throws(() => new QueryRewriter({ chatGenerator: gen, strategies: [] }), { instanceOf: TypeError })
  t.throws(() => new QueryRewriter({ chatGenerator: gen, variants: 21 }), { instanceOf: RangeError })
  t.throws(() => new QueryRewriter({ chatGenerator: gen, variants: -1 }), { instanceOf: RangeError })
  t.throws(() => new QueryRewriter({ chatGenerator: 'gpt' }), { instanceOf: TypeError })
  const r = new QueryRewriter({ chatGenerator: gen })
  await t.throwsAsync(r.rewrite([{ role: 'assistant', content: 'hi' }]), { instanceOf: TypeError })
  await t.throwsAsync(r.rewrite([{ role: 'robot', content: 'hi' }]), { instanceOf: TypeError })
  await t.throwsAsync(r.rewrite(42), { instanceOf: TypeError })
  await t.throwsAsync(r.rewrite('q', { signal: AbortSignal.abort() }), { instanceOf: AbortError })
  const { rewriter, failures } = await setup(t, [{ hang: true }])
  const ac = new AbortController()
  const pending = rewriter.rewrite('q', { signal: ac.signal })
  setTimeout(() => ac.abort(), 30)
  await t.throwsAsync(pending, { instanceOf: AbortError })
  t.deepEqual(failures, [])
})

test('the LLM call shared with LLMRanker: a reply without text falls back with a RAGRANK_LLM_FALLBACK warning, or rejects with raiseOnFailure; an abort never falls back', async (t) => {
  const { LLMRanker } = await import('../../dist/esm/index.js')
  const noText = { chat: async () => ({ content: 'x' }) }
  const warnings = []
  const onWarning = (w) => warnings.push(w)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const r = await new QueryRewriter({ chatGenerator: noText }).rewrite('what is a tide?')
  t.like(r, { query: 'what is a tide?', fallback: true })
  const ranked = await new LLMRanker({ chatGenerator: noText }).rerank('tide', ['a', 'b'])
  t.deepEqual(
    ranked.map((d) => d.index),
    [0, 1],
  )
  await new Promise((resolve) => setImmediate(resolve))
  t.deepEqual(
    warnings.filter((w) => w.code === 'RAGRANK_LLM_FALLBACK').map((w) => w.message.split(':')[0]),
    ['QueryRewriter fell back to the last user turn', 'LLMRanker fell back to the input order'],
  )
  await t.throwsAsync(new QueryRewriter({ chatGenerator: noText, raiseOnFailure: true }).rewrite('q'), {
    code: 'ERR_LLM_REPLY',
    message: /\{ text \}/,
  })
  await t.throwsAsync(new LLMRanker({ chatGenerator: noText, raiseOnFailure: true }).rerank('q', ['a']), {
    code: 'ERR_LLM_REPLY',
    message: /\{ text \}/,
  })
  const ac = new AbortController()
  const aborting = { chat: async () => (ac.abort(), Promise.reject(new Error('network down'))) }
  const failures = []
  await t.throwsAsync(
    new QueryRewriter({ chatGenerator: aborting, onFailure: (e) => failures.push(e) }).rewrite('q', {
      signal: ac.signal,
    }),
    { instanceOf: AbortError },
  )
  t.deepEqual(failures, [])
  t.throws(() => new QueryRewriter({ chatGenerator: noText, raiseOnFailure: 'no' }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
  })
})
