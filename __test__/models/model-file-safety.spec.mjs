// Hostile model folders: ONNX graphs crafted to read files outside their folder through external data
// (wherever a TensorProto can be: initializers, sparse initializers, node attributes, subgraphs, functions),
// protobufs that cannot be walked, symlinks out of the folder, FIFOs, devices and directories where a file
// is expected, JSON files past their bound, and config values that cannot be used. Every one must be
// ERR_MODEL_LOAD (or ERR_MODEL_NOT_FOUND) at load, naming the file; a hang is caught in a child process.
import test from 'ava'
import { spawn, execFileSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CrossEncoder, Embedder } from '../../dist/esm/index.js'
import { externalDataOf, walkExternalData } from '../../dist/esm/models/onnx-external-data.js'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const dist = new URL('../../dist/esm/index.js', import.meta.url).href
const ST = 'sentence_transformers.models.'

function copyModel(t, name) {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-hostile-'))
  cpSync(join(models, name), dir, { recursive: true })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-outside-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const writeJson = (dir, file, v) => {
  mkdirSync(join(dir, file, '..'), { recursive: true })
  writeFileSync(join(dir, file), JSON.stringify(v))
}

/** tiny-embedder laid out as a sentence-transformers download. */
function stFolder(t) {
  const dir = copyModel(t, 'tiny-embedder')
  writeJson(dir, 'modules.json', [
    { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
    { idx: 1, name: '1', path: '1_Pooling', type: `${ST}Pooling` },
  ])
  writeJson(dir, '1_Pooling/config.json', { word_embedding_dimension: 32, pooling_mode_cls_token: true })
  writeJson(dir, 'sentence_bert_config.json', { max_seq_length: 16, do_lower_case: false })
  writeJson(dir, 'config_sentence_transformers.json', { prompts: {}, default_prompt_name: null })
  return dir
}

// --- protobuf, written by hand (field numbers of onnx.proto) --------------------------------------

function varint(n) {
  const out = []
  let v = BigInt(n)
  do {
    let b = Number(v & 0x7fn)
    v >>= 7n
    if (v) b |= 0x80
    out.push(b)
  } while (v)
  return Buffer.from(out)
}
const tag = (field, wire) => varint(field * 8 + wire)
const int = (field, n) => Buffer.concat([tag(field, 0), varint(n)])
const msg = (field, ...parts) => {
  const body = Buffer.concat(parts)
  return Buffer.concat([tag(field, 2), varint(body.length), body])
}
const str = (field, s) => msg(field, Buffer.from(s))
const group = (field, ...parts) => Buffer.concat([tag(field, 3), ...parts, tag(field, 4)])
const fixed64 = (field) => Buffer.concat([tag(field, 1), Buffer.alloc(8, 1)])
const fixed32 = (field) => Buffer.concat([tag(field, 5), Buffer.alloc(4, 1)])

/** A float TensorProto of 1 element whose 4 bytes are read from `location`. */
const externalTensor = (location, ...before) =>
  Buffer.concat([
    int(1, 1), // dims
    int(2, 1), // data_type FLOAT
    str(8, 'leak'),
    ...before,
    msg(13, str(1, 'location'), str(2, location)),
    msg(13, str(1, 'offset'), str(2, '0')),
    msg(13, str(1, 'length'), str(2, '4')),
    int(14, 1), // data_location EXTERNAL
  ])
/** NodeProto: a Constant whose value attribute is `attr` (an AttributeProto body). */
const node = (opType, ...attrs) => Buffer.concat([str(2, 'leaked'), str(4, opType), ...attrs.map((a) => msg(5, a))])
const tensorAttr = (tensor) => Buffer.concat([str(1, 'value'), int(20, 4), msg(5, tensor)])
/** A second ModelProto.graph (7) field: protobuf merges it into the graph, so ONNX Runtime sees its contents. */
const extraGraph = (...parts) => msg(7, ...parts)

const SPARSE = (tensor) => Buffer.concat([msg(1, tensor), msg(2, int(1, 1), int(2, 7), int(7, 0)), int(3, 1)])

/** Where a TensorProto with external data can be, each as the bytes appended to the ModelProto. */
const PLACES = {
  'a Constant node attribute t': (l) => extraGraph(msg(1, node('Constant', tensorAttr(externalTensor(l))))),
  'a node attribute tensors': (l) =>
    extraGraph(msg(1, node('Constant', Buffer.concat([str(1, 'x'), int(20, 9), msg(10, externalTensor(l))])))),
  'a sparse initializer (values)': (l) => extraGraph(msg(15, SPARSE(externalTensor(l)))),
  'a sparse initializer (indices)': (l) =>
    extraGraph(msg(15, msg(1, int(1, 1), int(2, 1), msg(9, Buffer.alloc(4))), msg(2, externalTensor(l)), int(3, 1))),
  'a Constant sparse_value attribute': (l) =>
    extraGraph(
      msg(
        1,
        node('Constant', Buffer.concat([str(1, 'sparse_value'), int(20, 11), msg(22, SPARSE(externalTensor(l)))])),
      ),
    ),
  'an If subgraph (attribute g) initializer': (l) =>
    extraGraph(
      msg(1, node('If', Buffer.concat([str(1, 'then_branch'), int(20, 5), msg(6, msg(5, externalTensor(l)))]))),
    ),
  'a subgraph of attribute graphs, nested in a Loop body': (l) =>
    extraGraph(
      msg(
        1,
        node(
          'Loop',
          Buffer.concat([
            str(1, 'body'),
            int(20, 5),
            msg(6, msg(1, node('Scan', Buffer.concat([str(1, 'x'), int(20, 10), msg(11, msg(5, externalTensor(l)))])))),
          ]),
        ),
      ),
    ),
  'a function node (ModelProto.functions)': (l) =>
    msg(25, str(1, 'f'), str(10, 'custom'), msg(7, node('Constant', tensorAttr(externalTensor(l))))),
  'a function attribute default': (l) =>
    msg(25, str(1, 'f'), str(10, 'custom'), msg(11, tensorAttr(externalTensor(l)))),
  'a training graph (ModelProto.training_info)': (l) => msg(20, msg(1, msg(5, externalTensor(l)))),
  'a tensor with fixed32, fixed64 and group fields before its external data': (l) =>
    extraGraph(msg(5, externalTensor(l, fixed32(4), fixed64(10), group(99, int(1, 7), group(98)), fixed64(1000)))),
}

/** tiny-external-data with `extra` appended to its graph file. */
function crafted(t, extra, prefix = Buffer.alloc(0)) {
  const dir = copyModel(t, 'tiny-external-data')
  const graph = join(dir, 'onnx', 'model.onnx')
  writeFileSync(graph, Buffer.concat([prefix, readFileSync(graph), extra]))
  return { dir, graph }
}

for (const [where, bytes] of Object.entries(PLACES)) {
  test(`external data in ${where} naming /etc/passwd is found and refused at load`, async (t) => {
    const { dir, graph } = crafted(t, bytes('/etc/passwd'))
    t.true(
      externalDataOf(graph).some((r) => r.location === '/etc/passwd'),
      'the walk finds the tensor',
    )
    await t.throwsAsync(CrossEncoder.load(dir), {
      code: 'ERR_MODEL_LOAD',
      message: /names an external data file outside its folder: "\/etc\/passwd"/,
    })
  })
}

test('external data with ../ in a node attribute, or ONNX Runtime in-memory marker, is refused', async (t) => {
  for (const location of ['../../../../etc/passwd', 'a/../../x', '*/_ORT_MEM_ADDR_/*', 'C:\\x', 'a\\..\\..\\x']) {
    const { dir } = crafted(t, PLACES['a Constant node attribute t'](location))
    await t.throwsAsync(CrossEncoder.load(dir), { code: 'ERR_MODEL_LOAD', message: /outside its folder/ }, location)
  }
})

test('an unknown group field before the graph does not hide the graph: its absolute location is refused', async (t) => {
  const dir = copyModel(t, 'tiny-external-data')
  const graph = join(dir, 'onnx', 'model.onnx')
  const bytes = readFileSync(graph)
  // Same length as model.onnx_data: the protobuf stays valid.
  const patched = Buffer.from(bytes.toString('latin1').replaceAll('model.onnx_data', '/././etc/passwd'), 'latin1')
  writeFileSync(graph, Buffer.concat([group(1000, int(1, 5), str(2, 'x'), group(3, fixed32(4))), patched]))
  t.deepEqual(
    externalDataOf(graph).map((r) => r.location),
    ['/././etc/passwd'],
  )
  await t.throwsAsync(CrossEncoder.load(dir), { code: 'ERR_MODEL_LOAD', message: /outside its folder/ })
})

test('a graph that cannot be walked is refused (ERR_MODEL_LOAD), never taken as having no external data', async (t) => {
  const dir = copyModel(t, 'tiny-external-data')
  const graph = join(dir, 'onnx', 'model.onnx')
  const whole = readFileSync(graph)
  const cases = {
    'cut in half': whole.subarray(0, Math.floor(whole.length / 2)),
    'an end-group without its start': Buffer.concat([whole, tag(5, 4)]),
    'a group never closed': Buffer.concat([tag(5, 3), whole]),
    'a group closed by another field': Buffer.concat([tag(5, 3), tag(6, 4), whole]),
    'wire type 6': Buffer.concat([whole, tag(30, 6)]),
    'field number 0': Buffer.concat([whole, tag(0, 0), varint(1)]),
    'a length past the end': Buffer.concat([whole, tag(30, 2), varint(1e6)]),
    'a fixed64 past the end': Buffer.concat([whole, tag(30, 1), Buffer.alloc(3)]),
    'a graph field that is a varint': Buffer.concat([whole, int(7, 1)]),
    'subgraphs nested 200 deep': Buffer.concat([
      whole,
      extraGraph(
        Array.from({ length: 200 }).reduce(
          (inner) => msg(1, node('If', Buffer.concat([str(1, 'then_branch'), int(20, 5), msg(6, inner)]))),
          msg(5, externalTensor('x')),
        ),
      ),
    ]),
  }
  for (const [name, bytes] of Object.entries(cases)) {
    writeFileSync(graph, bytes)
    const e = t.throws(() => externalDataOf(graph), undefined, name)
    t.is(e?.code, 'ERR_MODEL_LOAD', name)
    t.regex(e?.message ?? '', /cannot be read as an ONNX graph/, name)
    await t.throwsAsync(CrossEncoder.load(dir), { code: 'ERR_MODEL_LOAD' }, name)
  }
})

test('random bytes are refused or found to name nothing; nothing else escapes the walk', async (t) => {
  const { randomBytes } = await import('node:crypto')
  const dir = scratch(t)
  const junk = join(dir, 'junk.onnx')
  for (let i = 0; i < 300; i++) {
    writeFileSync(junk, randomBytes(1 + ((i * 37) % 3000)))
    try {
      t.true(Array.isArray(externalDataOf(junk)))
    } catch (e) {
      t.is(e.code, 'ERR_MODEL_LOAD', String(e))
    }
  }
})

test('an external data file that is a symlink to a file outside the folder is refused; one inside loads', async (t) => {
  const docs = ['Paris is the capital of France.', 'Berlin']
  const outside = scratch(t)
  const dir = copyModel(t, 'tiny-external-data')
  const data = join(dir, 'onnx', 'model.onnx_data')
  renameSync(data, join(outside, 'model.onnx_data'))
  symlinkSync(join(outside, 'model.onnx_data'), data)
  await t.throwsAsync(CrossEncoder.load(dir), {
    code: 'ERR_MODEL_LOAD',
    message: /model\.onnx_data.*outside the model folder/,
  })
  // Through a symlinked folder on the way.
  const viaFolder = copyModel(t, 'tiny-external-data')
  mkdirSync(join(outside, 'w'))
  renameSync(join(viaFolder, 'onnx', 'model.onnx_data'), join(outside, 'w', 'model.onnx_data'))
  symlinkSync(join(outside, 'w'), join(viaFolder, 'onnx', 'w'))
  const g = join(viaFolder, 'onnx', 'model.onnx')
  const bytes = readFileSync(g).toString('latin1').replaceAll('model.onnx_data', 'w/model.onnx_da')
  writeFileSync(g, Buffer.from(bytes, 'latin1'))
  renameSync(join(outside, 'w', 'model.onnx_data'), join(outside, 'w', 'model.onnx_da'))
  await t.throwsAsync(CrossEncoder.load(viaFolder), { code: 'ERR_MODEL_LOAD', message: /outside the model folder/ })
  // The graph's folder is the bound (as ONNX Runtime has it): a link to the model's top folder is out too.
  const up = copyModel(t, 'tiny-external-data')
  mkdirSync(join(up, 'weights'))
  renameSync(join(up, 'onnx', 'model.onnx_data'), join(up, 'weights', 'model.onnx_data'))
  symlinkSync('../weights/model.onnx_data', join(up, 'onnx', 'model.onnx_data'))
  await t.throwsAsync(CrossEncoder.load(up), { code: 'ERR_MODEL_LOAD', message: /outside the model folder/ })
  // A relative symlink that stays inside the graph's folder is followed.
  const inside = copyModel(t, 'tiny-external-data')
  mkdirSync(join(inside, 'onnx', 'weights'))
  renameSync(join(inside, 'onnx', 'model.onnx_data'), join(inside, 'onnx', 'weights', 'model.onnx_data'))
  symlinkSync('weights/model.onnx_data', join(inside, 'onnx', 'model.onnx_data'))
  // The hub cache layout: graph and weights both links into one blobs folder elsewhere.
  const cache = scratch(t)
  const hubLike = copyModel(t, 'tiny-external-data')
  mkdirSync(join(cache, 'blobs'))
  for (const [f, blob] of [
    ['model.onnx', 'a1'],
    ['model.onnx_data', 'b2'],
  ]) {
    renameSync(join(hubLike, 'onnx', f), join(cache, 'blobs', blob))
    symlinkSync(join(cache, 'blobs', blob), join(hubLike, 'onnx', f))
  }
  const want = await CrossEncoder.load(join(models, 'tiny-external-data'))
  const expected = await want.rerank('capital', docs, { activation: 'none' })
  want.dispose()
  for (const dir of [inside, hubLike]) {
    const ok = await CrossEncoder.load(dir)
    t.deepEqual(await ok.rerank('capital', docs, { activation: 'none' }), expected, dir)
    ok.dispose()
  }
})

test('an external data file that is a directory or a device is refused, naming what it is', async (t) => {
  const asDir = copyModel(t, 'tiny-external-data')
  rmSync(join(asDir, 'onnx', 'model.onnx_data'))
  mkdirSync(join(asDir, 'onnx', 'model.onnx_data'))
  await t.throwsAsync(CrossEncoder.load(asDir), { code: 'ERR_MODEL_LOAD', message: /model\.onnx_data.*is a directory/ })
})

// --- files that are not regular files, in a child process (a FIFO may block it) --------------------

/** Loads `dir` in a child process: its outcome, or 'hung' when it neither settles nor exits in `ms`. */
function loadInChild(dir, kind = 'CrossEncoder', ms = 30_000) {
  const script = `import { ${kind} } from ${JSON.stringify(dist)}
try {
  const m = await ${kind}.load(${JSON.stringify(dir)})
  m.dispose()
  console.log(JSON.stringify({ loaded: true }))
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }))
}
process.exit(0)`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve('hung')
    }, ms)
    // 'close', not 'exit': the child's output may still be in the pipe when it has exited.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()))
      } catch {
        resolve({ crashed: `${out}${err}`.slice(0, 2000), exit: code, signal })
      }
    })
  })
}

