import test from 'ava'
import { AbortError, OpenAIChatGenerator } from '../../dist/esm/index.js'
import { startChatServer } from '../../fixtures/chat-server.mjs'

const user = (content) => [{ role: 'user', content }]
const format = { name: 'x', schema: { type: 'object', properties: { a: { type: 'integer' } } } }

test('sends model, temperature 0, messages, the JSON-schema response_format and the key; reports usage', async (t) => {
  const srv = await startChatServer({
    script: [{ content: '{"a":1}', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }],
  })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, apiKey: 'sk-test' })
  const reply = await gen.chat({ messages: user('hi'), responseFormat: format })
  t.is(reply.text, '{"a":1}')
  t.deepEqual(reply.usage, { promptTokens: 7, completionTokens: 3, totalTokens: 10 })
  t.is(reply.model, 'gpt-4.1-mini')
  const { body, headers, url } = srv.requests[0]
  t.is(url, '/v1/chat/completions')
  t.is(headers.authorization, 'Bearer sk-test')
  t.is(body.model, 'gpt-4.1-mini')
  t.is(body.temperature, 0)
  t.deepEqual(body.messages, user('hi'))
  t.deepEqual(body.response_format, { type: 'json_schema', json_schema: { name: 'x', schema: format.schema } })
  await gen.chat({ messages: user('again') })
  t.false('response_format' in srv.requests[1].body)
  t.deepEqual(gen.usage, { promptTokens: 14, completionTokens: 6, totalTokens: 20, calls: 2 })
})

test('reads OPENAI_API_KEY and OPENAI_BASE_URL; json_object and none formats; trailing slash in baseURL', async (t) => {
  const srv = await startChatServer({ script: ['{}'] })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({
    env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: `${srv.baseURL}/` },
    responseFormat: 'json_object',
    model: 'llama3',
  })
  await gen.chat({ messages: user('x'), responseFormat: format })
  t.is(srv.requests[0].headers.authorization, 'Bearer sk-env')
  t.is(srv.requests[0].body.model, 'llama3')
  t.deepEqual(srv.requests[0].body.response_format, { type: 'json_object' })
  const none = new OpenAIChatGenerator({ baseURL: srv.baseURL, env: {}, responseFormat: 'none' })
  await none.chat({ messages: user('x'), responseFormat: format })
  t.false('response_format' in srv.requests[1].body)
  t.false('authorization' in srv.requests[1].headers) // local servers need no key
})

test('a key is required for api.openai.com only', (t) => {
  t.throws(() => new OpenAIChatGenerator({ env: {} }), { code: 'ERR_UNAUTHORIZED' })
  t.notThrows(() => new OpenAIChatGenerator({ env: { OPENAI_API_KEY: 'sk' } }))
  t.notThrows(() => new OpenAIChatGenerator({ env: {}, baseURL: 'http://localhost:11434/v1' }))
})

test('bad options and requests are TypeError/RangeError with a code', async (t) => {
  const local = { baseURL: 'http://127.0.0.1:9/v1' }
  t.throws(() => new OpenAIChatGenerator({ ...local, baseURL: 'not a url' }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
  })
  t.throws(() => new OpenAIChatGenerator({ ...local, baseURL: 'ftp://x/v1' }), { instanceOf: TypeError })
  t.throws(() => new OpenAIChatGenerator({ ...local, timeoutMs: 0 }), { instanceOf: RangeError })
  t.throws(() => new OpenAIChatGenerator({ ...local, maxRetries: -1 }), { instanceOf: RangeError })
  t.throws(() => new OpenAIChatGenerator({ ...local, temperature: 3 }), { instanceOf: RangeError })
  t.throws(() => new OpenAIChatGenerator({ ...local, responseFormat: 'xml' }), { instanceOf: RangeError })
  t.throws(() => new OpenAIChatGenerator({ ...local, model: '' }), { instanceOf: TypeError })
  const gen = new OpenAIChatGenerator(local)
  await t.throwsAsync(gen.chat({ messages: [] }), { instanceOf: TypeError })
  await t.throwsAsync(gen.chat({ messages: [{ role: 'tool', content: 'x' }] }), { instanceOf: TypeError })
  await t.throwsAsync(gen.chat({ messages: user('x'), responseFormat: { name: 1 } }), { instanceOf: TypeError })
  await t.throwsAsync(gen.chat({ messages: user('x'), signal: {} }), { instanceOf: TypeError })
})

test('429 then success: retries after Retry-After', async (t) => {
  const srv = await startChatServer({
    script: [{ status: 429, headers: { 'retry-after-ms': '20' } }, { status: 503 }, 'ok'],
  })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, retryDelayMs: 5 })
  const reply = await gen.chat({ messages: user('x') })
  t.is(reply.text, 'ok')
  t.is(srv.requests.length, 3)
  t.is(gen.usage.calls, 1)
})

