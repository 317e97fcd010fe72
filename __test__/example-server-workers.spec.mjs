// examples/server with --dir and --workers 2: one writer and one reader process on one index directory and
// one port. Both answer searches; a write sent to either lands in the writer and is seen by both; a killed
// reader is forked again; what the writer acknowledged is in the directory after the server stops.
import test from 'ava'
import { spawn } from 'node:child_process'
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bm25Index, VectorIndex } from '../dist/esm/index.js'

const MAIN = fileURLToPath(new URL('../examples/server/main.mjs', import.meta.url))
const DEMO_DOCS = 384

/** One request on a connection of its own (the primary hands connections to the workers in turn). */
function call(url, path, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      `${url}${path}`,
      {
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: data === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }))
      },
    )
    // A connection handed to a worker as it was killed gets no answer: give up on it.
    req.setTimeout(2000, () => req.destroy(new Error('no answer')))
    req.on('error', reject)
    req.end(data)
  })
}

/** Starts the server on a free port; resolves with { url, proc, exited } once the primary says it is ready. */
function startServer(t, dir) {
  const proc = spawn(
    process.execPath,
    [
      MAIN,
      '--dir',
      dir,
      '--workers',
      '2',
      '--port',
      '0',
      '--no-reranker',
      '--commit-interval',
      '100',
      '--refresh-interval',
      '100',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal)))
  t.teardown(() => proc.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    let out = ''
    proc.stdout.on('data', (d) => {
      out += d
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url && out.includes('ready\n')) resolve({ url, proc, exited })
    })
    exited.then((code) => reject(new Error(`the server exited (${code}): ${out}`)))
  })
}

/** /readyz of each worker (keyed by role) once both have answered, within `ms`. */
async function byRole(url, until, ms = 10_000) {
  const deadline = Date.now() + ms
  const seen = {}
  while (Date.now() < deadline) {
    const { body } = await call(url, '/readyz').catch(() => ({ body: {} }))
    if (body.ready) seen[body.role] = body
    if (seen.writer && seen.reader && until(seen)) return seen
    await new Promise((r) => setTimeout(r, 20))
  }
  return seen
}

test('two workers on one directory: both serve, writes through either reach both, a killed reader comes back', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'ragrank-workers-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const dir = join(root, 'index')
  const { url, proc, exited } = await startServer(t, dir)
  const first = await byRole(url, () => true)
  t.is(first.writer.indexes.bm25, DEMO_DOCS)
  t.is(first.reader.indexes.bm25, DEMO_DOCS, 'the reader maps what the writer built and committed')
  t.not(first.writer.pid, first.reader.pid)

  // Connections go round-robin: some of these land on the reader, which forwards them to the writer.
  for (let i = 0; i < 6; i++) {
    const added = await call(url, '/documents', {
      documents: [{ id: `new/${i}`, text: `zzyzx quokka ${i}` }],
      refresh: true,
    })
    t.is(added.status, 201, JSON.stringify(added.body))
  }
  const duplicate = await call(url, '/documents', { documents: [{ id: 'new/0', text: 'again' }] })
  t.is(duplicate.status, 400, 'an error in the writer reaches the client through the reader too')
  t.is(duplicate.body.error, 'ERR_DUPLICATE_ID')
  const both = await byRole(
    url,
    (s) => s.writer.indexes.bm25 === DEMO_DOCS + 6 && s.reader.indexes.bm25 === DEMO_DOCS + 6,
  )
  t.is(both.reader?.indexes.bm25, DEMO_DOCS + 6, 'the reader sees the commits')
  t.is(both.reader?.indexes.vectors, DEMO_DOCS + 6)
  for (let i = 0; i < 4; i++) {
    const { body } = await call(url, '/search/bm25?q=zzyzx&topK=10')
    t.is(body.hits.length, 6)
  }

  process.kill(first.reader.pid, 'SIGKILL')
  const again = await byRole(url, (s) => s.reader.pid !== first.reader.pid)
  t.not(again.reader?.pid, first.reader.pid, 'a new reader was forked')
  t.is(again.reader?.indexes.bm25, DEMO_DOCS + 6)

  proc.kill('SIGTERM')
  t.is(await exited, 0)
  const [bm25, vectors] = await Promise.all([
    Bm25Index.open(dir, { readOnly: true }),
    VectorIndex.open(dir, { readOnly: true }),
  ])
  t.is(bm25.size, DEMO_DOCS + 6)
  t.is(vectors.size, DEMO_DOCS + 6)
})