const FIFO_FILES = [
  ['onnx/model.onnx', 'CrossEncoder', 'the ONNX graph'],
  ['tokenizer.json', 'CrossEncoder', 'the tokenizer'],
  ['tokenizer_config.json', 'CrossEncoder', 'tokenizer_config.json'],
  ['config.json', 'CrossEncoder', 'config.json'],
  ['onnx/model.onnx_data', 'CrossEncoder', 'external data'],
  ['modules.json', 'Embedder', 'modules.json'],
  ['1_Pooling/config.json', 'Embedder', 'pooling'],
  ['sentence_bert_config.json', 'Embedder', 'sentence_bert_config.json'],
  ['config_sentence_transformers.json', 'Embedder', 'config_sentence_transformers.json'],
]

for (const [file, kind] of FIFO_FILES) {
  test(`a FIFO at ${file} is refused at load (ERR_MODEL_LOAD "is a FIFO"), without blocking`, async (t) => {
    const dir = file.includes('onnx_data')
      ? copyModel(t, 'tiny-external-data')
      : kind === 'Embedder'
        ? stFolder(t)
        : copyModel(t, 'tiny-cross-encoder')
    rmSync(join(dir, file))
    execFileSync('mkfifo', [join(dir, file)])
    const outcome = await loadInChild(dir, kind)
    t.not(outcome, 'hung', 'the load settled and the process exited')
    t.is(outcome.code, 'ERR_MODEL_LOAD', JSON.stringify(outcome))
    t.true(outcome.message?.includes(join(dir, file)), outcome.message)
    t.regex(outcome.message ?? '', /is a FIFO/)
  })
}

