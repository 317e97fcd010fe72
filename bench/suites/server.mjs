// The server suite: examples/server (ragrank behind Fastify) against the same endpoints built on MiniSearch +
// a JS cosine loop + transformers.js and on Orama, driven by autocannon on loopback, without and with a
// concurrent writer; then a probe of the large-index targets. A soak instead with --soak <minutes>.
//
//   npm run bench -- --suite server                      100k documents, c=1/16/64, all stacks (~15 min here)
//   npm run bench -- --suite server --docs 1m --probe-docs 1m
//   npm run bench -- --suite server --endpoints bm25,vector --concurrency 16 --duration 3 --stacks ragrank
//   npm run bench -- --suite server --soak 30            30 minutes of churn (bench/results/soak.{md,json})
//   node bench/suites/server.mjs [the same flags]        without bench/run.mjs
//   node bench/suites/server.mjs --report                server.md again from server.json and soak.json
//
// Flags: --docs (10k, 100k, 1m or a count; default 100k), --endpoints (bm25, vector, hybrid, hybrid-rerank),
// --concurrency (default 1,16,64), --duration (measured seconds per cell, default 5; 1 s warm-up before),
// --stacks (ragrank, ragrank-workers: two worker processes on an index directory, js, orama), --writer (no,yes: which writer settings to run), --probe-docs (default 1m;
// 0 skips the probe), --soak <minutes>, --vector-encoding (how requests send their query vectors: json number arrays,
// the default, or base64 of float32). RAGRANK_SERVER_NODE_FLAGS: extra node flags for the server process (e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/prof`).
// The rerank model is the rerank suite's bench/.cache/models/minilm-l6-cross-encoder (bench/models/prepare.py);
// without it the hybrid-rerank cells are skipped, saying so. Output: bench/results/server.{md,json}.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { machineInfo } from '../lib/harness.mjs'
import { pkgVersion } from '../lib/peers.mjs'
import { repoRoot, resultsDir } from '../lib/paths.mjs'
import { generateZipf, parseSize } from '../lib/zipf.mjs'
import { queryVectors, RERANK_DEPTH, RERANK_MAX_LENGTH, RERANK_MODEL, TOP_K } from '../server/data.mjs'
import { cell, startServer, startWriter } from '../server/load.mjs'
import { runProbe } from '../server/probe.mjs'
import { vectorBase64 } from '../../examples/server/routes/params.mjs'
import { serverReport, soakReport } from '../server/report.mjs'
import { runSoak } from '../server/soak.mjs'

const ENDPOINTS = ['bm25', 'vector', 'hybrid', 'hybrid-rerank']
const STACKS = ['ragrank', 'ragrank-workers', 'js', 'orama']
const N_QUERIES = 256
const DIM = 384
const VECTORS = 100_000
const ADDS_PER_SECOND = 100
const ADDS_PER_REMOVE = 10
// Rerank replies come in bursts seconds apart (coalesced calls finish together): a window of several bursts.
const RERANK_SECONDS = 30
const RERANK_WARMUP_SECONDS = 3
const log = (m) => process.stderr.write(`${m}\n`)

function oneOf(list, known, flag) {
  for (const x of list) if (!known.includes(x)) throw new Error(`${flag}: unknown ${x}; known: ${known.join(', ')}`)
  return list
}

/** The suite's settings from bench/run.mjs's options (or this file's own flags). */
export function settings(opts) {
  const list = (v, dflt) => (v === undefined ? dflt : Array.isArray(v) ? v : String(v).split(','))
  const s = {
    docs: parseSize(opts.docs ?? '100k'),
    vectors: VECTORS,
    dim: DIM,
    endpoints: oneOf(list(opts.endpoints, ENDPOINTS), ENDPOINTS, '--endpoints'),
    concurrency: list(opts.concurrency, [1, 16, 64]).map(Number),
    seconds: Number(opts.duration ?? 5),
    warmupSeconds: 1,
    rerankSeconds: RERANK_SECONDS,
    rerankWarmupSeconds: RERANK_WARMUP_SECONDS,
    // The warm-up's load runs on into the measured window (the pipeline full when it starts).
    steadyWindow: true,
    stacks: oneOf(list(opts.stacks, STACKS), STACKS, '--stacks'),
    writer: oneOf(list(opts.writer, ['no', 'yes']), ['no', 'yes'], '--writer').map((w) => w === 'yes'),
    probeDocs: parseSize(opts.probeDocs ?? '1m'),
    soak: opts.soak === undefined ? 0 : Number(opts.soak),
    vectorEncoding: oneOf([opts.vectorEncoding ?? 'json'], ['base64', 'json'], '--vector-encoding')[0],
    queries: N_QUERIES,
    topK: TOP_K,
    rerankDepth: RERANK_DEPTH,
    rerankMaxLength: RERANK_MAX_LENGTH,
    addsPerSecond: ADDS_PER_SECOND,
    addsPerRemove: ADDS_PER_REMOVE,
  }
  if (!s.concurrency.every((c) => Number.isInteger(c) && c >= 1)) throw new Error('--concurrency: positive integers')
  if (!(s.seconds > 0)) throw new Error('--duration: seconds > 0')
  if (!(s.soak >= 0)) throw new Error('--soak: minutes >= 0')
  return s
}

