// `engines` suite: ragrank in one process against Elasticsearch (and OpenSearch / pgvector when they answer) on
// the same corpus and queries. Start the engines first: `bash scripts/engines.sh start` (opt-in suite:
// `npm run bench -- --suite engines`).
//
// 1. Cranfield (1,400 abstracts, 225 judged queries): BM25 and kNN latency from Node (sequential queries,
//    p50 / p95, the engine's time includes HTTP and JSON), quality (nDCG@10), and the recall of the engines'
//    approximate kNN against ragrank's exact search.
// 2. The two-stage pipeline: the engine alone (BM25), the engine's BM25 + kNN in one request fused in ragrank
//    (RRF), and that fused list reranked by ragrank's CrossEncoder (when bench/models/prepare.py has written the
//    MiniLM cross-encoder).
// 3. KorQuAD 1.0 dev (Korean, no Korean analyzer in the engine): ragrank's analyzer output indexed into a
//    whitespace field, queries analyzed the same way, against the local Bm25Index; and the engine's standard
//    analyzer for contrast. The target is |delta nDCG@10| <= 0.01.
//
// Vectors: the MiniLM embedder when bench/models/prepare.py has written it, else hashed TF-IDF vectors (384-d,
// signed feature hashing of ragrank's tokens): a dense representation with real similarity structure, enough to
// measure latency and the engines' approximate-kNN recall, which do not depend on where vectors come from.
// Output: bench/results/engines.md and engines.json (engines-quick.* for --quick).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import { Bm25Index, CompressionRetriever, CrossEncoder, Embedder, VectorIndex, evaluate } from '../../dist/esm/index.js'
import {
  deleteElasticsearchIndex,
  ElasticsearchRetriever,
  ingestElasticsearch,
} from '../../dist/esm/engines/elasticsearch.js'
import { deleteOpenSearchIndex, ingestOpenSearch, OpenSearchRetriever } from '../../dist/esm/engines/opensearch.js'
import { ingestPgvector, PgvectorRetriever } from '../../dist/esm/engines/pgvector.js'
import { loadCran, loadKorquad } from '../lib/datasets.mjs'
import { fmt, machineInfo, mdTable, quantile } from '../lib/harness.mjs'
import { modelsDir } from '../lib/paths.mjs'

const log = (m) => process.stderr.write(`${m}\n`)
const ES_URL = process.env.RAGRANK_ES_URL ?? 'http://127.0.0.1:19200'
const OS_URL = process.env.RAGRANK_OS_URL ?? 'http://127.0.0.1:19201'
const PG_URL = process.env.RAGRANK_PG_URL ?? 'postgres://ragrank@127.0.0.1:15432/ragrank'
const DIM = 384
const EMBEDDER = path.join(modelsDir, 'minilm-l6-embedder')
const RERANKER = path.join(modelsDir, 'minilm-l6-cross-encoder')
const CRAN_ANALYZER = { stopwords: 'en', stemmer: 'english' }

async function reachable(url) {
  try {
    return (await fetch(`${url}/_cluster/health`, { signal: AbortSignal.timeout(3000) })).ok
  } catch {
    return false
  }
}

/** "<name> <heap> GiB" from the node's JVM stats, or undefined when it does not answer. */
async function jvmHeap(name, url) {
  try {
    const res = await fetch(`${url}/_nodes/_local/jvm?filter_path=nodes.*.jvm.mem.heap_max_in_bytes`, {
      signal: AbortSignal.timeout(3000),
    })
    const node = Object.values((await res.json()).nodes)[0]
    return `${name} ${fmt(node.jvm.mem.heap_max_in_bytes / 2 ** 30)} GiB`
  } catch {
    return undefined
  }
}

async function pgReachable() {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  try {
    await c.connect()
    await c.end()
    return true
  } catch {
    return false
  }
}

