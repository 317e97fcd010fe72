import test from 'ava'
import { AbortError, LLMRanker, OpenAIChatGenerator } from '../../dist/esm/index.js'
import { readFileSync } from 'node:fs'
import { startChatServer } from '../../fixtures/chat-server.mjs'

const docs = [
  { id: 'a', text: 'Paris is the capital of France.', score: 3.5, meta: { src: 'wiki' } },
  { id: 'b', text: 'Berlin is the capital of Germany.', score: 2 },
  { id: 'c', text: 'Bananas are yellow.' },
  { id: 'd', text: 'Germany borders France.', score: 1 },
]

async function setup(t, script, options = {}) {
  const srv = await startChatServer(typeof script === 'function' ? { route: script } : { script })
  t.teardown(srv.close)
  const failures = []
  const ranker = new LLMRanker({
    chatGenerator: new OpenAIChatGenerator({
      baseURL: srv.baseURL,
      maxRetries: 0,
      retryDelayMs: 1,
      timeoutMs: 2000,
      ...options.generator,
    }),
    onFailure: (e) => failures.push(e),
    ...options.ranker,
  })
  return { srv, ranker, failures }
}

/** Documents of a rendered prompt: [{ n, text }]. */
const shown = (prompt) => [...prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2] }))
const ids = (list) => list.map((d) => d.id ?? d.text)

test('good JSON: the named documents, in the given order, with 1/rank scores, prior score in meta and input index', async (t) => {
  const { srv, ranker, failures } = await setup(t, ['{"documents":[{"index":2},{"index":4}]}'])
  const out = await ranker.rerank('  capital of Germany ', docs)
  t.deepEqual(ids(out), ['b', 'd'])
  t.deepEqual(
    out.map((d) => d.score),
    [1, 0.5],
  )
  t.deepEqual(
    out.map((d) => d.index),
    [1, 3],
  )
  t.deepEqual(out[0].meta, { priorScore: 2 })
  t.is(out[0].text, docs[1].text)
  t.is(docs[1].score, 2, 'the input is not mutated')
  t.deepEqual(failures, [])
  const { body } = srv.requests[0]
  t.is(body.response_format.type, 'json_schema')
  t.is(body.response_format.json_schema.name, 'document_ranking')
  t.deepEqual(body.response_format.json_schema.schema.required, ['documents'])
  const prompt = srv.prompt(0)
  t.true(prompt.includes('capital of Germany\n'), 'the query is trimmed and sent')
  t.deepEqual(
    shown(prompt),
    docs.map((d, i) => ({ n: i + 1, text: d.text })),
  )
})

test('a reply in a markdown fence, or with words around the JSON, is parsed', async (t) => {
  const { ranker, failures } = await setup(t, [
    '```json\n{"documents":[{"index":3},{"index":1}]}\n```',
    'Sure! {"documents":[{"index":1}]} Hope this helps.',
  ])
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['c', 'a'])
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['a'])
  t.deepEqual(failures, [])
})

test('{"documents": []} means nothing is relevant: an empty result, not a fallback', async (t) => {
  const { ranker, failures } = await setup(t, ['{"documents": []}'])
  t.deepEqual(await ranker.rerank('q', docs), [])
  t.deepEqual(failures, [])
})

test('duplicate, out-of-range and non-integer indices are dropped; bare integers are accepted', async (t) => {
  const { ranker, failures } = await setup(t, [
    '{"documents":[{"index":2},{"index":2},{"index":0},{"index":9},{"index":"1.0"},{"index":1.5},{"index":true},{"idx":3},4,{"index":1}]}',
  ])
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['b', 'd', 'a'])
  t.deepEqual(failures, [])
})

test('integral strings are indices: a reply made only of {"index": "3"} is a ranking, not a fallback', async (t) => {
  const { ranker, failures } = await setup(t, [
    '{"documents":[{"index":"3"},{"index":" 1 "},"4",{"index":"3"},{"index":"two"},{"index":"-1"},{"index":"1e0"}]}',
  ])
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['c', 'a', 'd'])
  t.deepEqual(failures, [])
})

test('garbage and wrong types fall back to the input order, cut to topK, and report the failure', async (t) => {
  const replies = [
    'I think document 2 is best.',
    '{"documents":{"index":1}}',
    '[{"index":1}]',
    '{"ranking":[1]}',
    '{"documents":[{"index":"two"},{"index":7}]}',
  ]
  const { ranker, failures } = await setup(t, replies, { ranker: { topK: 3 } })
  for (let i = 0; i < replies.length; i++) {
    const out = await ranker.rerank('q', docs)
    t.deepEqual(ids(out), ['a', 'b', 'c'], replies[i])
    t.deepEqual(
      out.map((d) => d.score),
      [1, 0.5, 1 / 3],
    )
    t.is(out[0].meta.priorScore, 3.5)
  }
  t.is(failures.length, replies.length)
  t.true(failures.every((e) => e.code === 'ERR_LLM_REPLY'))
})

