// Every batch's output is checked against the shape the load probes learned, and every score and embedding
// value is finite: a graph with a fixed batch axis, an output whose width follows the input length, an axis
// that is not the input length, and NaN / Infinity outputs are errors with a code that name what was wrong,
// never a panic (ERR_INTERNAL with a Rust backtrace) nor a wrong or NaN score.
// Models: scripts/models/make_shape_fixtures.py (fixtures/models/shapes/). Each case runs in a child process:
// a native panic prints its backtrace there, where the test can see it.
import test from 'ava'
import { spawnSync } from 'node:child_process'

const shapes = new URL('../../fixtures/models/shapes/', import.meta.url).pathname
const dist = new URL('../../dist/esm/index.js', import.meta.url).href

/** Runs `body` (an async function body given `model`, the folder of `name`) in a child; its JSON result and stderr. */
function child(name, body) {
  const code = `import { CrossEncoder, Embedder } from ${JSON.stringify(dist)}
const model = ${JSON.stringify(shapes + name)}
const caught = (p) => p.then((v) => ({ value: v }), (e) => ({ code: e.code, message: e.message }))
const out = await (async () => { ${body} })()
console.log(JSON.stringify(out))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 })
  if (r.status !== 0) throw new Error(`child exited ${r.status} ${r.signal ?? ''}: ${r.stderr.slice(-2000)}`)
  return { out: JSON.parse(r.stdout.trim().split('\n').at(-1)), stderr: r.stderr }
}

const noPanic = (t, stderr) => t.notRegex(stderr, /panicked|RUST_BACKTRACE|ERR_INTERNAL/, stderr)

test('a classifier with a fixed batch axis runs one input, and a batch of 3 is ERR_INFERENCE naming both shapes', (t) => {
  const { out, stderr } = child(
    'fixed-batch-logits',
    // One session: with more, a batch is split so that each has work, whatever batchSize says.
    `const ce = await CrossEncoder.load(model, { sessions: 1 })
return {
  one: await caught(ce.rerank('capital', ['paris'])),
  three: await caught(ce.rerank('capital', ['paris', 'berlin', 'rome'], { batchSize: 3 })),
}`,
  )
  t.is(out.one.value?.length, 1, JSON.stringify(out.one))
  t.true(Number.isFinite(out.one.value[0].score))
  t.is(out.three.code, 'ERR_INFERENCE', out.three.message)
  t.regex(out.three.message, /output `logits` has shape \[1, 2\] for a batch of 3 inputs .* expected \[3, 2\]/)
  noPanic(t, stderr)
})

test('an embedder with a fixed batch axis: a batch of 2 is ERR_INFERENCE naming both shapes', (t) => {
  const { out, stderr } = child(
    'fixed-batch-hidden',
    `const em = await Embedder.load(model, { sessions: 1 })
return { one: await caught(em.embed(['paris'])), two: await caught(em.embed(['paris', 'berlin'], { batchSize: 2 })) }`,
  )
  t.is(out.one.value?.dim, 4, JSON.stringify(out.one))
  t.is(out.two.code, 'ERR_INFERENCE', out.two.message)
  t.regex(
    out.two.message,
    /output `last_hidden_state` has shape \[1, \d+, 4\] for a batch of 2 inputs .* expected \[2, \d+, 4\]/,
  )
  noPanic(t, stderr)
})

test('an output whose width follows the input length is refused at load, not taken for a 2-label classifier', (t) => {
  const { out, stderr } = child('seq-width-logits', 'return await caught(CrossEncoder.load(model))')
  t.is(out.code, 'ERR_MODEL_LOAD', JSON.stringify(out))
  t.regex(out.message, /output `logits` changes shape with the input length \(\[1, 2\] for 2 tokens, \[1, 3\] for 3\)/)
  noPanic(t, stderr)
})

test('an output whose token axis is not the input length is ERR_INFERENCE, for either padding side', (t) => {
  const { out, stderr } = child(
    'fixed-seq-hidden',
    `const text = ['paris is the capital of france']
return {
  right: await caught((await Embedder.load(model)).embed(text)),
  left: await caught((await Embedder.load(model, { paddingSide: 'left' })).embed(text)),
}`,
  )
  for (const side of ['right', 'left']) {
    t.is(out[side].code, 'ERR_INFERENCE', `${side}: ${JSON.stringify(out[side])}`)
    t.regex(out[side].message, /output `last_hidden_state` has shape \[1, 2, 4\] .* expected \[1, \d+, 4\]/, side)
  }
  noPanic(t, stderr)
})

test('a NaN or infinite score is ERR_INFERENCE naming the value and the input; finite ones still score', (t) => {
  const { out, stderr } = child(
    'nonfinite-logits',
    `const ce = await CrossEncoder.load(model)
return {
  finite: await caught(ce.rerank('capital', ['capital city', 'rome'])),
  nan: await caught(ce.rerank('capital', ['rome', 'paris'])),
  inf: await caught(ce.rerank('capital', ['berlin'], { activation: 'none' })),
}`,
  )
  t.is(out.finite.value?.length, 2, JSON.stringify(out.finite))
  for (const r of out.finite.value) t.true(Number.isFinite(r.score))
  t.is(out.nan.code, 'ERR_INFERENCE', JSON.stringify(out.nan))
  t.regex(out.nan.message, /output `logits` is NaN for input 1 \(not a finite number\)/)
  t.is(out.inf.code, 'ERR_INFERENCE', JSON.stringify(out.inf))
  t.regex(out.inf.message, /output `logits` is inf for input 0/)
  noPanic(t, stderr)
})

test('a NaN or infinite embedding is ERR_INFERENCE naming the input; finite ones still embed', (t) => {
  const { out, stderr } = child(
    'nonfinite-hidden',
    `const em = await Embedder.load(model)
const finite = await em.embed(['capital city', 'rome'])
return {
  finite: Array.from(finite.data).every(Number.isFinite) && finite.data.length === 8,
  nan: await caught(em.embed(['rome', 'paris'])),
  cls: await caught(em.embed(['rome', 'rome', 'berlin'], { normalize: false })),
}`,
  )
  t.true(out.finite)
  t.is(out.nan.code, 'ERR_INFERENCE', JSON.stringify(out.nan))
  t.regex(out.nan.message, /output `last_hidden_state` is NaN for input 1/)
  t.is(out.cls.code, 'ERR_INFERENCE', JSON.stringify(out.cls))
  t.regex(out.cls.message, /output `last_hidden_state` is (inf|NaN) for input 2/)
  noPanic(t, stderr)
})
