// The trained embedding models of the evaluations, loaded the way a user loads them (`Embedder.load(dir)` with no
// options: pooling, normalisation, max length and the query / passage prompts come from the folder's
// sentence-transformers files), with their document and query vectors cached on disk.
//
// Folders: bench/.cache/models/<dir>, built by the model setup scripts (bench/models/README.md). A model counts as
// present when its folder has its ONNX file and a tokenizer, and, for the models built with a check step, the
// READY file that step writes when the export matches the original.
import fs from 'node:fs'
import path from 'node:path'
import { Embedder, VectorIndex } from '../../dist/esm/index.js'
import { cacheDir, modelsDir, repoRoot } from '../lib/paths.mjs'
import { cosine } from '../../fixtures/cosine.mjs'

export { cosine }

export const MODELS = {
  minilm: { dir: 'minilm-l6-embedder', label: 'MiniLM-L6', name: 'all-MiniLM-L6-v2', ready: false },
  e5: { dir: 'multilingual-e5-small', label: 'mE5-small', name: 'multilingual-e5-small', ready: true },
  'e5-int8': {
    dir: 'multilingual-e5-small-int8',
    label: 'mE5-small int8',
    name: 'multilingual-e5-small (int8)',
    ready: true,
  },
}

const CACHE = path.join(cacheDir, 'embeddings')
const ONNX_FILES = ['onnx/model.onnx', 'model.onnx']

export const modelDir = (key) => path.join(modelsDir, MODELS[key].dir)

/** The ONNX file of a model folder, or undefined. */
function onnxFile(dir) {
  return ONNX_FILES.map((f) => path.join(dir, f)).find((f) => fs.existsSync(f))
}

/** True when the folder of `key` is complete (and checked, for the models whose setup writes READY). */
export function hasModel(key) {
  const dir = modelDir(key)
  if (!onnxFile(dir) || !fs.existsSync(path.join(dir, 'tokenizer.json'))) return false
  return !MODELS[key].ready || fs.existsSync(path.join(dir, 'READY'))
}

const readJson = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined)

/**
 * What the folder's sentence-transformers files set, for the reports: max length, pooling, Normalize, prompts.
 * (The Embedder reads the same files; this only describes them.)
 */
export function describeModel(key) {
  const dir = modelDir(key)
  const st = readJson(path.join(dir, 'sentence_bert_config.json')) ?? {}
  const pool = readJson(path.join(dir, '1_Pooling', 'config.json')) ?? {}
  const modules = readJson(path.join(dir, 'modules.json')) ?? []
  const prompts = readJson(path.join(dir, 'config_sentence_transformers.json'))?.prompts ?? {}
  const pooling =
    Object.entries(pool)
      .filter(([k, v]) => k.startsWith('pooling_mode_') && v === true)
      .map(([k]) => k.replace('pooling_mode_', '').replace('_tokens', ''))
      .join('+') || 'mean (default)'
  const normalize = modules.some((m) => String(m.type).endsWith('Normalize'))
  const quote = (s) => (s === undefined ? 'none' : `\`${JSON.stringify(s)}\``)
  return {
    ...MODELS[key],
    key,
    folder: path.relative(repoRoot, dir),
    maxLength: st.max_seq_length ?? 512,
    pooling,
    normalize,
    queryPrompt: quote(prompts.query),
    documentPrompt: quote(prompts.passage ?? prompts.document ?? prompts.corpus),
    text() {
      return `${this.name} (\`${this.folder}\`): ${this.pooling} pooling, ${this.normalize ? 'normalised' : 'not normalised'}, max length ${this.maxLength}, query prompt ${this.queryPrompt}, document prompt ${this.documentPrompt}`
    },
  }
}

/**
 * The Embedder of `key` with a fingerprint of its weights (ONNX file size), for the vector cache. `dtype` picks
 * another ONNX file of the folder (`'int8'`: `onnx/model_int8.onnx`); its vectors are cached apart.
 */
export async function loadModel(key, { dtype } = {}) {
  const dir = modelDir(key)
  const embedder = await Embedder.load(dir, dtype ? { dtype } : {})
  const file = dtype ? path.join(dir, 'onnx', `model_${dtype}.onnx`) : onnxFile(dir)
  return { key: dtype ? `${key}-${dtype}` : key, dir, embedder, fingerprint: fs.statSync(file).size }
}

function cached(model, what, count, compute) {
  const file = path.join(CACHE, `${model.key}-${model.fingerprint}-${what}-${count}.f32`)
  if (fs.existsSync(file)) {
    const b = fs.readFileSync(file)
    return Promise.resolve(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4))
  }
  return compute().then((data) => {
    fs.mkdirSync(CACHE, { recursive: true })
    fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    return data
  })
}

/** Passage vectors (`embedDocuments`: the document prompt), cached under `name`. */
export function documentVectors(model, name, texts) {
  return cached(model, `${name}-docs`, texts.length, async () => {
    const t0 = performance.now()
    const { data } = await model.embedder.embedDocuments(texts)
    const s = (performance.now() - t0) / 1000
    console.error(`  ${model.key}: embedded ${texts.length} ${name} documents in ${s.toFixed(1)} s`)
    return data
  })
}

/**
 * Query vectors through `embedQuery` (the query prompt), the call a retriever makes per query; concurrent calls are
 * joined into native batches by the Embedder's coalescing. Cached under `name`.
 */
export function queryVectors(model, name, texts) {
  return cached(model, `${name}-queries`, texts.length, async () => {
    const dim = model.embedder.dim
    const out = new Float32Array(texts.length * dim)
    for (let i = 0; i < texts.length; i += 256) {
      const chunk = await Promise.all(texts.slice(i, i + 256).map((t) => model.embedder.embedQuery(t)))
      for (const [j, v] of chunk.entries()) out.set(v, (i + j) * dim)
    }
    return out
  })
}

/** Row `i` of a flat matrix of `dim` columns. */
export const row = (flat, dim, i) => flat.subarray(i * dim, (i + 1) * dim)

/** Dense retrieval of a collection with `model`: its document and query vectors (cached) and the top `topK` hits. */
export async function denseSearch(model, name, docs, queries, topK) {
  const dv = await documentVectors(
    model,
    name,
    docs.map((d) => d.text),
  )
  const qv = await queryVectors(
    model,
    name,
    queries.map((q) => q.text),
  )
  const index = new VectorIndex({ dim: model.embedder.dim, metric: 'cosine' })
  index.add(
    docs.map((d) => d.id),
    dv,
  )
  return { dv, qv, hits: await index.searchBatch(qv, { topK }) }
}
