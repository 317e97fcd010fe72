// The embedding suite: ragrank's Embedder vs transformers.js (same ONNX files, same threads, mean pooling +
// normalisation as its feature-extraction pipeline does) and sentence-transformers' SentenceTransformer.encode on
// PyTorch (the same weights), on every trained model set up here:
//
// - all-MiniLM-L6-v2 (bench/.cache/models/minilm-l6-embedder, bench/models/prepare.py; fp32 and dynamic int8
//   `onnx/model_quantized.onnx`), on Cranfield abstracts and queries, max length 256;
// - multilingual-e5-small (bench/.cache/models/multilingual-e5-small, `npm run setup:models`; fp32 and dynamic int8
//   `onnx/model_int8.onnx`), on KorQuAD paragraphs and questions with e5's `passage: ` / `query: ` prompts written
//   into the texts (every engine gets the same strings), max length 512.
//
// Workloads per model: long texts in batches of 32, short texts in batches of 32 and of 8, and short texts one at a
// time (the latency of a single query). Engines are loaded and warmed up first, then timed in turn, round after
// round (bench/lib/harness.mjs interleavedThroughput).
//
// sentence-transformers runs in $RAGRANK_ST_PYTHON, else .venv-bench-st, else .venv-export (each needs
// sentence-transformers and torch); the model folder needs model.safetensors (MiniLM: npm run setup:bench-st).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import path from 'node:path'
import { Embedder } from '../../dist/esm/index.js'
import { hasData, loadCran, loadKorquad } from '../lib/datasets.mjs'
import {
  contestant,
  fmt,
  fmtRatio,
  interleavedThroughput,
  isaLine,
  jsonLineServer,
  machineInfo,
  mdTable,
} from '../lib/harness.mjs'
import { modelsDir, pyScript, resultsDir, venvPython } from '../lib/paths.mjs'
import { cosine } from '../../fixtures/cosine.mjs'

const THREADS = availableParallelism()
const SAME_VECTORS = 8 // texts compared across engines

/** The models of the suite: folder, int8 file (ragrank and transformers.js dtype names), texts. */
const MODELS = [
  {
    key: 'minilm',
    name: 'all-MiniLM-L6-v2',
    dir: 'minilm-l6-embedder',
    maxLength: 256,
    int8: { ragrank: 'q8', transformersJs: 'q8', file: 'onnx/model_quantized.onnx' },
    data: () => (hasData('cran') ? loadCran() : null),
    long: 'Cranfield abstracts',
    short: 'Cranfield queries',
    prompts: { long: '', short: '' },
    sizes: { long: 32, short: 64, one: 16 },
  },
  {
    key: 'e5',
    name: 'multilingual-e5-small',
    dir: 'multilingual-e5-small',
    ready: true, // built by a check step that writes READY
    maxLength: 512,
    int8: { ragrank: 'int8', transformersJs: 'int8', file: 'onnx/model_int8.onnx' },
    data: () => (hasData('korquad') ? loadKorquad() : null),
    long: 'KorQuAD paragraphs',
    short: 'KorQuAD questions',
    prompts: { long: 'passage: ', short: 'query: ' },
    sizes: { long: 16, short: 32, one: 8 },
  },
]

/** The interpreter with sentence-transformers: $RAGRANK_ST_PYTHON, .venv-bench-st, .venv-export. */
function stPython() {
  const candidates = [process.env.RAGRANK_ST_PYTHON, venvPython('.venv-bench-st'), venvPython('.venv-export')]
  return candidates.find((p) => p && existsSync(p))
}

/** transformers.js: tokenizer + model in batches, then its own mean pooling and L2 normalisation. */
async function transformersJs(model, dtype, maxLength) {
  const { AutoTokenizer, AutoModel, env, mean_pooling } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.localModelPath = modelsDir + path.sep
  const tokenizer = await AutoTokenizer.from_pretrained(model.dir)
  const onnx = await AutoModel.from_pretrained(model.dir, {
    dtype,
    session_options: { intraOpNumThreads: THREADS, interOpNumThreads: 1 },
  })
  const embed = async (texts, batch) => {
    const out = []
    for (let i = 0; i < texts.length; i += batch) {
      const inputs = tokenizer(texts.slice(i, i + batch), { padding: true, truncation: true, max_length: maxLength })
      const { last_hidden_state } = await onnx(inputs)
      out.push(mean_pooling(last_hidden_state, inputs.attention_mask).normalize(2, -1).data)
    }
    return out
  }
  embed.dispose = () => onnx.dispose()
  return embed
}

const head = (flat, dim, n) => Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)))
const concat = (parts) => {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}
const minCosine = (ours, theirs) => Math.min(...ours.map((v, i) => cosine(v, theirs[i])))

