// Loading a model by hub id goes through the Hugging Face cache, tested against a local
// server that speaks the hub's file protocol (the real hub is never contacted).
import test from 'ava'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { CrossEncoder, Embedder } from '../../dist/esm/index.js'
import { fakeCommit, startHub } from '../../fixtures/hub-server.mjs'

const models = new URL('../../fixtures/models/', import.meta.url).pathname

function filesOf(dir) {
  const out = {}
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p)
    }
  }
  walk(dir)
  return out
}

test('CrossEncoder.load(hub id) downloads into the HF cache, then loads offline from it', async (t) => {
  const hub = await startHub()
  const commit = fakeCommit('tiny-ce')
  hub.repos.set('acme/tiny-ce', {
    refs: { main: commit },
    commits: { [commit]: filesOf(join(models, 'tiny-cross-encoder')) },
    lfs: ['onnx/model.onnx'],
  })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  try {
    const online = await CrossEncoder.load('acme/tiny-ce', { endpoint: hub.url, cacheDir })
    t.true(online.files.model.startsWith(join(cacheDir, 'models--acme--tiny-ce', 'snapshots', commit)))
    const local = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
    const docs = ['Paris is the capital of France.', 'Berlin']
    t.deepEqual(await online.rerank('capital of France', docs), await local.rerank('capital of France', docs))
    hub.reset()
    const offline = await CrossEncoder.load('acme/tiny-ce', { cacheDir, offline: true })
    t.is(hub.count(), 0)
    t.deepEqual(await offline.rerank('capital of France', docs), await local.rerank('capital of France', docs))
    await t.throwsAsync(CrossEncoder.load('acme/missing', { cacheDir, offline: true }), { code: 'ERR_MODEL_NOT_FOUND' })
  } finally {
    await hub.close()
  }
})

const ST = 'sentence_transformers.models.'
/** tiny-embedder's files with the sentence-transformers files of a CLS-pooled, prompted model. */
function sentenceTransformersFiles() {
  const json = (v) => JSON.stringify(v)
  return {
    ...filesOf(join(models, 'tiny-embedder')),
    'modules.json': json([
      { idx: 0, name: '0', path: '', type: `${ST}Transformer` },
      { idx: 1, name: '1', path: '1_Pooling', type: `${ST}Pooling` },
      { idx: 2, name: '2', path: '2_Normalize', type: `${ST}Normalize` },
    ]),
    '1_Pooling/config.json': json({ word_embedding_dimension: 32, pooling_mode_cls_token: true }),
    'sentence_bert_config.json': json({ max_seq_length: 16, do_lower_case: false }),
    'config_sentence_transformers.json': json({ prompts: { query: 'query: ' }, default_prompt_name: null }),
  }
}

test('Embedder.load(hub id): the sentence-transformers files of a revision other than main, HF_ENDPOINT, download progress', async (t) => {
  const hub = await startHub()
  t.teardown(() => hub.close())
  const [c1, c2] = [fakeCommit('plain'), fakeCommit('st')]
  hub.repos.set('acme/tiny-st', {
    refs: { main: c1, v2: c2 },
    commits: { [c1]: filesOf(join(models, 'tiny-embedder')), [c2]: sentenceTransformersFiles() },
    lfs: ['onnx/model.onnx'],
  })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }))
  const env = { HF_ENDPOINT: hub.url, HOME: cacheDir }
  const seen = []
  const st = await Embedder.load('acme/tiny-st', { revision: 'v2', cacheDir, env, onProgress: (p) => seen.push(p) })
  t.true(st.files.model.includes(join('snapshots', c2)))
  t.is(st.maxLength, 16)
  const plain = await Embedder.load(join(models, 'tiny-embedder'))
  t.deepEqual(
    await st.embedQuery('hello'),
    (await plain.embed(['query: hello'], { pooling: 'cls', maxLength: 16 })).data,
  )
  const model = seen.filter((p) => p.file === 'onnx/model.onnx')
  t.is(model.at(-1).loaded, readFileSync(join(models, 'tiny-embedder', 'onnx', 'model.onnx')).length)
  t.true(seen.some((p) => p.file === '1_Pooling/config.json'))
  // main has none of these files: plain mean pooling, the tokenizer's 64 tokens.
  const main = await Embedder.load('acme/tiny-st', { cacheDir, env })
  t.is(main.maxLength, 64)
  t.deepEqual((await main.embed(['a b'])).data, (await plain.embed(['a b'])).data)
  for (const m of [st, plain, main]) m.dispose()
})