/** Signed feature hashing of log-TF x IDF weights over ragrank's tokens, L2-normalised. */
function hashedTfidf(docs, analyze) {
  const tokenized = docs.map((d) => analyze(d.text))
  const df = new Map()
  for (const toks of tokenized) for (const t of new Set(toks)) df.set(t, (df.get(t) ?? 0) + 1)
  const n = docs.length
  const idf = (t) => Math.log(1 + n / (1 + (df.get(t) ?? 0)))
  const hash = (t) => {
    let h = 2166136261
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619) >>> 0
    return h
  }
  const vector = (toks) => {
    const tf = new Map()
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1)
    const v = new Float32Array(DIM)
    for (const [t, c] of tf) {
      const h = hash(t)
      v[h % DIM] += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(c)) * idf(t)
    }
    const norm = Math.hypot(...v) || 1
    for (let i = 0; i < DIM; i++) v[i] /= norm
    return v
  }
  return { docVectors: tokenized.map(vector), embed: (text) => vector(analyze(text)), name: 'hashed TF-IDF (384-d)' }
}

async function vectorsFor(docs, analyze) {
  if (!existsSync(path.join(EMBEDDER, 'onnx', 'model.onnx'))) return hashedTfidf(docs, analyze)
  const e = await Embedder.load(EMBEDDER, { maxLength: 256 })
  const { data, dim } = await e.embedDocuments(docs.map((d) => d.text))
  const docVectors = docs.map((_, i) => data.slice(i * dim, (i + 1) * dim))
  return { docVectors, embed: null, embedder: e, name: 'MiniLM-L6 (384-d)' }
}

/** Per-query wall times (ms) of running `fn` for every query, one at a time. */
async function latencies(queries, fn) {
  const ms = []
  for (const q of queries) {
    const t0 = performance.now()
    await fn(q)
    ms.push(performance.now() - t0)
  }
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), mean: ms.reduce((a, b) => a + b, 0) / ms.length }
}

/** A run { qid: hits } with `concurrency` queries in flight (quality only; latency is measured sequentially). */
async function runAll(queries, fn, concurrency = 4) {
  const run = {}
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < queries.length) {
        const q = queries[next++]
        run[q.id] = await fn(q)
      }
    }),
  )
  return run
}

const ndcg = (run, qrels) => evaluate(run, qrels, ['ndcg@10'])
const meanOf = (e, m) => e.mean[m]

function recallAgainst(exactRun, approxRun, k) {
  let sum = 0
  let n = 0
  for (const [qid, exact] of Object.entries(exactRun)) {
    const want = new Set(exact.slice(0, k).map((h) => h.id))
    if (want.size === 0) continue
    const got = (approxRun[qid] ?? []).slice(0, k).filter((h) => want.has(h.id)).length
    sum += got / want.size
    n++
  }
  return sum / n
}

