// The architectures users download, proven against sentence-transformers itself: tiny random-weight models of the
// real configurations (BERT, XLM-RoBERTa at 514 and 8194 positions, ModernBERT, DeBERTa-v2, Qwen3), exported to
// ONNX by the exporter of `ragrank convert`, and the vectors of SentenceTransformer.encode / the logits of
// CrossEncoder.predict on the PyTorch weights as reference. Models and reference: scripts/models/make_arch_models.py.
// Pooling, padding side, prompts and lengths are passed explicitly here: this suite proves the architectures.
import test from 'ava'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CrossEncoder, Embedder } from '../../dist/esm/index.js'
import { cosine } from '../../fixtures/cosine.mjs'

const root = new URL('../../fixtures/models/', import.meta.url).pathname
const ref = JSON.parse(readFileSync(join(root, 'arch-reference.json'), 'utf8'))
const SCORE_TOLERANCE = 1e-4
const MIN_COSINE = 0.9999

/** sentence-transformers' pooling mode names as ragrank spells them. */
const POOLING = { mean_sqrt_len_tokens: 'meansqrt' }
/** |a - b| / |b|: unnormalised vectors must match in length too. */
const relativeError = (a, b) => Math.hypot(...a.map((x, i) => x - b[i])) / Math.hypot(...b)

const embedders = Object.entries(ref).filter(([, r]) => r.kind === 'embedder')
// a yes/no decoder reranker (Qwen3-Reranker) runs as a 2-label CrossEncoder: score = logit_yes - logit_no
const crossEncoders = Object.entries(ref).filter(([, r]) => r.kind !== 'embedder')

test('the fixtures cover every architecture of the compatibility table', (t) => {
  const families = new Set(Object.values(ref).map((r) => r.family))
  t.deepEqual([...families].sort(), ['BERT', 'DeBERTa-v2', 'ModernBERT', 'Qwen3 (decoder-only)', 'XLM-RoBERTa'])
  const xlmr = Object.keys(ref).filter((n) => n.startsWith('xlmr-'))
  const positions = xlmr.map(
    (n) => JSON.parse(readFileSync(join(root, 'arch', n, 'config.json'))).max_position_embeddings,
  )
  t.deepEqual([...new Set(positions)].sort(), [514, 8194])
  // XLM-R exports have no token_type_ids input; BERT's have
  t.false(ref['xlmr-reranker-v2-m3'].inputs.includes('token_type_ids'))
  t.true(ref['bert-cross-encoder'].inputs.includes('token_type_ids'))
  for (const r of Object.values(ref)) {
    t.true(r.bytes < 1_000_000)
    t.true(
      r.cases.some((c) => c.max_length !== null && c.tokens.some((n) => n === c.max_length)),
      'a case is cut at its limit',
    )
  }
})

for (const [name, r] of embedders) {
  test(`${name} (${r.family}, ${r.like} shape): vectors match sentence-transformers`, async (t) => {
    const model = await Embedder.load(join(root, 'arch', name), {
      pooling: r.pooling,
      normalize: r.normalize,
      paddingSide: r.padding_side,
      maxLength: r.max_seq_length,
      batchSize: 3, // batches of mixed lengths, cut differently from sentence-transformers' 4
    })
    let worst = 1
    try {
      for (const c of r.cases) {
        const texts = c.prompt ? c.texts.map((x) => c.prompt + x) : c.texts
        const options = {
          ...(c.max_length ? { maxLength: c.max_length } : {}),
          ...(c.pooling ? { pooling: POOLING[c.pooling] ?? c.pooling, normalize: c.normalize } : {}),
        }
        const { data, dim } = await model.embed(texts, options)
        t.is(dim, c.vectors[0].length)
        c.vectors.forEach((want, i) => {
          const got = data.subarray(i * dim, (i + 1) * dim)
          const cos = cosine(got, want)
          worst = Math.min(worst, cos)
          t.true(cos >= MIN_COSINE, `${c.name} #${i} (${c.tokens[i]} tokens): cosine ${cos}`)
          if (c.normalize === false) {
            const err = relativeError([...got], want)
            t.true(err <= 1e-4, `${c.name} #${i}: relative error ${err}`)
          } else if (r.normalize) t.true(Math.abs(Math.hypot(...got) - 1) < 1e-5)
        })
      }
      t.log(`1 - lowest cosine: ${(1 - worst).toExponential(1)}`)
    } finally {
      model.dispose()
    }
  })
}