/** The engines of one model, each as { label, embed(texts, batch) -> flat Float32Array, close }. */
async function loadEngines(model, dir, python, log) {
  const engines = []
  const failed = {}
  for (const [label, dtype] of [
    ['ragrank fp32', undefined],
    ['ragrank int8', model.int8.ragrank],
  ]) {
    const e = await Embedder.load(dir, { maxLength: model.maxLength, dtype })
    engines.push({
      label,
      // one call per batch, as the other engines make (ragrank also caps a batch at its token budget)
      embed: async (texts, batch) => {
        const parts = []
        for (let i = 0; i < texts.length; i += batch) parts.push((await e.embed(texts.slice(i, i + batch))).data)
        return concat(parts)
      },
      close: () => e.dispose(),
    })
  }
  for (const [label, dtype] of [
    ['transformers.js fp32', 'fp32'],
    ['transformers.js int8', model.int8.transformersJs],
  ]) {
    try {
      const embed = await transformersJs(model, dtype, model.maxLength)
      engines.push({ label, embed: async (t, b) => concat(await embed(t, b)), close: () => embed.dispose() })
    } catch (e) {
      failed[label] = { error: String(e.message ?? e).slice(0, 200) }
      log(model.key, label, 'failed to load:', failed[label].error)
    }
  }
  const py = python ? stPython() : undefined
  if (py) {
    const label = 'sentence-transformers (PyTorch)'
    if (existsSync(path.join(dir, 'model.safetensors'))) engines.push(stEngine(label, py, dir, model.maxLength))
    else failed[label] = { error: 'no model.safetensors in the model folder (MiniLM: npm run setup:bench-st)' }
  }
  return { engines, failed }
}

/** sentence-transformers in a pass worker, one per workload (the worker holds its texts and batch size). */
function stEngine(label, py, dir, maxLength) {
  return {
    label,
    prepare: async (texts, batch) => {
      const server = jsonLineServer(py, [pyScript('st_embed.py')])
      const ready = await server.request({
        model: dir,
        texts,
        max_length: maxLength,
        threads: THREADS,
        batch_size: batch,
      })
      return {
        first: ready.head,
        pass: async () => (await server.request({ run: true })).seconds,
        close: () => server.close(),
      }
    },
    close: () => {},
  }
}

/** A Node engine's workload: its warm-up pass gives the vectors compared across engines. */
async function prepareNode(e, texts, batch) {
  const flat = await e.embed(texts, batch)
  return {
    first: head(flat, flat.length / texts.length, Math.min(SAME_VECTORS, texts.length)),
    pass: async () => void (await e.embed(texts, batch)),
    close: () => {},
  }
}

async function runModel(model, { quick, python, repeats, log }) {
  const dir = path.join(modelsDir, model.dir)
  if (!existsSync(path.join(dir, 'onnx', 'model.onnx')) || (model.ready && !existsSync(path.join(dir, 'READY'))))
    return { model: model.name, skipped: `${dir} is not set up` }
  const data = model.data()
  if (!data) return { model: model.name, skipped: 'its data is not found' }
  const n = (k) => (quick ? Math.ceil(model.sizes[k] / 4) : model.sizes[k])
  const long = data.docs.slice(0, n('long')).map((d) => model.prompts.long + d.text)
  const short = data.queries.slice(0, n('short')).map((q) => model.prompts.short + q.text)
  const workloads = [
    { name: `${long.length} ${model.long}, batches of 32`, texts: long, batch: 32 },
    { name: `${short.length} ${model.short}, batches of 32`, texts: short, batch: 32 },
    { name: `${short.length} ${model.short}, batches of 8`, texts: short, batch: 8 },
    { name: `${n('one')} ${model.short}, one at a time`, texts: short.slice(0, n('one')), batch: 1, latency: true },
  ]
  const { engines, failed } = await loadEngines(model, dir, python, log)
  const out = { model: model.name, dir: model.dir, maxLength: model.maxLength, int8: model.int8.file, rows: [] }
  for (const w of workloads) {
    const row = {
      workload: w.name,
      texts: w.texts.length,
      batch: w.batch,
      latency: !!w.latency,
      rates: {},
      sameVectors: {},
    }
    Object.assign(row.rates, failed)
    let reference
    const contestants = []
    const timedEngines = []
    const sessions = []
    for (const e of engines) {
      try {
        const session = e.prepare ? await e.prepare(w.texts, w.batch) : await prepareNode(e, w.texts, w.batch)
        if (!reference) reference = session.first
        else row.sameVectors[e.label] = minCosine(reference, session.first)
        contestants.push(contestant(w.texts.length, session.pass))
        timedEngines.push(e)
        sessions.push(session)
      } catch (err) {
        row.rates[e.label] = { error: String(err.message ?? err).slice(0, 200) }
      }
    }
    const afterRound = (r, rates) =>
      log(
        model.key,
        w.name,
        `repeat ${r + 1}/${repeats}:`,
        timedEngines.map((e, k) => `${e.label} ${fmt(rates.get(contestants[k])[r])}`).join(', '),
      )
    const timed = await interleavedThroughput(contestants, { repeats, warm: true, settleMs: 0, afterRound })
    timedEngines.forEach((e, k) => {
      row.rates[e.label] = timed.get(contestants[k]).summary
    })
    for (const session of sessions) await session.close()
    out.rows.push(row)
  }
  for (const e of engines) await e.close()
  return out
}

