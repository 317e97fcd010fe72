// The ragrank subcommands. Each takes the parsed options and writes to stdout (or the file of --output); errors are
// thrown as UsageError (exit 2) or InputError / library errors (exit 1) and reported by bin/ragrank.mjs.
// Output conventions, the same in every command: --json prints JSON to stdout, --output FILE writes it to FILE, and
// "-" as an output file means stdout.
import { spawnSync } from 'node:child_process'
import { existsSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import {
  AbortError,
  AutoMergingRetriever,
  Bm25Index,
  HierarchicalSplitter,
  VectorIndex,
  VectorRetriever,
  evaluate,
} from 'ragrank'
import { EXIT, InputError, UsageError } from './errors.mjs'
import { isStdout, openOutput, outputTarget, withOutput, writeAtomic, writeTo } from './output.mjs'
import {
  asUsage,
  bm25Options,
  bm25Run,
  buildBm25,
  denseRetriever,
  embedInto,
  hybrid,
  loadEmbedder,
  loadCrossEncoder,
  metricList,
  rerankRun,
  retrieverRun,
  VARIANTS,
} from './pipeline.mjs'
import { progressBar, readingBar } from './progress.mjs'
import { openDocuments, readDocuments, readJsonl, readQrels, readQueries, requirePath } from './readers.mjs'
import { metricsTable } from './table.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** Nodes of a split index live next to it, so search can merge leaves back into larger blocks. */
export const nodesPath = (indexPath) => `${indexPath}.nodes.jsonl`
/** Document vectors of an index built with --embed, for `search --hybrid`. */
export const vectorsPath = (indexPath) => `${indexPath}.vectors`
/** Texts of an index built with --embed: dense-only hits of `search --hybrid` get their text from here. */
export const textsPath = (indexPath) => `${indexPath}.texts.jsonl`

/** Documents read and processed at a time by index and split: bounds memory, whatever the corpus size. */
const BATCH = 2000
/**
 * Documents `index` adds at once (staged, published at the end): big adds cross to Rust in parts analysed beside the
 * conversion, and each staged add is one more id set that every later add checks its ids against.
 */
const ADD_CHUNK = 65_536

/** Stages `docs` in `index` (visible at its next refresh); returns a new, empty pending list. */
function addStaged(index, docs) {
  if (docs.length > 0) index.add(docs, { refresh: false })
  return []
}
const jsonLines = (items) => items.map((x) => `${JSON.stringify(x)}\n`).join('')

export function blockSizes(s) {
  const sizes = String(s).split(',').map(Number)
  if (sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new UsageError(`block sizes must be positive integers like 512,128,32, got ${s}`)
  return sizes
}

function splitter(o) {
  const options = {
    blockSizes: blockSizes(o.split ?? o.blockSizes),
    splitBy: o.splitBy,
    overlap: nonNegative(o.overlap ?? 0, '--overlap'),
  }
  return asUsage(() => new HierarchicalSplitter(options))
}

/** --text-column and --id-column (undefined unless given: then a wrong one is an error, not row numbers). */
const columnsOf = (o) => ({ textColumn: o.textColumn, idColumn: o.idColumn })

/** The documents of `source` in arrays of up to `size`. */
async function* batches(source, size) {
  let batch = []
  for await (const d of source) {
    batch.push(d)
    if (batch.length === size) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

const stopIfAborted = (signal) => {
  if (signal?.aborted) throw new AbortError()
}
// A batch blocks the loop for tens of milliseconds: yield so SIGINT and the progress bar's redraw get their turn.
const yieldToLoop = () => new Promise((r) => setImmediate(r))

/**
 * Streams the input a batch at a time: split (with --split), add to the index, embed (with --embed), and write the
 * sidecars as it goes, so memory holds the index and one batch, never the file. The sidecars are written to
 * temporary files and put in place only after the index is saved.
 */
export async function indexCommand(input, o, signal) {
  if (!o.output) throw new UsageError('missing -o <index file>')
  if (isStdout(o.output))
    throw new UsageError('index writes an index file and its sidecar files: give -o a file path, not -')
  // The file the index replaces (after links): its sidecars live beside it. Checked before any input is read.
  const base = outputTarget(o.output)
  for (const f of [nodesPath(base), vectorsPath(base), textsPath(base)]) outputTarget(f)
  const options = bm25Options(o)
  nonNegative(o.overlap, '--overlap') // checked even without --split, where it has no effect
  const split = o.split ? splitter(o) : undefined
  const source = openDocuments(input, columnsOf(o))
  const embedder = o.embed ? await loadEmbedder(o.embed) : undefined
  // A bulk load: nothing is published until the end (one refresh, one segment), as Elasticsearch's refresh is turned
  // off for one; publishing each batch made hundreds of segments for the background to merge while the build ran.
  const index = new Bm25Index({ ...options, refreshInterval: 0 })
  const vectors = embedder ? new VectorIndex({ dim: embedder.dim }) : undefined
  const nodesOut = split ? openOutput(nodesPath(base)) : undefined
  const textsOut = embedder ? openOutput(textsPath(base)) : undefined
  const vectorsTmp = `${vectorsPath(base)}.${process.pid}.tmp`
  const bar = readingBar(embedder ? 'indexing and embedding' : 'indexing', source, {
    enabled: o.progress && process.stderr.isTTY,
  })
  let documents = 0
  let indexed = 0
  let pending = []
  try {
    for await (const docs of batches(source, BATCH)) {
      stopIfAborted(signal)
      documents += docs.length
      let toIndex = docs
      if (split) {
        const nodes = await split.splitAsync(docs, { signal })
        await nodesOut.write(jsonLines(nodes))
        toIndex = nodes.filter((n) => n.childrenIds.length === 0).map((n) => ({ id: n.id, text: n.text }))
      }
      // A loop, not push(...toIndex): a split batch's leaves can outnumber the arguments a call may take.
      for (const d of toIndex) pending.push(d)
      if (pending.length >= ADD_CHUNK) pending = addStaged(index, pending)
      if (embedder) {
        for (let i = 0; i < toIndex.length; i += 256)
          await embedInto(embedder, vectors, toIndex.slice(i, i + 256), { signal })
        await textsOut.write(jsonLines(toIndex.map((d) => ({ id: d.id, text: d.text }))))
      }
      indexed += toIndex.length
      bar.update(documents)
      await yieldToLoop()
    }
    stopIfAborted(signal)
    addStaged(index, pending)
    await index.refresh()
    // An empty input is a mistake to report, not an index of nothing.
    if (documents === 0) throw new InputError(input, 0, 'no documents to index')
    if (index.stats().terms === 0) throw new InputError(input, 0, `the ${documents} documents hold no words to index`)
    // The sidecars are finished under temporary names, then the index is saved (atomically), then the sidecars are
    // renamed into place at once, synchronously: a Ctrl-C or a failure before that leaves the old index and its old
    // sidecars as they were, never an old index without its nodes nor a new index with old ones.
    if (vectors) await vectors.save(vectorsTmp, { signal })
    await textsOut?.finish()
    await nodesOut?.finish()
    await index.save(o.output, { signal })
    if (vectors) renameSync(vectorsTmp, vectorsPath(base))
    textsOut?.place()
    nodesOut?.place()
    // Sidecars of an earlier build that this one does not have would not match the new index.
    if (!split) rmSync(nodesPath(base), { force: true })
    if (!vectors) rmSync(vectorsPath(base), { force: true })
    if (!embedder) rmSync(textsPath(base), { force: true })
  } catch (e) {
    nodesOut?.discard()
    textsOut?.discard()
    rmSync(vectorsTmp, { force: true })
    throw e
  } finally {
    bar.stop()
  }
  const s = index.stats()
  const what = split ? `${indexed} leaves of ${documents} documents` : `${indexed} documents`
  console.error(`indexed ${what} (${s.terms} terms) → ${o.output}`)
  if (o.json)
    await writeTo(
      process.stdout,
      `${JSON.stringify({ output: o.output, documents, indexed, terms: s.terms, split: !!split, embedded: !!vectors })}\n`,
    )
}

/** Every line of a JSONL sidecar, read as a stream (a split index's nodes can outgrow one string). */
async function readSidecar(path) {
  const out = []
  for await (const { value } of readJsonl(path)) out.push(value)
  return out
}

async function openIndex(path) {
  requirePath(path, 'index file')
  const index = await Bm25Index.load(path)
  // Sidecars live beside the file the index path leads to (index -o follows links the same way).
  const base = realpathSync(path)
  const nodes = existsSync(nodesPath(base)) ? await readSidecar(nodesPath(base)) : undefined
  if (nodes) {
    const leaves = nodes.reduce((n, d) => n + (d.childrenIds?.length === 0 ? 1 : 0), 0)
    if (leaves !== index.size)
      throw new InputError(
        nodesPath(base),
        0,
        `holds ${leaves} leaves but ${path} indexes ${index.size}: it belongs to another build; rebuild with ragrank index ... --split`,
      )
  }
  return { index, nodes, base }
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
  const texts = existsSync(textsPath(indexPath)) ? await readSidecar(textsPath(indexPath)) : []
  return new VectorRetriever({
    index: vectors,
    embed: embedder,
    documents: new Map(texts.map((d) => [d.id, { text: d.text }])),
  })
}

/** The hits of one query as text lines for a terminal. */
const hitLines = (hits) =>
  hits
    .map(
      (h, i) =>
        `${String(i + 1).padStart(3)}. ${h.score.toFixed(4)}  ${h.id}  ${h.text.replace(/\s+/g, ' ').slice(0, 100)}\n`,
    )
    .join('')

/**
 * Where a command's JSON goes, the same rule everywhere: to stdout with --json or --output -, to a file with
 * --output FILE (then stdout keeps the human-readable output, unless --json asks for JSON there too).
 */
function jsonTargets(o) {
  return { stdout: o.json === true || o.output === '-', file: isStdout(o.output) ? undefined : o.output }
}

export async function searchCommand(indexPath, query, o) {
  const topK = positive(o.topK, '--top-k')
  const candidates = positive(o.candidates, '--candidates')
  const targets = jsonTargets(o)
  const { index, nodes, base } = await openIndex(indexPath)
  let retriever = nodes && o.merge ? new AutoMergingRetriever({ retriever: index, store: nodes }) : index
  if (o.hybrid) retriever = hybrid(retriever, await storedDense(base, o.model))
  const encoder = o.rerank ? await loadCrossEncoder(o.rerank) : undefined
  const textOf = (h) => h.text ?? h.node?.text ?? ''
  const run = async (q, file) => {
    let hits = await retriever.retrieve(q, { topK: encoder ? Math.max(topK, candidates) : topK })
    hits = hits.map((h) => ({ id: h.id, score: h.score, text: textOf(h) }))
    if (encoder)
      hits = (await encoder.rerank(q, hits)).slice(0, topK).map(({ id, score, text }) => ({ id, score, text }))
    const line = `${JSON.stringify({ query: q, hits })}\n`
    await writeTo(process.stdout, targets.stdout ? line : hitLines(hits))
    await file?.write(line)
  }
  const file = targets.file ? openOutput(targets.file) : undefined
  try {
    if (query !== undefined) await run(query, file)
    else {
      // Interactive: one query per line until end of input (Ctrl-D).
      const rl = createInterface({ input: process.stdin, terminal: process.stdin.isTTY })
      if (process.stdin.isTTY) console.error('type a query and press Enter; Ctrl-D to quit')
      for await (const line of rl) if (line.trim()) await run(line.trim(), file)
    }
    await file?.commit()
  } catch (e) {
    file?.discard()
    throw e
  }
}

/** Warns (stderr) when the judgements cannot match anything, which would otherwise show as a table of zeros. */
function warnIfUnjudged(docs, queries, qrels) {
  const judgedQueries = Object.keys(qrels)
  const queryIds = new Set(queries.map((q) => q.id))
  if (judgedQueries.length > 0 && !judgedQueries.some((q) => queryIds.has(q)))
    console.error(
      `ragrank: warning: none of the ${judgedQueries.length} judged query ids (e.g. ${JSON.stringify(judgedQueries[0])}) ` +
        'is a query id of --queries: every metric will be 0',
    )
  const judgedDocs = new Set(Object.values(qrels).flatMap((j) => Object.keys(j)))
  const docIds = new Set(docs.map((d) => d.id))
  if (judgedDocs.size > 0 && ![...judgedDocs].some((d) => docIds.has(d))) {
    const [judged] = judgedDocs
    console.error(
      `ragrank: warning: none of the ${judgedDocs.size} judged document ids (e.g. ${JSON.stringify(judged)}) occurs ` +
        `in the corpus (ids like ${JSON.stringify(docs[0]?.id)}): every metric will be 0; check that the qrels belong ` +
        'to this corpus and, for CSV/TSV, the --id-column',
    )
  }
}

export async function evalCommand(o) {
  for (const k of ['corpus', 'queries', 'qrels']) if (!o[k]) throw new UsageError(`missing --${k} <file>`)
  const targets = jsonTargets(o)
  const metrics = metricList(o.metrics)
  asUsage(() => evaluate({}, {}, metrics))
  const variants = String(o.variants)
    .split(',')
    .map((v) => v.trim())
  for (const v of variants)
    if (!VARIANTS.includes(v)) throw new UsageError(`unknown variant "${v}"; choose from ${VARIANTS.join(', ')}`)
  const options = Object.fromEntries(variants.map((variant) => [variant, bm25Options({ ...o, variant })]))
  const depth = positive(o.topK, '--top-k')
  const candidates = positive(o.candidates, '--candidates')
  if (o.hybrid && !o.model) throw new UsageError('--hybrid needs --model <embedding model folder>')
  const docs = await readDocuments(o.corpus, columnsOf(o))
  const queries = await readQueries(o.queries)
  const qrels = await readQrels(o.qrels)
  warnIfUnjudged(docs, queries, qrels)
  const show = o.progress && process.stderr.isTTY
  /** Runs `step(onProgress)` under a bar of `total` items. */
  const withBar = async (label, total, step) => {
    const bar = progressBar(label, total, { enabled: show })
    try {
      return await step((n) => bar.update(n))
    } finally {
      bar.stop()
    }
  }
  const results = {}
  let first
  for (const variant of variants) {
    const index = await withBar(`indexing ${variant}`, docs.length, (onProgress) =>
      buildBm25(docs, options[variant], { onProgress }),
    )
    const run = await withBar(`searching ${variant}`, queries.length, (onProgress) =>
      bm25Run(index, queries, depth, { onProgress }),
    )
    first ??= { index, run }
    results[`bm25 ${variant}`] = evaluate(run, qrels, metrics).mean
  }
  if (o.rerank) {
    const encoder = await loadCrossEncoder(o.rerank)
    const reranked = await withBar('reranking', queries.length, (onProgress) =>
      rerankRun(encoder, queries, first.run, candidates, { onProgress }),
    )
    for (const q of queries) reranked[q.id] = [...reranked[q.id], ...first.run[q.id].slice(candidates)]
    results[`bm25 ${variants[0]} + rerank top ${candidates}`] = evaluate(reranked, qrels, metrics).mean
  }
  if (o.hybrid) {
    const dense = await withBar('embedding', docs.length, (onProgress) => denseRetriever(o.model, docs, { onProgress }))
    const denseRun = await withBar('searching dense', queries.length, (onProgress) =>
      retrieverRun(dense, queries, depth, { onProgress }),
    )
    results.dense = evaluate(denseRun, qrels, metrics).mean
    const hybridRun = await withBar('searching hybrid', queries.length, (onProgress) =>
      retrieverRun(hybrid(first.index, dense), queries, depth, { onProgress }),
    )
    results[`hybrid bm25 ${variants[0]} + dense (rrf)`] = evaluate(hybridRun, qrels, metrics).mean
  }
  const json = `${JSON.stringify({ corpus: o.corpus, queries: queries.length, metrics, results }, null, 2)}\n`
  // JSON on stdout replaces the table, so stdout stays one parseable document.
  await writeTo(process.stdout, targets.stdout ? json : `${metricsTable(results, metrics)}\n`)
  if (targets.file) writeAtomic(targets.file, json)
}

/** Streams the documents a batch at a time and writes their nodes as JSON lines as they come. */
export async function splitCommand(input, o, signal) {
  const split = splitter(o)
  const source = openDocuments(input, columnsOf(o))
  await withOutput(o.output, async (out) => {
    for await (const docs of batches(source, BATCH)) {
      stopIfAborted(signal)
      await out.write(jsonLines(await split.splitAsync(docs, { signal })))
    }
  })
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

function nonNegative(v, name) {
  const n = String(v).trim() === '' ? Number.NaN : Number(v)
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a non-negative integer, got ${v}`)
  return n
}