test('raiseOnFailure throws instead of falling back', async (t) => {
  const { ranker } = await setup(t, ['not json'], { ranker: { raiseOnFailure: true } })
  await t.throwsAsync(ranker.rerank('q', docs), { code: 'ERR_LLM_REPLY' })
})

test('429 then success: the generator retries and the ranking is used', async (t) => {
  const { srv, ranker, failures } = await setup(
    t,
    [{ status: 429, headers: { 'retry-after-ms': '10' } }, '{"documents":[{"index":4}]}'],
    {
      generator: { maxRetries: 2 },
    },
  )
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['d'])
  t.is(srv.requests.length, 2)
  t.deepEqual(failures, [])
})

test('a 500 and a hanging response fall back (or throw with raiseOnFailure)', async (t) => {
  const { ranker, failures } = await setup(t, [{ status: 500 }], { ranker: { topK: 2 } })
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['a', 'b'])
  const hanging = await setup(t, [{ hang: true }], { generator: { timeoutMs: 150 }, ranker: { topK: 2 } })
  t.deepEqual(ids(await hanging.ranker.rerank('q', docs)), ['a', 'b'])
  t.deepEqual(
    [...failures, ...hanging.failures].map((e) => e.code),
    ['ERR_LLM', 'ERR_NETWORK'],
  )
  const strict = await setup(t, [{ hang: true }], { generator: { timeoutMs: 100 }, ranker: { raiseOnFailure: true } })
  await t.throwsAsync(strict.ranker.rerank('q', docs), { code: 'ERR_NETWORK' })
})

test('duplicates by id: sent once, highest prior score wins at the first position; same text without id too', async (t) => {
  const { srv, ranker } = await setup(t, ['{"documents":[{"index":1},{"index":2},{"index":3}]}'])
  const input = [
    { id: 'x', text: 'keep me', score: 0.9 },
    { id: 'y', text: 'unique', score: 0.2 },
    { id: 'x', text: 'drop me', score: 0.1 },
    { id: 'z', text: 'low first', score: 0.1 },
    { id: 'z', text: 'high later', score: 0.5 },
    'plain',
    'plain',
  ]
  const out = await ranker.rerank('q', input)
  t.deepEqual(
    shown(srv.prompt(0)).map((d) => d.text),
    ['keep me', 'unique', 'high later', 'plain'],
  )
  t.deepEqual(ids(out), ['x', 'y', 'z'])
  t.is(out[2].text, 'high later')
  t.is(out[2].index, 4)
})

test('topK per call and per ranker; topK 0, no documents and a blank query make no call', async (t) => {
  const { srv, ranker } = await setup(t, ['{"documents":[{"index":4},{"index":3},{"index":2},{"index":1}]}'], {
    ranker: { topK: 3 },
  })
  t.deepEqual(ids(await ranker.rerank('q', docs)), ['d', 'c', 'b'])
  t.deepEqual(ids(await ranker.rerank('q', docs, { topK: 1 })), ['d'])
  t.is(srv.requests.length, 2)
  t.deepEqual(await ranker.rerank('q', docs, { topK: 0 }), [])
  t.deepEqual(await ranker.rerank('q', []), [])
  t.deepEqual(ids(await ranker.rerank('   ', docs)), ['a', 'b', 'c'])
  t.is(srv.requests.length, 2)
})

test('a custom prompt is used; a template without exactly {{query}} and {{documents}} is rejected at construction', async (t) => {
  const { srv, ranker } = await setup(t, ['{"documents":[{"index":1}]}'], {
    ranker: { prompt: 'Q={{ query }}\nDOCS:\n{{documents}}\nJSON please' },
  })
  await ranker.rerank('what {{documents}}', ['one', 'two'])
  t.is(srv.prompt(0), 'Q=what {{documents}}\nDOCS:\n[1] one\n\n[2] two\nJSON please')
  const gen = { chat: async () => ({ text: '{}' }) }
  for (const prompt of ['only {{query}}', 'only {{documents}}', '{{query}} {{documents}} {{extra}}', '', 42]) {
    t.throws(
      () => new LLMRanker({ chatGenerator: gen, prompt }),
      { instanceOf: TypeError, code: 'ERR_INVALID_ARG' },
      String(prompt),
    )
  }
})

