// bench/report.mjs turns the committed JSON results into REPORT.md and SVG charts (no benchmark is run).
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
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
  const ratio = s.median / single('bm25s').median
  t.regex(md, new RegExp(`^\\| bm25s \\| ${ratio.toFixed(1).replace('.', '\\.')}× \\|`, 'm'))
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
  for (const e of ['ragrank', 'bm25s', 'minisearch', 'orama', 'wink']) t.true(legend.includes(`>${e}<`), e)
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