test('/dev/zero and /dev/null symlinked as model files are refused as devices before any read', async (t) => {
  for (const [file, target] of [
    ['tokenizer_config.json', '/dev/zero'],
    ['config.json', '/dev/zero'],
    ['tokenizer.json', '/dev/null'],
    ['onnx/model.onnx', '/dev/zero'],
  ]) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    rmSync(join(dir, file))
    symlinkSync(target, join(dir, file))
    const outcome = await loadInChild(dir, 'CrossEncoder', 20_000)
    t.not(outcome, 'hung', file)
    t.is(outcome.code, 'ERR_MODEL_LOAD', `${file}: ${JSON.stringify(outcome)}`)
    t.regex(outcome.message ?? '', /is a character device/, file)
  }
  const st = stFolder(t)
  rmSync(join(st, 'modules.json'))
  symlinkSync('/dev/zero', join(st, 'modules.json'))
  const outcome = await loadInChild(st, 'Embedder', 20_000)
  t.not(outcome, 'hung')
  t.regex(outcome.message ?? '', /modules\.json.*is a character device/)
})

test('a directory where a file is expected is ERR_MODEL_LOAD naming it: model.onnx, tokenizer.json, config.json', async (t) => {
  for (const file of ['onnx/model.onnx', 'tokenizer.json', 'config.json', 'tokenizer_config.json']) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    rmSync(join(dir, file))
    mkdirSync(join(dir, file))
    await t.throwsAsync(
      CrossEncoder.load(dir),
      { code: 'ERR_MODEL_LOAD', message: new RegExp(`${join(dir, file).replaceAll('.', '\\.')}.*is a directory`) },
      file,
    )
  }
})

