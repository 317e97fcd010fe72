// CrossEncoder and Embedder agree with the Python reference stack (onnxruntime + HF
// tokenizers, each input run alone and unpadded) in every batch size.
// Models and reference: scripts/models/make_tiny_models.py, make_reference_outputs.py.
import test from 'ava'
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { CrossEncoder, Embedder, AbortError } from '../../dist/esm/index.js'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const ref = JSON.parse(readFileSync(join(models, 'reference.json'), 'utf8'))
const close = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b))
const _sigmoid = (x) => 1 / (1 + Math.exp(-x))

const ONE = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
const TWO = await CrossEncoder.load(join(models, 'tiny-cross-encoder-2label'))

for (const batchSize of [1, 3, 32]) {
  test(`1-label and 2-label scores match the reference (batchSize ${batchSize})`, async (t) => {
    for (const g of ref.cross_encoder.groups) {
      for (const [model, name] of [
        [ONE, 'tiny-cross-encoder'],
        [TWO, 'tiny-cross-encoder-2label'],
      ]) {
        const raw = await model.rerank(g.query, g.documents, { activation: 'none', batchSize })
        const prob = await model.rerank(g.query, g.documents, { batchSize })
        t.is(raw.length, g.documents.length)
        for (const r of raw) {
          const logits = g.results[name].logits[r.index]
          const want = logits.length === 1 ? logits[0] : logits[1] - logits[0]
          t.true(close(r.score, want, 1e-4), `${g.name} ${name} doc ${r.index}: ${r.score} vs ${want}`)
        }
        for (const r of prob) {
          const want =
            name === 'tiny-cross-encoder' ? g.results[name].sigmoid[r.index] : g.results[name].softmax_label1[r.index]
          t.true(close(r.score, want, 1e-4), `${g.name} ${name} prob ${r.index}`)
        }
      }
    }
  })
}

test('a small token budget splits batches without changing scores', async (t) => {
  const small = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { tokenBudget: 70, batchSize: 4 })
  const g = ref.cross_encoder.groups[0]
  const a = await small.rerank(g.query, g.documents, { activation: 'none' })
  for (const r of a) t.true(close(r.score, g.results['tiny-cross-encoder'].logits[r.index][0], 1e-4))
})

test('runtime defaults: 512-token batches; two 1-thread sessions on 2+ cores unless threads or sessions are set', async (t) => {
  const cores = availableParallelism()
  t.like(ONE.runtime, { batchSize: 32, tokenBudget: 512 })
  t.deepEqual([ONE.runtime.sessions, ONE.runtime.threads], cores >= 2 ? [2, Math.floor(cores / 2)] : [1, 1])
  const threaded = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { threads: 1 })
  t.like(threaded.runtime, { sessions: 1, threads: 1 })
  const pooled = await Embedder.load(join(models, 'tiny-embedder'), { sessions: 3, tokenBudget: 64, batchSize: 2 })
  t.like(pooled.runtime, { sessions: 3, threads: Math.max(1, Math.floor(cores / 3)), tokenBudget: 64, batchSize: 2 })
  t.throws(() => (ONE.runtime.sessions = 5), { instanceOf: TypeError })
  // A model whose weights would be copied per session above 512 MiB: its external data file, made sparse.
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-big-'))
  try {
    cpSync(join(models, 'tiny-external-data'), dir, { recursive: true })
    truncateSync(join(dir, 'onnx', 'model.onnx_data'), 513 * 2 ** 20)
    const big = await CrossEncoder.load(dir)
    t.like(big.runtime, { sessions: 1, threads: cores })
    big.dispose()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  threaded.dispose()
  pooled.dispose()
})

test('the int8 model is close to its unpadded reference', async (t) => {
  const q = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { quantized: true })
  t.true(q.files.model.endsWith('model_quantized.onnx'))
  const g = ref.cross_encoder.groups[0]
  // ONNX Runtime's x64 int8 GEMM kernels differ by ISA (the reference was made on an Intel host; an AMD EPYC
  // host differs from it by up to 0.097 on these logits), so the bound is the size of the quantization error
  // itself (int8 vs fp32: up to 0.16 here), not float rounding. A broken int8 path is off by far more.
  for (const r of await q.rerank(g.query, g.documents, { activation: 'none', batchSize: 1 })) {
    t.true(Math.abs(r.score - g.results['tiny-cross-encoder/quantized'].logits[r.index][0]) < 0.15)
  }
})

