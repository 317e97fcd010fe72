#!/usr/bin/env node
// int8 recipe sweep for the rerank benchmark model: for every quantized ONNX file in
// bench/.cache/models/minilm-l6-cross-encoder/onnx (prepare.py --int8-variants writes the
// alternatives as int8-*.onnx), at max length 256 and 512:
//   - top-10 overlap with fp32 per query over 20 Cranfield queries x 100 BM25 candidates;
//   - ragrank pairs/s, fp32 and every int8 file interleaved (bench/suites/rerank.mjs's round-robin),
//     on the rerank suite's timing workload (4 queries x 100 candidates, 3 repeats).
// Usage: node --expose-gc bench/probes/rerank-int8.mjs [file.onnx ...]   (writes bench/results/rerank-int8.json)
// Every session's arena grows to its largest batch, so the 256 sessions are dropped (gc) before 512.
import { readdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { Bm25Index, CrossEncoder } from '../../dist/esm/index.js'
import { loadCran } from '../lib/datasets.mjs'
import { fmt, gc, summarize } from '../lib/harness.mjs'
import { modelsDir, resultsDir } from '../lib/paths.mjs'
import { interleaved } from '../suites/rerank.mjs'

const MODEL = path.join(modelsDir, 'minilm-l6-cross-encoder')
const onnxFiles = readdirSync(path.join(MODEL, 'onnx')).sort()
const variants = onnxFiles.filter((f) => /^int8-.*\.onnx$/.test(f))
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : variants.length
    ? variants
    : ['model_quantized.onnx']
const log = (...a) => console.error('[rerank-int8]', ...a)

const cran = await loadCran()
const index = new Bm25Index()
index.add(cran.docs)
const candidates = (q) => ({ query: q.text, documents: index.search(q.text, { topK: 100 }).map((h) => h.text) })
const overlapRequests = cran.queries.slice(0, 20).map(candidates)
const requests = overlapRequests.slice(0, 4)
const top10 = async (ce, r) => (await ce.rerank(r.query, r.documents, { topK: 10 })).map((d) => d.index)
const out = { loadavgBefore: loadavg(), files, lengths: {} }

async function measure(maxLength) {
  const fp32 = await CrossEncoder.load(MODEL, { maxLength })
  const models = Object.fromEntries(
    await Promise.all(files.map(async (f) => [f, await CrossEncoder.load(MODEL, { maxLength, file: f })])),
  )
  const res = { overlap: {}, pairsPerSecond: {}, ratio: {} }
  out.lengths[maxLength] = res
  // fp32 outputs do not depend on batching, so its top 10 is computed once per query
  const ref = []
  for (const r of overlapRequests) ref.push(await top10(fp32, r))
  for (const f of files) {
    const o = []
    for (const [i, r] of overlapRequests.entries()) {
      const b = new Set(await top10(models[f], r))
      o.push(ref[i].filter((j) => b.has(j)).length / 10)
    }
    res.overlap[f] = summarize(o)
    log(maxLength, f, 'top-10 overlap median', fmt(res.overlap[f].median), 'min', fmt(res.overlap[f].min))
  }
  const engine = (ce) => ({
    pass: async () => {
      const t0 = performance.now()
      for (const r of requests) await ce.rerank(r.query, r.documents, { activation: 'none' })
      return (performance.now() - t0) / 1000
    },
  })
  const engines = [
    { label: 'model.onnx', engine: engine(fp32) },
    ...files.map((f) => ({ label: f, engine: engine(models[f]) })),
  ]
  for (const { engine: e } of engines) await e.pass() // warm-up
  res.pairsPerSecond = await interleaved(engines, requests, 3, (...a) => log(maxLength, ...a))
  for (const f of files) res.ratio[f] = res.pairsPerSecond[f].median / res.pairsPerSecond['model.onnx'].median
  log(
    maxLength,
    Object.entries(res.ratio)
      .map(([f, r]) => `${f} ${fmt(r)}x`)
      .join(', '),
  )
}

for (const maxLength of [256, 512]) {
  await measure(maxLength)
  gc() // frees this length's sessions before the next loads
}
out.loadavgAfter = loadavg()
writeFileSync(path.join(resultsDir, 'rerank-int8.json'), `${JSON.stringify(out, null, 2)}\n`)