test('Jinja constructs in a custom prompt are rejected with a message instead of reaching the model as text', (t) => {
  const gen = { chat: async () => ({ text: '{}' }) }
  const prompts = {
    '{% for': '{{query}}\n{% for d in documents %}{{documents}}{% endfor %}',
    '{{ d.content': '{{query}} {{documents}} {{ d.content }}',
    '{{ loop.index': '{{query}} {{documents}} [{{ loop.index }}]',
    '{{ query | upper': '{{ query | upper }} {{query}} {{documents}}',
    '{#': '{# a comment #}{{query}} {{documents}}',
  }
  for (const [shown, prompt] of Object.entries(prompts)) {
    const e = t.throws(() => new LLMRanker({ chatGenerator: gen, prompt }), {
      instanceOf: TypeError,
      code: 'ERR_INVALID_ARG',
    })
    t.true(e.message.includes(`not rendered: ${JSON.stringify(shown).slice(0, -1)}`), e.message)
  }
  t.notThrows(
    () => new LLMRanker({ chatGenerator: gen, prompt: 'JSON like {"a": {"b": 1}} is fine: {{query}} {{documents}}' }),
  )
})

test('bad input is a TypeError/RangeError, never a crash; no key means no default generator', (t) => {
  const gen = { chat: async () => ({ text: '{"documents":[]}' }) }
  t.throws(() => new LLMRanker({ chatGenerator: {} }), { instanceOf: TypeError })
  t.throws(() => new LLMRanker({ chatGenerator: gen, topK: 0 }), { instanceOf: RangeError })
  t.throws(() => new LLMRanker({ chatGenerator: gen, raiseOnFailure: 'yes' }), { instanceOf: TypeError })
  t.throws(() => new LLMRanker({ chatGenerator: gen, window: { size: 4, step: 5 } }), { instanceOf: RangeError })
  t.throws(() => new LLMRanker({ chatGenerator: gen, window: { size: 1 } }), { instanceOf: RangeError })
  t.throws(() => new LLMRanker({ chatGenerator: gen, window: { size: 4, concurrency: 0 } }), { instanceOf: RangeError })
  const saved = process.env.OPENAI_API_KEY
  delete process.env.OPENAI_API_KEY
  delete process.env.OPENAI_BASE_URL
  try {
    t.throws(() => new LLMRanker(), { code: 'ERR_UNAUTHORIZED' })
  } finally {
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved
  }
  const ranker = new LLMRanker({ chatGenerator: gen })
  return Promise.all([
    t.throwsAsync(ranker.rerank(1, []), { instanceOf: TypeError }),
    t.throwsAsync(ranker.rerank('q', 'docs'), { instanceOf: TypeError }),
    t.throwsAsync(ranker.rerank('q', [{ id: 1, text: 'x' }]), { instanceOf: TypeError }),
    t.throwsAsync(ranker.rerank('q', [{ body: 'x' }]), { instanceOf: TypeError }),
    t.throwsAsync(ranker.rerank('q', ['x'], { topK: -1 }), { instanceOf: RangeError }),
  ])
})

test('a custom ChatGenerator that resolves to something else falls back', async (t) => {
  const failures = []
  const ranker = new LLMRanker({ chatGenerator: { chat: async () => 'text' }, onFailure: (e) => failures.push(e) })
  t.deepEqual(ids(await ranker.rerank('q', ['a', 'b'])), ['a', 'b'])
  t.is(failures[0].code, 'ERR_LLM_REPLY')
})

test('AbortSignal rejects with AbortError instead of falling back', async (t) => {
  const { ranker, failures } = await setup(t, [{ hang: true }], { generator: { timeoutMs: 60_000 } })
  const ac = new AbortController()
  const pending = ranker.rerank('q', docs, { signal: ac.signal })
  setTimeout(() => ac.abort(), 50)
  await t.throwsAsync(pending, { instanceOf: AbortError })
  await t.throwsAsync(ranker.rerank('q', docs, { signal: AbortSignal.abort() }), { instanceOf: AbortError })
  t.deepEqual(failures, [])
  const deaf = new LLMRanker({ chatGenerator: { chat: () => new Promise(() => {}) } })
  const ac2 = new AbortController()
  const stuck = deaf.rerank('q', docs, { signal: ac2.signal })
  setTimeout(() => ac2.abort(), 20)
  await t.throwsAsync(stuck, { instanceOf: AbortError }, 'a generator that ignores the signal does not hold the caller')
})

// The scripted judge: a document "dN qQ" is relevant when Q > 0, better with a higher Q.
function judge(log) {
  let inFlight = 0
  return async (body) => {
    const list = shown(body.messages.at(-1).content)
    log.push(list.map((d) => d.text))
    inFlight++
    log.maxInFlight = Math.max(log.maxInFlight ?? 0, inFlight)
    await new Promise((r) => setTimeout(r, 150)) // long enough for the next window to start under load
    inFlight--
    const quality = (d) => Number(/q(\d+)/.exec(d.text)[1])
    const ranked = list.filter((d) => quality(d) > 0).sort((a, b) => quality(b) - quality(a))
    return JSON.stringify({ documents: ranked.map((d) => ({ index: d.n })) })
  }
}