test('results are sorted, ties keep input order, topK and threshold apply, falsy overrides work', async (t) => {
  const g = ref.cross_encoder.groups[0]
  const all = await ONE.rerank(g.query, g.documents)
  for (let i = 1; i < all.length; i++) {
    t.true(all[i - 1].score > all[i].score || (all[i - 1].score === all[i].score && all[i - 1].index < all[i].index))
  }
  // Documents 18 and 19 truncate to the same input: equal scores, input order kept.
  const tied = all.filter((d) => d.index === 18 || d.index === 19)
  t.is(tied[0].score, tied[1].score)
  t.deepEqual(
    tied.map((d) => d.index),
    [18, 19],
  )
  t.is((await ONE.rerank(g.query, g.documents, { topK: 3 })).length, 3)
  t.deepEqual(await ONE.rerank(g.query, g.documents, { topK: 0 }), [])
  const withDefault = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { topK: 2, scoreThreshold: 0.99 })
  t.deepEqual(await withDefault.rerank(g.query, g.documents), [])
  t.is((await withDefault.rerank(g.query, g.documents, { scoreThreshold: 0 })).length, 2)
  t.true((await ONE.rerank(g.query, g.documents, { scoreThreshold: 0.5 })).every((d) => d.score >= 0.5))
})

test('documents keep their fields; duplicate ids keep the highest prior score at the first position, index pointing at that copy', async (t) => {
  const docs = [
    { id: 'a', text: 'Paris', meta: { n: 1 }, score: 0.1 },
    { id: 'b', text: 'Berlin' },
    { id: 'a', text: 'Paris is the capital of France.', meta: { n: 2 }, score: 0.9 },
    'plain string',
  ]
  const out = await ONE.rerank('capital', docs)
  t.is(out.length, 3)
  const a = out.find((d) => d.id === 'a')
  // The fields are the best copy's (input 2), and so is the index: docs[a.index] is what came back.
  t.is(a.index, 2)
  t.deepEqual(a.meta, { n: 2 })
  t.deepEqual(docs[a.index].meta, a.meta)
  t.is(a.text, 'Paris is the capital of France.')
  t.truthy(out.find((d) => d.text === 'plain string' && d.index === 3))
})

test("duplicates follow the rankers' one rule: same id, or without ids the same text; an id'd copy never matches an id-less one", async (t) => {
  const docs = [
    'Paris',
    'Berlin',
    'Paris',
    { text: 'Paris' },
    { id: 'p', text: 'Paris' },
    { id: 'p', text: 'Paris, France', score: 2 },
  ]
  const out = await ONE.rerank('capital', docs)
  t.deepEqual(out.map((d) => d.index).sort(), [0, 1, 5])
  for (const d of out) t.is(d.text, typeof docs[d.index] === 'string' ? docs[d.index] : docs[d.index].text)
  // Distinct texts without ids are all scored, even when many.
  t.is((await ONE.rerank('q', ['a', 'b', 'c'])).length, 3)
})

test('prefixes and meta fields change the scored text', async (t) => {
  const plain = await ONE.rerank('q', [{ text: 'paris', meta: { title: 'france' } }], { activation: 'none' })
  const withMeta = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), {
    metaFields: ['title'],
    metaSeparator: ' ',
  })
  const joined = await ONE.rerank('q', ['france paris'], { activation: 'none' })
  const viaMeta = await withMeta.rerank('q', [{ text: 'paris', meta: { title: 'france' } }], { activation: 'none' })
  t.not(plain[0].score, viaMeta[0].score)
  t.true(close(viaMeta[0].score, joined[0].score, 1e-6))
  const prefixed = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), {
    queryPrefix: 'what is ',
    documentPrefix: 'doc: ',
  })
  const manual = await ONE.rerank('what is q', ['doc: paris'], { activation: 'none' })
  t.true(close((await prefixed.rerank('q', ['paris'], { activation: 'none' }))[0].score, manual[0].score, 1e-6))
})

test('rerankMany schedules all pairs together and equals separate calls', async (t) => {
  const groups = ref.cross_encoder.groups
  const many = await ONE.rerankMany(
    groups.map((g) => ({ query: g.query, documents: g.documents })),
    { batchSize: 8 },
  )
  for (let i = 0; i < groups.length; i++) {
    const single = await ONE.rerank(groups[i].query, groups[i].documents)
    t.deepEqual(
      many[i].map((d) => d.index),
      single.map((d) => d.index),
    )
    many[i].forEach((d, j) => t.true(close(d.score, single[j].score, 1e-5)))
  }
})

