// The ragrank demo: what the library does, on a small bilingual corpus shipped in demo/ (or on a real collection
// with --data), offline. `npm run demo -- --help` lists the options.
import { existsSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Command } from 'commander'
import { AutoMergingRetriever, Bm25Index, HierarchicalSplitter, evaluate, hubCacheDir } from 'ragrank'
import { EXIT, UsageError } from '../cli/errors.mjs'
import {
  bm25Options,
  bm25Run,
  denseRetriever,
  hybrid,
  loadCrossEncoder,
  metricList,
  rerankRun,
  retrieverRun,
} from '../cli/pipeline.mjs'
import { readDocuments, readQrels, readQueries } from '../cli/readers.mjs'
import { metricsTable } from '../cli/table.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = resolve(here, '..')
// Random-weight test model of the repository: it exercises the reranking pipeline, its scores mean nothing.
const TINY_RERANKER = join(root, 'fixtures/models/tiny-cross-encoder')

const program = new Command('demo')
  .description('ragrank demo: BM25, hybrid, auto-merging, reranking and an evaluation table, offline')
  .option(
    '--data <folder>',
    'a data folder laid out like ../shared/data: run on a real collection instead of the demo corpus',
  )
  .option('--dataset <name>', 'collection under --data: cran, cisi, med, adi or korquad', 'cran')
  .option('--model <dir>', 'embedding model folder (ONNX + tokenizer.json) for the hybrid step')
  .option('--no-cache', 'do not look for an embedding model already on this machine')
  .option('--rerank <dir>', 'cross-encoder model folder; default: the tiny random-weight test model of the repository')
  .option('--metrics <list>', 'metrics of the evaluation table', 'map@3,mrr@10,ndcg@10')
  .exitOverride()

/**
 * An embedding model already on this machine, so the dense and hybrid steps run without --model; never downloads.
 * First multilingual-e5-small as `npm run setup:models` builds it (the demo corpus is half Korean, and an English
 * model cannot retrieve Korean; its READY file marks a finished, checked export), then all-MiniLM-L6-v2: the
 * benchmark's export (bench/models/prepare.py) or a snapshot in the Hugging Face cache. RAGRANK_DEMO_MODELS names
 * another folder to look in instead of bench/.cache/models (the tests use it).
 */
function cachedEmbedder() {
  const models = process.env.RAGRANK_DEMO_MODELS ?? join(root, 'bench/.cache/models')
  const hasModel = (dir) =>
    existsSync(join(dir, 'tokenizer.json')) && ['onnx/model.onnx', 'model.onnx'].some((f) => existsSync(join(dir, f)))
  const e5 = join(models, 'multilingual-e5-small')
  if (hasModel(e5) && existsSync(join(e5, 'READY'))) return e5
  const bench = join(models, 'minilm-l6-embedder')
  if (hasModel(bench)) return bench
  for (const repo of ['sentence-transformers/all-MiniLM-L6-v2', 'Xenova/all-MiniLM-L6-v2']) {
    const snapshots = join(hubCacheDir(), `models--${repo.replace('/', '--')}`, 'snapshots')
    if (!existsSync(snapshots)) continue
    const found = readdirSync(snapshots)
      .map((s) => join(snapshots, s))
      .find(hasModel)
    if (found) return found
  }
  return undefined
}

const snippet = (s, n = 90) => ((t) => (t.length > n ? `${t.slice(0, n - 1)}…` : t))(s.replace(/\s+/g, ' '))
const section = (title) => console.log(`\n== ${title} ==`)

async function loadCollection(o) {
  if (!o.data) {
    const docs = await readDocuments(join(here, 'corpus.jsonl'))
    return {
      name: 'demo corpus (fictional, English + Korean)',
      docs,
      queries: await readQueries(join(here, 'queries.jsonl')),
      qrels: await readQrels(join(here, 'qrels.tsv')),
    }
  }
  if (!existsSync(o.data)) throw new UsageError(`--data folder not found: ${o.data}`)
  const loaders = join(root, 'bench/lib/datasets.mjs')
  if (!existsSync(loaders))
    throw new UsageError(
      '--data needs bench/lib/datasets.mjs, which is in a clone of the repository, not in the npm package',
    )
  process.env.RAGRANK_DATA = resolve(o.data)
  const { DATASETS, hasData, loadDataset } = await import(loaders)
  if (!DATASETS.includes(o.dataset))
    throw new UsageError(`unknown --dataset "${o.dataset}"; choose one of ${DATASETS.join(', ')}`)
  if (!hasData(o.dataset))
    throw new UsageError(`collection "${o.dataset}" not found under ${o.data} (see its README.md for the layout)`)
  const d = loadDataset(o.dataset)
  return { name: d.name ?? o.dataset, docs: d.docs, queries: d.queries, qrels: d.qrels }
}