test('JSON files past their bound are refused before they are read: tokenizer.json 64 MiB, configs 16 MiB', async (t) => {
  const big = copyModel(t, 'tiny-cross-encoder')
  truncateSync(join(big, 'tokenizer.json'), 64 * 2 ** 20 + 1)
  await t.throwsAsync(CrossEncoder.load(big), {
    code: 'ERR_MODEL_LOAD',
    message: /tokenizer\.json.*larger than 64 MiB/,
  })
  for (const file of ['tokenizer_config.json', 'config.json']) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    truncateSync(join(dir, file), 16 * 2 ** 20 + 1)
    await t.throwsAsync(
      CrossEncoder.load(dir),
      { code: 'ERR_MODEL_LOAD', message: new RegExp(`${file.replace('.', '\\.')}.*larger than 16 MiB`) },
      file,
    )
  }
  const st = stFolder(t)
  truncateSync(join(st, 'modules.json'), 16 * 2 ** 20 + 1)
  await t.throwsAsync(Embedder.load(st), { code: 'ERR_MODEL_LOAD', message: /modules\.json.*larger than 16 MiB/ })
})

test('symlinked model files (not external data) are followed wherever they point', async (t) => {
  const outside = scratch(t)
  const dir = copyModel(t, 'tiny-cross-encoder')
  for (const f of ['tokenizer.json', 'config.json']) {
    renameSync(join(dir, f), join(outside, f))
    symlinkSync(join(outside, f), join(dir, f))
  }
  const m = await CrossEncoder.load(dir)
  t.is(m.maxLength, 64)
  m.dispose()
})

