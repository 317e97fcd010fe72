// A chat-completions server on 127.0.0.1 that replays scripted replies, for the LLM tests
// and the offline examples. Each request takes the next step of the script (the last step
// repeats), or, with `route`, a step chosen from the request itself.
//
// A step is one of:
//   'text'                               200 with that text as choices[0].message.content
//   { content: 'text', usage }           the same, with the usage to report
//   { status: 429, headers, body }       an error status (body: string or object)
//   { hang: true }                       sends headers, then never finishes the body
//   { json: {...} }                      200 with this raw body (not a completion)
import http from 'node:http'

export async function startChatServer({ script = [], route } = {}) {
  const requests = []
  const open = new Set()
  let next = 0
  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c) => (raw += c))
    req.on('end', async () => {
      let body
      try {
        body = JSON.parse(raw)
      } catch {
        body = undefined
      }
      const record = { method: req.method, url: req.url, headers: req.headers, body }
      requests.push(record)
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions') || !body) {
        res.writeHead(404, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: { message: 'not found' } }))
      }
      const step = route ? await route(body, requests.length - 1) : script[Math.min(next++, script.length - 1)]
      reply(res, step, body)
    })
  })
  server.on('connection', (s) => {
    open.add(s)
    s.on('close', () => open.delete(s))
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address()
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The user prompt of request i. */
    prompt: (i) => requests[i].body.messages.at(-1).content,
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy()
        server.close(r)
      }),
  }
}

function reply(res, step, body) {
  if (step === undefined) step = { status: 500, body: 'script exhausted' }
  if (typeof step === 'string') step = { content: step }
  if (step.hang) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"id":')
    return
  }
  if (step.status) {
    const text = typeof step.body === 'string' ? step.body : JSON.stringify(step.body ?? { error: { message: `status ${step.status}` } })
    res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
    return res.end(text)
  }
  const payload = step.json ?? {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: step.content }, finish_reason: 'stop' }],
    usage: step.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(payload))
}
