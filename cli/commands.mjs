// The ragrank subcommands. Each takes the parsed options and writes to stdout; errors are thrown as UsageError
// (exit 2) or InputError / library errors (exit 1) and reported by bin/ragrank.mjs.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { fileURLToPath } from 'node:url'
import { AutoMergingRetriever, Bm25Index, HierarchicalSplitter, VectorIndex, VectorRetriever, evaluate } from 'ragrank'
import { EXIT, UsageError } from './errors.mjs'
import {
  bm25Options,
  bm25Run,
  buildBm25,
  denseRetriever,
  embedAll,
  hybrid,
  loadEmbedder,
  loadCrossEncoder,
  metricList,
  rerankRun,
  retrieverRun,
  VARIANTS,
} from './pipeline.mjs'
import { progressBar } from './progress.mjs'
import { readDocuments, readQrels, readQueries, requirePath } from './readers.mjs'
import { metricsTable } from './table.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** Nodes of a split index live next to it, so search can merge leaves back into larger blocks. */
export const nodesPath = (indexPath) => `${indexPath}.nodes.jsonl`
/** Document vectors of an index built with --embed, for `search --hybrid`. */
export const vectorsPath = (indexPath) => `${indexPath}.vectors`
/** Texts of an index built with --embed: dense-only hits of `search --hybrid` get their text from here. */
export const textsPath = (indexPath) => `${indexPath}.texts.jsonl`

export function blockSizes(s) {
  const sizes = String(s).split(',').map(Number)
  if (sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new UsageError(`block sizes must be positive integers like 512,128,32, got ${s}`)
  return sizes
}

/** Writes a file through a temp name and a rename, so an interrupted run never leaves half a file. */
function writeAtomic(path, text) {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text)
    renameSync(tmp, path)
  } finally {
    rmSync(tmp, { force: true })
  }
}

function splitter(o) {
  return new HierarchicalSplitter({
    blockSizes: blockSizes(o.split ?? o.blockSizes),
    splitBy: o.splitBy,
    overlap: Number(o.overlap ?? 0),
  })
}

export async function indexCommand(input, o, signal) {
  if (!o.output) throw new UsageError('missing -o <index file>')
  const docs = readDocuments(input, { textColumn: o.textColumn, idColumn: o.idColumn })
  const options = bm25Options(o)
  let nodes
  let toIndex = docs
  if (o.split) {
    nodes = await splitter(o).splitAsync(docs, { signal })
    toIndex = nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text }))
  }
  const bar = progressBar('indexing', toIndex.length, { enabled: o.progress && process.stderr.isTTY })
  let index
  try {
    index = await buildBm25(toIndex, options, { signal, onProgress: (n) => bar.update(n) })
  } finally {
    bar.stop()
  }
  let vectors
  if (o.embed) {
    const embedder = await loadEmbedder(o.embed)
    const vbar = progressBar('embedding', toIndex.length, { enabled: o.progress && process.stderr.isTTY })
    vectors = await embedAll(embedder, toIndex, { signal, onProgress: (n) => vbar.update(n) }).finally(() =>
      vbar.stop(),
    )
  }
  // Sidecars of an earlier build would not match the new index: remove them first, so an interruption below leaves
  // at worst an index without sidecars (search then says to rebuild), never a mismatched pair.
  for (const f of [nodesPath(o.output), vectorsPath(o.output), textsPath(o.output)]) rmSync(f, { force: true })
  await index.save(o.output, { signal })
  if (vectors) {
    await vectors.save(vectorsPath(o.output), { signal })
    writeAtomic(textsPath(o.output), `${toIndex.map((d) => JSON.stringify({ id: d.id, text: d.text })).join('\n')}\n`)
  }
  if (nodes) writeAtomic(nodesPath(o.output), `${nodes.map((n) => JSON.stringify(n)).join('\n')}\n`)
  const s = index.stats()
  console.error(
    `indexed ${toIndex.length} ${nodes ? `leaves of ${docs.length} documents` : 'documents'} (${s.terms} terms) → ${o.output}`,
  )
}

