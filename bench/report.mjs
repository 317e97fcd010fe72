#!/usr/bin/env node
// Builds bench/results/REPORT.md and its SVG charts from the raw results the suites wrote (bm25.json, split.json,
// vector.json; *-quick.json smoke runs are ignored). `npm run bench` calls it after a full run; it can be rerun alone
// (no benchmark is run):
//
//   node bench/report.mjs [results dir]        (default bench/results)
//
// Charts are Vega-Lite specs rendered to SVG by Vega on the server (no browser, no canvas).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoRoot, resultsDir } from './lib/paths.mjs'
import { isaLine } from './lib/harness.mjs'
import * as vega from 'vega'
import { compile } from 'vega-lite'

// JS peers whose installed versions come from package-lock.json (Python peers: the versions each run recorded).
const JS_PEERS = [
  'minisearch',
  '@orama/orama',
  'wink-bm25-text-search',
  'okapibm25',
  'usearch',
  'hnswlib-node',
  '@langchain/textsplitters',
  '@huggingface/transformers',
  'onnxruntime-node',
]

const fmt = (x, digits) => {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–'
  const d = digits ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2)
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })
}
/** An error or skip message fit for a table cell: one line, no column break, clipped. */
const note = (text) => {
  const one = String(text).replace(/\s+/g, ' ').replaceAll('|', '\\|').trim()
  return one.length > 160 ? `${one.slice(0, 157)}...` : one
}
/** The cell of an entry that has no figure: its error or skip reason, else '–'. */
const failed = (r) => (r?.error ? `error: ${note(r.error)}` : r?.skipped ? `skipped: ${note(r.skipped)}` : '–')
/** "median (min–max)" of a summary { median, min, max }. */
const cell = (s) => (s?.median === undefined ? '–' : `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`)
/** "a / b" as a ratio cell: one decimal below 10x, none from 10x. */
export const ratio = (a, b) => (a && b ? `${fmt(a / b, a / b >= 10 ? 0 : 1)}×` : '–')
const table = (header, rows) =>
  [
    `| ${header.join(' | ')} |`,
    `| --- | ${header
      .slice(1)
      .map(() => '---:')
      .join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')

function readJson(dir, name) {
  const file = path.join(dir, name)
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
}

/** Versions of the JS peers as installed (package-lock.json), so the report says what was measured against. */
export function lockVersions(lockFile = path.join(repoRoot, 'package-lock.json')) {
  if (!existsSync(lockFile)) return {}
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'))
  return Object.fromEntries(
    JS_PEERS.flatMap((p) =>
      lock.packages?.[`node_modules/${p}`]?.version ? [[p, lock.packages[`node_modules/${p}`].version]] : [],
    ),
  )
}

/** Renders a Vega-Lite spec to an SVG string. */
export async function renderSvg(spec) {
  const { spec: vgSpec } = compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 560,
    height: 320,
    ...spec,
  })
  const view = new vega.View(vega.parse(vgSpec), { renderer: 'none' })
  const svg = await view.toSVG()
  view.finalize()
  return svg
}

const logLines = (title, rows, xTitle, yTitle) => ({
  title,
  data: { values: rows },
  mark: { type: 'line', point: true },
  encoding: {
    x: { field: 'size', type: 'quantitative', scale: { type: 'log' }, title: xTitle },
    y: { field: 'rate', type: 'quantitative', scale: { type: 'log' }, title: yTitle },
    color: { field: 'engine', type: 'nominal', title: null },
  },
})

const latencyBars = (title, rows) => ({
  title,
  data: { values: rows },
  mark: 'bar',
  encoding: {
    y: { field: 'engine', type: 'nominal', sort: 'x', title: null },
    x: {
      field: 'ms',
      type: 'quantitative',
      scale: { type: 'log' },
      title: 'ms per query (log scale; lower is better)',
    },
  },
})

function bm25Section(bm25, charts) {
  const corpora = Object.keys(bm25.corpora)
  const engines = [...new Set(bm25.results.map((r) => r.engine))]
  const entries = (engine, corpus) => bm25.results.filter((r) => r.engine === engine && r.corpus === corpus)
  // The measured entry of an engine on a corpus; else the failed one (an error or skip), which renders as its reason.
  const get = (engine, corpus) => {
    const all = entries(engine, corpus)
    return all.find((r) => !r.error && !r.skipped) ?? all[0]
  }
  const figure = (r, kind) => (r?.[kind]?.summary ? cell(r[kind].summary) : failed(r))
  const out = [
    '## BM25 search',
    '',
    `From \`bm25.json\` (${bm25.meta.command}, ${bm25.meta.started.slice(0, 10)}). Cells: median (min–max) queries/s over the repeats; top-${bm25.meta.params.topK}.`,
  ]
  for (const [kind, label] of [
    ['single', 'single thread'],
    ['batch', 'batch (all cores)'],
  ]) {
    // JS peers have no batch API; an engine that failed everywhere still gets a row with its errors.
    const measured = engines.filter((e) =>
      corpora.some((c) => get(e, c)?.[kind]?.summary || get(e, c)?.error || get(e, c)?.skipped),
    )
    out.push(
      '',
      `### Throughput, ${label} (queries/s)`,
      '',
      table(
        ['engine', ...corpora],
        measured.map((e) => [e, ...corpora.map((c) => figure(get(e, c), kind))]),
      ),
    )
  }
  out.push(
    '',
    '### ragrank single-thread throughput relative to each peer (median / median; > 1× = ragrank faster)',
    '',
  )
  out.push(
    table(
      ['peer', ...corpora],
      engines
        .filter((e) => e !== 'ragrank')
        .map((e) => [
          e,
          ...corpora.map((c) => ratio(get('ragrank', c)?.single?.summary?.median, get(e, c)?.single?.summary?.median)),
        ]),
    ),
  )
  out.push(
    '',
    '### Index build (seconds, median (min–max))',
    '',
    table(
      ['engine', ...corpora],
      engines.map((e) => [e, ...corpora.map((c) => figure(get(e, c), 'build'))]),
    ),
  )

  const sized = corpora.filter((c) => bm25.corpora[c].kind === 'zipf')
  charts.push({
    file: 'bm25-throughput.svg',
    caption: 'BM25 single-thread throughput vs corpus size (Zipf corpora)',
    spec: logLines(
      'BM25 single-thread queries/s vs corpus size',
      engines.flatMap((e) =>
        sized.flatMap((c) =>
          get(e, c)?.single?.summary
            ? [{ engine: e, size: bm25.corpora[c].docs, rate: get(e, c).single.summary.median }]
            : [],
        ),
      ),
      'documents (log scale)',
      'queries/s (log scale)',
    ),
  })
  charts.push({
    file: 'bm25-latency.svg',
    caption: 'BM25 time per query on Cranfield, sequential calls (1000 / median single-thread queries/s)',
    spec: latencyBars(
      'BM25 time per query, Cranfield',
      engines.flatMap((e) =>
        get(e, 'cran')?.single?.summary ? [{ engine: e, ms: 1000 / get(e, 'cran').single.summary.median }] : [],
      ),
    ),
  })
  return out.join('\n')
}