/** Request bodies per endpoint: N_QUERIES JSON strings, query texts and vectors taken in turn. */
function requestBodies(corpus, s) {
  const texts = corpus.queries.slice(0, N_QUERIES).map((q) => corpus.queryText(q))
  const vectors = queryVectors(N_QUERIES, s.dim)
  const body = (o) => JSON.stringify({ ...o, topK: s.topK })
  const encoded = vectors.map((v) => (s.vectorEncoding === 'base64' ? vectorBase64(v) : v))
  return {
    bm25: texts.map((query) => body({ query })),
    vector: encoded.map((vector) => body({ vector })),
    hybrid: texts.map((query, i) => body({ query, vector: encoded[i] })),
    'hybrid-rerank': texts.map((query, i) => body({ query, vector: encoded[i] })),
  }
}

const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

function runMeta(opts) {
  const meta = {
    date: new Date().toISOString(),
    loadStart: loadAverage(),
    machine: machineInfo(),
    command: `npm run bench -- ${(opts.argv ?? process.argv.slice(2)).join(' ')}`.trim(),
    versions: Object.fromEntries(
      ['fastify', 'autocannon', 'minisearch', '@orama/orama', '@huggingface/transformers'].map((p) => [
        p,
        pkgVersion(p),
      ]),
    ),
  }
  try {
    meta.ragrank = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim()
  } catch {}
  return meta
}

/** Every cell of one stack's server: endpoints x concurrency x writer. */
async function runStack(
  stack,
  s,
  { corpus, bodies, endpoints, reranker, coalesce = true, concurrency = s.concurrency, writer = s.writer },
) {
  const label = coalesce ? stack : `${stack}-per-call`
  log(`${label}: building over ${s.docs.toLocaleString('en-US')} documents`)
  const server = await startServer(
    {
      stack,
      docs: s.docs,
      vectors: s.vectors,
      dim: s.dim,
      reranker: endpoints.includes('hybrid-rerank') ? reranker : null,
      coalesce,
    },
    { log },
  )
  log(`${label}: ready in ${server.info.buildSeconds.toFixed(1)} s, RSS ${(server.info.rss / 2 ** 20).toFixed(0)} MiB`)
  const cells = []
  let next = 0 // writer ids go on across cells, so every add is a new document
  try {
    // Every frozen cell first: a writer leaves work behind (MiniSearch vacuums discarded documents in the
    // background, ragrank rebuilds impacts) that would slow the frozen cell after it.
    for (const w of writer)
      for (const endpoint of endpoints)
        for (const c of concurrency) {
          const startW = (first) =>
            startWriter(server.url, {
              corpus,
              dim: s.dim,
              first,
              addsPerSecond: s.addsPerSecond,
              addsPerRemove: s.addsPerRemove,
            })
          // A rerank takes about a second here (20 pairs of up to 128 tokens): longer cells, so each has replies.
          const rerank = endpoint === 'hybrid-rerank'
          const seconds = rerank ? Math.max(s.seconds, s.rerankSeconds) : s.seconds
          const r = await cell(server.url, `/search/${endpoint}`, bodies[endpoint], {
            connections: c,
            seconds,
            warmupSeconds: rerank ? Math.max(s.warmupSeconds, s.rerankWarmupSeconds) : s.warmupSeconds,
            writer: w ? startW : null,
            writerFirst: next,
          })
          if (r.writes) next = r.writes.next
          cells.push({ stack: label, endpoint, concurrency: c, writer: w, baseWindow: seconds, ...r })
          log(
            `  ${label} ${endpoint} c=${c}${w ? ' +writer' : ''}: ${r.rps.toFixed(r.rps < 10 ? 2 : 0)} req/s (c / mean latency ${r.littleRps.toFixed(r.littleRps < 10 ? 2 : 0)})${r.window > seconds ? ` (${r.window} s window)` : ''}, p50 ${r.p50} p99 ${r.p99} ms, loop p99 ${r.loopP99.toFixed(1)} ms${r.writes ? `, ${r.writes.addsPerSecond.toFixed(0)} adds/s` : ''}${r.errors + r.non2xx ? `, ${r.errors + r.non2xx} errors` : ''}`,
          )
        }
  } finally {
    await server.stop()
  }
  return { cells, build: { stack: label, seconds: server.info.buildSeconds, rss: server.info.rss } }
}