async function openIndex(path) {
  requirePath(path, 'index file')
  const index = await Bm25Index.load(path)
  const sidecar = nodesPath(path)
  const nodes = existsSync(sidecar)
    ? readFileSync(sidecar, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : undefined
  return { index, nodes }
}

/** The dense half of `search --hybrid`: the vectors saved by `index --embed` and the same model for queries. */
async function storedDense(indexPath, model) {
  if (!model) throw new UsageError('--hybrid needs --model <the embedding model folder the index was built with>')
  if (!existsSync(vectorsPath(indexPath)))
    throw new UsageError(`${indexPath} has no vectors: rebuild it with ragrank index ... --embed <model folder>`)
  const [vectors, embedder] = await Promise.all([VectorIndex.load(vectorsPath(indexPath)), loadEmbedder(model)])
  if (vectors.dim !== embedder.dim)
    throw new UsageError(
      `--model makes ${embedder.dim}-dimensional vectors but the index holds ${vectors.dim}: use the model given to --embed`,
    )
  const texts = existsSync(textsPath(indexPath))
    ? readFileSync(textsPath(indexPath), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []
  return new VectorRetriever({
    index: vectors,
    embed: embedder,
    documents: new Map(texts.map((d) => [d.id, { text: d.text }])),
  })
}

export async function searchCommand(indexPath, query, o) {
  const topK = positive(o.topK, '--top-k')
  const { index, nodes } = await openIndex(indexPath)
  let retriever = nodes && o.merge ? new AutoMergingRetriever({ retriever: index, store: nodes }) : index
  if (o.hybrid) retriever = hybrid(retriever, await storedDense(indexPath, o.model))
  const encoder = o.rerank ? await loadCrossEncoder(o.rerank) : undefined
  const textOf = (h) => h.text ?? h.node?.text ?? ''
  const run = async (q) => {
    let hits = await retriever.retrieve(q, {
      topK: encoder ? Math.max(topK, positive(o.candidates, '--candidates')) : topK,
    })
    hits = hits.map((h) => ({ id: h.id, score: h.score, text: textOf(h) }))
    if (encoder)
      hits = (await encoder.rerank(q, hits)).slice(0, topK).map(({ id, score, text }) => ({ id, score, text }))
    if (o.json) console.log(JSON.stringify({ query: q, hits }))
    else
      for (const [i, h] of hits.entries())
        console.log(
          `${String(i + 1).padStart(3)}. ${h.score.toFixed(4)}  ${h.id}  ${h.text.replace(/\s+/g, ' ').slice(0, 100)}`,
        )
  }
  if (query !== undefined) return run(query)
  // Interactive: one query per line until end of input (Ctrl-D).
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY })
  if (process.stdin.isTTY) console.error('type a query and press Enter; Ctrl-D to quit')
  for await (const line of rl) if (line.trim()) await run(line.trim())
}

export async function evalCommand(o) {
  for (const k of ['corpus', 'queries', 'qrels']) if (!o[k]) throw new UsageError(`missing --${k} <file>`)
  const metrics = metricList(o.metrics)
  const variants = String(o.variants)
    .split(',')
    .map((v) => v.trim())
  for (const v of variants)
    if (!VARIANTS.includes(v)) throw new UsageError(`unknown variant "${v}"; choose from ${VARIANTS.join(', ')}`)
  if (o.hybrid && !o.model) throw new UsageError('--hybrid needs --model <embedding model folder>')
  const docs = readDocuments(o.corpus, { textColumn: o.textColumn, idColumn: o.idColumn })
  const queries = readQueries(o.queries)
  const qrels = readQrels(o.qrels)
  const depth = positive(o.topK, '--top-k')
  const results = {}
  let first
  for (const variant of variants) {
    const index = await buildBm25(docs, bm25Options({ ...o, variant }))
    first ??= { index, run: await bm25Run(index, queries, depth) }
    results[`bm25 ${variant}`] = evaluate(
      variant === variants[0] ? first.run : await bm25Run(index, queries, depth),
      qrels,
      metrics,
    ).mean
  }
  if (o.rerank) {
    const encoder = await loadCrossEncoder(o.rerank)
    const n = positive(o.candidates, '--candidates')
    const reranked = await rerankRun(encoder, queries, first.run, n)
    for (const q of queries) reranked[q.id] = [...reranked[q.id], ...first.run[q.id].slice(n)]
    results[`bm25 ${variants[0]} + rerank top ${n}`] = evaluate(reranked, qrels, metrics).mean
  }
  if (o.hybrid) {
    const bar = progressBar('embedding', docs.length, { enabled: o.progress && process.stderr.isTTY })
    const dense = await denseRetriever(o.model, docs, { onProgress: (n) => bar.update(n) }).finally(() => bar.stop())
    results.dense = evaluate(await retrieverRun(dense, queries, depth), qrels, metrics).mean
    results[`hybrid bm25 ${variants[0]} + dense (rrf)`] = evaluate(
      await retrieverRun(hybrid(first.index, dense), queries, depth),
      qrels,
      metrics,
    ).mean
  }
  console.log(metricsTable(results, metrics))
  if (o.json)
    writeAtomic(o.json, `${JSON.stringify({ corpus: o.corpus, queries: queries.length, metrics, results }, null, 2)}\n`)
}

export async function splitCommand(input, o) {
  const docs = readDocuments(input, { textColumn: o.textColumn, idColumn: o.idColumn })
  const nodes = await splitter(o).splitAsync(docs)
  const text = `${nodes.map((n) => JSON.stringify(n)).join('\n')}\n`
  if (o.output) writeAtomic(o.output, text)
  else process.stdout.write(text)
}

/** Runs a script of the package (the demo, or the benchmarks of a repository clone) with the given arguments. */
export function scriptCommand(rel, args) {
  const script = join(root, rel)
  if (!existsSync(script))
    throw new UsageError(`${rel} is not here: it is in a clone of the repository, not in the npm package`)
  const r = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' })
  return r.status ?? EXIT.RUNTIME
}

function positive(v, name) {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${v}`)
  return n
}
