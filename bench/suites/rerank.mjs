// The reranking suite: ragrank's CrossEncoder vs transformers.js (same ONNX file, same
// threads, its documented cross-encoder recipe), a plain onnxruntime Python session and
// sentence-transformers' CrossEncoder on PyTorch (the same weights), each when its venv exists.
//
// Model: bench/.cache/models/minilm-l6-cross-encoder (make it with bench/models/prepare.py:
// the all-MiniLM-L6-v2 encoder, shaped like ms-marco-MiniLM-L-6-v2; fp32 and dynamic int8).
// Workload: Cranfield queries, each with its 100 BM25 candidates (real abstracts of varied
// length), at max length 256 and 512; and one query with 1,000 candidates.
// Scheduling: at each max length every engine is loaded and warmed up first, then each repeat
// runs all engines in turn (round-robin, starting one engine later each repeat), so drift of
// the shared machine hits every engine alike.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Bm25Index, CrossEncoder } from '../../dist/esm/index.js'
import { loadCran, hasData } from '../lib/datasets.mjs'
import {
  isaLine,
  contestant,
  fmt,
  fmtRatio,
  interleavedThroughput,
  jsonLineServer,
  machineInfo,
  mdTable,
  now,
  summarize,
} from '../lib/harness.mjs'
import { modelsDir, pyScript, resultsDir, venvPython } from '../lib/paths.mjs'

const MODEL_DIR = modelsDir
const MODEL = path.join(MODEL_DIR, 'minilm-l6-cross-encoder')
const THREADS = availableParallelism()

