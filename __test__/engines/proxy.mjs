// Fault injection between the adapters and a real engine: a TCP proxy that can drop every connection and
// refuse new ones for a while (what a client sees when the engine restarts), and an HTTP proxy that answers
// bulk requests with 429s, whole or for some documents, as an overloaded Elasticsearch does.
import http from 'node:http'
import net from 'node:net'

export async function tcpProxy(targetHost, targetPort) {
  const sockets = new Set()
  const track = (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  }
  const listen = () =>
    new Promise((resolve) => {
      const server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost)
        track(client)
        track(upstream)
        client.pipe(upstream).pipe(client)
        client.on('error', () => upstream.destroy())
        upstream.on('error', () => client.destroy())
      })
      server.listen(port ?? 0, '127.0.0.1', () => resolve(server))
    })
  let port
  let server = await listen()
  port = server.address().port
  return {
    port,
    /** Kills every open connection and refuses new ones for `downMs`, then accepts again. */
    async restart(downMs) {
      await new Promise((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      })
      await new Promise((r) => setTimeout(r, downMs))
      server = await listen()
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/**
 * Forwards to `target`. Of the `_bulk` requests, `rejectRequest(n)` ones get a 429; of the others,
 * documents for which `rejectItem(id)` holds are not forwarded and come back as 429 items.
 */
export async function overloadProxy(target, { rejectRequest = () => false, rejectItem = () => false } = {}) {
  let bulks = 0
  const stats = { requests429: 0, items429: 0 }
  const server = http.createServer(async (req, res) => {
    const chunks = []
    for await (const c of req) chunks.push(c)
    let body = Buffer.concat(chunks).toString('utf8')
    const isBulk = req.method === 'POST' && /\/_bulk(\?|$)/.test(req.url)
    const dropped = new Map()
    if (isBulk) {
      const n = ++bulks
      if (rejectRequest(n)) {
        stats.requests429++
        res.writeHead(429, PRODUCT)
        res.end(
          JSON.stringify({ error: { type: 'es_rejected_execution_exception', reason: 'injected 429' }, status: 429 }),
        )
        return
      }
      const lines = body.split('\n').filter((l) => l.length > 0)
      const kept = []
      for (let i = 0; i < lines.length; i += 2) {
        const id = JSON.parse(lines[i]).index._id
        if (rejectItem(id, n)) dropped.set(i / 2, id)
        else kept.push(lines[i], lines[i + 1])
      }
      body = kept.length ? `${kept.join('\n')}\n` : ''
      if (!body) {
        res.writeHead(200, PRODUCT)
        res.end(JSON.stringify({ errors: true, took: 0, items: [...dropped.values()].map(reject429) }))
        stats.items429 += dropped.size
        return
      }
    }
    const headers = { ...req.headers }
    delete headers['content-length']
    delete headers.host
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method) ? undefined : body,
    })
    let text = await upstream.text()
    if (isBulk && dropped.size) {
      const parsed = JSON.parse(text)
      const items = []
      const total = parsed.items.length + dropped.size
      for (let i = 0, j = 0; i < total; i++) items.push(dropped.has(i) ? reject429(dropped.get(i)) : parsed.items[j++])
      stats.items429 += dropped.size
      text = JSON.stringify({ ...parsed, errors: true, items })
    }
    const out = {}
    upstream.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v
    })
    res.writeHead(upstream.status, out)
    res.end(text)
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${server.address().port}`, stats, close: () => new Promise((r) => server.close(r)) }
}

// The Elasticsearch client refuses answers without its product header.
const PRODUCT = { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' }

const reject429 = (id) => ({
  index: { _id: id, status: 429, error: { type: 'es_rejected_execution_exception', reason: 'injected item 429' } },
})
