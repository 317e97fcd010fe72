// Model folders as users download them: XLM-R position limits, external data files, the
// transformers.js dtype file names, the sentence-transformers files, and bad folders that must
// fail at load with a clear ERR_MODEL_* error. Models: scripts/models/make_tiny_models.py and
// make_loading_fixtures.py.
import test from 'ava'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CrossEncoder, Embedder } from '../../dist/esm/index.js'
import { NATIVE_PADDING_SIDES, NATIVE_POOLINGS } from '../../dist/esm/models/encoder.js'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const close = (a, b, tol = 1e-5) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b))
const ST = 'sentence_transformers.models.'

function copyModel(t, name) {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-load-'))
  cpSync(join(models, name), dir, { recursive: true })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const writeJson = (dir, file, v) => {
  mkdirSync(join(dir, file, '..'), { recursive: true })
  writeFileSync(join(dir, file), JSON.stringify(v))
}

/** Replaces `from` by `to` (same length) everywhere in a binary file: a protobuf stays valid. */
function patchBytes(file, from, to) {
  if (from.length !== to.length) throw new Error('same length only')
  const buf = readFileSync(file)
  const out = Buffer.from(buf.toString('latin1').replaceAll(from, to), 'latin1')
  if (out.equals(buf)) throw new Error(`${from} not in ${file}`)
  writeFileSync(file, out)
}

test('an XLM-R-shaped model with 514 positions and the 1e30 model_max_length takes 512 tokens: a 600-token document scores, the short ones keep their scores', async (t) => {
  const ce = await CrossEncoder.load(join(models, 'tiny-xlmr-positions'))
  t.is(ce.maxLength, 512)
  const short = ['paris is the capital of france', 'berlin']
  const long600 = 'x '.repeat(600)
  const all = await ce.rerank('capital', [short[0], long600, short[1]], { activation: 'none' })
  t.is(all.length, 3)
  const alone = await ce.rerank('capital', short, { activation: 'none' })
  for (const d of alone) t.true(close(all.find((a) => a.text === d.text).score, d.score))
  // Cut to 512 tokens: 600 and 700 x's give the same input, hence the same score.
  const longer = await ce.rerank('capital', ['x '.repeat(700)], { activation: 'none' })
  t.true(close(all.find((a) => a.index === 1).score, longer[0].score))
  // An explicit maxLength is clamped to the position table (documented), not a failure at first use.
  const wide = await CrossEncoder.load(join(models, 'tiny-xlmr-positions'), { maxLength: 4096 })
  t.is(wide.maxLength, 512)
  t.is((await wide.rerank('capital', [long600])).length, 1)
  for (const m of [ce, wide]) m.dispose()
})

test('an explicit maxLength replaces the tokenizer model_max_length (64) up to the 128 positions', async (t) => {
  const dir = join(models, 'tiny-cross-encoder')
  const lengths = []
  for (const maxLength of [undefined, 16, 100, 1000]) {
    const ce = await CrossEncoder.load(dir, maxLength === undefined ? {} : { maxLength })
    lengths.push(ce.maxLength)
    ce.dispose()
  }
  t.deepEqual(lengths, [64, 16, 100, 128])
})

test('external data: model.onnx_data and model.onnx.data load and score as the self-contained model', async (t) => {
  const docs = ['Paris is the capital of France.', 'Berlin', 'x '.repeat(80)]
  const plain = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const want = await plain.rerank('capital of France', docs, { activation: 'none' })
  const underscore = await CrossEncoder.load(join(models, 'tiny-external-data'))
  t.deepEqual(underscore.files.externalData, [join(models, 'tiny-external-data', 'onnx', 'model.onnx_data')])
  t.deepEqual(await underscore.rerank('capital of France', docs, { activation: 'none' }), want)
  // The community name, at the top of the folder (no onnx/).
  const dot = copyModel(t, 'tiny-external-data')
  renameSync(join(dot, 'onnx', 'model.onnx'), join(dot, 'model.onnx'))
  renameSync(join(dot, 'onnx', 'model.onnx_data'), join(dot, 'model.onnx.data'))
  rmSync(join(dot, 'onnx'), { recursive: true })
  patchBytes(join(dot, 'model.onnx'), 'model.onnx_data', 'model.onnx.data')
  const dotted = await CrossEncoder.load(dot)
  t.deepEqual(dotted.files.externalData, [join(dot, 'model.onnx.data')])
  t.deepEqual(await dotted.rerank('capital of France', docs, { activation: 'none' }), want)
  t.deepEqual(plain.files.externalData, [])
  for (const m of [plain, underscore, dotted]) m.dispose()
})

test('external data missing or truncated is ERR_MODEL_NOT_FOUND / ERR_MODEL_LOAD at load, naming the file', async (t) => {
  const missing = copyModel(t, 'tiny-external-data')
  rmSync(join(missing, 'onnx', 'model.onnx_data'))
  await t.throwsAsync(CrossEncoder.load(missing), { code: 'ERR_MODEL_NOT_FOUND', message: /model\.onnx_data.*missing/ })
  const truncated = copyModel(t, 'tiny-external-data')
  truncateSync(join(truncated, 'onnx', 'model.onnx_data'), 50_000)
  await t.throwsAsync(Embedder.load(truncated), { code: 'ERR_MODEL_LOAD', message: /truncated: 50000 bytes/ })
  const outside = copyModel(t, 'tiny-external-data')
  patchBytes(join(outside, 'onnx', 'model.onnx'), 'model.onnx_data', '../../etc/passw')
  await t.throwsAsync(CrossEncoder.load(outside), { code: 'ERR_MODEL_LOAD', message: /outside its folder/ })
})

test('dtype picks the transformers.js file name; a missing one names the files looked for', async (t) => {
  const dir = join(models, 'tiny-cross-encoder')
  for (const dtype of ['q8', 'int8']) {
    const m = await CrossEncoder.load(dir, { dtype })
    t.true(m.files.model.endsWith(join('onnx', 'model_quantized.onnx')), dtype)
    m.dispose()
  }
  const fp32 = await CrossEncoder.load(dir, { dtype: 'fp32' })
  t.true(fp32.files.model.endsWith(join('onnx', 'model.onnx')))
  fp32.dispose()
  const renamed = copyModel(t, 'tiny-cross-encoder')
  for (const name of ['model_uint8', 'model_q4', 'model_bnb4', 'model_int8']) {
    cpSync(join(renamed, 'onnx', 'model_quantized.onnx'), join(renamed, 'onnx', `${name}.onnx`))
  }
  for (const [dtype, name] of [
    ['uint8', 'model_uint8'],
    ['q4', 'model_q4'],
    ['bnb4', 'model_bnb4'],
    ['int8', 'model_int8'],
  ]) {
    const m = await CrossEncoder.load(renamed, { dtype })
    t.is(m.files.model, join(renamed, 'onnx', `${name}.onnx`))
    m.dispose()
  }
  await t.throwsAsync(CrossEncoder.load(dir, { dtype: 'fp16' }), {
    code: 'ERR_MODEL_NOT_FOUND',
    message: /onnx\/model_fp16\.onnx, model_fp16\.onnx/,
  })
  await t.throwsAsync(CrossEncoder.load(dir, { dtype: 'fp8' }), { instanceOf: RangeError, code: 'ERR_INVALID_ARG' })
  await t.throwsAsync(CrossEncoder.load(dir, { dtype: 'q8', file: 'model.onnx' }), { instanceOf: TypeError })
  await t.throwsAsync(CrossEncoder.load(dir, { dtype: 'fp32', quantized: true }), { instanceOf: TypeError })
  const same = await CrossEncoder.load(dir, { dtype: 'q8', quantized: true })
  t.true(same.files.model.endsWith('model_quantized.onnx'))
  same.dispose()
})

/** tiny-embedder laid out as a sentence-transformers hub download. */
function stFolder(t, { pooling = { pooling_mode_cls_token: true }, normalize = true, maxSeq = 16, st, modules } = {}) {
  const dir = copyModel(t, 'tiny-embedder')
  writeJson(
    dir,
    'modules.json',
    modules ?? [
      { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
      { idx: 1, name: '1', path: '1_Pooling', type: `${ST}Pooling` },
      ...(normalize ? [{ idx: 2, name: '2', path: '2_Normalize', type: `${ST}Normalize` }] : []),
    ],
  )
  writeJson(dir, '1_Pooling/config.json', { word_embedding_dimension: 32, include_prompt: true, ...pooling })
  writeJson(dir, 'sentence_bert_config.json', { max_seq_length: maxSeq, do_lower_case: false })
  writeJson(
    dir,
    'config_sentence_transformers.json',
    st ?? { prompts: { query: 'query: ', passage: 'passage: ' }, default_prompt_name: null },
  )
  return dir
}

const LONG = 'the quick brown fox jumps over the lazy dog '.repeat(6)

test('sentence-transformers files: max_seq_length, pooling, Normalize and the query / passage prompts are honoured', async (t) => {
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  const st = await Embedder.load(stFolder(t))
  t.is(st.maxLength, 16)
  t.true(st.files.pooling.endsWith(join('1_Pooling', 'config.json')))
  const as = { pooling: 'cls', maxLength: 16 }
  t.deepEqual((await st.embed([LONG])).data, (await plain.embed([LONG], as)).data)
  t.deepEqual(await st.embedQuery('hello'), (await plain.embed(['query: hello'], as)).data)
  t.deepEqual((await st.embedDocuments(['a b'])).data, (await plain.embed(['passage: a b'], as)).data)
  // The prompt is what made the difference (not only pooling and length).
  t.notDeepEqual(await st.embedQuery('hello'), (await st.embed(['hello'])).data)
  for (const m of [plain, st]) m.dispose()
})

test('explicit options win over the sentence-transformers files', async (t) => {
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  const dir = stFolder(t)
  const o = { pooling: 'mean', normalize: false, queryPrefix: '', documentPrefix: 'doc: ', maxLength: 32 }
  const st = await Embedder.load(dir, o)
  t.is(st.maxLength, 32)
  const as = { pooling: 'mean', normalize: false, maxLength: 32 }
  t.deepEqual(await st.embedQuery(LONG), (await plain.embed([LONG], as)).data)
  t.deepEqual((await st.embedDocuments(['x'])).data, (await plain.embed(['doc: x'], as)).data)
  // Per call, too.
  const st2 = await Embedder.load(dir)
  t.deepEqual((await st2.embed(['a'], { pooling: 'mean' })).data, (await plain.embed(['a'], { maxLength: 16 })).data)
  for (const m of [plain, st, st2]) m.dispose()
})

test('no Normalize module: vectors are not normalised; a custom pooling folder and default_prompt_name are read', async (t) => {
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  const dir = stFolder(t, {
    normalize: false,
    pooling: { pooling_mode_mean_tokens: true },
    modules: [
      { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
      { idx: 1, name: '1', path: 'pool', type: `${ST}Pooling` },
    ],
    st: { prompts: { retrieval: 'Represent this: ' }, default_prompt_name: 'retrieval' },
  })
  writeJson(dir, 'pool/config.json', { word_embedding_dimension: 32, pooling_mode_cls_token: true })
  const st = await Embedder.load(dir)
  t.is(st.files.pooling, join(dir, 'pool', 'config.json'))
  const q = await st.embedQuery('hello')
  t.deepEqual(
    q,
    (await plain.embed(['Represent this: hello'], { pooling: 'cls', normalize: false, maxLength: 16 })).data,
  )
  t.false(close(Math.hypot(...q), 1, 1e-3), 'not normalised')
  t.deepEqual(
    (await st.embedDocuments(['a'])).data,
    (await plain.embed(['Represent this: a'], { pooling: 'cls', normalize: false, maxLength: 16 })).data,
  )
  for (const m of [plain, st]) m.dispose()
})

test('every pooling_mode_* key maps to a pooling kind: this build loads the ones it implements, and rejects the rest at load', async (t) => {
  const keys = {
    pooling_mode_cls_token: 'cls',
    pooling_mode_mean_tokens: 'mean',
    pooling_mode_max_tokens: 'max',
    pooling_mode_mean_sqrt_len_tokens: 'meansqrt',
    pooling_mode_weightedmean_tokens: 'weightedmean',
    pooling_mode_lasttoken: 'lasttoken',
  }
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  for (const [key, kind] of Object.entries(keys)) {
    const dir = stFolder(t, { pooling: { [key]: true } })
    if (NATIVE_POOLINGS.includes(kind)) {
      const m = await Embedder.load(dir)
      t.deepEqual((await m.embed(['a b c'])).data, (await plain.embed(['a b c'], { pooling: kind })).data, kind)
      m.dispose()
    } else {
      await t.throwsAsync(Embedder.load(dir), { code: 'ERR_MODEL_LOAD', message: new RegExp(`'${kind}'`) }, kind)
      await t.throwsAsync(Embedder.load(join(models, 'tiny-embedder'), { pooling: kind }), { instanceOf: RangeError })
    }
  }
  plain.dispose()
})

test('malformed sentence-transformers files are ERR_MODEL_LOAD at load, naming the file', async (t) => {
  const many = stFolder(t, { pooling: { pooling_mode_cls_token: true, pooling_mode_mean_tokens: true } })
  await t.throwsAsync(Embedder.load(many), { code: 'ERR_MODEL_LOAD', message: /several pooling modes/ })
  const broken = stFolder(t)
  writeFileSync(join(broken, '1_Pooling', 'config.json'), '{ not json')
  await t.throwsAsync(Embedder.load(broken), {
    code: 'ERR_MODEL_LOAD',
    message: /1_Pooling.config\.json \([^)]*\): not valid JSON \(at character 2\)/,
  })
  const dense = stFolder(t, {
    modules: [
      { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
      { idx: 1, name: '1', path: '1_Pooling', type: `${ST}Pooling` },
      { idx: 2, name: '2', path: '2_Dense', type: `${ST}Dense` },
    ],
  })
  await t.throwsAsync(Embedder.load(dense), { code: 'ERR_MODEL_LOAD', message: /Dense/ })
  const badPrompt = stFolder(t, { st: { prompts: { query: 'q: ' }, default_prompt_name: 'nope' } })
  await t.throwsAsync(Embedder.load(badPrompt), { code: 'ERR_MODEL_LOAD', message: /default_prompt_name nope/ })
})

test("tokenizer_config.json padding_side: 'left' needs native left padding; an explicit paddingSide wins", async (t) => {
  const dir = copyModel(t, 'tiny-embedder')
  const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'))
  writeJson(dir, 'tokenizer_config.json', { ...cfg, padding_side: 'left' })
  if (NATIVE_PADDING_SIDES.includes('left')) {
    const m = await Embedder.load(dir)
    t.is((await m.embed(['a', 'a b c d'])).count, 2)
    m.dispose()
  } else {
    await t.throwsAsync(Embedder.load(dir), { code: 'ERR_MODEL_LOAD', message: /padding_side left/ })
    await t.throwsAsync(Embedder.load(join(models, 'tiny-embedder'), { paddingSide: 'left' }), {
      instanceOf: RangeError,
    })
  }
  const right = await Embedder.load(dir, { paddingSide: 'right' })
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  t.deepEqual((await right.embed(['a', 'a b c d'])).data, (await plain.embed(['a', 'a b c d'])).data)
  await t.throwsAsync(Embedder.load(dir, { paddingSide: 'up' }), { instanceOf: RangeError })
  for (const m of [right, plain]) m.dispose()
})

test('bad folders fail at load: no tokenizer, a tokenizer that does not fit, an ONNX file without input_ids', async (t) => {
  const noTok = copyModel(t, 'tiny-embedder')
  rmSync(join(noTok, 'tokenizer.json'))
  await t.throwsAsync(Embedder.load(noTok), { code: 'ERR_MODEL_NOT_FOUND', message: /lacks tokenizer\.json/ })
  const bigVocab = copyModel(t, 'tiny-xlmr-positions')
  const tok = JSON.parse(readFileSync(join(bigVocab, 'tokenizer.json'), 'utf8'))
  const size = Object.keys(tok.model.vocab).length
  for (let i = 0; i < 300; i++) tok.model.vocab[`zz${i}`] = size + i
  writeFileSync(join(bigVocab, 'tokenizer.json'), JSON.stringify(tok))
  await t.throwsAsync(CrossEncoder.load(bigVocab), { code: 'ERR_MODEL_LOAD', message: /does the tokenizer match/ })
  const noIds = copyModel(t, 'tiny-cross-encoder')
  patchBytes(join(noIds, 'onnx', 'model.onnx'), 'input_ids', 'input_xyz')
  await t.throwsAsync(CrossEncoder.load(noIds), { code: 'ERR_MODEL_LOAD', message: /no `input_ids` input.*input_xyz/ })
})

test('CrossEncoder with repeated ids: documents[hit.index] is the returned document, for every hit', async (t) => {
  const ce = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const docs = [
    { id: 'a', text: 'Paris', meta: { copy: 1 }, score: 0.2 },
    { id: 'b', text: 'Berlin', meta: { copy: 1 } },
    { id: 'a', text: 'Paris is the capital of France.', meta: { copy: 2 }, score: 0.9 },
    { id: 'b', text: 'Berlin is in Germany', meta: { copy: 2 } },
    { id: 'a', text: 'Paris!', meta: { copy: 3 }, score: 0.5 },
  ]
  const [hits] = await ce.rerankMany([{ query: 'capital of France', documents: docs }])
  t.deepEqual(hits.map((h) => h.index).sort(), [1, 2])
  for (const { score, index, ...fields } of hits) {
    const { score: _prior, ...input } = docs[index]
    t.deepEqual(fields, input)
    t.is(typeof score, 'number')
  }
  ce.dispose()
})

test('sentence_bert_config do_lower_case lowercases the text (with its prompt) before a case-sensitive tokenizer', async (t) => {
  const dir = stFolder(t, { pooling: { pooling_mode_mean_tokens: true } })
  const tok = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'))
  tok.normalizer.lowercase = false
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tok))
  const cased = await Embedder.load(dir)
  t.notDeepEqual((await cased.embed(['HELLO World'])).data, (await cased.embed(['hello world'])).data)
  writeJson(dir, 'sentence_bert_config.json', { max_seq_length: 16, do_lower_case: true })
  const lower = await Embedder.load(dir)
  t.deepEqual((await lower.embed(['HELLO World'])).data, (await cased.embed(['hello world'])).data)
  const texts = ['KEEP']
  await lower.embed(texts)
  t.deepEqual(texts, ['KEEP'], 'the caller array is not changed')
  for (const m of [cased, lower]) m.dispose()
})

test('include_prompt: false with a prompt warns that the prompt is pooled too', async (t) => {
  const dir = stFolder(t, { pooling: { pooling_mode_mean_tokens: true, include_prompt: false } })
  const warnings = []
  const onWarning = (w) => warnings.push(w)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const m = await Embedder.load(dir)
  await new Promise((r) => setImmediate(r))
  t.true(warnings.some((w) => w.name === 'RagrankWarning' && /include_prompt/.test(w.message)))
  m.dispose()
})

test('externalDataOf reads only the graph: random bytes name nothing or are ERR_MODEL_LOAD; a cut graph is refused, never taken as clean', async (t) => {
  const { externalDataOf } = await import('../../dist/esm/models/onnx-external-data.js')
  const { randomBytes } = await import('node:crypto')
  const dir = copyModel(t, 'tiny-external-data')
  const graph = join(dir, 'onnx', 'model.onnx')
  t.deepEqual(externalDataOf(graph), [{ location: 'model.onnx_data', needs: 124_160 }])
  const whole = readFileSync(graph)
  const junk = join(dir, 'junk.onnx')
  for (let i = 0; i < 200; i++) {
    writeFileSync(junk, randomBytes(1 + ((i * 37) % 3000)))
    try {
      t.true(Array.isArray(externalDataOf(junk)))
    } catch (e) {
      t.is(e.code, 'ERR_MODEL_LOAD', String(e))
    }
  }
  writeFileSync(graph, whole.subarray(0, Math.floor(whole.length / 2)))
  t.throws(() => externalDataOf(graph), { code: 'ERR_MODEL_LOAD', message: /cannot be read as an ONNX graph/ })
  await t.throwsAsync(CrossEncoder.load(dir), { code: 'ERR_MODEL_LOAD' })
})