const fmtSpread = (s) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`

/** An engine that scores every request once per `pass()` and returns the seconds it took. */
async function jsEngine(requests, fn) {
  await fn(requests[0]) // warm-up
  return {
    pass: async () => {
      const t0 = now()
      for (const req of requests) await fn(req)
      return now() - t0
    },
    close: async () => fn.dispose?.(), // frees transformers.js's sessions (their arenas grow to GBs at 512)
  }
}

/** A Python worker (bench/py/*_rerank.py): loaded and warmed up once, then one pass per run request. */
async function pythonEngine(py, script, cfg) {
  const server = jsonLineServer(py, [script])
  const ready = await server.request(cfg) // {"ready": true, scores?: the warm-up request's logits}
  return {
    warmupScores: ready.scores,
    pass: async () => (await server.request({ run: true })).seconds,
    close: () => server.close(),
  }
}

// Python peers, each in the venv that has its packages (skipped when the venv is absent; see scripts/README.md).
const PYTHON_PEERS = [
  { label: 'onnxruntime (Python)', venv: '.venv-py', script: 'ort_rerank.py' },
  {
    label: 'sentence-transformers (PyTorch)',
    venv: '.venv-bench-st', // bench/py/requirements-st.txt
    script: 'st_rerank.py',
    needs: {
      file: 'model.safetensors',
      hint: 'no model.safetensors: run npm run setup:bench-st (or .venv-py/bin/python bench/models/torch_checkpoint.py)',
    },
  },
]

/** Largest |logit difference| between ragrank fp32 and a peer's logits for the same request's pairs. */
async function sameModelCheck(ce, request, peerScores) {
  const ours = await ce.rerank(request.query, request.documents, { activation: 'none' })
  const diffs = ours.map((d) => Math.abs(d.score - peerScores[d.index]))
  return { pairs: diffs.length, maxAbsDiff: Math.max(...diffs) }
}

/**
 * Pairs/s of each engine ({ label, engine }) over all requests: each repeat runs every engine
 * once, in turn, starting from a different engine each repeat. Returns { label: summary }.
 */
export async function interleaved(engines, requests, repeats, log = () => {}) {
  const pairs = requests.reduce((n, r) => n + r.documents.length, 0)
  const contestants = engines.map((e) => contestant(pairs, () => e.engine.pass()))
  const afterRound = (r, rates) =>
    log(
      `repeat ${r + 1}/${repeats}:`,
      engines.map((e, k) => `${e.label} ${fmt(rates.get(contestants[k])[r])}`).join(', '),
    )
  const res = await interleavedThroughput(contestants, { repeats, warm: true, settleMs: 0, afterRound })
  return Object.fromEntries(engines.map((e, k) => [e.label, res.get(contestants[k]).summary]))
}

/** int8 vs fp32 top-10 overlap (fraction of fp32's top 10 that int8 also ranks in its top 10), per query. */
export async function top10Overlap(fp32, int8, requests) {
  const overlaps = []
  for (const r of requests) {
    const a = (await fp32.rerank(r.query, r.documents, { topK: 10 })).map((d) => d.index)
    const b = new Set((await int8.rerank(r.query, r.documents, { topK: 10 })).map((d) => d.index))
    overlaps.push(a.filter((i) => b.has(i)).length / 10)
  }
  return summarize(overlaps)
}

/** Event-loop delay (p99, ms) while `work` runs, sampled every millisecond. */
async function loopDelayDuring(work) {
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  await work()
  h.disable()
  return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 }
}

async function transformersJs(dtype, maxLength) {
  const { AutoTokenizer, AutoModelForSequenceClassification, env } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.localModelPath = MODEL_DIR + path.sep
  const name = path.basename(MODEL)
  const tokenizer = await AutoTokenizer.from_pretrained(name)
  const model = await AutoModelForSequenceClassification.from_pretrained(name, {
    dtype,
    session_options: { intraOpNumThreads: THREADS, interOpNumThreads: 1 },
  })
  // The recipe of transformers.js's cross-encoder examples: one padded batch per query.
  const run = async ({ query, documents }) => {
    const inputs = tokenizer(new Array(documents.length).fill(query), {
      text_pair: documents,
      padding: true,
      truncation: true,
      max_length: maxLength,
    })
    const { logits } = await model(inputs)
    return Array.from(logits.data)
  }
  run.dispose = () => model.dispose()
  return run
}

/**
 * MatMul FLOPs of one pass over `requests` at `maxLength`, for ragrank's batching (length-sorted,
 * cut at `batchSize` pairs or `tokenBudget` padded tokens: the loaded CrossEncoder's `runtime`) and for
 * one padded batch per query (transformers.js). Per padded sequence of S tokens, 6 layers x (2·S·(4·384² + 2·384·1536)
 * for the projections and FFN + 4·S²·384 for Q·Kᵀ and P·V); LayerNorm, softmax, GELU and the head
 * are left out. Token counts come from the model's tokenizer (transformers.js's), truncated like the engines.
 */
export async function workloadFlops(requests, maxLength, { batchSize, tokenBudget }) {
  const { AutoTokenizer, env } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.localModelPath = MODEL_DIR + path.sep
  const tokenizer = await AutoTokenizer.from_pretrained(path.basename(MODEL))
  const H = 384
  const seq = (S) => 6 * (2 * S * (4 * H * H + 2 * H * 4 * H) + 4 * S * S * H)
  const out = { ragrank: 0, ragrankTokens: 0, perQueryBatch: 0, perQueryBatchTokens: 0, realTokens: 0 }
  for (const { query, documents } of requests) {
    const lens = documents.map(
      (d) => tokenizer(query, { text_pair: d, truncation: true, max_length: maxLength }).input_ids.dims[1],
    )
    out.realTokens += lens.reduce((a, b) => a + b, 0)
    const longest = Math.max(...lens)
    out.perQueryBatch += lens.length * seq(longest)
    out.perQueryBatchTokens += lens.length * longest
    let batch = { n: 0, len: 0 }
    for (const len of [...lens].sort((a, b) => b - a)) {
      if (batch.n > 0 && batch.n < batchSize && (batch.n + 1) * batch.len <= tokenBudget) batch.n++
      else batch = { n: 1, len }
      out.ragrank += seq(batch.len)
      out.ragrankTokens += batch.len
    }
  }
  return out
}

// Measured by hand on the benchmark machine on 2026-11-30 (flock'd): bench/probes/fma-peak.c
// with 2 threads, and bench/probes/gemm_rate.py (onnxruntime 1.30's MLAS SGEMM, 2 threads) on 8,192-row inputs of
// the encoder's shapes (384x384, 384x1536, 1536x384). Not re-measured by the suite.
const PEAK = {
  machine: 'AMD EPYC, CPU family 26 (Zen 5), 2 vCPUs',
  fma512: 501,
  fma256: 249,
  fma512OneCore: 253,
  gemm: [349, 410],
}

function computeNote(results) {
  const r = results.rows.find((x) => x.maxLength === 256)
  const pairs = (results.settings?.nQueries ?? NaN) * 100
  const rate = (row, label, work) =>
    row?.flops && row[label]?.median ? ((work / 1e9) * row[label].median) / pairs : NaN
  const ours = rate(r, 'ragrank fp32', r?.flops?.ragrank)
  const theirs = rate(r, 'transformers.js fp32', r?.flops?.perQueryBatch)
  const pct = (x) => `${Math.round((100 * ours) / x)}%`
  const more = r?.flops ? r.flops.perQueryBatch / r.flops.ragrank : NaN
  const r512 = results.rows.find((x) => x.maxLength === 512)
  const more512 = r512?.flops ? r512.flops.perQueryBatch / r512.flops.ragrank : NaN
  const rt = r?.runtime
  const how = rt
    ? `batches of at most ${rt.batchSize} pairs or ${fmt(rt.tokenBudget)} padded tokens on ${rt.sessions} session(s) of ${rt.threads} thread(s)`
    : 'its default batches'
  return [
    'How computed: the FLOPs count only the encoder MatMuls. Per padded sequence of S tokens, that is 6 layers x (2·S·(4·384² + 2·384·1536) for the projections and the FFN, plus 4·S²·384 for Q·Kᵀ and P·V).',
    `Each engine's own padding counts: for ragrank, its length-sorted ${how}; for transformers.js, one batch per query, padded to that query's longest pair.`,
    "Token counts come from the model's tokenizer. GFLOP/s = FLOPs per pass x pairs/s / pairs per pass.",
    '',
    `Peak, measured by hand on this machine (${PEAK.machine}):`,
    `- a register-only FMA loop (bench/probes/fma-peak.c) reaches ${PEAK.fma512OneCore} GFLOP/s on one core and ${PEAK.fma512} on two with 512-bit vectors, and ${PEAK.fma256} with 256-bit vectors. Zen 5 runs 512-bit FMAs at full width, 64 FLOP/cycle/core; Zen 4 splits them into two 256-bit halves.`,
    `- onnxruntime's own SGEMM (MLAS, 2 threads) reaches ${PEAK.gemm[0]}–${PEAK.gemm[1]} GFLOP/s on the encoder's GEMM shapes with 8,192 rows.`,
    '',
    `At 256, ragrank fp32's ${fmt(ours)} GFLOP/s is ${pct(PEAK.fma512)} of that FMA peak; transformers.js runs the same onnxruntime kernels at ${fmt(theirs)} GFLOP/s, on ${Math.round(100 * (more - 1))}% more MatMul work (the pairs average ${fmt(r?.flops ? r.flops.realTokens / pairs : NaN)} real tokens, close to the cap, so sorting by length saves little padding).`,
    "The rest of the gap is batch size. A small batch's activations and its [batch, 12, S, S] attention scores stay in the CPU caches; one batch of 100 pairs at S = 256 writes 315 MB of attention scores per layer, which go to memory and back. Measured here on the same file (bench/probes/rerank-batching.mjs), 512-token batches scored 1.2x (fp32) and 1.5x (int8) the pairs/s of 8,192-token ones at 256, 1.6x and 1.7x at 512; two 1-thread sessions added 1.2x for fp32 at 256.",
    `At 512, one padded batch per query costs transformers.js ${fmt(more512)}x ragrank's MatMul work as well.`,
  ].join('\n')
}

