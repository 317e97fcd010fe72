#!/usr/bin/env node
// Starts the example server: `node examples/server/main.mjs [--port 3000]` serves the demo corpus with the
// repository's tiny test models, offline; --help lists the flags for bigger data.
import { parseArgs } from 'node:util'
import { buildServer } from './app.mjs'
import { loadStack } from './load-stack.mjs'

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
  --log                        Fastify's request log on stdout`)
  process.exit(0)
}

const stack = loadStack({
  docs: f.docs,
  bm25Index: f['bm25-index'],
  vectorIndex: f['vector-index'],
  vectors: f.vectors,
  dim: f.dim && Number(f.dim),
  embedder: f['no-embedder'] ? null : f.embedder,
  reranker: f['no-reranker'] ? null : f.reranker,
  maxLength: f['max-length'] && Number(f['max-length']),
})
const app = buildServer({ stack, rerankDepth: Number(f['rerank-depth']), coalesce: !f['no-coalesce'], logger: f.log })
const address = await app.listen({ host: f.host, port: Number(f.port) })
console.log(`listening on ${address} (GET /readyz says when the indexes are loaded)`)
await stack
console.log('ready')
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => app.close().then(() => process.exit(0)))
