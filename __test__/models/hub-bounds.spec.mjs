// Hub downloads stop at their bounds: the announced size, identity encoding only, a cap for
// unknown sizes and a total deadline. Each case runs against a hostile 127.0.0.1 server.
import test from 'ava'
import http from 'node:http'
import { gzipSync } from 'node:zlib'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveHubFiles } from '../../dist/esm/models/hub.js'
import { fakeCommit } from '../../fixtures/hub-server.mjs'

const COMMIT = fakeCommit('bounds')
const CHUNK = Buffer.alloc(64 * 1024, 7)

/** Writes CHUNK until the client goes away (or `limit` bytes): an endless or huge body. */
function flood(res, limit = Infinity, stats = { sent: 0 }) {
  let sent = 0
  let closed = false
  const pump = () => {
    while (!closed && sent < limit) {
      const part = CHUNK.subarray(0, Math.min(CHUNK.length, limit - sent))
      sent += part.length
      stats.sent += part.length
      if (!res.write(part)) return res.once('drain', pump)
    }
    if (!closed) res.end()
  }
  res.on('close', () => {
    closed = true
  })
  pump()
}

/**
 * Each file is { head: headers of the HEAD answer, get(req, res) }; every answer carries the hub's
 * x-repo-commit and a safe etag, so the file is resumable (blobs/{etag}.incomplete).
 */