// --- values and paths inside the files ---------------------------------------------------------------

test('modules.json may not put the pooling config outside the folder (../, absolute); a symlinked folder is followed', async (t) => {
  const outside = scratch(t)
  writeJson(outside, 'pool/config.json', { word_embedding_dimension: 32, pooling_mode_mean_tokens: true })
  for (const path of [`../${outside.split('/').pop()}/pool`, `${outside}/pool`, 'a/../../x']) {
    const dir = stFolder(t)
    writeJson(dir, 'modules.json', [
      { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
      { idx: 1, name: '1', path, type: `${ST}Pooling` },
    ])
    await t.throwsAsync(
      Embedder.load(join(dir)),
      { code: 'ERR_MODEL_LOAD', message: /modules\.json.*outside the model folder/ },
      path,
    )
  }
  const linked = stFolder(t)
  rmSync(join(linked, '1_Pooling'), { recursive: true })
  symlinkSync(join(outside, 'pool'), join(linked, '1_Pooling'))
  // The linked config says mean pooling (the folder's own said cls): it is the one read.
  const [m, mean, cls] = await Promise.all([
    Embedder.load(linked),
    Embedder.load(stFolder(t), { pooling: 'mean' }),
    Embedder.load(stFolder(t), { pooling: 'cls' }),
  ])
  const [got, wantMean, wantCls] = await Promise.all([m, mean, cls].map((e) => e.embedQuery('a linked pooling')))
  t.deepEqual(got, wantMean)
  t.notDeepEqual(got, wantCls)
  for (const e of [m, mean, cls]) e.dispose()
})

test('a tokenizer whose unk_token is not in its vocabulary is refused at load (WordLevel, WordPiece)', async (t) => {
  const base = JSON.parse(readFileSync(join(models, 'tiny-cross-encoder', 'tokenizer.json'), 'utf8'))
  const wordLevel = copyModel(t, 'tiny-cross-encoder')
  writeJson(wordLevel, 'tokenizer.json', {
    ...base,
    decoder: null,
    model: { type: 'WordLevel', vocab: base.model.vocab, unk_token: '<nope>' },
  })
  await t.throwsAsync(CrossEncoder.load(wordLevel), { code: 'ERR_MODEL_LOAD', message: /unk_token.*<nope>/ })
  const wordPiece = copyModel(t, 'tiny-cross-encoder')
  writeJson(wordPiece, 'tokenizer.json', { ...base, model: { ...base.model, unk_token: '[NOPE]' } })
  await t.throwsAsync(CrossEncoder.load(wordPiece), { code: 'ERR_MODEL_LOAD', message: /unk_token.*\[NOPE\]/ })
  // With its unk token, WordLevel loads and scores an unknown word.
  const fine = copyModel(t, 'tiny-cross-encoder')
  writeJson(fine, 'tokenizer.json', {
    ...base,
    decoder: null,
    model: { type: 'WordLevel', vocab: base.model.vocab, unk_token: '[UNK]' },
  })
  const m = await CrossEncoder.load(fine)
  t.is((await m.rerank('zzzqqq', ['xylophonic'])).length, 1)
  m.dispose()
})

test('padding_side other than left / right in tokenizer_config.json is ERR_MODEL_LOAD naming it', async (t) => {
  for (const side of ['middle', 3, null]) {
    const dir = copyModel(t, 'tiny-embedder')
    const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'))
    writeJson(dir, 'tokenizer_config.json', { ...cfg, padding_side: side })
    await t.throwsAsync(
      Embedder.load(dir),
      { code: 'ERR_MODEL_LOAD', message: /tokenizer_config\.json.*padding_side/ },
      String(side),
    )
  }
})

test('max_position_embeddings, model_max_length and max_seq_length that cannot be a length are ERR_MODEL_LOAD naming the field', async (t) => {
  for (const value of [1e12, -5, 'many', 1.5, 0, true]) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
    writeJson(dir, 'config.json', { ...cfg, max_position_embeddings: value })
    await t.throwsAsync(
      CrossEncoder.load(dir),
      { code: 'ERR_MODEL_LOAD', message: /config\.json.*max_position_embeddings/ },
      String(value),
    )
  }
  for (const value of ['many', -5, 0]) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'))
    writeJson(dir, 'tokenizer_config.json', { ...cfg, model_max_length: value })
    await t.throwsAsync(
      CrossEncoder.load(dir),
      { code: 'ERR_MODEL_LOAD', message: /tokenizer_config\.json.*model_max_length/ },
      String(value),
    )
  }
  const st = stFolder(t)
  writeJson(st, 'sentence_bert_config.json', { max_seq_length: 'many' })
  await t.throwsAsync(Embedder.load(st), {
    code: 'ERR_MODEL_LOAD',
    message: /sentence_bert_config\.json.*max_seq_length/,
  })
  // HF's "unbounded" model_max_length and a large position table still load.
  const wide = copyModel(t, 'tiny-cross-encoder')
  const cfg = JSON.parse(readFileSync(join(wide, 'tokenizer_config.json'), 'utf8'))
  writeJson(wide, 'tokenizer_config.json', { ...cfg, model_max_length: 1e30 })
  const m = await CrossEncoder.load(wide)
  t.is(m.maxLength, 128)
  m.dispose()
})

