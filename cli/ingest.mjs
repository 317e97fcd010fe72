// `ragrank ingest`: index a document file into Elasticsearch, OpenSearch or PostgreSQL + pgvector with the
// adapters' bulk ingestion (bounded concurrency, retries on 429 / 503 / lost connections, idempotent ids).
// Refused documents are listed on stderr and make the exit code 1; a re-run indexes them again (ids are kept).
import { HierarchicalSplitter } from 'ragrank'
import { UsageError } from './errors.mjs'
import { loadEmbedder } from './pipeline.mjs'
import { progressBar } from './progress.mjs'
import { readDocuments } from './readers.mjs'

export const INGEST_ENGINES = ['elasticsearch', 'opensearch', 'pgvector']

function positive(v, name) {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${v}`)
  return n
}

/** The adapter's ingestion function and its connection options. */
async function target(o) {
  if (!o.url)
    throw new UsageError('missing --url (e.g. http://127.0.0.1:9200, or postgres://user@host/db for pgvector)')
  if (o.engine === 'pgvector') {
    const { ingestPgvector } = await import('ragrank/pgvector')
    if (o.analysis) throw new UsageError('--analysis applies to elasticsearch and opensearch (pgvector has no BM25)')
    return (options) => ingestPgvector({ connectionString: o.url, table: o.index, ...options })
  }
  if (o.engine === 'elasticsearch') {
    const { ingestElasticsearch } = await import('ragrank/elasticsearch')
    return (options) => ingestElasticsearch({ node: o.url, index: o.index, ...options })
  }
  const { ingestOpenSearch } = await import('ragrank/opensearch')
  return (options) => ingestOpenSearch({ node: o.url, index: o.index, ...options })
}

export async function ingestCommand(input, o, signal) {
  if (!o.index) throw new UsageError('missing --index <name> (the index, or the table for pgvector)')
  const documents = await readDocuments(input, { textColumn: o.textColumn, idColumn: o.idColumn })
  const ingest = await target(o)
  const options = {
    batchSize: positive(o.batchSize, '--batch-size'),
    concurrency: positive(o.concurrency, '--concurrency'),
    retries: Number(o.retries),
    signal,
  }
  if (o.split) {
    const sizes = String(o.split).split(',').map(Number)
    if (sizes.some((n) => !Number.isInteger(n) || n < 1))
      throw new UsageError(`--split must be sizes like 512,128,32, got ${o.split}`)
    options.splitter = new HierarchicalSplitter({
      blockSizes: sizes,
      splitBy: o.splitBy,
      overlap: Number(o.overlap ?? 0),
    })
  }
  if (o.embed) options.embedder = await loadEmbedder(o.embed)
  // CJK bigrams (ragrank's default analyzer) into the tokens field, so the engine's BM25 sees ragrank's tokens.
  if (o.analysis) options.analysis = o.analysis === 'bm25s' ? 'bm25s' : {}
  const bar = progressBar('ingesting', documents.length, { enabled: o.progress && process.stderr.isTTY })
  options.onProgress = (p) => bar.update(p.documents)
  let report
  try {
    report = await ingest({ documents, ...options })
  } finally {
    bar.stop()
  }
  const seconds = (report.ms / 1000).toFixed(1)
  console.log(
    `${o.engine} ${o.index}: ${report.indexed} indexed from ${report.documents} documents in ${seconds} s` +
      ` (${report.batches} bulk requests, ${report.retries} retries, ${report.rejected} refused)`,
  )
  for (const r of report.rejectedDocuments) console.error(`refused ${r.id}: ${r.status} ${r.reason}`)
  return report.rejected > 0 ? 1 : 0
}