export async function runEnginesSuite({ quick = false, outDir }) {
  if (!(await reachable(ES_URL)))
    throw new Error(
      `engines suite: Elasticsearch does not answer at ${ES_URL}; start it: bash scripts/engines.sh start`,
    )
  const withOs = await reachable(OS_URL)
  const withPg = await pgReachable()
  const loadBefore = os.loadavg()
  const results = { cran: {}, korquad: {} }
  const tag = `ragrank_bench_${process.pid}`

  // ------------------------------------------------------------------ Cranfield
  const cran = loadCran()
  const queries = quick ? cran.queries.slice(0, 60) : cran.queries
  const qrels = Object.fromEntries(queries.filter((q) => cran.qrels[q.id]).map((q) => [q.id, cran.qrels[q.id]]))
  log(`engines: Cranfield ${cran.docs.length} docs, ${queries.length} queries`)
  const local = new Bm25Index({ analyzer: CRAN_ANALYZER })
  local.add(cran.docs)
  const vectors = await vectorsFor(cran.docs, (t) => local.analyze(t))
  results.vectors = vectors.name
  const embedQuery = vectors.embedder ? (q) => vectors.embedder.embedQuery(q) : async (q) => vectors.embed(q)
  const exact = new VectorIndex({ dim: DIM })
  exact.add(cran.docs.map((d, i) => ({ id: d.id, vector: vectors.docVectors[i] })))
  const qvec = new Map()
  for (const q of queries) qvec.set(q.id, Float32Array.from(await embedQuery(q.text)))

  const documents = cran.docs.map((d, i) => ({ id: d.id, text: d.text, vector: Array.from(vectors.docVectors[i]) }))
  const index = `${tag}_cran`
  let t0 = performance.now()
  const ingest = await ingestElasticsearch({ node: ES_URL, index, documents, analysis: CRAN_ANALYZER, batchSize: 200 })
  results.cran.esIngestSeconds = (performance.now() - t0) / 1000
  results.cran.esIngestDocsPerSecond = ingest.indexed / results.cran.esIngestSeconds
  const esBm25 = new ElasticsearchRetriever({ node: ES_URL, index, analysis: CRAN_ANALYZER })
  const esKnn = new ElasticsearchRetriever({ node: ES_URL, index, mode: 'knn' })
  const esHybrid = new ElasticsearchRetriever({
    node: ES_URL,
    index,
    mode: 'hybrid',
    analysis: CRAN_ANALYZER,
    candidates: 100,
  })
  const rows = []
  try {
    // BM25
    const localRun = await runAll(queries, async (q) => local.search(q.text, { topK: 100 }))
    const esRun = await runAll(queries, (q) => esBm25.retrieve(q.text, { topK: 100 }))
    const bm25Local = await latencies(queries, async (q) => local.search(q.text, { topK: 10 }))
    const bm25Es = await latencies(queries, (q) => esBm25.retrieve(q.text, { topK: 10 }))
    results.cran.bm25 = {
      local: { ...bm25Local, ndcg10: meanOf(ndcg(localRun, qrels), 'ndcg@10') },
      elasticsearch: { ...bm25Es, ndcg10: meanOf(ndcg(esRun, qrels), 'ndcg@10') },
    }
    // kNN
    const exactRun = await runAll(queries, async (q) => exact.search(qvec.get(q.id), { topK: 100 }))
    const knnRun = await runAll(queries, (q) => esKnn.retrieveByVector(qvec.get(q.id), { topK: 100 }))
    const knnLocal = await latencies(queries, async (q) => exact.search(qvec.get(q.id), { topK: 10 }))
    const knnEs = await latencies(queries, (q) => esKnn.retrieveByVector(qvec.get(q.id), { topK: 10 }))
    results.cran.knn = {
      local: { ...knnLocal, ndcg10: meanOf(ndcg(exactRun, qrels), 'ndcg@10'), recall10: 1, recall100: 1 },
      elasticsearch: {
        ...knnEs,
        ndcg10: meanOf(ndcg(knnRun, qrels), 'ndcg@10'),
        recall10: recallAgainst(exactRun, knnRun, 10),
        recall100: recallAgainst(exactRun, knnRun, 100),
      },
    }
    // Elasticsearch's own default, int8-quantized HNSW: less memory, less recall.
    {
      const int8 = `${tag}_cran_int8`
      await ingestElasticsearch({
        node: ES_URL,
        index: int8,
        documents,
        batchSize: 200,
        vectorIndex: { type: 'int8_hnsw' },
      })
      const r = new ElasticsearchRetriever({ node: ES_URL, index: int8, mode: 'knn' })
      const run = await runAll(queries, (q) => r.retrieveByVector(qvec.get(q.id), { topK: 100 }))
      results.cran.knn.elasticsearchInt8 = {
        ...(await latencies(queries, (q) => r.retrieveByVector(qvec.get(q.id), { topK: 10 }))),
        ndcg10: meanOf(ndcg(run, qrels), 'ndcg@10'),
        recall10: recallAgainst(exactRun, run, 10),
        recall100: recallAgainst(exactRun, run, 100),
      }
      await r.close()
      await deleteElasticsearchIndex({ node: ES_URL, index: int8 })
    }
    // OpenSearch and pgvector kNN, same vectors, when they answer.
    if (withOs) {
      const osIndex = `${tag}_cran`
      await ingestOpenSearch({ node: OS_URL, index: osIndex, documents, batchSize: 200 })
      const osKnn = new OpenSearchRetriever({ node: OS_URL, index: osIndex, mode: 'knn' })
      const run = await runAll(queries, (q) => osKnn.retrieveByVector(qvec.get(q.id), { topK: 100 }))
      results.cran.knn.opensearch = {
        ...(await latencies(queries, (q) => osKnn.retrieveByVector(qvec.get(q.id), { topK: 10 }))),
        ndcg10: meanOf(ndcg(run, qrels), 'ndcg@10'),
        recall10: recallAgainst(exactRun, run, 10),
        recall100: recallAgainst(exactRun, run, 100),
      }
      await osKnn.close()
      await deleteOpenSearchIndex({ node: OS_URL, index: osIndex })
    }
    if (withPg) {
      const pool = new pg.Pool({ connectionString: PG_URL, max: 4 })
      const table = `${tag}_cran`
      await ingestPgvector({ pool, table, documents, batchSize: 200 })
      const pgKnn = new PgvectorRetriever({ pool, table, efSearch: 100 })
      const run = await runAll(queries, (q) => pgKnn.retrieveByVector(qvec.get(q.id), { topK: 100 }))
      results.cran.knn.pgvector = {
        ...(await latencies(queries, (q) => pgKnn.retrieveByVector(qvec.get(q.id), { topK: 10 }))),
        ndcg10: meanOf(ndcg(run, qrels), 'ndcg@10'),
        recall10: recallAgainst(exactRun, run, 10),
        recall100: recallAgainst(exactRun, run, 100),
      }
      await pool.query(`DROP TABLE IF EXISTS ${table}`)
      await pool.end()
    }

    // Two-stage: engine alone, engine BM25 + kNN fused in ragrank, then reranked.
    const hybrid = (q, topK) => esHybrid.retrieveByVector(qvec.get(q.id), { query: q.text, topK })
    const hybridRun = await runAll(queries, (q) => hybrid(q, 100))
    results.cran.pipeline = {
      engineAlone: { ...results.cran.bm25.elasticsearch },
      fused: { ...(await latencies(queries, (q) => hybrid(q, 10))), ndcg10: meanOf(ndcg(hybridRun, qrels), 'ndcg@10') },
    }
    if (existsSync(path.join(RERANKER, 'onnx', 'model.onnx'))) {
      const ce = await CrossEncoder.load(RERANKER, { maxLength: 256 })
      const idOf = new Map(queries.map((q) => [q.text, q.id]))
      const first = {
        retrieve: (text, o) => esHybrid.retrieveByVector(qvec.get(idOf.get(text)), { query: text, ...o }),
      }
      const twoStage = new CompressionRetriever({ retriever: first, ranker: ce, candidates: 30 })
      const sample = quick ? queries.slice(0, 20) : queries
      const sampleQrels = Object.fromEntries(sample.filter((q) => qrels[q.id]).map((q) => [q.id, qrels[q.id]]))
      const run = await runAll(sample, (q) => twoStage.retrieve(q.text, { topK: 10 }), 1)
      results.cran.pipeline.reranked = {
        ...(await latencies(sample.slice(0, 30), (q) => twoStage.retrieve(q.text, { topK: 10 }))),
        ndcg10: meanOf(ndcg(run, sampleQrels), 'ndcg@10'),
        queries: sample.length,
      }
    } else {
      results.cran.pipeline.reranked = { skipped: `no cross-encoder at ${RERANKER} (bench/models/prepare.py)` }
    }
  } finally {
    await deleteElasticsearchIndex({ node: ES_URL, index })
    for (const r of [esBm25, esKnn, esHybrid]) await r.close()
  }

  // ------------------------------------------------------------------ KorQuAD
  const ko = loadKorquad()
  const koQueries = quick ? ko.queries.slice(0, 500) : ko.queries
  const koQrels = Object.fromEntries(koQueries.map((q) => [q.id, ko.qrels[q.id]]))
  log(`engines: KorQuAD ${ko.docs.length} docs, ${koQueries.length} queries`)
  const analysis = { cjk: 'bigram' }
  const koLocal = new Bm25Index({ analyzer: analysis })
  koLocal.add(ko.docs)
  const koIndex = `${tag}_korquad`
  t0 = performance.now()
  await ingestElasticsearch({ node: ES_URL, index: koIndex, documents: ko.docs, analysis, batchSize: 200 })
  results.korquad.esIngestSeconds = (performance.now() - t0) / 1000
  const koEs = new ElasticsearchRetriever({ node: ES_URL, index: koIndex, analysis })
  const koStandard = new ElasticsearchRetriever({ node: ES_URL, index: koIndex })
  try {
    const localRun = await runAll(koQueries, async (q) => koLocal.search(q.text, { topK: 10 }))
    const esRun = await runAll(koQueries, (q) => koEs.retrieve(q.text, { topK: 10 }))
    const stdRun = await runAll(koQueries, (q) => koStandard.retrieve(q.text, { topK: 10 }))
    const sample = koQueries.slice(0, quick ? 100 : 300)
    results.korquad = {
      ...results.korquad,
      docs: ko.docs.length,
      queries: koQueries.length,
      local: {
        ndcg10: meanOf(ndcg(localRun, koQrels), 'ndcg@10'),
        ...(await latencies(sample, async (q) => koLocal.search(q.text, { topK: 10 }))),
      },
      elasticsearch: {
        ndcg10: meanOf(ndcg(esRun, koQrels), 'ndcg@10'),
        ...(await latencies(sample, (q) => koEs.retrieve(q.text, { topK: 10 }))),
      },
      standardAnalyzer: { ndcg10: meanOf(ndcg(stdRun, koQrels), 'ndcg@10') },
    }
    results.korquad.delta = results.korquad.elasticsearch.ndcg10 - results.korquad.local.ndcg10
    results.korquad.withinTarget = Math.abs(results.korquad.delta) <= 0.01
  } finally {
    await deleteElasticsearchIndex({ node: ES_URL, index: koIndex })
    await koEs.close()
    await koStandard.close()
  }

  // ------------------------------------------------------------------ report
  const m = machineInfo()
  const loadAfter = os.loadavg()
  const heaps = [
    ['Elasticsearch', ES_URL],
    ['OpenSearch', OS_URL],
  ].map(([name, url]) => jvmHeap(name, url))
  const heapLine = (await Promise.all(heaps)).filter(Boolean).join(', ')
  const c = results.cran
  const ms = (x) => `${fmt(x.p50, { digits: 2 })} / ${fmt(x.p95, { digits: 2 })}`
  const q3 = (x) => (x === undefined ? '' : x.toFixed(3))
  for (const [name, r] of [
    ['ragrank Bm25Index (in process)', c.bm25.local],
    ['Elasticsearch BM25 (ragrank tokens)', c.bm25.elasticsearch],
  ])
    rows.push(['BM25', name, ms(r), q3(r.ndcg10), '', ''])
  for (const [name, r] of [
    ['ragrank VectorIndex (exact)', c.knn.local],
    ['Elasticsearch kNN (HNSW, float; ragrank default)', c.knn.elasticsearch],
    ['Elasticsearch kNN (int8_hnsw, its default)', c.knn.elasticsearchInt8],
    ['OpenSearch kNN (Lucene HNSW)', c.knn.opensearch],
    ['pgvector HNSW (ef_search 100)', c.knn.pgvector],
  ])
    if (r) rows.push(['kNN', name, ms(r), q3(r.ndcg10), q3(r.recall10), q3(r.recall100)])
  const p = c.pipeline
  const pipeRows = [
    ['Elasticsearch BM25 alone', ms(p.engineAlone), q3(p.engineAlone.ndcg10)],
    ['Elasticsearch BM25 + kNN (one _msearch) -> ragrank RRF', ms(p.fused), q3(p.fused.ndcg10)],
    p.reranked.skipped
      ? ['... -> ragrank CrossEncoder rerank of 30', 'skipped', p.reranked.skipped]
      : [
          `... -> ragrank CrossEncoder rerank of 30 (${p.reranked.queries} queries)`,
          ms(p.reranked),
          q3(p.reranked.ndcg10),
        ],
  ]
  const k = results.korquad
  const markdown = [
    `# Engines: ragrank against Elasticsearch${withOs ? ', OpenSearch' : ''}${withPg ? ', pgvector' : ''}${quick ? ' (quick)' : ''}`,
    '',
    `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${new Date().toISOString()}. Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}.`,
    `Engines on the same machine (127.0.0.1, one shard, no replica; JVM heap ${heapLine || 'unknown'}). Latency: per query from Node, sequential, p50 / p95 in ms (the engines include HTTP and JSON).`,
    '',
    `## Cranfield (${cran.docs.length} documents, ${queries.length} queries; vectors: ${results.vectors})`,
    '',
    `Ingestion into Elasticsearch (bulk 200, 2 in flight, with vectors and ragrank tokens): ${fmt(c.esIngestSeconds, { digits: 2 })} s, ${fmt(c.esIngestDocsPerSecond)} docs/s.`,
    'Recall@k: share of the exact top k (ragrank VectorIndex) that the engine returns.',
    '',
    mdTable(['stage', 'retriever', 'p50 / p95 ms', 'nDCG@10', 'recall@10', 'recall@100'], rows, 'llrrrr'),
    '',
    '### Two-stage pipeline (engine first stage, ragrank fusion and rerank)',
    '',
    mdTable(['pipeline', 'p50 / p95 ms', 'nDCG@10'], pipeRows, 'lrr'),
    '',
    p.reranked.skipped
      ? ''
      : "The cross-encoder is bench/models/prepare.py's MiniLM-L6 with a classifier head fitted on CISI/MED (held-out AUC 0.53, see bench/models/README.md): a speed model, so the rerank row measures the cost of the stage, not the quality a trained reranker (ms-marco, bge) brings.",
    '',
    `## KorQuAD 1.0 dev (${k.docs} paragraphs, ${k.queries} questions), no Korean analyzer in the engine`,
    '',
    mdTable(
      ['retriever', 'nDCG@10', 'p50 / p95 ms'],
      [
        ['ragrank Bm25Index (CJK bigrams)', q3(k.local.ndcg10), ms(k.local)],
        ["Elasticsearch, ragrank's tokens in a whitespace field", q3(k.elasticsearch.ndcg10), ms(k.elasticsearch)],
        ["Elasticsearch's standard analyzer on the raw text", q3(k.standardAnalyzer.ndcg10), ''],
      ],
      'lrr',
    ),
    '',
    `Delta nDCG@10 (Elasticsearch - local): ${k.delta >= 0 ? '+' : ''}${k.delta.toFixed(4)}: ${k.withinTarget ? 'within' : 'OUTSIDE'} the 0.01 target (the engine stores document lengths in one byte, ragrank exactly).`,
    '',
  ].join('\n')
  mkdirSync(outDir, { recursive: true })
  const suffix = quick ? '-quick' : ''
  writeFileSync(path.join(outDir, `engines${suffix}.md`), markdown)
  writeFileSync(
    path.join(outDir, `engines${suffix}.json`),
    `${JSON.stringify({ machine: m, loadBefore, loadAfter, results }, null, 1)}\n`,
  )
  return { markdown, data: results }
}