test('a JSON file that is not JSON is ERR_MODEL_LOAD naming it and the position, never quoting its content', async (t) => {
  const secret = 'root:x:0:0:hunter2:/root:/bin/bash'
  for (const file of ['config.json', 'tokenizer_config.json']) {
    const dir = copyModel(t, 'tiny-cross-encoder')
    writeFileSync(join(dir, file), `${secret}\n`)
    const err = await t.throwsAsync(CrossEncoder.load(dir), { code: 'ERR_MODEL_LOAD' }, file)
    t.true(err.message.includes(join(dir, file)), err.message)
    t.regex(err.message, /not valid JSON/)
    t.false(/root|hunter2/.test(err.message.replace(join(dir, file), '')), err.message)
  }
})

// Serial: the other tests of this file block the loop at times (execFileSync), which would stop the count.
test.serial(
  'a graph over 1 MiB is walked on a worker thread: the event loop turns meanwhile, same result, errors and abort',
  async (t) => {
    // 400,000 small tensors after the graph (about 6 MB), then one naming /etc/passwd: seconds of work for a bigger one.
    const many = Buffer.concat(Array.from({ length: 400_000 }, (_, i) => msg(5, int(1, 1), int(2, 1), str(8, `w${i}`))))
    const { dir, graph } = crafted(t, extraGraph(many, msg(5, externalTensor('/etc/passwd'))))
    // Loop turns while a walk runs: on the loop only the file's stat lets it turn, on a worker it spins throughout.
    const turnsDuring = async (walk) => {
      let turns = 0
      let walking = true
      const count = async () => {
        while (walking) await new Promise((r) => setImmediate(r, turns++))
      }
      const counted = count()
      const result = await walk()
      walking = false
      await counted
      return { turns, result }
    }
    const onLoop = await turnsDuring(async () => {
      await stat(graph)
      return externalDataOf(graph)
    })
    const { turns, result: refs } = await turnsDuring(() => walkExternalData(graph))
    // A margin over the stat's turns, not a rate: a busy host slows the worker and the loop alike.
    t.true(turns >= onLoop.turns + 8, `the loop turned ${turns} times during the walk, ${onLoop.turns} on the loop`)
    t.deepEqual(refs, externalDataOf(graph))
    t.true(refs.some((r) => r.location === '/etc/passwd'))
    await t.throwsAsync(CrossEncoder.load(dir), {
      code: 'ERR_MODEL_LOAD',
      message: /outside its folder: "\/etc\/passwd"/,
    })
    // A cut graph: the worker's error is the same error.
    truncateSync(graph, readFileSync(graph).length - 3)
    const sync = t.throws(() => externalDataOf(graph))
    await t.throwsAsync(walkExternalData(graph), { code: sync.code, message: sync.message })
    const controller = new AbortController()
    const walk = walkExternalData(graph, controller.signal)
    controller.abort()
    await t.throwsAsync(walk, { name: 'AbortError' })
  },
)