test('CrossEncoder.load(hub id): external data is fetched with its graph; an interrupted download resumes; missing data is ERR_MODEL_NOT_FOUND at load', async (t) => {
  const hub = await startHub()
  t.teardown(() => hub.close())
  const commit = fakeCommit('external')
  const files = filesOf(join(models, 'tiny-external-data'))
  hub.repos.set('acme/tiny-ext', {
    refs: { main: commit },
    commits: { [commit]: files },
    lfs: ['onnx/model.onnx', 'onnx/model.onnx_data'],
    drop: { 'onnx/model.onnx_data': 60_000 },
  })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }))
  const options = { endpoint: hub.url, cacheDir }
  await t.throwsAsync(CrossEncoder.load('acme/tiny-ext', options), { code: 'ERR_NETWORK' })
  hub.reset()
  const ce = await CrossEncoder.load('acme/tiny-ext', options)
  t.deepEqual(hub.rangeRequests, ['bytes=60000-'])
  t.is(ce.files.externalData.length, 1)
  t.true(ce.files.externalData[0].endsWith(join('snapshots', commit, 'onnx', 'model.onnx_data')))
  const local = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const docs = ['Paris is the capital of France.', 'Berlin']
  t.deepEqual(await ce.rerank('capital of France', docs), await local.rerank('capital of France', docs))
  const offline = await CrossEncoder.load('acme/tiny-ext', { cacheDir, offline: true })
  t.deepEqual(await offline.rerank('capital of France', docs), await local.rerank('capital of France', docs))

  const { 'onnx/model.onnx_data': _, ...withoutData } = files
  hub.repos.set('acme/no-data', { refs: { main: commit }, commits: { [commit]: withoutData } })
  await t.throwsAsync(CrossEncoder.load('acme/no-data', options), {
    code: 'ERR_MODEL_NOT_FOUND',
    message: /onnx\/model\.onnx_data/,
  })
  for (const m of [ce, local, offline]) m.dispose()
})

test('CrossEncoder.load(hub id, { dtype }) downloads only that ONNX file, the first of its candidates', async (t) => {
  const hub = await startHub()
  t.teardown(() => hub.close())
  const commit = fakeCommit('dtype')
  const files = filesOf(join(models, 'tiny-cross-encoder'))
  // A second copy at the top of the repo, as some exports have: onnx/ comes first, the other is not fetched.
  files['model_quantized.onnx'] = files['onnx/model_quantized.onnx']
  hub.repos.set('acme/tiny-q', { refs: { main: commit }, commits: { [commit]: files } })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }))
  const q = await CrossEncoder.load('acme/tiny-q', { endpoint: hub.url, cacheDir, dtype: 'q8' })
  t.true(q.files.model.endsWith(join('onnx', 'model_quantized.onnx')))
  const gets = hub.requests.filter((r) => r.method === 'GET').map((r) => r.url.split('/').slice(5).join('/'))
  t.true(gets.includes('onnx/model_quantized.onnx'))
  t.false(gets.includes('onnx/model.onnx'))
  t.false(gets.includes('model_quantized.onnx'))
  q.dispose()
})

test('an unreachable hub: a model cached at the top of its repo (no onnx/) loads from the cache, as a Python download would', async (t) => {
  const hub = await startHub()
  const commit = fakeCommit('top')
  const {
    'onnx/model.onnx': graph,
    'onnx/model_quantized.onnx': _,
    ...rest
  } = filesOf(join(models, 'tiny-cross-encoder'))
  hub.repos.set('acme/top', { refs: { main: commit }, commits: { [commit]: { ...rest, 'model.onnx': graph } } })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }))
  const online = await CrossEncoder.load('acme/top', { endpoint: hub.url, cacheDir })
  t.true(online.files.model.endsWith(join(commit, 'model.onnx')))
  // Python's cache has no .no_exist entries for files it never asked for.
  rmSync(join(cacheDir, 'models--acme--top', '.no_exist'), { recursive: true, force: true })
  const endpoint = hub.url
  await hub.close()
  const cached = await CrossEncoder.load('acme/top', { endpoint, cacheDir })
  t.is(cached.files.model, online.files.model)
  await t.throwsAsync(CrossEncoder.load('acme/top', { endpoint, cacheDir, dtype: 'q8' }), { code: 'ERR_NETWORK' })
  for (const m of [online, cached]) m.dispose()
})