async function main(o) {
  const metrics = metricList(o.metrics)
  const { name, docs, queries, qrels } = await loadCollection(o)
  console.log(`ragrank demo on ${name}: ${docs.length} documents, ${queries.length} queries with judgements`)
  const results = {}
  const score = (label, run) => (results[label] = evaluate(run, qrels, metrics).mean)

  section('BM25')
  const index = new Bm25Index(bm25Options())
  index.add(docs)
  const examples = [
    queries.find((q) => !/[\uac00-\ud7a3]/.test(q.text)),
    queries.find((q) => /[\uac00-\ud7a3]/.test(q.text)),
  ].filter(Boolean)
  for (const q of examples) {
    console.log(`query: ${q.text}   (analyzed: ${index.analyze(q.text).join(' ')})`)
    for (const h of index.search(q.text, { topK: 3 }))
      console.log(`  ${h.score.toFixed(3)}  ${qrels[q.id]?.[h.id] > 0 ? '✓' : ' '} ${h.id}  ${snippet(h.text)}`)
  }
  console.log('(✓ = judged relevant; Korean is indexed as character bigrams, no dictionary needed)')
  const depth = 100
  const bm25 = await bm25Run(index, queries, depth)
  score('bm25 lucene', bm25)
  const plus = new Bm25Index(bm25Options({ variant: 'bm25+' }))
  plus.add(docs)
  score('bm25 bm25+', await bm25Run(plus, queries, depth))
  const stemmed = new Bm25Index(bm25Options({ stopwords: 'en', stemmer: 'english' }))
  stemmed.add(docs)
  score('bm25 lucene, en stopwords + stemmer', await bm25Run(stemmed, queries, depth))

  section('Hybrid (BM25 + dense, reciprocal rank fusion)')
  const embedder = o.model ?? (o.cache ? cachedEmbedder() : undefined)
  if (embedder && !o.model) console.log(`using the embedding model found at ${embedder}`)
  if (embedder) {
    const dense = await denseRetriever(embedder, docs)
    const fused = hybrid(index, dense)
    for (const q of examples) {
      console.log(`query: ${q.text}`)
      for (const [label, retriever] of [
        ['dense ', dense],
        ['hybrid', fused],
      ]) {
        const [h] = await retriever.retrieve(q.text, { topK: 1 })
        if (h) console.log(`  ${label} ${h.score.toFixed(3)}  ${qrels[q.id]?.[h.id] > 0 ? '✓' : ' '} ${h.id}`)
      }
    }
    score('dense', await retrieverRun(dense, queries, depth))
    score('hybrid bm25 + dense (rrf)', await retrieverRun(fused, queries, depth))
    console.log(`embedded ${docs.length} documents with ${embedder}; see the table below`)
  } else {
    console.log(
      'skipped: no embedding model given or cached (pass --model <folder with model.onnx and tokenizer.json>)',
    )
  }

  section('Hierarchical splitting + auto-merging')
  // Articles: the passages of one source (place and language in the demo corpus) joined as paragraphs.
  const groups = new Map()
  for (const d of docs) {
    const key = d.meta?.place ? `${d.meta.lang}/${d.meta.place}` : d.id
    groups.set(key, [...(groups.get(key) ?? []), d.text])
  }
  const articles = [...groups].map(([id, texts]) => ({ id, text: texts.join('\n\n') }))
  const nodes = new HierarchicalSplitter({ blockSizes: [120, 40, 12], splitBy: 'word' }).split(articles)
  const leaves = nodes.filter((n) => n.childrenIds.length === 0)
  const leafIndex = new Bm25Index()
  leafIndex.add(leaves.map((n) => ({ id: n.id, text: n.text })))
  const merging = new AutoMergingRetriever({ retriever: leafIndex, store: nodes, threshold: 0.5, candidates: 40 })
  console.log(
    `${articles.length} articles → ${nodes.length} nodes (blocks of 120, 40, 12 words), ${leaves.length} leaves indexed`,
  )
  const q = examples[0]
  console.log(`query: ${q.text}`)
  for (const h of await merging.retrieve(q.text, { topK: 3 })) {
    const words = h.node?.text?.split(/\s+/).length ?? 0
    console.log(
      `  ${h.score.toFixed(3)}  level ${h.node?.level}, ${h.leafIds.length} of the leaf hits, ${words} words: ${snippet(h.node?.text ?? '')}`,
    )
  }

  section('Reranking (cross-encoder over the BM25 top 20)')
  const model = o.rerank ?? (existsSync(TINY_RERANKER) ? TINY_RERANKER : undefined)
  if (!model) {
    console.log('skipped: no cross-encoder given (pass --rerank <model folder>)')
  } else {
    const label = o.rerank ? `rerank ${o.rerank}` : 'rerank tiny test model (RANDOM WEIGHTS)'
    if (!o.rerank)
      console.log(
        'model: the tiny test cross-encoder of the repository, RANDOM WEIGHTS: its scores are meaningless, it shows the pipeline only',
      )
    try {
      const encoder = await loadCrossEncoder(model)
      const reranked = await rerankRun(encoder, queries, bm25, 20)
      // Keep the BM25 tail below the reranked head so recall@k and deep metrics stay comparable.
      for (const qid of Object.keys(reranked)) reranked[qid] = [...reranked[qid], ...bm25[qid].slice(20)]
      score(label, reranked)
      const top = reranked[q.id][0]
      console.log(`query: ${q.text}\n  top after reranking: ${top?.id} (${top?.score.toFixed(3)})`)
    } catch (e) {
      if (o.rerank) throw e
      console.log(`skipped: ${e.message} (the tiny model needs onnxruntime-node, a devDependency)`)
    }
  }

  section(`Evaluation (${queries.length} queries, means)`)
  console.log(metricsTable(results, metrics))
}

try {
  program.parse()
  await main(program.opts())
} catch (e) {
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') process.exit(EXIT.OK)
  if (e.code?.startsWith?.('commander.')) process.exit(EXIT.USAGE)
  console.error(`error: ${e.message}`)
  process.exit(e.exitCode ?? EXIT.RUNTIME)
}
