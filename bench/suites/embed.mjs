// The embedding suite: ragrank's Embedder vs transformers.js (same ONNX files, same threads,
// mean pooling + normalisation as its feature-extraction pipeline does) and, when its venv exists,
// sentence-transformers' SentenceTransformer.encode on PyTorch (the same weights).
//
// Model: bench/.cache/models/minilm-l6-embedder (bench/models/prepare.py: the real all-MiniLM-L6-v2;
// fp32 and dynamic int8). Workloads at max length 256: 300 Cranfield abstracts (long texts, many
// near the cap) and the 225 Cranfield queries (short). Every engine embeds in batches of 32 texts
// (sentence-transformers' default; transformers.js's pipeline pads one batch per call, and a call of
// 300 abstracts would hold GBs of attention scores). Engines are loaded and warmed up first, then
// timed in turn, round after round (bench/lib/harness.mjs interleavedThroughput).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import path from 'node:path'
import { Embedder } from '../../dist/esm/index.js'
import { hasData, loadCran } from '../lib/datasets.mjs'
import {
  isaLine,
  contestant,
  fmt,
  fmtRatio,
  interleavedThroughput,
  jsonLineServer,
  machineInfo,
  mdTable,
} from '../lib/harness.mjs'
import { modelsDir, pyScript, resultsDir, venvPython } from '../lib/paths.mjs'

const MODEL_DIR = modelsDir
const MODEL = path.join(MODEL_DIR, 'minilm-l6-embedder')
const THREADS = availableParallelism()
const MAX_LENGTH = 256
const BATCH = 32

/** transformers.js: tokenizer + model in batches of BATCH, then its own mean pooling and L2 normalisation. */
async function transformersJs(dtype) {
  const { AutoTokenizer, AutoModel, env, mean_pooling } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.localModelPath = MODEL_DIR + path.sep
  const name = path.basename(MODEL)
  const tokenizer = await AutoTokenizer.from_pretrained(name)
  const model = await AutoModel.from_pretrained(name, {
    dtype,
    session_options: { intraOpNumThreads: THREADS, interOpNumThreads: 1 },
  })
  const embed = async (texts) => {
    const out = []
    for (let i = 0; i < texts.length; i += BATCH) {
      const inputs = tokenizer(texts.slice(i, i + BATCH), { padding: true, truncation: true, max_length: MAX_LENGTH })
      const { last_hidden_state } = await model(inputs)
      const pooled = mean_pooling(last_hidden_state, inputs.attention_mask).normalize(2, -1)
      out.push(pooled.data)
    }
    return out
  }
  embed.dispose = () => model.dispose()
  return embed
}

/** The first `n` vectors of each engine, for the same-vectors check. */
const head = (flat, dim, n) => Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)))
const cosine = (a, b) => {
  let [ab, aa, bb] = [0, 0, 0]
  for (let i = 0; i < a.length; i++) [ab, aa, bb] = [ab + a[i] * b[i], aa + a[i] * a[i], bb + b[i] * b[i]]
  return ab / Math.sqrt(aa * bb)
}
const minCosine = (ours, theirs) => Math.min(...ours.map((v, i) => cosine(v, theirs[i])))

