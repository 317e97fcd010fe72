// One server of the benchmark, in its own process: `node bench/server/serve.mjs '<job JSON>'` builds the stack
// ({ stack: 'ragrank' | 'ragrank-workers' | 'js' | 'orama', docs, vectors, dim, reranker: model folder or null,
// coalesce }) over the benchmark data, listens on 127.0.0.1 (a free port) and prints one JSON line
// { port, buildSeconds, rss }. 'ragrank-workers' builds an index directory and serves it with
// examples/server/main.mjs --dir --workers 2 (one writer, one reader process on one port).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bm25Index, CrossEncoder, VectorIndex } from '../../dist/esm/index.js'
import { buildServer } from '../../examples/server/app.mjs'
import { benchCorpus, RERANK_MAX_LENGTH } from './data.mjs'
import { buildPeerServer } from './peer-app.mjs'
import { jsStack, oramaStack, transformersReranker } from './peer-stacks.mjs'

const job = JSON.parse(process.argv[2])
const t0 = performance.now()
const { corpus, vectors, nVectors, dim } = benchCorpus(job)
const docs = Array.from({ length: corpus.nDocs }, (_, i) => ({ id: corpus.docId(i), text: corpus.docText(i) }))
const vectorOf = (i) => vectors.subarray(i * dim, (i + 1) * dim)

async function ragrankApp() {
  const bm25 = new Bm25Index()
  const CHUNK = 100_000 // bounded transient memory at 1M documents
  for (let i = 0; i < docs.length; i += CHUNK) await bm25.addAsync(docs.slice(i, i + CHUNK))
  const index = new VectorIndex({ dim })
  index.add(Array.from({ length: nVectors }, (_, i) => ({ id: docs[i].id, vector: vectorOf(i), text: docs[i].text })))
  const reranker = job.reranker ? await CrossEncoder.load(job.reranker, { maxLength: RERANK_MAX_LENGTH }) : undefined
  return buildServer({ stack: { bm25, vectors: index, reranker }, coalesce: job.coalesce !== false })
}

/** The index directory of the benchmark data, then two workers of the example server on it. */
async function ragrankWorkers() {
  const root = mkdtempSync(path.join(tmpdir(), 'ragrank-bench-workers-'))
  const dir = path.join(root, 'index')
  const bm25 = await Bm25Index.open(dir)
  const CHUNK = 100_000
  for (let i = 0; i < docs.length; i += CHUNK) await bm25.addAsync(docs.slice(i, i + CHUNK))
  const index = await VectorIndex.open(dir, { dim })
  index.add(Array.from({ length: nVectors }, (_, i) => ({ id: docs[i].id, vector: vectorOf(i), text: docs[i].text })))
  await bm25.merge()
  await bm25.close()
  await index.close()
  const main = fileURLToPath(new URL('../../examples/server/main.mjs', import.meta.url))
  const args = [main, '--dir', dir, '--workers', '2', '--port', '0', '--no-embedder']
  args.push(
    ...(job.reranker ? ['--reranker', job.reranker, '--max-length', String(RERANK_MAX_LENGTH)] : ['--no-reranker']),
  )
  if (job.coalesce === false) args.push('--no-coalesce')
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (m && out.includes('ready\n')) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`the workers exited (${code}): ${out}`)))
  })
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        child.on('exit', resolve)
        child.kill('SIGTERM')
      }).finally(() => rmSync(root, { recursive: true, force: true })),
  }
}

async function peerApp() {
  const rerank = job.reranker ? await transformersReranker(job.reranker, RERANK_MAX_LENGTH) : undefined
  const make = job.stack === 'orama' ? oramaStack : jsStack
  return buildPeerServer(await make({ docs, nVectors, vectorOf, dim, rerank }))
}

if (job.stack === 'ragrank-workers') {
  const workers = await ragrankWorkers()
  docs.length = 0
  const buildSeconds = (performance.now() - t0) / 1000
  process.stdout.write(`${JSON.stringify({ port: workers.port, buildSeconds, rss: process.memoryUsage.rss() })}\n`)
  process.on('SIGTERM', () => workers.close().then(() => process.exit(0)))
} else {
  const app = job.stack === 'ragrank' ? await ragrankApp() : await peerApp()
  docs.length = 0 // the indexes hold what they need
  await app.listen({ host: '127.0.0.1', port: 0 })
  const buildSeconds = (performance.now() - t0) / 1000
  process.stdout.write(
    `${JSON.stringify({ port: app.server.address().port, buildSeconds, rss: process.memoryUsage.rss() })}\n`,
  )
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
}