async function startServer(t, files) {
  const sockets = new Set()
  const server = http.createServer((req, res) => {
    const m = /^\/acme\/x\/resolve\/[^/]+\/(.+)$/.exec(req.url)
    const file = m && files[decodeURIComponent(m[1])]
    if (!file) return res.writeHead(404).end()
    const base = { 'x-repo-commit': COMMIT, etag: `"etag-${m[1]}"` }
    if (req.method === 'HEAD') return res.writeHead(200, { ...base, ...file.head }).end()
    file.get(req, res, base)
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
  const home = await mkdtemp(join(tmpdir(), 'ragrank-hub-bounds-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const cacheDir = join(home, 'hub')
  return {
    options: { endpoint: `http://127.0.0.1:${server.address().port}`, cacheDir, env: { HF_HOME: home, HOME: home } },
    blobs: join(cacheDir, 'models--acme--x', 'blobs'),
  }
}

const blobFiles = async (dir) => (await readdir(dir).catch(() => [])).filter((f) => !f.endsWith('.lock'))

async function timed(promise) {
  const started = Date.now()
  try {
    await promise
    return { ms: Date.now() - started, error: undefined }
  } catch (error) {
    return { ms: Date.now() - started, error }
  }
}

test('a body past the announced size stops at once: ERR_NETWORK naming the file and both sizes, no partial file', async (t) => {
  const { options, blobs } = await startServer(t, {
    'endless.bin': {
      head: { 'content-length': '292' },
      get: (_req, res, base) => {
        res.writeHead(200, base) // chunked: no length on the GET, so only the HEAD's 292 bounds it
        flood(res)
      },
    },
  })
  const { ms, error } = await timed(resolveHubFiles('acme/x', ['endless.bin'], [], options))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /endless\.bin/)
  t.regex(error.message, /announced 292 bytes/)
  t.regex(error.message, /received \d+/)
  t.true(ms < 5000, `took ${ms} ms`)
  t.deepEqual(await blobFiles(blobs), [])
})

test('a GET whose content-length exceeds the announced size is refused before its body is read', async (t) => {
  const stats = { sent: 0 }
  const { options, blobs } = await startServer(t, {
    'huge.bin': {
      head: { 'x-linked-size': '292', 'content-length': '292' },
      get: (_req, res, base) => {
        res.writeHead(200, { ...base, 'content-length': String(300_000_000) })
        flood(res, 300_000_000, stats)
      },
    },
  })
  const { ms, error } = await timed(resolveHubFiles('acme/x', ['huge.bin'], [], options))
  await new Promise((r) => setTimeout(r, 100)) // let the server see the connection close
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /huge\.bin/)
  t.regex(error.message, /292/)
  t.regex(error.message, /300000000/)
  t.true(ms < 5000, `took ${ms} ms`)
  // Socket buffers take a few MiB; the old code read all 300 MB before it compared sizes.
  t.true(stats.sent < 32 * 2 ** 20, `the server got to send ${stats.sent} bytes`)
  t.deepEqual(await blobFiles(blobs), [])
})

test('a resumed download that overflows does not keep the oversize part for the next resume', async (t) => {
  let gets = 0
  const content = Buffer.alloc(100_000, 3)
  const { options, blobs } = await startServer(t, {
    'resume.bin': {
      head: { 'content-length': String(content.length) },
      get: (req, res, base) => {
        gets++
        if (gets === 1) {
          // Half the file, then the connection drops: the .incomplete file is kept for a resume.
          res.writeHead(200, { ...base, 'content-length': String(content.length) })
          res.write(content.subarray(0, 50_000), () => setTimeout(() => res.destroy(), 500))
          return
        }
        t.is(req.headers.range, 'bytes=50000-')
        res.writeHead(206, { ...base, 'content-range': `bytes 50000-${content.length - 1}/${content.length}` })
        flood(res) // the "rest" never ends
      },
    },
  })
  const first = await timed(resolveHubFiles('acme/x', ['resume.bin'], [], options))
  t.is(first.error?.code, 'ERR_NETWORK')
  t.deepEqual(await blobFiles(blobs), ['etag-resume.bin.incomplete'])
  const second = await timed(resolveHubFiles('acme/x', ['resume.bin'], [], options))
  t.is(second.error?.code, 'ERR_NETWORK')
  t.regex(second.error.message, /announced 100000 bytes/)
  t.true(second.ms < 5000, `took ${second.ms} ms`)
  t.deepEqual(await blobFiles(blobs), [])
})

test('a content-encoding other than identity is refused, never decoded', async (t) => {
  const plain = Buffer.alloc(10 * 2 ** 20) // 10 MiB of zeros, about 10 KiB gzipped
  const packed = gzipSync(plain)
  const { options, blobs } = await startServer(t, {
    'packed.bin': {
      head: { 'content-length': String(plain.length) },
      get: (_req, res, base) => {
        res.writeHead(200, { ...base, 'content-encoding': 'gzip', 'content-length': String(packed.length) })
        res.end(packed)
      },
    },
    'plain.bin': {
      head: { 'content-length': '5' },
      get: (_req, res, base) => {
        res.writeHead(200, { ...base, 'content-encoding': 'identity', 'content-length': '5' })
        res.end('hello')
      },
    },
  })
  const { error } = await timed(resolveHubFiles('acme/x', ['packed.bin'], [], options))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /content-encoding "gzip"/)
  t.regex(error.message, /packed\.bin/)
  t.deepEqual(await blobFiles(blobs), [])
  // identity is what was asked for, and passes
  const ok = await resolveHubFiles('acme/x', ['plain.bin'], [], options)
  t.is(await readFile(ok.files['plain.bin'], 'utf8'), 'hello')
})

test('a file of unknown size is capped by options.maxBytes: ERR_NETWORK naming the cap, no partial file', async (t) => {
  const { options, blobs } = await startServer(t, {
    'unsized.bin': {
      head: {},
      get: (_req, res, base) => {
        res.writeHead(200, base)
        flood(res)
      },
    },
    'small.bin': {
      head: {},
      get: (_req, res, base) => {
        res.writeHead(200, base)
        flood(res, 3 * 2 ** 20)
      },
    },
  })
  const { ms, error } = await timed(resolveHubFiles('acme/x', ['unsized.bin'], [], { ...options, maxBytes: 2 ** 20 }))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /unsized\.bin/)
  t.regex(error.message, /1048576 bytes/)
  t.regex(error.message, /maxBytes/)
  t.true(ms < 5000, `took ${ms} ms`)
  t.deepEqual(await blobFiles(blobs), [])
  // A raised cap lets a bigger file of unknown size through.
  const small = await resolveHubFiles('acme/x', ['small.bin'], [], { ...options, maxBytes: 4 * 2 ** 20 })
  t.is((await readFile(small.files['small.bin'])).length, 3 * 2 ** 20)
})