export async function runEmbedSuite({ quick = false, python = true, outDir = resultsDir } = {}) {
  if (!existsSync(path.join(MODEL, 'onnx', 'model.onnx'))) {
    return {
      markdown: `embed suite skipped: ${MODEL} is missing (run bench/models/prepare.py, see bench/models/README.md)`,
    }
  }
  if (!hasData('cran')) return { markdown: 'embed suite skipped: Cranfield data not found' }
  const cran = await loadCran()
  const workloads = [
    { name: `${quick ? 64 : 300} Cranfield abstracts`, texts: cran.docs.slice(0, quick ? 64 : 300).map((d) => d.text) },
    {
      name: `${quick ? 64 : 225} Cranfield queries`,
      texts: cran.queries.slice(0, quick ? 64 : 225).map((q) => q.text),
    },
  ]
  const repeats = quick ? 2 : 3
  const log = (...a) => console.error('[embed]', ...a)
  const results = {
    machine: machineInfo(),
    threads: THREADS,
    loadavgBefore: loadavg(),
    rows: [],
    settings: { quick, repeats, maxLength: MAX_LENGTH, batch: BATCH },
  }

  for (const { name, texts } of workloads) {
    const row = { workload: name, texts: texts.length, rates: {}, sameVectors: {} }
    const engines = []
    let reference // ragrank fp32's first vectors
    for (const [label, opts] of [
      ['ragrank fp32', {}],
      ['ragrank int8', { quantized: true }],
    ]) {
      const e = await Embedder.load(MODEL, { maxLength: MAX_LENGTH, ...opts })
      const first = await e.embed(texts)
      if (!reference) reference = head(first.data, first.dim, 8)
      else row.sameVectors[label] = minCosine(reference, head(first.data, first.dim, 8))
      engines.push({ label, pass: async () => void (await e.embed(texts)), close: () => e.dispose() })
    }
    for (const [label, dtype] of [
      ['transformers.js fp32', 'fp32'],
      ['transformers.js int8', 'q8'],
    ]) {
      try {
        const embed = await transformersJs(dtype)
        const first = await embed(texts)
        row.sameVectors[label] = minCosine(reference, head(first[0], 384, 8))
        engines.push({ label, pass: async () => void (await embed(texts)), close: () => embed.dispose() })
      } catch (e) {
        row.rates[label] = { error: String(e.message ?? e).slice(0, 200) }
      }
    }
    const py = venvPython('.venv-bench-st')
    if (python && existsSync(py)) {
      const label = 'sentence-transformers (PyTorch)'
      try {
        if (!existsSync(path.join(MODEL, 'model.safetensors')))
          throw new Error('no model.safetensors: run npm run setup:bench-st')
        const server = jsonLineServer(py, [pyScript('st_embed.py')])
        const ready = await server.request({
          model: MODEL,
          texts,
          max_length: MAX_LENGTH,
          threads: THREADS,
          batch_size: BATCH,
        })
        row.sameVectors[label] = minCosine(reference, ready.head)
        engines.push({
          label,
          pass: async () => (await server.request({ run: true })).seconds,
          close: () => server.close(),
        })
      } catch (e) {
        row.rates[label] = { error: String(e.message ?? e).slice(0, 200) }
      }
    }
    const contestants = engines.map((e) => contestant(texts.length, () => e.pass()))
    const afterRound = (r, rates) =>
      log(
        name,
        `repeat ${r + 1}/${repeats}:`,
        engines.map((e, k) => `${e.label} ${fmt(rates.get(contestants[k])[r])}`).join(', '),
      )
    const timed = await interleavedThroughput(contestants, { repeats, warm: true, settleMs: 0, afterRound })
    engines.forEach((e, k) => {
      row.rates[e.label] = timed.get(contestants[k]).summary
    })
    for (const e of engines) await e.close()
    results.rows.push(row)
  }
  results.loadavgAfter = loadavg()
  const markdown = report(results)
  mkdirSync(outDir, { recursive: true })
  const base = quick ? 'embed-quick' : 'embed'
  writeFileSync(path.join(outDir, `${base}.md`), `${markdown}\n`)
  writeFileSync(path.join(outDir, `${base}.json`), JSON.stringify(results, null, 2))
  return { markdown }
}

export function report(results) {
  const { quick, repeats, maxLength, batch } = results.settings
  const engines = [...new Set(results.rows.flatMap((r) => Object.keys(r.rates)))]
  const cell = (v) =>
    v === undefined ? '–' : v.error ? `error: ${v.error}` : `${fmt(v.median)} (${fmt(v.min)}–${fmt(v.max)})`
  const ratio = (r, a, b) => (r.rates[a]?.median && r.rates[b]?.median ? r.rates[a].median / r.rates[b].median : null)
  const m = results.machine
  return [
    `# Embedding benchmark${quick ? ' (quick run)' : ''}`,
    '',
    `Generated by \`npm run bench -- --suite embed${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}. ${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${results.threads} threads for every engine. 1-minute load average ${fmt(results.loadavgBefore[0])} before, ${fmt(results.loadavgAfter[0])} after.`,
    '',
    `Model: all-MiniLM-L6-v2 (real weights, bench/models/prepare.py), fp32 and dynamic int8 ONNX, the same files for ragrank and transformers.js; sentence-transformers runs the same weights on PyTorch (bench/models/torch_checkpoint.py). Mean pooling, L2-normalised, max length ${maxLength}, batches of ${batch} texts in every engine (ragrank also caps a batch at its token budget). Cells: texts/s, median (min-max) of ${repeats} repeats, engines timed in turn.`,
    '',
    mdTable(
      ['engine', ...results.rows.map((r) => r.workload)],
      engines.map((e) => [e, ...results.rows.map((r) => cell(r.rates[e]))]),
    ),
    '',
    mdTable(
      [
        'workload',
        'ragrank fp32 / transformers.js fp32',
        'ragrank int8 / transformers.js int8',
        'ragrank fp32 / sentence-transformers',
        'ragrank int8 / ragrank fp32',
      ],
      results.rows.map((r) => [
        r.workload,
        fmtRatio(ratio(r, 'ragrank fp32', 'transformers.js fp32')),
        fmtRatio(ratio(r, 'ragrank int8', 'transformers.js int8')),
        fmtRatio(ratio(r, 'ragrank fp32', 'sentence-transformers (PyTorch)')),
        fmtRatio(ratio(r, 'ragrank int8', 'ragrank fp32')),
      ]),
    ),
    '',
    'Same vectors: the minimum cosine, over the first 8 texts, between each engine and ragrank fp32: ' +
      results.rows
        .map(
          (r) =>
            `${r.workload}: ${Object.entries(r.sameVectors)
              .map(([e, c]) => `${e} ${c.toFixed(6)}`)
              .join(', ')}`,
        )
        .join('; ') +
      '.',
    '',
    "transformers.js's fp32 vectors differ slightly on the abstracts because its tokenizer truncates after adding the special tokens: it cuts the token arrays at the max length, so a truncated text loses its closing [SEP] (seen in @huggingface/transformers 4.3.2). ragrank and sentence-transformers truncate the text and keep [SEP].",
  ].join('\n')
}