function vectorSection(vector, charts) {
  const out = [
    '## Exact vector top-k',
    '',
    `From \`vector.json\` (${vector.meta.date.slice(0, 10)}). Cells: median (min–max) queries/s; the ratio is ragrank f32 over the engine (> 1× = ragrank faster).`,
  ]
  const name = (e) => `${e.engine}${e.variant ? ` (${e.variant})` : ''}`
  for (const r of vector.results) {
    const size = `${r.n?.toLocaleString('en-US') ?? '?'} × ${r.dim ?? '?'}`
    if (!r.engines) {
      out.push('', `### ${size}`, '', failed(r))
      continue
    }
    const base = r.engines.find((e) => e.engine === 'ragrank' && e.variant === 'f32')
    const rows = r.engines.map((e) =>
      e.skipped || e.error
        ? [name(e), failed(e), '', '', '']
        : [
            name(e),
            cell(e.single),
            cell(e.batch),
            ratio(base?.single?.median, e.single?.median),
            ratio(base?.batch?.median, e.batch?.median),
          ],
    )
    out.push('', `### ${size}`, '', table(['engine', 'single', 'batch', 'single ratio', 'batch ratio'], rows))
  }
  // Chart legends: the variant only where it tells ragrank's storages apart (peers' variants are long descriptions).
  const short = (e) => (e.engine === 'ragrank' ? `ragrank ${e.variant}` : e.engine)
  const dim = 384
  const measured = vector.results.filter((r) => r.engines)
  const series = measured
    .filter((r) => r.dim === dim)
    .flatMap((r) =>
      r.engines.filter((e) => e.batch?.median).map((e) => ({ engine: short(e), size: r.n, rate: e.batch.median })),
    )
  charts.push({
    file: 'vector-throughput.svg',
    caption: `Exact top-k batch throughput vs number of vectors (dim ${dim})`,
    spec: logLines(
      `Exact top-k, batch queries/s vs vectors (dim ${dim})`,
      series,
      'vectors (log scale)',
      'queries/s (log scale)',
    ),
  })
  const mid = measured.find((r) => r.n === 100000 && r.dim === dim) ?? measured[0]
  if (!mid) return out.join('\n')
  charts.push({
    file: 'vector-latency.svg',
    caption: `Exact top-k time per query, ${mid.n.toLocaleString('en-US')} × ${mid.dim}, sequential calls (1000 / median single queries/s)`,
    spec: latencyBars(
      `Exact top-k time per query, ${mid.n.toLocaleString('en-US')} × ${mid.dim}`,
      mid.engines.filter((e) => e.single?.median).map((e) => ({ engine: short(e), ms: 1000 / e.single.median })),
    ),
  })
  return out.join('\n')
}

