#!/usr/bin/env node
// Entry point of `npm run bench`.
//
//   npm run bench                       full run (Cranfield, CISI, Zipf 10k/100k/1M; ~15 min on 2 cores)
//   npm run bench -- --quick            smoke test: Cranfield and Zipf 10k, few repeats (~2-3 min)
//   npm run bench -- --suite bm25       only the BM25 suite (suites: bm25, embed, rerank, split, vector, filters,
//                                       durability)
//   npm run bench -- --suite vector --full   vector suite with 1M x 768 too (see bench/suites/vector.mjs)
//   npm run bench -- --suite engines    ragrank against Elasticsearch / OpenSearch / pgvector (opt-in: start
//                                       them first with `bash scripts/engines.sh start`)
//   npm run bench -- --no-python        skip bm25s (no Python venv needed)
//   npm run bench -- --extended         also bm25s+numba and bm25s n_threads=2 at 1M documents (+5-6 min)
//   npm run bench -- --corpora cran,zipf-100k --engines ragrank,bm25s --repeats 7
//   npm run bench -- --suite server     the HTTP server suite, only when asked for (flags: bench/suites/server.mjs:
//                                       --docs --endpoints --concurrency --duration --stacks --writer --probe-docs --soak --vector-encoding)
//
// Corpora: cran, cisi, zipf-<size> (10k, 100k, 1m, or any count). Engines: ragrank, bm25s (numpy and,
// when installed, numba), minisearch, orama, wink, okapibm25.
// Output: Markdown tables on stdout, bench/results/bm25.md and bench/results/bm25.json (raw numbers), then
// bench/results/REPORT.md with SVG charts (bench/report.mjs, all suites' latest results);
// a --quick run writes bm25-quick.md / bm25-quick.json instead, so it never overwrites the full results.
// Progress goes to stderr.

import path from 'node:path'
import { resultsDir } from './lib/paths.mjs'

const SUITES = {
  bm25: async (opts) => (await import('./suites/bm25.mjs')).runBm25Suite(opts),
  embed: async (opts) => (await import('./suites/embed.mjs')).runEmbedSuite(opts),
  rerank: async (opts) => (await import('./suites/rerank.mjs')).runRerankSuite(opts),
  split: async (opts) => (await import('./suites/split.mjs')).runSplitSuite(opts),
  vector: async (opts) => (await import('./suites/vector.mjs')).runVectorSuite(opts),
  engines: async (opts) => (await import('./suites/engines.mjs')).runEnginesSuite(opts),
  server: async (opts) => (await import('./suites/server.mjs')).runServerSuite(opts),
  filters: async (opts) => (await import('./suites/filters.mjs')).runFiltersSuite(opts),
  durability: async (opts) => (await import('./suites/durability.mjs')).runDurabilitySuite(opts),
}
/** Run only when asked for (--suite ...): they start servers (engines, HTTP) and take minutes of their own. */
const OPT_IN = new Set(['engines', 'server', 'durability'])

function usage(code) {
  const text = `usage: node bench/run.mjs [--quick] [--extended] [--full] [--sizes 1m:384,10k:768] [--suite ${Object.keys(SUITES).join('|')}] [--no-python]
                         [--corpora a,b] [--engines a,b] [--repeats N] [--out DIR]
       server suite:     [--docs 100k] [--endpoints a,b] [--concurrency 1,16,64] [--duration S] [--stacks a,b]
                         [--writer no,yes] [--probe-docs 1m|0] [--soak MINUTES] [--vector-encoding base64|json]`
  ;(code ? console.error : console.log)(text)
  process.exit(code)
}

function parseArgs(argv) {
  const opts = { quick: false, python: true, suites: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) usage(2)
      return v
    }
    if (a === '--quick') opts.quick = true
    else if (a === '--no-python') opts.python = false
    else if (a === '--extended') opts.extended = true
    else if (a === '--full') opts.full = true
    else if (a === '--sizes')
      opts.sizes = value()
        .split(',')
        .map((s) => s.trim().toLowerCase())
    else if (a === '--suite') opts.suites.push(...value().split(','))
    else if (a === '--corpora')
      opts.corpora = value()
        .split(',')
        .map((s) => s.trim().toLowerCase())
    else if (a === '--engines')
      opts.engines = value()
        .split(',')
        .map((s) => s.trim().toLowerCase())
    else if (a === '--repeats') opts.repeats = Number(value())
    else if (a === '--out') opts.outDir = path.resolve(value())
    // the server suite's (bench/suites/server.mjs checks them)
    else if (a === '--docs') opts.docs = value()
    else if (a === '--endpoints') opts.endpoints = value()
    else if (a === '--concurrency') opts.concurrency = value()
    else if (a === '--duration') opts.duration = value()
    else if (a === '--stacks') opts.stacks = value()
    else if (a === '--writer') opts.writer = value()
    else if (a === '--probe-docs') opts.probeDocs = value()
    else if (a === '--soak') opts.soak = value()
    else if (a === '--vector-encoding') opts.vectorEncoding = value()
    else if (a === '-h' || a === '--help') usage(0)
    else {
      console.error(`unknown option ${a}`)
      usage(2)
    }
  }
  if (opts.suites.length === 0) opts.suites = Object.keys(SUITES).filter((s) => !OPT_IN.has(s))
  for (const s of opts.suites)
    if (!SUITES[s]) {
      console.error(`unknown suite ${s}; known: ${Object.keys(SUITES).join(', ')}`)
      process.exit(2)
    }
  if (opts.repeats !== undefined && !(Number.isInteger(opts.repeats) && opts.repeats >= 1)) usage(2)
  if (opts.engines) {
    // 'bm25s+numba' is produced by the bm25s job; asking for it means asking for bm25s
    opts.engines = opts.engines.map((e) => (e.startsWith('bm25s') ? 'bm25s' : e))
  }
  return opts
}

const opts = parseArgs(process.argv.slice(2))
for (const s of opts.suites) {
  process.stderr.write(`== suite ${s}${opts.quick ? ' (quick)' : ''} ==\n`)
  const { markdown } = await SUITES[s]({ ...opts, argv: process.argv.slice(2), outDir: opts.outDir ?? resultsDir })
  process.stdout.write(`${markdown}\n`)
}
// A full run refreshes REPORT.md and its charts from every suite's latest JSON (a --quick run writes *-quick files,
// which the report leaves out, so it is not regenerated then).
// The opt-in suites feed no chart of it, so a run of only those leaves it alone.
if (!opts.quick && opts.suites.some((s) => !OPT_IN.has(s))) {
  const { writeReport } = await import('./report.mjs')
  for (const f of await writeReport(opts.outDir ?? resultsDir))
    process.stderr.write(`wrote ${path.relative(process.cwd(), f)}\n`)
}