test('options.maxBytes and options.timeoutMs are checked', async (t) => {
  const opts = { endpoint: 'http://127.0.0.1:9', offline: true, env: {} }
  for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
    await t.throwsAsync(resolveHubFiles('acme/x', ['a'], [], { ...opts, maxBytes }), { instanceOf: RangeError })
  }
  await t.throwsAsync(resolveHubFiles('acme/x', ['a'], [], { ...opts, maxBytes: '1' }), { instanceOf: TypeError })
  for (const timeoutMs of [0, -5, Number.NaN]) {
    await t.throwsAsync(resolveHubFiles('acme/x', ['a'], [], { ...opts, timeoutMs }), { instanceOf: RangeError })
  }
  await t.throwsAsync(resolveHubFiles('acme/x', ['a'], [], { ...opts, timeoutMs: '1' }), { instanceOf: TypeError })
})

/** A body that trickles one byte every 100 ms: the no-progress watchdog never fires. */
const trickle = {
  head: { 'content-length': '1000000' },
  get: (_req, res, base) => {
    res.writeHead(200, { ...base, 'content-length': '1000000' })
    const timer = setInterval(() => res.write('x'), 100)
    res.on('close', () => clearInterval(timer))
  },
}

test('a download that trickles forever fails at the total deadline (options.timeoutMs)', async (t) => {
  const { options } = await startServer(t, { 'slow.bin': trickle })
  const { ms, error } = await timed(resolveHubFiles('acme/x', ['slow.bin'], [], { ...options, timeoutMs: 1500 }))
  t.is(error?.code, 'ERR_NETWORK')
  t.regex(error.message, /1500 ms/)
  t.regex(error.message, /timeoutMs/)
  t.true(ms >= 1400 && ms < 5000, `took ${ms} ms`)
})

test('under the default deadline, the AbortSignal still cancels a trickling download', async (t) => {
  const { options } = await startServer(t, { 'slow.bin': trickle })
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 300)
  const { ms, error } = await timed(
    resolveHubFiles('acme/x', ['slow.bin'], [], { ...options, signal: controller.signal }),
  )
  t.is(error?.name, 'AbortError')
  t.true(ms < 3000, `took ${ms} ms`)
})

test('a signal aborted between the metadata request and the download still cancels it', async (t) => {
  const { options } = await startServer(t, { 'slow.bin': trickle })
  const controller = new AbortController()
  // The abort lands after the HEAD answered and before the GET starts: no abort event reaches the GET.
  const fetchThenAbort = async (url, init) => {
    const res = await fetch(url, init)
    if (init?.method === 'HEAD') controller.abort()
    return res
  }
  const { ms, error } = await timed(
    resolveHubFiles('acme/x', ['slow.bin'], [], { ...options, signal: controller.signal, fetch: fetchThenAbort }),
  )
  t.is(error?.name, 'AbortError')
  t.true(ms < 3000, `took ${ms} ms`)
})

test('a model load from the hub has one deadline for all its files (options.timeoutMs of load)', async (t) => {
  const { CrossEncoder } = await import('../../dist/esm/index.js')
  const { options } = await startServer(t, {
    // 7 bytes over 1400 ms: the first files of the load take most of the deadline
    'tokenizer.json': {
      head: { 'content-length': '7' },
      get: (_req, res, base) => {
        res.writeHead(200, { ...base, 'content-length': '7' })
        let n = 0
        const timer = setInterval(() => (++n === 7 ? res.end('}') : res.write(n === 1 ? '{' : ' ')), 200)
        res.on('close', () => clearInterval(timer))
      },
    },
    'onnx/model.onnx': trickle,
  })
  const { ms, error } = await timed(CrossEncoder.load('acme/x', { ...options, timeoutMs: 2000 }))
  t.is(error?.code, 'ERR_NETWORK', error?.message)
  t.regex(error.message, /2000 ms \(options\.timeoutMs\)/)
  t.regex(error.message, /model\.onnx/)
  // 2000 ms for the load, not 2000 ms more for the graph after 1400 ms of tokenizer
  t.true(ms >= 1900 && ms < 3000, `took ${ms} ms`)
})