function splitSection(split) {
  const engines = [...new Set(split.results.flatMap((r) => Object.keys(r.engines)))]
  const rows = split.results.map((r) => [
    r.config,
    ...engines.map((e) => cell(r.engines[e]?.docsPerSecond)),
    ratio(r.engines.ragrank?.docsPerSecond?.median, r.engines.haystack?.docsPerSecond?.median),
    r.identical ? 'yes' : 'no',
  ])
  return [
    '## Hierarchical splitting',
    '',
    `From \`split.json\`: ${split.docs.toLocaleString('en-US')} BBC articles; documents/s, median (min–max). "identical": ragrank's trees equal Haystack's.`,
    '',
    table(['configuration', ...engines, 'ragrank / haystack', 'identical'], rows),
  ].join('\n')
}

function environment(bm25, split, vector) {
  const m = bm25?.meta.machine ?? split?.machine ?? vector?.meta.machine
  const versions = { ...(vector?.results?.[0]?.python ?? {}), ...(bm25?.meta.versions ?? {}) }
  const haystack = split?.results?.find((r) => r.engines.haystack?.version)?.engines.haystack.version
  if (haystack) versions['haystack-ai'] = haystack
  const installed = lockVersions()
  const lines = ['## Environment', '']
  if (m)
    lines.push(
      `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}; ${isaLine(m.isa)}.`,
    )
  if (bm25?.meta.loadAverage1m)
    lines.push(
      `- 1-minute load average during the BM25 run: median ${bm25.meta.loadAverage1m.median.toFixed(2)} (min ${bm25.meta.loadAverage1m.min.toFixed(2)}, max ${bm25.meta.loadAverage1m.max.toFixed(2)}); a shared VM, expect 10-20% noise.`,
    )
  if (bm25?.meta.ragrankBuild)
    lines.push(
      `- ragrank measured: commit ${bm25.meta.ragrankBuild.commit} (BM25), ${vector?.meta.ragrank ?? '?'} (vector).`,
    )
  lines.push(
    `- Peer versions recorded by the runs: ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  )
  lines.push(
    `- JS peers installed now (package-lock.json): ${Object.entries(installed)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  )
  return lines.join('\n')
}

/**
 * Who is fastest, per suite and corpus (or size), single thread and batch: the winner, its rate, and the runner-up
 * with ragrank's ratio to the best peer (below 1× = a peer wins). Errors and skipped engines are left out.
 */
function fastestSection(bm25, vector) {
  const out = ['## Fastest engine per corpus', '']
  const winners = (entries) => [...entries].sort((a, b) => b.rate - a.rate)
  const row = (where, kind, entries) => {
    const w = winners(entries)
    if (!w.length) return null
    const rg = w.find((e) => e.ragrank)
    const bestPeer = w.find((e) => !e.ragrank)
    return [
      where,
      kind,
      `${w[0].name} (${fmtNum(w[0].rate)} q/s)`,
      w[1] ? `${w[1].name} (${fmtNum(w[1].rate)} q/s)` : '–',
      rg && bestPeer ? `${(rg.rate / bestPeer.rate).toFixed(2)}× vs ${bestPeer.name}` : '–',
    ]
  }
  const section = (title, where, rows) =>
    out.push(`### ${title}`, '', table([where, 'mode', 'fastest', 'second', 'ragrank / best peer'], rows), '')
  if (bm25) {
    const ok = bm25.results.filter((r) => !r.error && !r.skipped)
    const rows = []
    for (const c of Object.keys(bm25.corpora))
      for (const kind of ['single', 'batch']) {
        const entries = ok
          .filter((r) => r.corpus === c && r[kind]?.summary)
          .map((r) => ({ name: r.engine, ragrank: r.engine === 'ragrank', rate: r[kind].summary.median }))
        const r = row(c, kind, entries)
        if (r) rows.push(r)
      }
    section('BM25 (bm25.json)', 'corpus', rows)
  }
  if (vector) {
    const rows = []
    for (const r of vector.results.filter((x) => !x.error))
      for (const kind of ['single', 'batch']) {
        // exact search only: hybrid rows answer a different query
        const entries = r.engines
          .filter((e) => !e.skipped && e[kind]?.median && !String(e.engine).endsWith('hybrid'))
          .map((e) => ({
            name: e.engine === 'ragrank' ? `ragrank ${e.variant}` : e.engine,
            ragrank: e.engine === 'ragrank',
            rate: e[kind].median,
          }))
        const x = row(`${r.n.toLocaleString('en-US')} x ${r.dim}`, kind, entries)
        if (x) rows.push(x)
      }
    section('Vectors, exact top-10 (vector.json)', 'size', rows)
  }
  out.push(
    'Generated from the JSON above; "ragrank / best peer" compares ragrank\'s best variant with the fastest other engine (below 1× = the peer is faster); for vectors that variant may be int8 or f16 storage, which rescore approximately (their recall@10 is in vector.md), while every peer listed is exact. BM25 engines score with different formulas (see bm25.md, "Notes"), so their top-10 agreement with ragrank is in bm25.md too. On a loaded machine single figures swing by up to 2×; compare within one run only.',
  )
  return out.join('\n')
}

const fmtNum = (x) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toPrecision(3))