test('empty inputs, 10,000 documents, per-call maxLength', async (t) => {
  t.deepEqual(await ONE.rerank('q', []), [])
  t.deepEqual(await ONE.rerankMany([]), [])
  const docs = Array.from(
    { length: 10_000 },
    (_, i) => `document ${i} about ${i % 7 === 0 ? 'paris france' : 'berlin'} ${'x '.repeat(i % 50)}`,
  )
  const out = await ONE.rerank('capital of france', docs, { topK: 10_000 })
  t.is(out.length, 10_000)
  t.is(new Set(out.map((d) => d.index)).size, 10_000)
  const few = await ONE.rerank('capital of france', docs.slice(0, 40), { topK: 40 })
  for (const d of few) t.true(close(out.find((o) => o.index === d.index).score, d.score, 1e-5))
  const short = await ONE.rerank('q', [docs[49]], { maxLength: 8, activation: 'none' })
  const manual = await ONE.rerank('q', ['document 49 about'], { activation: 'none' })
  t.true(close(short[0].score, manual[0].score, 1e-5))
})

test('AbortSignal cancels a running call; 50 concurrent calls all succeed', async (t) => {
  const docs = Array.from({ length: 20_000 }, (_, i) => `text ${i} ${'word '.repeat(i % 40)}`)
  const controller = new AbortController()
  const pending = ONE.rerank('query', docs, { signal: controller.signal, batchSize: 4 })
  setTimeout(() => controller.abort(), 20)
  await t.throwsAsync(pending, { instanceOf: AbortError, code: 'ABORT_ERR' })
  await t.throwsAsync(ONE.rerank('q', ['x'], { signal: AbortSignal.abort() }), { instanceOf: AbortError })
  const g = ref.cross_encoder.groups[0]
  const expected = await ONE.rerank(g.query, g.documents)
  const results = await Promise.all(Array.from({ length: 50 }, () => ONE.rerank(g.query, g.documents)))
  for (const r of results)
    t.deepEqual(
      r.map((d) => d.index),
      expected.map((d) => d.index),
    )
})

test('dispose: a running call finishes, later calls reject with ERR_DISPOSED, a second dispose is harmless', async (t) => {
  const ce = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const docs = Array.from({ length: 200 }, (_, i) => `document ${i} about wings and lift`)
  const running = ce.rerank('lift', docs)
  ce.dispose()
  t.is((await running).length, 200)
  await t.throwsAsync(ce.rerank('lift', docs), { code: 'ERR_DISPOSED' })
  ce.dispose()
  t.true(ce.maxLength > 0)

  const em = await Embedder.load(join(models, 'tiny-embedder'))
  const before = await em.embed(['a wing'])
  em.dispose()
  t.is(before.count, 1)
  await t.throwsAsync(em.embed(['a wing']), { code: 'ERR_DISPOSED' })
  t.true(em.dim > 0)
})

test('bad arguments are clear errors', async (t) => {
  await t.throwsAsync(ONE.rerank(5, ['x']), { instanceOf: TypeError })
  await t.throwsAsync(ONE.rerank('q', 'x'), { instanceOf: TypeError })
  await t.throwsAsync(ONE.rerank('q', [{ id: 'a' }]), { instanceOf: TypeError })
  await t.throwsAsync(ONE.rerank('q', ['x'], { activation: 'softmax' }), { instanceOf: RangeError })
  await t.throwsAsync(ONE.rerank('q', ['x'], { batchSize: 0 }), { instanceOf: RangeError })
  await t.throwsAsync(ONE.rerank('q', ['x'], { topK: -1 }), { instanceOf: RangeError })
})

for (const batchSize of [1, 4, 16]) {
  test(`embeddings match the reference: mean/cls, normalized or not (batchSize ${batchSize})`, async (t) => {
    const e = await Embedder.load(join(models, 'tiny-embedder'), { batchSize })
    t.is(e.dim, ref.embedder.hidden_size)
    for (const [pooling, normalize, key] of [
      ['mean', true, 'mean_normalized'],
      ['mean', false, 'mean'],
      ['cls', true, 'cls_normalized'],
      ['cls', false, 'cls'],
    ]) {
      const { data, dim, count } = await e.embed(ref.embedder.texts, { pooling, normalize })
      t.is(count, ref.embedder.texts.length)
      ref.embedder.cases.forEach((c, i) => {
        for (let d = 0; d < dim; d++) t.true(close(data[i * dim + d], c[key][d], 1e-4), `${key} text ${i} dim ${d}`)
      })
    }
  })
}

