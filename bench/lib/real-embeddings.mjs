// Real embeddings for the vector suite's recall measurements: the shared collections' documents split into
// sentences (Cranfield, CISI, Medline, ADI abstracts and the BBC News articles: about 60k texts), and the
// collections' own queries, embedded with all-MiniLM-L6-v2 by ragrank's Embedder (mean pooling,
// L2-normalised, max length 128). Cached under bench/.cache/ (never committed): the first run embeds for
// several minutes on 2 cores, later runs read the files.
//
//   node bench/lib/real-embeddings.mjs      embeds (if not cached) and prints the sizes

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { dataRoot, loadDataset } from './datasets.mjs'
import { cacheDir, distEntry, modelsDir } from './paths.mjs'

const MODEL = path.join(modelsDir, 'minilm-l6-embedder')
const MAX_LENGTH = 128
/** Sentences shorter than this many characters (headings, "Fig. 3.") say too little to embed. */
const MIN_CHARS = 30
const BATCH = 256
const DIM = 384
const BASE = path.join(cacheDir, `real-minilm-l6-${DIM}`)

/** The sentences of `text` (split after . ! ? followed by white space), trimmed, long enough. */
export function sentences(text) {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= MIN_CHARS)
}

function bbcTexts() {
  const root = path.join(dataRoot(), 'splitting/bbc')
  const out = []
  for (const cat of fs.readdirSync(root).sort()) {
    const dir = path.join(root, cat)
    if (!fs.statSync(dir).isDirectory()) continue
    for (const f of fs.readdirSync(dir).sort()) out.push(fs.readFileSync(path.join(dir, f), 'latin1'))
  }
  return out
}

/** The texts to index and the queries, in a fixed order (no embedding). */
export function realTexts() {
  const docs = []
  const queries = []
  for (const name of ['cran', 'cisi', 'med', 'adi']) {
    const ds = loadDataset(name)
    for (const d of ds.docs) docs.push(...sentences(d.text))
    for (const q of ds.queries) queries.push(q.text.replace(/\s+/g, ' ').trim())
  }
  for (const article of bbcTexts()) docs.push(...sentences(article))
  // A title often repeats the abstract's first sentence: exact duplicates would only add ties.
  return { docs: [...new Set(docs)], queries }
}

/**
 * `{ docs: Float32Array (n x 384), queries: Float32Array (m x 384), n, m, dim }`, from the cache when it
 * holds them, else embedded now and cached.
 */
export async function realEmbeddings({ log = () => {} } = {}) {
  const meta = `${BASE}.json`
  if (fs.existsSync(meta)) {
    const { n, m, dim } = JSON.parse(fs.readFileSync(meta, 'utf8'))
    const read = (f) => new Float32Array(fs.readFileSync(f).buffer.slice(0))
    return { docs: read(`${BASE}-docs.f32`), queries: read(`${BASE}-queries.f32`), n, m, dim }
  }
  const { Embedder } = await import(distEntry)
  const { docs, queries } = realTexts()
  const e = await Embedder.load(MODEL, { maxLength: MAX_LENGTH })
  const embedAll = async (texts, what) => {
    const out = new Float32Array(texts.length * DIM)
    const t0 = Date.now()
    for (let i = 0; i < texts.length; i += BATCH) {
      const r = await e.embed(texts.slice(i, i + BATCH))
      out.set(r.data, i * DIM)
      if ((i / BATCH) % 20 === 0)
        log(`embedded ${i + r.count}/${texts.length} ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s)`)
    }
    return out
  }
  const q = await embedAll(queries, 'queries')
  const d = await embedAll(docs, 'texts')
  e.dispose()
  fs.mkdirSync(cacheDir, { recursive: true })
  fs.writeFileSync(`${BASE}-docs.f32`, d)
  fs.writeFileSync(`${BASE}-queries.f32`, q)
  fs.writeFileSync(
    meta,
    JSON.stringify({ n: docs.length, m: queries.length, dim: DIM, model: 'all-MiniLM-L6-v2', maxLength: MAX_LENGTH }),
  )
  return { docs: d, queries: q, n: docs.length, m: queries.length, dim: DIM }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = Date.now()
  const r = await realEmbeddings({ log: (m) => console.error(m) })
  console.log(`${r.n} texts and ${r.m} queries x ${r.dim} (${((Date.now() - t0) / 1000).toFixed(0)} s)`)
}