test('sliding windows: every document is seen, windows overlap, run concurrently up to the limit, and the final order is global', async (t) => {
  const qualities = [0, 5, 0, 9, 1, 0, 7, 0, 0, 8, 2, 0, 0, 6, 0]
  const input = qualities.map((q, i) => ({ id: `d${i}`, text: `d${i} q${q}` }))
  const log = []
  const { ranker, failures } = await setup(t, judge(log), {
    ranker: { window: { size: 6, step: 3, concurrency: 2 }, topK: 5 },
  })
  const out = await ranker.rerank('q', input)
  t.deepEqual(failures, [])
  t.deepEqual(ids(out), ['d3', 'd9', 'd6', 'd13', 'd1'])
  const windows = log.slice(0, -1)
  t.deepEqual(
    windows.map((w) => w.length),
    [6, 6, 6, 6],
  )
  t.deepEqual(new Set(windows.flat()).size, input.length, 'every document is in some window')
  t.is(log.maxInFlight, 2)
  t.true(log.at(-1).length <= 6, 'the final call sees at most one window of the best')
})

test('sliding windows: one failed window falls back to the input order', async (t) => {
  let n = 0
  const { ranker, failures } = await setup(t, async () => (n++ === 1 ? 'garbage' : '{"documents":[{"index":1}]}'), {
    ranker: { window: { size: 4, step: 4, concurrency: 1 }, topK: 3 },
  })
  const input = Array.from({ length: 10 }, (_, i) => `doc ${i}`)
  t.deepEqual(ids(await ranker.rerank('q', input)), ['doc 0', 'doc 1', 'doc 2'])
  t.is(failures.length, 1)
})

test('sliding windows: the last call orders window winners against each other', async (t) => {
  // Windows [d0 d1 d2] and [d3 d4 d5]: each window's best scores 1/1, so only the final call
  // can tell that d3 and d4 (second window) beat d0 (first window).
  const input = [5, 0, 0, 10, 9, 0].map((q, i) => `d${i} q${q}`)
  const log = []
  const { ranker } = await setup(t, judge(log), { ranker: { window: { size: 3, step: 3 } } })
  t.deepEqual(ids(await ranker.rerank('q', input)), ['d3 q10', 'd4 q9', 'd0 q5'])
  t.deepEqual(log.at(-1), ['d0 q5', 'd3 q10', 'd4 q9'], 'the final call sees the merged winners')
  t.is(log.length, 3)
})

test('sliding windows: the windows decide what is kept, the final call only orders; [] keeps the merged order', async (t) => {
  // Windows [d0..d2], [d3..d5], [d6..d8] each keep their first two; the final call sees the
  // best three by merged weight (d0, d3, d6) and names only d3, or nothing.
  const input = Array.from({ length: 9 }, (_, i) => `d${i}`)
  for (const [final, want] of [
    ['{"documents":[{"index":2}]}', ['d3', 'd0', 'd6', 'd1', 'd4', 'd7']],
    ['{"documents":[]}', ['d0', 'd3', 'd6', 'd1', 'd4', 'd7']],
  ]) {
    const { ranker, failures } = await setup(
      t,
      async (body) => {
        const texts = shown(body.messages.at(-1).content).map((d) => d.text)
        return texts.join() === 'd0,d3,d6' ? final : '{"documents":[{"index":1},{"index":2}]}'
      },
      { ranker: { window: { size: 3, step: 3, concurrency: 1 }, topK: 9 } },
    )
    t.deepEqual(ids(await ranker.rerank('q', input)), want, final)
    t.deepEqual(failures, [])
  }
})

test("scripted replies against Haystack 3.4.1's LLMRanker: the same ranking, except where ragrank differs on purpose", async (t) => {
  const f = JSON.parse(readFileSync(new URL('../../fixtures/haystack-llm-ranker.json', import.meta.url), 'utf8'))
  // docs/LLM.md, "Where it differs from Haystack": duplicates once, no float/boolean coercion, bare integers,
  // fenced and prose-wrapped JSON are read.
  const differs = {
    'repeated index': ['beta', 'alpha'],
    'float index': f.documents,
    'bare integers': ['alpha', 'gamma'],
    fenced: ['gamma'],
    'prose around': ['gamma'],
  }
  for (const c of f.cases) {
    const ranker = new LLMRanker({ chatGenerator: { chat: async () => ({ text: c.reply }) }, onFailure: () => {} })
    const got = (await ranker.rerank('q', f.documents)).map((d) => d.text)
    if (c.name in differs) {
      t.deepEqual(got, differs[c.name], c.name)
      t.notDeepEqual(got, c.ranked, `${c.name}: Haystack answers otherwise`)
    } else t.deepEqual(got, c.ranked, c.name)
  }
  t.true(f.cases.some((c) => c.name === 'numeric strings' && c.ranked.length === 2))
})