// A few short inputs plan one batch; with 2+ sessions it is split so that every session gets a part. Only the
// padding of the rows changes, so vectors and scores equal one session's (which runs the call as one batch).
test('a small call split across sessions gives the vectors and scores of one session', async (t) => {
  const texts = ref.embedder.texts.slice(0, 5)
  const g = ref.cross_encoder.groups[0]
  const docs = g.documents.slice(0, 5)
  const one = await Embedder.load(join(models, 'tiny-embedder'), { sessions: 1, threads: 1 })
  const oneCe = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { sessions: 1, threads: 1 })
  const want = await one.embed(texts)
  const wantScores = await oneCe.rerank(g.query, docs, { activation: 'none' })
  for (const sessions of [2, 3]) {
    const e = await Embedder.load(join(models, 'tiny-embedder'), { sessions, threads: 1 })
    const ce = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { sessions, threads: 1 })
    const got = await e.embed(texts)
    t.is(got.count, texts.length)
    for (let i = 0; i < got.data.length; i++)
      t.true(close(got.data[i], want.data[i], 1e-5), `sessions ${sessions} value ${i}`)
    const scores = await ce.rerank(g.query, docs, { activation: 'none' })
    t.deepEqual(
      scores.map((r) => r.index),
      wantScores.map((r) => r.index),
    )
    scores.forEach((r, i) => t.true(close(r.score, wantScores[i].score, 1e-5), `sessions ${sessions} pair ${r.index}`))
    t.deepEqual((await e.embed(texts.slice(0, 1))).data, (await one.embed(texts.slice(0, 1))).data)
    e.dispose()
    ce.dispose()
  }
  one.dispose()
  oneCe.dispose()
})

test('embedder prefixes and empty input', async (t) => {
  const e = await Embedder.load(join(models, 'tiny-embedder'), { queryPrefix: 'query: ', documentPrefix: 'passage: ' })
  const q = await e.embedQuery('hello')
  const manual = await e.embed(['query: hello'])
  t.deepEqual(q, manual.data)
  const docs = await e.embedDocuments(['a', 'b'])
  t.deepEqual(docs.data.slice(0, e.dim), (await e.embed(['passage: a'])).data)
  t.deepEqual(await e.embed([]), { data: new Float32Array(0), dim: e.dim, count: 0 })
})

function copyModel(name) {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-model-'))
  cpSync(join(models, name), dir, { recursive: true })
  return dir
}

test('missing files, corrupt models and mismatched tokenizers are reported, never a crash', async (t) => {
  const noTok = copyModel('tiny-cross-encoder')
  rmSync(join(noTok, 'tokenizer.json'))
  await t.throwsAsync(CrossEncoder.load(noTok), { code: 'ERR_MODEL_NOT_FOUND', message: /tokenizer\.json/ })
  await t.throwsAsync(CrossEncoder.load(join(tmpdir(), 'no-such-model-dir-xyz')), { code: 'ERR_MODEL_NOT_FOUND' })
  const noQuant = copyModel('tiny-cross-encoder-2label')
  await t.throwsAsync(CrossEncoder.load(noQuant, { quantized: true }), {
    code: 'ERR_MODEL_NOT_FOUND',
    message: /model_quantized/,
  })
  const corrupt = copyModel('tiny-cross-encoder')
  writeFileSync(join(corrupt, 'onnx/model.onnx'), 'this is not an onnx graph')
  await t.throwsAsync(CrossEncoder.load(corrupt), { code: 'ERR_MODEL_LOAD' })
  const mismatch = copyModel('tiny-cross-encoder')
  const tok = JSON.parse(readFileSync(join(mismatch, 'tokenizer.json'), 'utf8'))
  const size = Object.keys(tok.model.vocab).length
  for (let i = 0; i < 500; i++) tok.model.vocab[`zz${i}`] = size + i
  writeFileSync(join(mismatch, 'tokenizer.json'), JSON.stringify(tok))
  await t.throwsAsync(CrossEncoder.load(mismatch), { code: 'ERR_MODEL_LOAD', message: /tokenizer match/ })
  await t.throwsAsync(CrossEncoder.load(join(models, 'tiny-embedder')), { code: 'ERR_MODEL_LOAD' })
  for (const dir of [noTok, noQuant, corrupt, mismatch]) rmSync(dir, { recursive: true })
})
