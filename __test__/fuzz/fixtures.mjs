// Files and objects the fuzz targets call into: made once per process, in a private temp folder
// (the runner also makes it the working directory, so a relative path a case invents lands there).
import { createRequire } from 'node:module'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
export const api = require('../../dist/commonjs/index.js')
export const langchain = require('../../dist/commonjs/langchain.js')
export const llamaindex = require('../../dist/commonjs/llamaindex.js')
export const aiSdk = require('../../dist/commonjs/ai-sdk.js')

export const MODELS = new URL('../../fixtures/models/', import.meta.url).pathname
/** The private temp folder (made by `prepare`). */
export let WORK

export const CORPUS = [
  { id: 'a', text: 'the cat sat on the mat', meta: { tenant: 't1', n: 1 } },
  { id: 'b', text: 'a dog chased the cat', meta: { tenant: 't2', n: 2 } },
  { id: 'c', text: 'roads and cars', meta: { tenant: 't1' } },
  { id: 'd', text: 'cats and dogs and mats' },
]

/** Named files a case can point at (`@name`): a real index, garbage, empty, a folder, nothing. */
export const FILES = {}
let ready

export function prepare() {
  ready ??= (async () => {
    WORK = mkdtempSync(join(tmpdir(), 'ragrank-fuzz-'))
    const bm = new api.Bm25Index()
    bm.add(CORPUS)
    FILES.bm25 = join(WORK, 'good.bm25')
    await bm.save(FILES.bm25)
    const vx = new api.VectorIndex({ dim: 3 })
    vx.add(['a', 'b', 'c'], [1, 0, 0, 0, 1, 0, 0, 0, 1])
    FILES.vector = join(WORK, 'good.vec')
    await vx.save(FILES.vector)
    FILES.garbage = join(WORK, 'garbage.bin')
    writeFileSync(FILES.garbage, Buffer.from('RAGRANK\0\xff\xff\xff\xff garbage garbage'))
    FILES.empty = join(WORK, 'empty.bin')
    writeFileSync(FILES.empty, '')
    FILES.dir = join(WORK, 'a-folder')
    mkdirSync(FILES.dir)
    FILES.missing = join(WORK, 'no', 'such', 'file')
    FILES.fresh = join(WORK, 'fresh-target')
    // model folders that are wrong in different ways
    FILES.modelEmpty = join(WORK, 'model-empty')
    mkdirSync(FILES.modelEmpty)
    FILES.modelTokenizerOnly = join(WORK, 'model-tokenizer-only')
    mkdirSync(FILES.modelTokenizerOnly)
    writeFileSync(join(FILES.modelTokenizerOnly, 'tokenizer.json'), '{}')
    FILES.modelGarbage = join(WORK, 'model-garbage')
    mkdirSync(join(FILES.modelGarbage, 'onnx'), { recursive: true })
    writeFileSync(join(FILES.modelGarbage, 'onnx', 'model.onnx'), 'not onnx')
    writeFileSync(join(FILES.modelGarbage, 'tokenizer.json'), '{"not":"a tokenizer"}')
    FILES.modelBadConfig = join(WORK, 'model-bad-config')
    mkdirSync(join(FILES.modelBadConfig, 'onnx'), { recursive: true })
    writeFileSync(join(FILES.modelBadConfig, 'onnx', 'model.onnx'), '')
    writeFileSync(join(FILES.modelBadConfig, 'tokenizer.json'), 'nul\0l')
    writeFileSync(join(FILES.modelBadConfig, 'config.json'), '[')
    FILES.tinyCross = join(MODELS, 'tiny-cross-encoder')
    FILES.tinyEmbedder = join(MODELS, 'tiny-embedder')
    FILES.tokenizer = join(MODELS, 'tiny-embedder', 'tokenizer.json')
  })()
  return ready
}

/** `@name` -> the file's path; anything else as it is. */
export const resolvePath = (p) =>
  typeof p === 'string' && p.startsWith('@') && p.slice(1) in FILES ? FILES[p.slice(1)] : p

let models
/** The tiny test models, loaded once. */
export function tinyModels() {
  models ??= Promise.all([
    api.CrossEncoder.load(join(MODELS, 'tiny-cross-encoder')),
    api.Embedder.load(join(MODELS, 'tiny-embedder')),
  ])
  return models
}

/** Removes the temp folder. */
export function cleanup() {
  if (WORK) rmSync(WORK, { recursive: true, force: true })
}