// The folders are laid out like hub downloads: loaded with no options, the sentence-transformers files alone must give
// the pooling, normalisation, padding side, max length and query prompt of the reference.
for (const [name, r] of embedders) {
  test(`${name}: loaded with no options, the folder's own settings reproduce sentence-transformers`, async (t) => {
    const model = await Embedder.load(join(root, 'arch', name), { batchSize: 3 })
    try {
      t.is(model.maxLength, r.max_seq_length)
      for (const c of r.cases.filter((c) => !c.pooling && !c.max_length)) {
        const vectors = c.prompt
          ? await Promise.all(c.texts.map((x) => model.embedQuery(x)))
          : await model
              .embed(c.texts)
              .then(({ data, dim }) => c.texts.map((_, i) => data.subarray(i * dim, (i + 1) * dim)))
        c.vectors.forEach((want, i) => {
          const cos = cosine(vectors[i], want)
          t.true(cos >= MIN_COSINE, `${c.name} #${i}: cosine ${cos}`)
        })
      }
    } finally {
      model.dispose()
    }
  })
}

test('every pooling mode of sentence-transformers is in the reference, unnormalised', (t) => {
  const modes = ref['bert-embedder'].cases.filter((c) => c.pooling).map((c) => POOLING[c.pooling] ?? c.pooling)
  t.deepEqual(modes.sort(), ['cls', 'lasttoken', 'max', 'meansqrt', 'weightedmean'])
})

test('unknown pooling and padding values are RangeErrors at load and per call', async (t) => {
  const dir = join(root, 'arch', 'bert-embedder')
  await t.throwsAsync(Embedder.load(dir, { pooling: 'sum' }), { instanceOf: RangeError, message: /lasttoken/ })
  await t.throwsAsync(Embedder.load(dir, { paddingSide: 'middle' }), { instanceOf: RangeError, message: /'left'/ })
  await t.throwsAsync(Embedder.load(dir, { paddingSide: 1 }), { instanceOf: TypeError })
  const model = await Embedder.load(dir)
  try {
    await t.throwsAsync(model.embed(['a'], { pooling: 'MEAN' }), { instanceOf: RangeError })
  } finally {
    model.dispose()
  }
})

test('the pooling and padding options change the vectors (the parity above is not vacuous)', async (t) => {
  const dir = join(root, 'arch', 'qwen3-embedder')
  const c = ref['qwen3-embedder'].cases[0]
  const right = await Embedder.load(dir, { pooling: 'lasttoken', paddingSide: 'right', batchSize: 8 })
  const mean = await Embedder.load(dir, { pooling: 'mean', paddingSide: 'left', batchSize: 8 })
  try {
    // right padding with last-token pooling reads the last real token too: same vectors, in a causal model
    const a = await right.embed(c.texts)
    const b = await mean.embed(c.texts)
    for (let i = 0; i < c.texts.length; i++) {
      const d = a.dim
      t.true(cosine(a.data.subarray(i * d, (i + 1) * d), c.vectors[i]) >= MIN_COSINE)
      t.true(cosine(b.data.subarray(i * d, (i + 1) * d), c.vectors[i]) < 0.999)
    }
  } finally {
    right.dispose()
    mean.dispose()
  }
})

for (const [name, r] of crossEncoders) {
  const peer =
    r.kind === 'yes-no-reranker' ? "the model card's transformers scoring" : "sentence-transformers' CrossEncoder"
  test(`${name} (${r.family}, ${r.like} shape): scores match ${peer}`, async (t) => {
    const model = await CrossEncoder.load(join(root, 'arch', name), { batchSize: 3 })
    let worst = 0
    try {
      for (const c of r.cases) {
        const requests = c.pairs.map(([query, doc]) => ({ query, documents: [doc] }))
        const options = { activation: 'none', ...(c.max_length ? { maxLength: c.max_length } : {}) }
        const results = await model.rerankMany(requests, options)
        results.forEach(([hit], i) => {
          const diff = Math.abs(hit.score - c.scores[i])
          worst = Math.max(worst, diff)
          t.true(diff <= SCORE_TOLERANCE, `${c.name} #${i} (${c.tokens[i]} tokens): ${hit.score} vs ${c.scores[i]}`)
        })
        if (c.p_yes) {
          // the default sigmoid activation is the model card's P(yes)
          const probs = await model.rerankMany(requests, c.max_length ? { maxLength: c.max_length } : {})
          probs.forEach(([hit], i) => t.true(Math.abs(hit.score - c.p_yes[i]) <= SCORE_TOLERANCE, `P(yes) #${i}`))
        }
      }
      t.log(`largest score difference ${worst.toExponential(1)}`)
    } finally {
      model.dispose()
    }
  })
}

test('an export with a KV cache input (text generation) is refused at load, naming the input', async (t) => {
  const e = await t.throwsAsync(Embedder.load(join(root, 'arch-bad', 'kv-cache')), { code: 'ERR_MODEL_LOAD' })
  t.regex(e.message, /inputs ragrank does not feed: past_key_values\.0\.key/)
  t.regex(e.message, /ragrank convert/)
})