function stNote(results) {
  const measured = results.rows.some((r) => r['sentence-transformers (PyTorch)']?.median)
  return measured
    ? 'sentence-transformers: CrossEncoder.predict (PyTorch on the CPU, torch.set_num_threads to the same thread count, batch_size 32, its own length sorting) on model.safetensors, written from the same fp32 ONNX file by bench/models/torch_checkpoint.py. It has no int8 of this file (its ONNX backend needs optimum), so it appears in the fp32 comparison only.'
    : 'Not measured: sentence-transformers CrossEncoder (`npm run setup:bench-st` installs it into .venv-bench-st, about 3.4 GB with the CUDA wheels that PyTorch pulls from PyPI, and writes a PyTorch checkpoint of the model).'
}

export async function runRerankSuite({ quick = false, extended = false, python = true, outDir = resultsDir } = {}) {
  if (!existsSync(path.join(MODEL, 'onnx', 'model.onnx'))) {
    const msg = `rerank suite skipped: ${MODEL} is missing (run bench/models/prepare.py, see bench/models/README.md)`
    return { markdown: msg }
  }
  if (!hasData('cran')) {
    return { markdown: 'rerank suite skipped: Cranfield data not found' }
  }
  const cran = await loadCran()
  const index = new Bm25Index()
  index.add(cran.docs)
  // About 15 minutes on 2 cores by default; --extended scores 10 queries x 5 repeats and adds a 1-session fp32 engine.
  const nQueries = quick ? 2 : extended ? 10 : 4
  const repeats = quick ? 2 : extended ? 5 : 3
  // int8 quality is cheap next to timing, so it is measured over more queries than the timing.
  const nOverlapQueries = quick ? 5 : 20
  const candidates = (q) => ({ query: q.text, documents: index.search(q.text, { topK: 100 }).map((h) => h.text) })
  const requests = cran.queries.slice(0, nQueries).map(candidates)
  const overlapRequests = cran.queries.slice(0, nOverlapQueries).map(candidates)
  const big = { query: cran.queries[0].text, documents: cran.docs.slice(0, 1000).map((d) => d.text) }
  const results = {
    machine: machineInfo(),
    threads: THREADS,
    loadavgBefore: loadavg(),
    rows: [],
    loop: [],
    int8: { top10Overlap: {} },
  }
  const log = (...a) => console.error('[rerank]', ...a)
  let fp32 // the fp32 CrossEncoder at max length 256, reused below

  for (const maxLength of [256, 512]) {
    const row = { maxLength }
    const engines = []
    const ragrank = {}
    const configs = [
      ['ragrank fp32', {}],
      ['ragrank int8', { quantized: true }],
    ]
    // The alternative to the default pool (2 sessions x 1 thread on 2 cores): one session on every core.
    if (extended) configs.splice(1, 0, ['ragrank fp32, 1 session x all threads', { sessions: 1 }])
    for (const [label, opts] of configs) {
      const ce = await CrossEncoder.load(MODEL, { maxLength, ...opts })
      ragrank[label] = ce
      engines.push({
        label,
        engine: await jsEngine(requests, (r) => ce.rerank(r.query, r.documents, { activation: 'none' })),
      })
    }
    for (const [label, dtype] of [
      ['transformers.js fp32', 'fp32'],
      ['transformers.js int8', 'q8'],
    ]) {
      try {
        engines.push({ label, engine: await jsEngine(requests, await transformersJs(dtype, maxLength)) })
      } catch (e) {
        row[label] = { error: String(e.message ?? e).slice(0, 200) }
      }
    }
    if (python) {
      const cfg = { model: MODEL, requests, max_length: maxLength, threads: THREADS, batch_size: 32 }
      for (const { label, venv, script, needs } of PYTHON_PEERS) {
        const py = venvPython(venv)
        if (!existsSync(py)) continue
        try {
          if (needs && !existsSync(path.join(MODEL, needs.file))) throw new Error(needs.hint)
          const engine = await pythonEngine(py, pyScript(script), cfg)
          if (engine.warmupScores)
            row.parity = {
              ...row.parity,
              [label]: await sameModelCheck(ragrank['ragrank fp32'], requests[0], engine.warmupScores),
            }
          engines.push({ label, engine })
        } catch (e) {
          row[label] = { error: String(e.message ?? e).slice(0, 200) }
        }
      }
    }
    Object.assign(row, await interleaved(engines, requests, repeats, (...a) => log(maxLength, ...a)))
    try {
      row.flops = await workloadFlops(requests, maxLength, ragrank['ragrank fp32'].runtime)
      row.runtime = ragrank['ragrank fp32'].runtime
    } catch (e) {
      log('FLOP count skipped:', String(e.message ?? e))
    }
    for (const { engine } of engines) await engine.close()
    results.rows.push(row)

    // Quality of int8: top-10 overlap with fp32 per query.
    results.int8.top10Overlap[maxLength] = await top10Overlap(
      ragrank['ragrank fp32'],
      ragrank['ragrank int8'],
      overlapRequests,
    )
    log(maxLength, 'int8 top-10 overlap median', fmt(results.int8.top10Overlap[maxLength].median))
    if (maxLength === 256) fp32 = ragrank['ragrank fp32']
    for (const ce of Object.values(ragrank)) if (ce !== fp32) ce.dispose() // their sessions' arenas hold GBs at 512
  }

  // Event-loop delay while 1,000 pairs are scored, and the throughput of that call.
  let t0 = now()
  const ragrankDelay = await loopDelayDuring(() => fp32.rerank(big.query, big.documents))
  results.loop.push({ engine: 'ragrank', ...ragrankDelay, pairsPerSecond: big.documents.length / (now() - t0) })
  try {
    const tjs = await transformersJs('fp32', 256)
    const chunks = []
    for (let i = 0; i < big.documents.length; i += 100) chunks.push(big.documents.slice(i, i + 100))
    t0 = now()
    const tjsDelay = await loopDelayDuring(async () => {
      for (const documents of chunks) await tjs({ query: big.query, documents })
    })
    const pairsPerSecond = big.documents.length / (now() - t0)
    results.loop.push({ engine: 'transformers.js (10 batches of 100)', ...tjsDelay, pairsPerSecond })
  } catch (e) {
    results.loop.push({ engine: 'transformers.js', error: String(e.message ?? e) })
  }
  t0 = now()
  await fp32.rerank(big.query, big.documents)
  results.bigSeconds = now() - t0
  results.loadavgAfter = loadavg()

  results.settings = { quick, extended, nQueries, repeats, nOverlapQueries }
  const markdown = report(results, results.settings)
  mkdirSync(outDir, { recursive: true })
  const base = quick ? 'rerank-quick' : 'rerank'
  writeFileSync(path.join(outDir, `${base}.md`), `${markdown}\n`)
  writeFileSync(path.join(outDir, `${base}.json`), JSON.stringify(results, null, 2))
  return { markdown }
}

