// The ONNX Runtime versions ragrank accepts: the oldest accepted one (1.24.2) loads and runs models and
// refuses external data outside the model's folder by itself; an older one (1.23.2, which reads such data)
// is refused with ERR_ORT_VERSION. The runtime loads once per process, so each case runs in a child.
// The libraries come from `bash scripts/ort-matrix.sh fetch` (onnxruntime-node's linux-x64 builds).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import {
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { CrossEncoder } from '../../dist/esm/index.js'

const root = new URL('../..', import.meta.url).pathname
const libraryOf = (version) => join(root, 'target', 'ort-matrix', version, 'libonnxruntime.so.1')
const OLDEST = libraryOf('1.24.2')
const OLDER = libraryOf('1.23.2')
const dist = new URL('../../dist/esm/index.js', import.meta.url).href
const nativeModule = new URL('../../dist/esm/internal/native.js', import.meta.url).href
const models = join(root, 'fixtures', 'models')
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'
const matrix = linuxX64 ? test.serial : test.skip

function needLibraries(t) {
  for (const lib of [OLDEST, OLDER])
    if (!existsSync(lib))
      t.fail(`${lib} is missing: run \`bash scripts/ort-matrix.sh fetch\` (npm pack onnxruntime-node)`)
}

/** Runs `code` (an ES module body) in a child node without ORT_DYLIB_PATH; resolves to its last stdout line as JSON. */
function child(code) {
  const env = { ...process.env }
  delete env.ORT_DYLIB_PATH
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env, encoding: 'utf8', timeout: 90_000 })
  if (r.status !== 0) throw new Error(`child exited ${r.status} ${r.signal ?? ''}: ${r.stderr.slice(-2000)}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1))
}

const docs = ['paris is the capital of france', 'berlin', 'the weather is nice today', '']

matrix('the oldest accepted runtime (1.24.2) loads a model and scores as the bundled runtime does', async (t) => {
  needLibraries(t)
  const got = child(`import { CrossEncoder, onnxRuntimePath } from ${JSON.stringify(dist)}
const ce = await CrossEncoder.load(${JSON.stringify(join(models, 'tiny-cross-encoder'))}, { ortLibrary: ${JSON.stringify(OLDEST)} })
const ranked = await ce.rerank('capital of france', ${JSON.stringify(docs)}, { activation: 'none' })
console.log(JSON.stringify({ path: onnxRuntimePath(), scores: ranked.map((r) => [r.index, r.score]) }))`)
  t.is(got.path, OLDEST)
  const ce = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const here = new Map(
    (await ce.rerank('capital of france', docs, { activation: 'none' })).map((r) => [r.index, r.score]),
  )
  t.is(got.scores.length, docs.length)
  for (const [index, score] of got.scores) t.true(Math.abs(score - here.get(index)) < 1e-4, `${index}: ${score}`)
  ce.dispose()
})

matrix(
  'the oldest accepted runtime itself refuses external data outside the model folder (absolute, .., symlink)',
  async (t) => {
    needLibraries(t)
    // Each copy's data file sits outside its folder but holds the right bytes: a runtime that reads it loads the
    // model. The location is patched in place (same length, so the protobuf stays valid). ragrank's own check of
    // the locations is bypassed (the native loader is called directly): this is the runtime's check.
    const base = mkdtempSync(join('/tmp', 'rgk-'))
    t.teardown(() => rmSync(base, { recursive: true, force: true }))
    const source = join(models, 'tiny-external-data')
    const data = join(source, 'onnx', 'model.onnx_data')
    const graph = readFileSync(join(source, 'onnx', 'model.onnx'), 'latin1')
    const location = 'model.onnx_data'
    const cases = {}
    const make = (name, target) => {
      const dir = join(base, name)
      cpSync(source, dir, { recursive: true })
      if (target !== location)
        writeFileSync(join(dir, 'onnx', 'model.onnx'), Buffer.from(graph.replaceAll(location, target), 'latin1'))
      cases[name] = { model: join(dir, 'onnx', 'model.onnx'), tokenizer: join(dir, 'tokenizer.json') }
      return dir
    }
    make('inside', location)
    // An absolute location of the length of `model.onnx_data` (15): /tmp/rgk-XXXXX_, beside the base folder.
    const absolute = `${base.slice(0, -1)}_`
    t.is(absolute.length, location.length)
    copyFileSync(data, absolute, constants.COPYFILE_EXCL)
    t.teardown(() => rmSync(absolute, { force: true }))
    make('absolute', absolute)
    // `../../` from the model's onnx/ folder: the base folder.
    copyFileSync(data, join(base, 'outside.x'))
    make('dotdot', '../../outside.x')
    const linked = make('symlink', location)
    rmSync(join(linked, 'onnx', location))
    symlinkSync(join(base, 'outside.x'), join(linked, 'onnx', location))

    const got = child(`import { native } from ${JSON.stringify(nativeModule)}
native.initOnnxRuntime(${JSON.stringify(OLDEST)})
const out = {}
for (const [name, paths] of Object.entries(${JSON.stringify(cases)})) {
  try { await native.NativeEncoder.load(paths, { threads: 1, sessions: 1 }); out[name] = 'loaded' }
  catch (e) { out[name] = e.message }
}
console.log(JSON.stringify(out))`)
    t.is(got.inside, 'loaded', 'the data file in the folder loads')
    for (const name of ['absolute', 'dotdot', 'symlink']) {
      t.regex(got[name], /^\[ERR_MODEL_LOAD\] .*External data path/, name)
    }
  },
)

matrix(
  'a runtime older than 1.24.2 (1.23.2) is ERR_ORT_VERSION naming both versions, and does not stay loaded',
  async (t) => {
    needLibraries(t)
    const got = child(`import { CrossEncoder, ensureOnnxRuntime, onnxRuntimePath } from ${JSON.stringify(dist)}
import { readFileSync } from 'node:fs'
const model = ${JSON.stringify(join(models, 'tiny-cross-encoder'))}
const error = await CrossEncoder.load(model, { ortLibrary: ${JSON.stringify(OLDER)} }).catch((e) => e)
const afterRefusal = onnxRuntimePath() ?? null
ensureOnnxRuntime(${JSON.stringify(OLDEST)})
const ce = await CrossEncoder.load(model)
const scores = (await ce.rerank('q', ['a', 'b'])).length
const maps = readFileSync('/proc/self/maps', 'utf8')
console.log(JSON.stringify({ code: error.code, message: error.message, afterRefusal, path: onnxRuntimePath(), scores,
  oldMapped: maps.includes(${JSON.stringify(OLDER)}), newMapped: maps.includes(${JSON.stringify(OLDEST)}) }))`)
    t.is(got.code, 'ERR_ORT_VERSION', got.message)
    t.regex(
      got.message,
      /ONNX Runtime 1\.23\.2 at .*1\.23\.2\/libonnxruntime\.so\.1 is too old: ragrank needs 1\.24\.2 or newer/,
    )
    t.is(got.afterRefusal, null, 'nothing is loaded after the refusal')
    t.is(got.path, OLDEST)
    t.is(got.scores, 2)
    t.false(got.oldMapped, 'the refused library was unloaded')
    t.true(got.newMapped)
  },
)

matrix('ORT_DYLIB_PATH naming an older runtime is ERR_ORT_VERSION, not a fallback to another library', async (t) => {
  needLibraries(t)
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { ensureOnnxRuntime } from ${JSON.stringify(dist)}
try { ensureOnnxRuntime(); console.log('loaded') } catch (e) { console.log(e.code) }`,
    ],
    { env: { ...process.env, ORT_DYLIB_PATH: OLDER }, encoding: 'utf8', timeout: 60_000 },
  )
  t.is(r.stdout.trim(), 'ERR_ORT_VERSION', r.stderr)
})
