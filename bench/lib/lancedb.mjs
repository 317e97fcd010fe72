// LanceDB (@lancedb/lancedb, a Rust core) as a peer: full-text search in the BM25 suite, flat (exhaustive)
// vector search and the hybrid query in the vector suite. Every table lives in a fresh temporary directory
// (LanceDB is an on-disk format; the OS page cache holds it after the build, as it would in use).
//
// Same tokens as ragrank: documents and queries are ragrank's tokens joined by single spaces, and the FTS index
// splits on whitespace only (no lowercasing, stemming, stopwords or folding), so it indexes exactly those tokens.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pkgVersion } from './peers.mjs'

export const LANCEDB_PKG = '@lancedb/lancedb'

/**
 * Threads of Lance's CPU pool. On a host with 2 cores or fewer its default leaves the pool one usable blocking thread,
 * and building an FTS index whose postings fill more than one output batch then deadlocks (every thread parked,
 * 0% CPU; lancedb/lancedb#3568): here the 100k and 1M Zipf builds sat idle until the watchdog killed them, while
 * 10k (one batch) built in 1.5 s. Two threads break the cycle (100k then builds in ~2.5 s); no more than the cores,
 * so the queries get the same CPU as on a bigger default. A value the caller set is kept.
 */
export function lanceCpuThreads() {
  return String(Math.max(2, os.availableParallelism()))
}

/** The module, or { error } when it does not load (a missing peer is skipped with the reason). */
export async function loadLancedb() {
  // Read once, when Lance starts its runtime: must be set before the first call into the module.
  process.env.LANCE_CPU_THREADS ??= lanceCpuThreads()
  try {
    return { mod: await import(LANCEDB_PKG), version: pkgVersion(LANCEDB_PKG) }
  } catch (e) {
    return { error: `${LANCEDB_PKG} could not be loaded: ${String(e.message).split('\n')[0]}` }
  }
}

export const LANCEDB_FTS_OPTIONS = {
  baseTokenizer: 'whitespace',
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: false,
  withPosition: false, // BM25 needs frequencies only; positions would serve phrase queries
  maxTokenLength: 1000,
}

export const LANCEDB_FTS_NOTE =
  "LanceDB FTS: an inverted index built with `Index.fts({ baseTokenizer: 'whitespace', lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, withPosition: false })` over ragrank's tokens joined by spaces, queried with `table.search(tokens.join(' '), 'fts').select(['id', '_score']).limit(10).toArray()` (OR of the terms); its BM25 has k1=1.2, b=0.75 built in (ragrank runs k1=1.5), so scores differ and rankings differ slightly. `LANCE_CPU_THREADS` is set to the cores (at least 2): with its default on a 2-core host the FTS build deadlocks from 100k documents on (lancedb/lancedb#3568)"

/** A temporary directory for one table; `cleanup()` removes it. */
function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ragrank-bench-${prefix}-`))
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/**
 * Build a table of { id, text } rows with an FTS index on text. Returns { table, sizeBytes, close() }.
 * The caller times this call: it is LanceDB's whole ingest (write the table) + index build.
 */
export async function buildFtsTable(mod, rows) {
  const tmp = tempDir('lancedb-fts')
  const db = await mod.connect(tmp.dir)
  const table = await db.createTable('docs', rows)
  await table.createIndex('text', { config: mod.Index.fts(LANCEDB_FTS_OPTIONS) })
  const idx = (await table.listIndices()).find((i) => i.indexType === 'FTS')
  return {
    table,
    sizeBytes: idx?.sizeBytes ?? null,
    close: async () => {
      table.close?.()
      db.close?.()
      tmp.cleanup()
    },
  }
}

/** Top-k of one full-text query: [[id, score], ...] best first. */
export async function ftsSearch(table, text, k) {
  const rows = await table.search(text, 'fts').select(['id', '_score']).limit(k).toArray()
  return rows.map((r) => [r.id, r._score])
}

/**
 * A table of n vectors (Float32Array of n x dim, row i has id i) with no vector index, so a vector query is an
 * exhaustive (flat) scan. With `texts` (i -> string) it gets a text column and an FTS index for the hybrid query.
 */
export async function buildVectorTable(mod, data, n, dim, { texts } = {}) {
  const tmp = tempDir('lancedb-vec')
  const db = await mod.connect(tmp.dir)
  // Ingest in chunks: one array of plain row objects for 1M x 384 would hold ~3 GB of JS numbers. A column
  // named "vector" of number arrays becomes LanceDB's FixedSizeList<Float32> vector column.
  const CHUNK = 20_000
  let table = null
  for (let start = 0; start < n; start += CHUNK) {
    const end = Math.min(n, start + CHUNK)
    const rows = []
    for (let i = start; i < end; i++) {
      const row = { id: i, vector: Array.from(data.subarray(i * dim, (i + 1) * dim)) }
      if (texts) row.text = texts(i)
      rows.push(row)
    }
    if (table) await table.add(rows)
    else table = await db.createTable('vectors', rows)
  }
  if (texts) await table.createIndex('text', { config: mod.Index.fts(LANCEDB_FTS_OPTIONS) })
  return {
    table,
    close: async () => {
      table.close?.()
      db.close?.()
      tmp.cleanup()
    },
  }
}

/** Flat top-k by inner product (the vectors are unit length: the same order as cosine). */
export async function flatSearch(table, query, k) {
  const rows = await table.vectorSearch(query).distanceType('dot').select(['id']).limit(k).toArray()
  return rows.map((r) => r.id)
}

/** The hybrid query: flat vector top-k and FTS top-k fused by LanceDB's default reranker (RRF, k=60). */
export async function hybridSearch(table, query, text, k) {
  const rows = await table
    .query()
    .nearestTo(query)
    .distanceType('dot')
    .fullTextSearch(text)
    .select(['id'])
    .limit(k)
    .toArray()
  return rows.map((r) => r.id)
}