/** The hand-written notes server.md ends with (server-notes.md beside it), if any. */
function readNotes(outDir) {
  try {
    return readFileSync(path.join(outDir, 'server-notes.md'), 'utf8')
  } catch {
    return null
  }
}

function readSoak(outDir) {
  try {
    return JSON.parse(readFileSync(path.join(outDir, 'soak.json'), 'utf8')).soak
  } catch {
    return null
  }
}

/** server.md again from server.json and the latest soak.json (after a soak that ran later, say). */
export function rewriteServerReport(outDir = resultsDir) {
  const run = JSON.parse(readFileSync(path.join(outDir, 'server.json'), 'utf8'))
  const markdown = serverReport({ ...run, soak: readSoak(outDir), notes: readNotes(outDir) })
  writeFileSync(path.join(outDir, 'server.md'), `${markdown}\n`)
  return { markdown }
}

export async function runServerSuite(opts) {
  const s = settings(opts)
  const outDir = opts.outDir ?? resultsDir
  mkdirSync(outDir, { recursive: true })
  const meta = { ...runMeta(opts), settings: s }
  // The first 10k documents and the query set are the same at every corpus size (bench/lib/zipf.mjs).
  const corpus = generateZipf({ nDocs: Math.min(s.docs, 10_000) })
  const bodies = requestBodies(corpus, s)
  if (s.soak > 0) {
    const docs = opts.docs === undefined ? 10_000 : s.docs
    const soak = await runSoak({
      minutes: s.soak,
      docs,
      vectors: Math.min(s.vectors, docs),
      dim: s.dim,
      corpus,
      bodies: bodies.hybrid,
      log,
    })
    meta.loadEnd = loadAverage()
    const markdown = soakReport(meta, soak)
    writeFileSync(path.join(outDir, 'soak.md'), `${markdown}\n`)
    writeFileSync(path.join(outDir, 'soak.json'), `${JSON.stringify({ meta, soak }, null, 2)}\n`)
    return { markdown }
  }
  const skipped = []
  let endpoints = s.endpoints
  const reranker = existsSync(path.join(RERANK_MODEL, 'onnx', 'model.onnx')) ? RERANK_MODEL : null
  if (!reranker && endpoints.includes('hybrid-rerank')) {
    skipped.push(
      `hybrid-rerank: the benchmark cross-encoder is not at ${path.relative(repoRoot, RERANK_MODEL)} (make it with npm run setup:py, then .venv-py/bin/python bench/models/prepare.py --no-bench)`,
    )
    log(`skipped: ${skipped.at(-1)}`)
    endpoints = endpoints.filter((e) => e !== 'hybrid-rerank')
  }
  const cells = []
  const builds = []
  for (const stack of s.stacks) {
    try {
      const r = await runStack(stack, s, { corpus, bodies, endpoints, reranker })
      cells.push(...r.cells)
      builds.push(r.build)
    } catch (e) {
      // One stack failing (a peer out of memory at 1M documents, say) leaves the others' numbers.
      skipped.push(`${stack}: ${e.message}`)
      log(`skipped: ${skipped.at(-1)}`)
    }
  }
  // Today's single-query path, one searchBatch([q]) per request: the baseline of the coalescing target.
  if (s.stacks.includes('ragrank') && endpoints.includes('vector')) {
    const r = await runStack('ragrank', s, { corpus, bodies, endpoints: ['vector'], coalesce: false, writer: [false] })
    cells.push(...r.cells)
    builds.push(r.build)
  }
  const probe =
    s.probeDocs > 0
      ? await runProbe({
          docs: s.probeDocs,
          vectors: s.vectors,
          dim: s.dim,
          seconds: s.seconds,
          warmupSeconds: s.warmupSeconds,
          corpus,
          bodies: bodies.bm25,
          log,
        })
      : null
  const soak = readSoak(outDir)
  meta.loadEnd = loadAverage()
  const markdown = serverReport({ meta, builds, cells, probe, soak, skipped, notes: readNotes(outDir) })
  writeFileSync(path.join(outDir, 'server.md'), `${markdown}\n`)
  writeFileSync(
    path.join(outDir, 'server.json'),
    `${JSON.stringify({ meta, builds, cells, probe, skipped }, null, 2)}\n`,
  )
  return { markdown }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: Object.fromEntries(
      [
        'docs',
        'endpoints',
        'concurrency',
        'duration',
        'stacks',
        'writer',
        'probe-docs',
        'soak',
        'out',
        'vector-encoding',
      ]
        .map((k) => [k, { type: 'string' }])
        .concat([['report', { type: 'boolean' }]]),
    ),
  })
  const opts = {
    ...values,
    probeDocs: values['probe-docs'],
    vectorEncoding: values['vector-encoding'],
    outDir: values.out && path.resolve(values.out),
  }
  const { markdown } = values.report ? rewriteServerReport(opts.outDir) : await runServerSuite(opts)
  process.stdout.write(`${markdown}\n`)
}