export async function runEmbedSuite({ quick = false, python = true, outDir = resultsDir } = {}) {
  const repeats = quick ? 2 : 3
  const log = (...a) => console.error('[embed]', ...a)
  const results = {
    machine: machineInfo(),
    threads: THREADS,
    loadavgBefore: loadavg(),
    stPython: python ? (stPython() ?? null) : null,
    settings: { quick, repeats },
    models: [],
  }
  for (const model of MODELS) {
    log(model.name)
    results.models.push(await runModel(model, { quick, python, repeats, log }))
  }
  results.loadavgAfter = loadavg()
  const markdown = report(results)
  mkdirSync(outDir, { recursive: true })
  const base = quick ? 'embed-quick' : 'embed'
  writeFileSync(path.join(outDir, `${base}.md`), `${markdown}\n`)
  writeFileSync(path.join(outDir, `${base}.json`), JSON.stringify(results, null, 2))
  return { markdown }
}

const ST = 'sentence-transformers (PyTorch)'

function modelSection(m, repeats) {
  if (m.skipped) return [`## ${m.model}`, '', `Skipped: ${m.skipped}.`]
  const engines = [...new Set(m.rows.flatMap((r) => Object.keys(r.rates)))]
  // throughput rows: texts/s; the one-at-a-time row: ms per text (1000 / texts/s)
  const cell = (r, v) => {
    if (v === undefined) return '–'
    if (v.error) return `error: ${v.error}`
    // a spread over 2x means the load changed under the run: that cell's ratios are noise
    const noisy = v.max > 2 * v.min ? ' †' : ''
    if (r.latency) return `${fmt(1000 / v.median)} ms (${fmt(1000 / v.max)}–${fmt(1000 / v.min)})${noisy}`
    return `${fmt(v.median)} (${fmt(v.min)}–${fmt(v.max)})${noisy}`
  }
  const ratio = (r, a, b) => (r.rates[a]?.median && r.rates[b]?.median ? r.rates[a].median / r.rates[b].median : null)
  return [
    `## ${m.model}`,
    '',
    `\`bench/.cache/models/${m.dir}\`: fp32 \`onnx/model.onnx\` and dynamic int8 \`${m.int8}\`, the same files for ragrank and transformers.js; sentence-transformers runs the fp32 weights (\`model.safetensors\`) on PyTorch. Mean pooling, L2-normalised, max length ${m.maxLength}. Cells: texts/s, median (min-max) of ${repeats} repeats; the one-at-a-time row: milliseconds per text (each text embedded alone: a single query's latency).`,
    '',
    mdTable(
      ['engine', ...m.rows.map((r) => r.workload)],
      engines.map((e) => [e, ...m.rows.map((r) => cell(r, r.rates[e]))]),
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
      m.rows.map((r) => [
        r.workload,
        fmtRatio(ratio(r, 'ragrank fp32', 'transformers.js fp32')),
        fmtRatio(ratio(r, 'ragrank int8', 'transformers.js int8')),
        fmtRatio(ratio(r, 'ragrank fp32', ST)),
        fmtRatio(ratio(r, 'ragrank int8', 'ragrank fp32')),
      ]),
    ),
    '',
    `Same vectors: the minimum cosine, over the first ${SAME_VECTORS} texts of each workload, between each engine and ragrank fp32:`,
    '',
    mdTable(
      ['workload', ...engines.filter((e) => e !== 'ragrank fp32')],
      m.rows.map((r) => [
        r.workload,
        ...engines
          .filter((e) => e !== 'ragrank fp32')
          .map((e) => (r.sameVectors[e] === undefined ? '–' : r.sameVectors[e].toFixed(6))),
      ]),
    ),
  ]
}

export function report(results) {
  const { quick, repeats } = results.settings
  const m = results.machine
  return [
    `# Embedding benchmark${quick ? ' (quick run)' : ''}`,
    '',
    `Generated by \`npm run bench -- --suite embed${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}. ${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${results.threads} threads for every engine. 1-minute load average ${fmt(results.loadavgBefore[0])} before, ${fmt(results.loadavgAfter[0])} after: the machine is shared, so compare engines within one table (timed in turn, round after round), not across runs. sentence-transformers: ${results.stPython ?? 'no Python with sentence-transformers found (set RAGRANK_ST_PYTHON)'}.`,
    '',
    'Every engine embeds the same strings in batches of the same size (for e5 the `passage: ` / `query: ` prompts are part of the strings). † marks a cell whose repeats spread over more than 2x (max > 2 min): the load of the shared machine changed under it, so ratios involving it are not to be trusted.',
    '',
    ...results.models.flatMap((x) => [...modelSection(x, repeats), '']),
    "transformers.js's fp32 vectors differ slightly on long texts because its tokenizer truncates after adding the special tokens: it cuts the token arrays at the max length, so a truncated text loses its closing [SEP] / `</s>` (seen in @huggingface/transformers 4.3.2). ragrank and sentence-transformers truncate the text and keep it.",
  ].join('\n')
}