/** The Markdown report of a run's results (rerank.json), so a fix to the report can be applied without a re-run. */
export function report(results, { quick, extended, nQueries, repeats, nOverlapQueries }) {
  const engines = [
    ...new Set(
      results.rows.flatMap((r) =>
        Object.keys(r).filter((k) => !['maxLength', 'flops', 'runtime', 'parity'].includes(k)),
      ),
    ),
  ]
  const cell = (v) => (v === undefined ? '–' : v.error ? `error: ${v.error}` : fmtSpread(v))
  const throughput = mdTable(
    ['engine', ...results.rows.map((r) => `max length ${r.maxLength}`)],
    engines.map((e) => [e, ...results.rows.map((r) => cell(r[e]))]),
  )
  const ratio = (r, a, b) => (r[a]?.median && r[b]?.median ? r[a].median / r[b].median : null)
  const ratios = mdTable(
    [
      'max length',
      'ragrank fp32 / transformers.js fp32',
      'ragrank int8 / transformers.js int8',
      'ragrank int8 / ragrank fp32',
      'ragrank fp32 / onnxruntime (Python)',
      'ragrank fp32 / sentence-transformers',
    ],
    results.rows.map((r) => [
      r.maxLength,
      fmtRatio(ratio(r, 'ragrank fp32', 'transformers.js fp32'), 1.5),
      fmtRatio(ratio(r, 'ragrank int8', 'transformers.js int8')),
      fmtRatio(ratio(r, 'ragrank int8', 'ragrank fp32'), 2),
      fmtRatio(ratio(r, 'ragrank fp32', 'onnxruntime (Python)')),
      fmtRatio(ratio(r, 'ragrank fp32', 'sentence-transformers (PyTorch)')),
    ]),
  )
  const parity = results.rows
    .flatMap((r) =>
      Object.entries(r.parity ?? {}).map(
        ([peer, p]) =>
          `${peer} at ${r.maxLength}: max |logit diff| ${p.maxAbsDiff.toExponential(1)} over ${p.pairs} pairs`,
      ),
    )
    .join('; ')
  const loop = mdTable(
    ['engine', 'event-loop delay p99 (ms)', 'max (ms)', 'pairs/s (1,000 candidates)'],
    results.loop.map((l) => [
      l.engine,
      l.error ? `error: ${l.error}` : fmt(l.p99),
      l.error ? '' : fmt(l.max),
      l.error ? '' : fmt(l.pairsPerSecond),
    ]),
  )
  // GFLOP/s = MatMul FLOPs of a pass (counted for that engine's padding) x passes per second
  const gflops = (r, label, work) => (r[label]?.median ? fmt(((work / 1e9) * r[label].median) / (nQueries * 100)) : '–')
  const compute = mdTable(
    [
      'max length',
      'tokens: real / ragrank padded / per-query padded',
      'MatMul GFLOP per pass: ragrank / per-query batch',
      'ragrank fp32 GFLOP/s',
      'transformers.js fp32 GFLOP/s',
    ],
    results.rows
      .filter((r) => r.flops)
      .map((r) => [
        r.maxLength,
        `${fmt(r.flops.realTokens)} / ${fmt(r.flops.ragrankTokens)} / ${fmt(r.flops.perQueryBatchTokens)}`,
        `${fmt(r.flops.ragrank / 1e9)} / ${fmt(r.flops.perQueryBatch / 1e9)}`,
        gflops(r, 'ragrank fp32', r.flops.ragrank),
        gflops(r, 'transformers.js fp32', r.flops.perQueryBatch),
      ]),
  )
  const m = results.machine
  return [
    `# Cross-encoder reranking benchmark${quick ? ' (quick run)' : ''}`,
    '',
    `Generated by \`npm run bench -- --suite rerank${quick ? ' --quick' : ''}${extended ? ' --extended' : ''}\` on ${new Date().toISOString().slice(0, 10)}. ${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${results.threads} intra-op threads for every engine.`,
    '',
    `Model: all-MiniLM-L6-v2's encoder with a one-label head (the shape of ms-marco-MiniLM-L-6-v2: 6 layers, 384 hidden, 12 heads), made by bench/models/prepare.py (head fitted on CISI/MED judgements, held-out AUC 0.53: a speed model, not a reranker); fp32 and dynamic int8 ONNX files, the same files for every engine. Workload: ${nQueries} Cranfield queries x their 100 BM25 candidates (real abstracts of varied length). Cells: pairs/s, median (min-max) of ${repeats} repeats; every repeat runs all engines in turn (round-robin, models loaded and warmed up first). 1-minute load average ${fmt(results.loadavgBefore[0])} before, ${fmt(results.loadavgAfter[0])} after.`,
    '',
    throughput,
    '',
    '## Ratios (targets: fp32 >= 1.5x transformers.js; int8 >= 2x our fp32)',
    '',
    ratios,
    '',
    `int8 vs fp32 top-10 overlap per query, ragrank, over ${nOverlapQueries} Cranfield queries x 100 BM25 candidates (target >= 0.9): ` +
      Object.entries(results.int8.top10Overlap)
        .map(([len, o]) => `max length ${len}: median ${fmt(o.median)} (min ${fmt(o.min)}, max ${fmt(o.max)})`)
        .join('; ') +
      '.',
    '',
    '## Compute utilisation',
    '',
    compute,
    '',
    computeNote(results),
    '',
    '## Event-loop delay while 1,000 pairs are scored (max length 256)',
    '',
    loop,
    '',
    `ragrank scores the 1,000 pairs in ${fmt(results.bigSeconds)} s (a second call, after the measured one); its work runs on the libuv pool, transformers.js's onnxruntime-node run() blocks the loop for each batch.`,
    '',
    stNote(results),
    ...(parity
      ? ['', `Same model check, against ragrank fp32 on the first query's 100 pairs (raw logits): ${parity}.`]
      : []),
  ].join('\n')
}

// `node bench/suites/rerank.mjs --render`: rewrites rerank.md from rerank.json, to update the report's
// text without rerunning the ~15-minute suite.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--render') {
  const { readFileSync } = await import('node:fs')
  const dir = resultsDir
  const results = JSON.parse(readFileSync(path.join(dir, 'rerank.json'), 'utf8'))
  writeFileSync(path.join(dir, 'rerank.md'), `${report(results, results.settings)}\n`)
}