/** Writes REPORT.md and the charts into `dir`; returns the paths written. */
export async function writeReport(dir = resultsDir) {
  const bm25 = readJson(dir, 'bm25.json')
  const split = readJson(dir, 'split.json')
  const vector = readJson(dir, 'vector.json')
  if (!bm25 && !split && !vector) throw new Error(`no results in ${dir}: run npm run bench first`)
  const charts = []
  const sections = [
    '# Benchmark report',
    '',
    `Generated by \`node bench/report.mjs\` (run by \`npm run bench\`) from the JSON results in this folder. Per-suite details: ${[
      'bm25.md',
      'split.md',
      'vector.md',
    ]
      .filter((f) => existsSync(path.join(dir, f)))
      .map((f) => `[${f}](${f})`)
      .join(', ')}.`,
    '',
    environment(bm25, split, vector),
  ]
  if (bm25 || vector) sections.push('', fastestSection(bm25, vector))
  if (bm25) sections.push('', bm25Section(bm25, charts))
  if (vector) sections.push('', vectorSection(vector, charts))
  if (split) sections.push('', splitSection(split))
  sections.push('', '## Charts', '')
  const written = []
  for (const c of charts) {
    writeFileSync(path.join(dir, c.file), await renderSvg(c.spec))
    written.push(path.join(dir, c.file))
    sections.push(`![${c.caption}](${c.file})`, '', `*${c.caption}.*`, '')
  }
  const report = path.join(dir, 'REPORT.md')
  writeFileSync(report, `${sections.join('\n').trimEnd()}\n`)
  return [report, ...written]
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await writeReport(process.argv[2] ? path.resolve(process.argv[2]) : undefined)
  for (const f of files) console.error(`wrote ${path.relative(process.cwd(), f)}`)
}
