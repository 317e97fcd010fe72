// Chat replies and error bodies are read with a cap: a flood from a 127.0.0.1 server ends fast,
// with a clear error, and is not retried.
import test from 'ava'
import http from 'node:http'
import { OpenAIChatGenerator } from '../../dist/esm/index.js'

const CHUNK = Buffer.alloc(64 * 1024, 0x20)

/** A server whose every POST answers `status` with `headers`, then CHUNK until `limit` bytes or the client leaves. */
async function floodServer(t, { status = 200, headers = {}, limit = Infinity }) {
  const stats = { requests: 0, sent: 0 }
  const sockets = new Set()
  const server = http.createServer((req, res) => {
    req.resume()
    stats.requests++
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.write('{"choices":[{"message":{"content":"')
    let closed = false
    res.on('close', () => {
      closed = true
    })
    let sent = 0
    const pump = () => {
      while (!closed && sent < limit) {
        sent += CHUNK.length
        stats.sent += CHUNK.length
        if (!res.write(CHUNK)) return res.once('drain', pump)
      }
      if (!closed) res.end()
    }
    pump()
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    server.close()
  })
  return { baseURL: `http://127.0.0.1:${server.address().port}/v1`, stats }
}

const ask = (gen) => gen.chat({ messages: [{ role: 'user', content: 'hi' }] })

async function timed(promise) {
  const started = Date.now()
  try {
    await promise
    return { ms: Date.now() - started, error: undefined }
  } catch (error) {
    return { ms: Date.now() - started, error }
  }
}

test('a 600 MB reply is ERR_NETWORK naming the cap, fast, read no further and not retried', async (t) => {
  const { baseURL, stats } = await floodServer(t, { headers: { 'content-length': String(600_000_000) } })
  const gen = new OpenAIChatGenerator({ baseURL, retryDelayMs: 1 })
  const { ms, error } = await timed(ask(gen))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /16777216 bytes \(options\.maxReplyBytes\)/)
  t.is(stats.requests, 1)
  t.true(ms < 5000, `took ${ms} ms`)
  await new Promise((r) => setTimeout(r, 100))
  t.true(stats.sent < 64 * 2 ** 20, `the server got to send ${stats.sent} bytes`)
})

test('an endless reply without a length stops at options.maxReplyBytes', async (t) => {
  const { baseURL, stats } = await floodServer(t, {})
  const gen = new OpenAIChatGenerator({ baseURL, maxReplyBytes: 2 ** 20, retryDelayMs: 1 })
  const { ms, error } = await timed(ask(gen))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /1048576 bytes/)
  t.is(stats.requests, 1)
  t.true(ms < 5000, `took ${ms} ms`)
})

test('a reply under a raised cap is read whole', async (t) => {
  const { baseURL } = await floodServer(t, { limit: 3 * CHUNK.length })
  // The body is cut JSON (the flood never closes the string): ERR_LLM shows it was read and parsed, not capped.
  const gen = new OpenAIChatGenerator({ baseURL, maxReplyBytes: 2 ** 20, maxRetries: 0 })
  const { error } = await timed(ask(gen))
  t.is(error?.code, 'ERR_LLM')
  t.regex(error.message, /did not answer with JSON/)
})

test('an endless error body is cut to an excerpt: the status error comes fast', async (t) => {
  const { baseURL, stats } = await floodServer(t, { status: 400 })
  const gen = new OpenAIChatGenerator({ baseURL })
  const { ms, error } = await timed(ask(gen))
  t.is(error?.code, 'ERR_LLM')
  t.is(error.status, 400)
  t.regex(error.message, /answered 400/)
  t.true(error.message.length < 1000, `message of ${error.message.length} characters`)
  t.is(stats.requests, 1)
  t.true(ms < 5000, `took ${ms} ms`)
})

test('options.maxReplyBytes is checked', (t) => {
  const baseURL = 'http://127.0.0.1:9/v1'
  for (const maxReplyBytes of [0, -1]) {
    t.throws(() => new OpenAIChatGenerator({ baseURL, maxReplyBytes }), { instanceOf: RangeError })
  }
  for (const maxReplyBytes of [1.5, '1']) {
    t.throws(() => new OpenAIChatGenerator({ baseURL, maxReplyBytes }), { instanceOf: TypeError })
  }
})
