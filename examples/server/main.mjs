#!/usr/bin/env node
// Starts the example server: `node examples/server/main.mjs [--port 3000]` serves the demo corpus with the
// repository's tiny test models, offline; --help lists the flags for bigger data.
import cluster from 'node:cluster'
import { parseArgs } from 'node:util'
import { buildServer } from './app.mjs'
import { loadStack, openDirectoryStack } from './load-stack.mjs'
import { forwardedWrites, serveForwardedWrites, superviseWorkers } from './workers.mjs'

const { values: f } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '3000' },
    docs: { type: 'string' },
    'bm25-index': { type: 'string' },
    'vector-index': { type: 'string' },
    vectors: { type: 'string' },
    dim: { type: 'string' },
    embedder: { type: 'string' },
    reranker: { type: 'string' },
    'no-embedder': { type: 'boolean' },
    'no-reranker': { type: 'boolean' },
    'max-length': { type: 'string' },
    'rerank-depth': { type: 'string', default: '20' },
    'no-coalesce': { type: 'boolean' },
    dir: { type: 'string' },
    workers: { type: 'string', default: '1' },
    'commit-interval': { type: 'string', default: '1000' },
    'refresh-interval': { type: 'string', default: '1000' },
    log: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
})

if (f.help) {
  console.log(`usage: node examples/server/main.mjs [flags]
  --host H --port P            where to listen (default 127.0.0.1:3000; port 0 picks a free one)
  --docs FILE                  documents: JSONL ({id|_id, text, meta?}), CSV/TSV with a header, or a folder
  --vectors FILE --dim N       their vectors: raw float32, one row per document in file order
  --bm25-index F --vector-index F   indexes written by save() instead of --docs
  --embedder DIR|ID            embeds text queries and documents without vectors (default: tiny test model)
  --reranker DIR|ID            cross-encoder of /search/hybrid-rerank (default: tiny test model)
  --no-embedder --no-reranker  run without them
  --max-length N               reranker tokens per pair
  --rerank-depth N             hybrid hits reranked (default 20)
  --no-coalesce                one native vector search per request (no VectorIndex.searchAsync)
  --dir DIR                    serve an index directory (built from --docs the first time), durability 'sync'
  --workers N                  with --dir: N processes on one port, the first the writer, the others readers
  --commit-interval MS         with --dir: the writer commits this often after writes (default 1000)
  --refresh-interval MS        with --dir: readers look for new commits this often (default 1000)
  --log                        Fastify's request log on stdout`)
  process.exit(0)
}

const workers = Number(f.workers)
if (f.dir && cluster.isPrimary && workers > 1) {
  const { address, stop } = await superviseWorkers(workers)
  console.log(`listening on http://${address.address}:${address.port} (${workers} workers on ${f.dir}: 1 writer)`)
  console.log('ready')
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, stop)
} else {
  const models = {
    embedder: f['no-embedder'] ? null : f.embedder,
    reranker: f['no-reranker'] ? null : f.reranker,
    maxLength: f['max-length'] && Number(f['max-length']),
  }
  const role = process.env.RAGRANK_ROLE ?? 'writer'
  const stack = f.dir
    ? openDirectoryStack({
        dir: f.dir,
        role,
        docs: f.docs,
        vectors: f.vectors,
        dim: f.dim && Number(f.dim),
        commitInterval: Number(f['commit-interval']),
        refreshInterval: Number(f['refresh-interval']),
        ...models,
      }).then((s) => {
        if (role === 'reader') s.writes = forwardedWrites(s)
        else if (cluster.isWorker) serveForwardedWrites(s.writes, s.commit)
        return { ...s, role }
      })
    : loadStack({
        docs: f.docs,
        bm25Index: f['bm25-index'],
        vectorIndex: f['vector-index'],
        vectors: f.vectors,
        dim: f.dim && Number(f.dim),
        ...models,
      })
  const app = buildServer({ stack, rerankDepth: Number(f['rerank-depth']), coalesce: !f['no-coalesce'], logger: f.log })
  const address = await app.listen({ host: f.host, port: Number(f.port) })
  if (cluster.isPrimary) console.log(`listening on ${address} (GET /readyz says when the indexes are loaded)`)
  const loaded = await stack
  if (cluster.isWorker) process.send({ type: 'ready' })
  else console.log('ready')
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () =>
      app
        .close()
        .then(() => loaded.close?.())
        .then(() => process.exit(0)),
    )
}
