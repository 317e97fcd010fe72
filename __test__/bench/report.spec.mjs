// bench/report.mjs turns the committed JSON results into REPORT.md and SVG charts (no benchmark is run).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ratio } from '../../bench/report.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const results = join(root, 'bench/results')
const report = (dir) => spawnSync(process.execPath, ['bench/report.mjs', dir], { cwd: root, encoding: 'utf8' })

test('the report has environment, tables with medians, spreads and ratios, and four SVG charts', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-report-'))
  for (const f of ['bm25.json', 'split.json', 'vector.json']) copyFileSync(join(results, f), join(dir, f))
  const r = report(dir)
  t.is(r.status, 0, r.stderr)
  const md = readFileSync(join(dir, 'REPORT.md'), 'utf8')
  for (const h of [
    '## Environment',
    '## BM25 search',
    '## Exact vector top-k',
    '## Hierarchical splitting',
    '## Charts',
  ])
    t.true(md.includes(h), h)
  const bm25 = JSON.parse(readFileSync(join(dir, 'bm25.json'), 'utf8'))
  const single = (engine) => bm25.results.find((x) => x.engine === engine && x.corpus === 'cran').single.summary
  // The ragrank row shows median (min–max) of the JSON, and the ratio row divides the medians.
  const s = single('ragrank')
  const n = (x) => Math.round(x).toLocaleString('en-US')
  t.true(md.includes(`| ragrank | ${n(s.median)} (${n(s.min)}–${n(s.max)}) |`))
  const bm25sRatio = ratio(s.median, single('bm25s').median)
  t.true(md.includes(`\n| bm25s | ${bm25sRatio} |`), `bm25s ratio ${bm25sRatio}`)
  t.regex(md, /Machine: .*\d+ cores, .*Node v\d+/)
  t.regex(md, /bm25s 0\.\d+/) // Python peer version recorded by the run
  t.regex(md, /minisearch \d+\.\d+\.\d+/) // JS peer version from package-lock.json
  for (const svg of ['bm25-throughput.svg', 'bm25-latency.svg', 'vector-throughput.svg', 'vector-latency.svg']) {
    t.true(md.includes(`](${svg})`), svg)
    const text = readFileSync(join(dir, svg), 'utf8')
    t.true(text.startsWith('<svg') && text.trimEnd().endsWith('</svg>'), svg)
  }
  // Every BM25 engine measured on the Zipf corpora appears in the throughput chart's legend.
  const legend = readFileSync(join(dir, 'bm25-throughput.svg'), 'utf8')
  const zipfEngines = new Set(
    bm25.results.filter((x) => x.corpus.startsWith('zipf') && x.single && !x.error && !x.skipped).map((x) => x.engine),
  )
  t.true(zipfEngines.has('ragrank') && zipfEngines.size >= 3, [...zipfEngines].join(', '))
  for (const e of zipfEngines) t.true(legend.includes(`>${e}<`), e)
})

test('with only one suite the report covers that suite; with none it fails with a hint', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-report-'))
  t.regex(report(dir).stderr, /no results in .*: run npm run bench first/)
  t.not(report(dir).status, 0)
  copyFileSync(join(results, 'split.json'), join(dir, 'split.json'))
  const r = report(dir)
  t.is(r.status, 0, r.stderr)
  const md = readFileSync(join(dir, 'REPORT.md'), 'utf8')
  t.true(md.includes('## Hierarchical splitting'))
  t.false(md.includes('## BM25 search'))
  writeFileSync(join(dir, 'bm25-quick.json'), '{}') // smoke-run results are ignored
  t.is(report(dir).status, 0)
})

test('the fastest-engine section names the winner per corpus and mode, and a ratio below 1x where a peer wins', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-report-'))
  const rate = (median) => ({ summary: { median, min: median, max: median, n: 1 } })
  const bm25 = {
    meta: { command: 'npm run bench', started: '2026-12-01T00:00:00Z', params: { topK: 10 }, machine: null },
    corpora: { cran: { kind: 'text' }, 'zipf-1m': { kind: 'zipf', docs: 1e6 } },
    results: [
      { engine: 'ragrank', corpus: 'cran', nDocs: 1398, single: rate(50_000), batch: rate(90_000), build: rate(0.1) },
      { engine: 'pisa', corpus: 'cran', nDocs: 1398, single: rate(20_000), batch: rate(30_000), build: rate(0.2) },
      { engine: 'ragrank', corpus: 'zipf-1m', nDocs: 1e6, single: rate(1_000), batch: rate(1_900), build: rate(5) },
      { engine: 'pisa', corpus: 'zipf-1m', nDocs: 1e6, single: rate(2_000), batch: rate(1_500), build: rate(4) },
      { engine: 'tantivy', corpus: 'zipf-1m', error: 'worker exited with 1' },
    ],
  }
  writeFileSync(join(dir, 'bm25.json'), JSON.stringify(bm25))
  const r = report(dir)
  t.is(r.status, 0, r.stderr)
  const md = readFileSync(join(dir, 'REPORT.md'), 'utf8')
  t.true(md.includes('## Fastest engine per corpus'))
  t.regex(md, /^\| cran \| single \| ragrank \(50,000 q\/s\) \| pisa \(20,000 q\/s\) \| 2\.50× vs pisa \|$/m)
  // a peer winning is reported as such, and an engine that failed is not a contestant
  t.regex(md, /^\| zipf-1m \| single \| pisa \(2,000 q\/s\) \| ragrank \(1,000 q\/s\) \| 0\.50× vs pisa \|$/m)
  t.regex(md, /^\| zipf-1m \| batch \| ragrank \(1,900 q\/s\) \| pisa \(1,500 q\/s\) \| 1\.27× vs pisa \|$/m)
  t.false(/\| tantivy/.test(md.split('## BM25 search')[0]))
})