test('a 500 that persists fails with ERR_LLM and the status after maxRetries; 400 is not retried', async (t) => {
  const srv = await startChatServer({ script: [{ status: 500, body: { error: { message: 'boom' } } }] })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, maxRetries: 2, retryDelayMs: 1 })
  const err = await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM' })
  t.is(err.status, 500)
  t.regex(err.message, /boom/)
  t.is(srv.requests.length, 3)
  const bad = await startChatServer({ script: [{ status: 400 }, 'never'] })
  t.teardown(bad.close)
  await t.throwsAsync(
    new OpenAIChatGenerator({ baseURL: bad.baseURL, retryDelayMs: 1 }).chat({ messages: user('x') }),
    { code: 'ERR_LLM' },
  )
  t.is(bad.requests.length, 1)
  const auth = await startChatServer({ script: [{ status: 401 }] })
  t.teardown(auth.close)
  await t.throwsAsync(new OpenAIChatGenerator({ baseURL: auth.baseURL }).chat({ messages: user('x') }), {
    code: 'ERR_UNAUTHORIZED',
  })
})

test('a hanging response times out (and is retried, then fails with ERR_NETWORK)', async (t) => {
  const srv = await startChatServer({ script: [{ hang: true }] })
  t.teardown(srv.close)
  const once = new OpenAIChatGenerator({ baseURL: srv.baseURL, timeoutMs: 100, maxRetries: 0 })
  const started = Date.now()
  const err = await t.throwsAsync(once.chat({ messages: user('x') }), { code: 'ERR_NETWORK' })
  t.regex(err.message, /within 100 ms/)
  t.true(Date.now() - started < 2000)
  const second = await startChatServer({ script: [{ hang: true }, 'late but fine'] })
  t.teardown(second.close)
  const retrying = new OpenAIChatGenerator({ baseURL: second.baseURL, timeoutMs: 400, maxRetries: 1, retryDelayMs: 1 })
  t.is((await retrying.chat({ messages: user('x') })).text, 'late but fine')
  t.is(second.requests.length, 2)
})

test('an unreachable server fails with ERR_NETWORK; replies that are not completions with ERR_LLM', async (t) => {
  const srv = await startChatServer({
    script: [{ json: { nope: true } }, { json: { choices: [{ message: { content: null, refusal: 'no' } }] } }],
  })
  const { baseURL } = srv
  const gen = new OpenAIChatGenerator({ baseURL, maxRetries: 0 })
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM', message: /choices/ })
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM', message: /refused/ })
  await srv.close()
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_NETWORK' })
})

test('AbortSignal: rejects at once with AbortError, during a request and during backoff', async (t) => {
  const srv = await startChatServer({ script: [{ hang: true }] })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, timeoutMs: 60_000 })
  const ac = new AbortController()
  const pending = gen.chat({ messages: user('x'), signal: ac.signal })
  setTimeout(() => ac.abort(), 50)
  await t.throwsAsync(pending, { instanceOf: AbortError, code: 'ABORT_ERR' })
  await t.throwsAsync(gen.chat({ messages: user('x'), signal: AbortSignal.abort() }), { instanceOf: AbortError })
  const busy = await startChatServer({ script: [{ status: 429, headers: { 'retry-after': '30' } }] })
  t.teardown(busy.close)
  const ac2 = new AbortController()
  const waiting = new OpenAIChatGenerator({ baseURL: busy.baseURL }).chat({ messages: user('x'), signal: ac2.signal })
  setTimeout(() => ac2.abort(), 100)
  const started = Date.now()
  await t.throwsAsync(waiting, { instanceOf: AbortError })
  t.true(Date.now() - started < 5000)
})

test("api 'responses': POST /responses with the turns as input and text.format; the output_text is the reply", async (t) => {
  const srv = await startChatServer({
    script: [{ content: '{"a":1}', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }, '{}'],
  })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, apiKey: 'sk-test', api: 'responses' })
  t.is(gen.api, 'responses')
  const turns = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hi' },
  ]
  const reply = await gen.chat({ messages: turns, responseFormat: format })
  t.is(reply.text, '{"a":1}')
  t.deepEqual(reply.usage, { promptTokens: 7, completionTokens: 3, totalTokens: 10 })
  t.is(reply.model, 'gpt-4.1-mini')
  const { body, url } = srv.requests[0]
  t.is(url, '/v1/responses')
  t.deepEqual(body.input, turns)
  t.false('messages' in body)
  t.false('response_format' in body)
  t.deepEqual(body.text, { format: { type: 'json_schema', name: 'x', schema: format.schema } })
  const obj = new OpenAIChatGenerator({ baseURL: srv.baseURL, api: 'responses', responseFormat: 'json_object' })
  await obj.chat({ messages: user('x'), responseFormat: format })
  t.deepEqual(srv.requests[1].body.text, { format: { type: 'json_object' } })
  t.is(new OpenAIChatGenerator({ baseURL: srv.baseURL }).api, 'chat-completions', 'chat completions stays the default')
})

test("api 'responses': a refusal, no message and a non-Responses body fail with ERR_LLM; a bad api is a RangeError", async (t) => {
  const refusal = { output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'no' }] }] }
  const srv = await startChatServer({
    script: [{ json: refusal }, { json: { output: [] } }, { json: { choices: [] } }],
  })
  t.teardown(srv.close)
  const gen = new OpenAIChatGenerator({ baseURL: srv.baseURL, api: 'responses', maxRetries: 0 })
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM', message: /refused \(no\)/ })
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM', message: /without text/ })
  await t.throwsAsync(gen.chat({ messages: user('x') }), { code: 'ERR_LLM', message: /without an output array/ })
  t.throws(() => new OpenAIChatGenerator({ baseURL: srv.baseURL, api: 'completions' }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
  })
})
