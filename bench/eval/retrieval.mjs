#!/usr/bin/env node
// Retrieval-quality evaluation of ragrank on public test collections, with bm25s as the reference.
//
//   npm run build && npm run eval                  # all collections, writes docs/EVALUATION.md
//   node bench/eval/retrieval.mjs cran korquad               # a subset; prints only (add --write to write the file)
//   node bench/eval/retrieval.mjs --no-bm25s                 # skip the bm25s comparison
//
// Data: $RAGRANK_DATA or ../shared/data (see bench/lib/datasets.mjs). A collection whose files are absent is
// skipped with a note; the bm25s parts are skipped when no Python with bm25s (and PyStemmer) can be started.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'

import { DATASETS, dataRoot, hasData, loadDataset } from '../lib/datasets.mjs'
import { distEntry, pyScript, repoRoot, venvPython } from '../lib/paths.mjs'

const EN_METRICS = ['ndcg@10', 'map', 'mrr@10', 'recall@100']
const KO_METRICS = ['ndcg@10', 'mrr@10', 'recall@10', 'recall@100']
const PARITY_LIMIT = 0.002
const BM25 = { variant: 'lucene', k1: 1.5, b: 0.75 }

// ---------------------------------------------------------------------------------------------- arguments

const argv = process.argv.slice(2)
const flags = new Set(argv.filter((a) => a.startsWith('--')))
const only = argv.filter((a) => !a.startsWith('--'))
for (const n of only) if (!DATASETS.includes(n)) die(`unknown collection ${n}; known: ${DATASETS.join(', ')}`)
const selected = only.length ? DATASETS.filter((n) => only.includes(n)) : DATASETS
const writeDoc = flags.has('--write') || (only.length === 0 && !flags.has('--no-write'))
const outPath = path.join(repoRoot, 'docs', 'EVALUATION.md')

function die(msg) {
  console.error(`eval: ${msg}`)
  process.exit(1)
}

// ---------------------------------------------------------------------------------------------- ragrank

const entry = distEntry
if (!fs.existsSync(entry)) die(`${path.relative(process.cwd(), entry)} is missing; run \`npm run build\` first`)
const { Bm25Index, evaluate } = await import(pathToFileURL(entry).href)

async function ragrankRun(docs, queries, options, topK) {
  const t0 = performance.now()
  const idx = new Bm25Index({ ...BM25, storeText: false, ...options })
  idx.add(docs)
  const t1 = performance.now()
  const hits = await idx.searchBatch(queries, { topK, includeFields: false })
  const t2 = performance.now()
  return { idx, hits, indexMs: t1 - t0, searchMs: t2 - t1 }
}

function toRun(queryIds, hitLists) {
  const run = {}
  queryIds.forEach((qid, i) => {
    run[qid] = hitLists[i].map((h) => ({ id: h.id, score: h.score }))
  })
  return run
}

// ---------------------------------------------------------------------------------------------- bm25s

function findPython() {
  if (flags.has('--no-bm25s')) return { python: null, why: 'disabled with --no-bm25s' }
  const candidates = [venvPython('.venv-py'), 'python3', 'python']
  for (const c of candidates) {
    const r = spawnSync(c, ['-c', 'import bm25s, Stemmer; print(bm25s.__version__)'], { encoding: 'utf8' })
    if (r.status === 0) return { python: c, version: r.stdout.trim() }
  }
  return { python: null, why: 'no Python with bm25s and PyStemmer found (.venv-py/bin/python, python3, python)' }
}

const py = findPython()
const runner = pyScript('bm25s_runner.py')

/** Run bm25s on raw texts (its own tokenizer); results are mapped to document ids, zero scores dropped. */
function bm25sRun(docs, queries, tokenize, k) {
  const cfg = {
    texts: docs.map((d) => d.text),
    query_texts: queries.map((q) => q.text),
    tokenize,
    method: BM25.variant,
    k1: BM25.k1,
    b: BM25.b,
    k,
    repeats: 1,
    threads: 1,
    return_results: true,
    dump_tokens: true,
    drop_zero_scores: true,
  }
  const t0 = performance.now()
  const r = spawnSync(py.python, [runner, '-'], {
    input: JSON.stringify(cfg),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    cwd: repoRoot,
  })
  if (r.status !== 0) throw new Error(`bm25s_runner failed (${r.status}): ${r.stderr}`)
  const out = JSON.parse(r.stdout)
  const hits = out.results.map((row) => row.map((h) => ({ id: docs[h.id].id, score: h.score })))
  return { out, hits, tokens: out.tokens, wallMs: performance.now() - t0 }
}

// ---------------------------------------------------------------------------------------------- comparison

const fmt = (x, d = 4) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toFixed(d))
const fmtDiff = (x) => (x < 5e-5 ? '0.0000' : x.toFixed(4))
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`

/**
 * Compare two rankings of the same queries: scores of the documents both return, the sets of documents with a
 * score, and the top-10 order. `tieEps` is the relative score gap below which two hits count as tied.
 */
function compareRuns(queryIds, a, b, tieEps = 1e-5) {
  let maxAbs = 0
  let maxRel = 0
  let worst = null
  let setDiffer = 0
  let top10Differ = 0
  let top10DifferNotTie = 0
  let tieExample = null
  for (let i = 0; i < queryIds.length; i++) {
    const sa = new Map(a[i].map((h) => [h.id, h.score]))
    const sb = new Map(b[i].map((h) => [h.id, h.score]))
    let sameSet = sa.size === sb.size
    for (const [id, s] of sa) {
      const t = sb.get(id)
      if (t === undefined) {
        sameSet = false
        continue
      }
      const d = Math.abs(s - t)
      const rel = d / Math.max(Math.abs(t), 1e-9)
      if (d > maxAbs) {
        maxAbs = d
        worst = { qid: queryIds[i], doc: id, a: s, b: t }
      }
      if (rel > maxRel) maxRel = rel
    }
    if (!sameSet) setDiffer++
    const ta = a[i].slice(0, 10)
    const tb = b[i].slice(0, 10)
    const same = ta.length === tb.length && ta.every((h, j) => h.id === tb[j].id)
    if (!same) {
      top10Differ++
      // explained by ties when the score sequences agree position by position
      const tiesOnly =
        ta.length === tb.length &&
        ta.every((h, j) => Math.abs(h.score - tb[j].score) <= tieEps * Math.max(1, Math.abs(tb[j].score)))
      if (!tiesOnly) top10DifferNotTie++
      else if (!tieExample) {
        const j = ta.findIndex((h, k) => h.id !== tb[k].id)
        tieExample = { qid: queryIds[i], rank: j + 1, a: ta[j], b: tb[j] }
      }
    }
  }
  return { maxAbs, maxRel, worst, setDiffer, top10Differ, top10DifferNotTie, tieExample }
}

/** Query with the largest per-query difference of `metric` between two evaluations. */
function worstQuery(evA, evB, metric) {
  let best = null
  for (const [qid, m] of Object.entries(evA.perQuery)) {
    const d = Math.abs(m[metric] - (evB.perQuery[qid]?.[metric] ?? 0))
    if (!best || d > best.diff) best = { qid, diff: d, a: m[metric], b: evB.perQuery[qid]?.[metric] }
  }
  return best
}

function arraysEqual(x, y) {
  return x.length === y.length && x.every((v, i) => v === y[i])
}

// ---------------------------------------------------------------------------------------------- sections

const started = performance.now()
const report = { en: [], parity: [], analyzerParity: [], ko: [], notes: [], timings: [] }

function note(msg) {
  console.error(`note: ${msg}`)
  report.notes.push(msg)
}

if (!py.python) note(`bm25s comparison skipped: ${py.why}`)

const BM25S_SETTINGS = [
  {
    key: 'stem',
    label: "stopwords 'en' + English stemmer",
    tokenize: { stopwords: 'en', stemmer: 'english' },
    analyzer: 'bm25s', // preset: regex words, lowercase, 'en' stopwords, English stemmer
    analyzerLabel: "ragrank analyzer 'bm25s' preset",
  },
  {
    key: 'plain',
    label: 'regex tokens only',
    tokenize: { stopwords: null, stemmer: null },
    analyzer: { segmentation: 'regex', stopwords: null, stemmer: null },
    analyzerLabel: "ragrank analyzer { segmentation: 'regex' }",
  },
]

async function evalEnglish(name) {
  const t0 = performance.now()
  const d = loadDataset(name)
  const qids = d.queries.map((q) => q.id)
  const qtexts = d.queries.map((q) => q.text)
  const N = d.docs.length
  const row = (label, hits) => {
    const ev = evaluate(toRun(qids, hits), d.qrels, EN_METRICS)
    return { label, ev, mean: ev.mean }
  }

  const out = { name, docs: N, queries: qids.length, rows: [] }
  const def = await ragrankRun(d.docs, qtexts, {}, N)
  out.rows.push(row('ragrank, default analyzer', def.hits))
  const stem = await ragrankRun(d.docs, qtexts, { analyzer: { stopwords: 'en', stemmer: 'english' } }, N)
  out.rows.push(row("ragrank, stopwords 'en' + English stemmer", stem.hits))

  if (py.python) {
    for (const s of BM25S_SETTINGS) {
      const bs = bm25sRun(d.docs, d.queries, s.tokenize, N)
      const bsRow = row(`bm25s (${s.label})`, bs.hits)
      // the same tokens, indexed and queried by ragrank
      const tokDocs = d.docs.map((doc, i) => ({ id: doc.id, tokens: bs.tokens.corpus[i] }))
      const same = await ragrankRun(tokDocs, bs.tokens.queries, {}, N)
      const rgRow = row(`ragrank on bm25s's tokens (${s.label})`, same.hits)
      const cmp = compareRuns(qids, same.hits, bs.hits)
      const diffs = Object.fromEntries(EN_METRICS.map((m) => [m, Math.abs(rgRow.mean[m] - bsRow.mean[m])]))
      const worst = worstQuery(rgRow.ev, bsRow.ev, 'ndcg@10')
      // ragrank's own analyzer configured like bm25s's tokenizer, on the raw texts
      const own = await ragrankRun(d.docs, qtexts, { analyzer: s.analyzer }, N)
      const ownRow = row(`${s.analyzerLabel} (${s.label})`, own.hits)
      let docTokDiff = 0
      let firstDocDiff = null
      d.docs.forEach((doc, i) => {
        const mine = own.idx.analyze(doc.text)
        if (!arraysEqual(mine, bs.tokens.corpus[i])) {
          docTokDiff++
          firstDocDiff ??= { id: doc.id, ragrank: mine, bm25s: bs.tokens.corpus[i] }
        }
      })
      let qTokDiff = 0
      d.queries.forEach((q, i) => {
        if (!arraysEqual(own.idx.analyze(q.text), bs.tokens.queries[i])) qTokDiff++
      })
      report.parity.push({
        name,
        setting: s.label,
        bsRow,
        rgRow,
        ownRow,
        diffs,
        cmp,
        worst,
        docTokDiff,
        qTokDiff,
        firstDocDiff,
      })
      report.analyzerParity.push({ name, setting: s.label, docTokDiff, qTokDiff, firstDocDiff })
      out.rows.push(bsRow, rgRow, ownRow)
      const maxDiff = Math.max(...Object.values(diffs))
      if (maxDiff > PARITY_LIMIT) {
        note(
          `${name} (${s.label}): ragrank vs bm25s on identical tokens differ by ${maxDiff.toFixed(4)} > ${PARITY_LIMIT}` +
            ` (worst nDCG@10 query ${worst.qid}: ragrank ${fmt(worst.a)} vs bm25s ${fmt(worst.b)};` +
            ` max |score diff| ${cmp.maxAbs.toExponential(2)} at ${JSON.stringify(cmp.worst)})`,
        )
      }
    }
  }
  if (py.python) {
    const words = new Bm25Index({ analyzer: { segmentation: 'regex' } })
    for (const x of [...d.docs, ...d.queries]) for (const w of words.analyze(x.text)) stemVocabulary.add(w)
  }
  report.en.push(out)
  report.timings.push({ name, ms: performance.now() - t0 })
}

const KO_VARIANTS = [
  { label: "ragrank, default analyzer (cjk: 'bigram')", options: {} },
  { label: "ragrank, cjk: 'wordbigram'", options: { analyzer: { cjk: 'wordbigram' } } },
  { label: "ragrank, cjk: 'none'", options: { analyzer: { cjk: 'none' } } },
]

async function evalKorquad() {
  const t0 = performance.now()
  const d = loadDataset('korquad')
  const qids = d.queries.map((q) => q.id)
  const qtexts = d.queries.map((q) => q.text)
  const out = { name: 'korquad', docs: d.docs.length, queries: qids.length, rows: [] }
  for (const v of KO_VARIANTS) {
    const r = await ragrankRun(d.docs, qtexts, v.options, 100)
    const ev = evaluate(toRun(qids, r.hits), d.qrels, KO_METRICS)
    const st = r.idx.stats()
    out.rows.push({
      label: v.label,
      mean: ev.mean,
      terms: st.terms,
      indexMs: r.indexMs,
      qps: qids.length / (r.searchMs / 1000),
    })
  }
  if (py.python) {
    const bs = bm25sRun(d.docs, d.queries, { stopwords: null, stemmer: null }, 100)
    const ev = evaluate(toRun(qids, bs.hits), d.qrels, KO_METRICS)
    out.rows.push({
      label: 'bm25s, regex word tokens, no stopwords or stemmer (reference)',
      mean: ev.mean,
      terms: undefined,
      indexMs: undefined,
      qps: undefined,
    })
  }
  report.ko.push(out)
  report.timings.push({ name: 'korquad', ms: performance.now() - t0 })
}

const stemVocabulary = new Set()

/**
 * Stem every distinct (non-stopword) word of the English collections with PyStemmer's English stemmer (what
 * bm25s uses) and with ragrank's 'bm25s' preset, and list the words where they disagree.
 */
function compareStemmers() {
  const words = [...stemVocabulary].sort()
  const script = [
    'import sys, json, Stemmer, bm25s',
    's = Stemmer.Stemmer("english")',
    'ws = json.load(sys.stdin)',
    'print(json.dumps({"version": Stemmer.version(), "stems": s.stemWords(ws), "stopwords": sorted(bm25s.stopwords.STOPWORDS_EN)}))',
  ].join('\n')
  const r = spawnSync(py.python, ['-c', script], { input: JSON.stringify(words), encoding: 'utf8', maxBuffer: 1 << 28 })
  if (r.status !== 0) throw new Error(`PyStemmer failed: ${r.stderr}`)
  const { version, stems, stopwords } = JSON.parse(r.stdout)
  const preset = new Bm25Index({ analyzer: 'bm25s' })
  const bsStop = new Set(stopwords)
  // words one side drops as a stopword and the other keeps (bm25s's list itself, and every word of the collections)
  const stopDiffer = [...new Set([...stopwords, ...words])].filter(
    (w) => (preset.analyze(w).length === 0) !== bsStop.has(w),
  )
  const differ = []
  let kept = 0
  words.forEach((w, i) => {
    if (bsStop.has(w)) return
    kept++
    const mine = preset.analyze(w).join(' ')
    if (mine !== '' && mine !== stems[i]) differ.push({ word: w, ragrank: mine, pystemmer: stems[i] })
  })
  report.stemmers = { version, words: kept, differ, stopDiffer, nStop: stopwords.length }
}

for (const name of selected) {
  if (!hasData(name)) {
    note(`${name}: data not found under ${dataRoot()}, skipped`)
    continue
  }
  console.error(`eval: ${name} ...`)
  if (name === 'korquad') await evalKorquad()
  else await evalEnglish(name)
}
if (py.python && stemVocabulary.size) compareStemmers()
const totalMs = performance.now() - started

// ---------------------------------------------------------------------------------------------- markdown

function table(header, rows) {
  // right-align the columns whose cells are all numbers (or '-')
  const numeric = header.map((_, i) => rows.every((r) => /^(-|[-+]?[\d.,]+(e[-+]?\d+)?( ms| s)?)$/.test(String(r[i]))))
  const lines = [`| ${header.join(' | ')} |`, `|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`]
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`)
  return lines.join('\n')
}

const md = []
const today = new Date().toISOString().slice(0, 10)
md.push('# Retrieval quality evaluation')
md.push('')
md.push(
  'Regenerate (needs the data folder, see below; the bm25s rows need `.venv-py`, see `scripts/fixtures/README.md`):',
)
md.push('')
md.push('```sh')
md.push('npm run build && npm run eval     # RAGRANK_DATA=/path/to/data to override ../shared/data')
md.push('```')
md.push('')
md.push(
  `Generated ${today} by \`bench/eval/retrieval.mjs\`: Node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model?.trim() ?? 'unknown'}),` +
    ` ${py.python ? `bm25s ${py.version}` : 'bm25s not available'}; total runtime ${sec(totalMs)}.`,
)
md.push('')
md.push('## Setup')
md.push('')
md.push(
  `- BM25: variant \`${BM25.variant}\`, k1 = ${BM25.k1}, b = ${BM25.b} everywhere (ragrank's and bm25s's defaults). ` +
    'English collections retrieve every document with a positive score (topK = number of documents), so MAP has no cut-off; KorQuAD retrieves the top 100.',
)
md.push(
  "- Metrics come from ragrank's `evaluate`, which follows trec_eval: a document is relevant when its grade is > 0; " +
    'nDCG@k uses gain = grade and discount log2(rank + 1) against the ideal ordering of all judged documents; ' +
    'MAP divides by all relevant documents of the query; MRR@k is the reciprocal rank of the first relevant document within k; ' +
    'recall@k = relevant retrieved in the top k / all relevant; queries are those of the qrels with at least one relevant ' +
    'document, and a query without results scores 0. Means are over queries.',
)
md.push(
  '- Data: read from `../shared/data` (or `$RAGRANK_DATA`), never copied into the repository. Loaders: `bench/lib/datasets.mjs`.',
)
md.push('')
md.push('| collection | documents | evaluated queries | document text | query text | grades |')
md.push('|---|---:|---:|---|---|---|')
md.push(
  '| Cranfield (`cran`) | 1,398 | 225 | `.T` + `.W` (the empty records 471 and 995 are dropped) | `.W`; id = position 1..225 in `cran.qry` (as `cran.qrels` uses) | graded, see below |',
)
md.push('| CISI (`cisi`) | 1,460 | 76 (of 112; the others have no judgements) | `.T` + `.W` | `.T` + `.W` | binary |')
md.push('| Medline (`med`) | 1,033 | 30 | `.W` | `.W` | binary |')
md.push('| ADI (`adi`) | 82 | 35 | `.T` + `.W` | `.W` | binary |')
md.push(
  '| KorQuAD 1.0 dev (`korquad`) | 961 | 5,774 | a paragraph context (964 paragraphs, 3 repeat an earlier one verbatim and are merged) | the question | its paragraph, grade 1 |',
)
md.push('')
md.push(
  '**Cranfield gain mapping.** `cran.qrels` grades 1..4 with 1 = most relevant (Cleverdon: 1 complete answer, 2 high relevance, ' +
    '3 useful background, 4 minimum interest); -1 (and 5, "no interest") also occur. For nDCG the gain is **5 - grade** for grades 1..4 ' +
    '(1 -> 4, 2 -> 3, 3 -> 2, 4 -> 1) and 0 for anything else, so all of 1..4 count as relevant for MAP, MRR and recall. ' +
    '(trec_eval on the raw file would treat grade 4 as the best document and -1 as non-relevant.) One relevant document, 995, is an empty record and can never be retrieved.',
)
md.push('')

if (report.en.length) {
  md.push('## English collections')
  md.push('')
  for (const c of report.en) {
    md.push(`### ${c.name} (${c.docs.toLocaleString('en-US')} documents, ${c.queries} queries)`)
    md.push('')
    md.push(
      table(
        ['run', ...EN_METRICS],
        c.rows.map((r) => [r.label, ...EN_METRICS.map((m) => fmt(r.mean[m]))]),
      ),
    )
    md.push('')
  }
}

if (report.parity.length) {
  md.push('## ragrank vs bm25s on identical tokens')
  md.push('')
  md.push(
    "bm25s tokenizes the raw texts itself (`bm25s.tokenize`: lowercase, `\\b\\w\\w+\\b`, then its 'en' stopword list and/or " +
      'the PyStemmer English (Porter2) stemmer) and retrieves with its numpy backend, k = all documents, its zero-score padding dropped; ' +
      'the runner dumps the exact tokens it indexed and ' +
      'queried, and ragrank indexes those same token lists (`{ id, tokens }`) and is queried with the same token arrays. ' +
      `Both rankings are scored with ragrank's \`evaluate\`. Requirement: |difference| <= ${PARITY_LIMIT} on every metric.`,
  )
  md.push('')
  md.push(
    table(
      ['collection', 'tokens', 'metric', 'bm25s', 'ragrank (same tokens)', '\\|diff\\|', 'ok'],
      report.parity.flatMap((p) =>
        EN_METRICS.map((m) => [
          p.name,
          p.setting,
          m,
          fmt(p.bsRow.mean[m]),
          fmt(p.rgRow.mean[m]),
          fmtDiff(p.diffs[m]),
          p.diffs[m] <= PARITY_LIMIT ? 'yes' : '**NO**',
        ]),
      ),
    ),
  )
  md.push('')
  const allDiffs = report.parity.flatMap((p) => Object.values(p.diffs))
  const maxParity = Math.max(...allDiffs)
  const nFail = allDiffs.filter((x) => x > PARITY_LIMIT).length
  md.push(
    nFail === 0
      ? `**All ${allDiffs.length} comparisons are within ${PARITY_LIMIT}** (largest difference ${maxParity.toFixed(4)}).`
      : `**${nFail} of ${allDiffs.length} comparisons exceed ${PARITY_LIMIT}** (largest difference ${maxParity.toFixed(4)}); see the notes below.`,
  )
  md.push('')
  md.push(
    'Ranking agreement on the same tokens (max |score difference| over documents both return; queries whose sets of ' +
      'scored documents differ; queries whose top 10 differ, and of those the ones not explained by tied scores):',
  )
  md.push('')
  md.push(
    table(
      [
        'collection',
        'tokens',
        'max \\|score diff\\|',
        'max rel. diff',
        'set differs',
        'top-10 differs',
        'not ties',
        'largest nDCG@10 gap',
      ],
      report.parity.map((p) => [
        p.name,
        p.setting,
        p.cmp.maxAbs.toExponential(2),
        p.cmp.maxRel.toExponential(2),
        String(p.cmp.setDiffer),
        String(p.cmp.top10Differ),
        String(p.cmp.top10DifferNotTie),
        p.worst.diff < 5e-5 ? '-' : `query ${p.worst.qid}: ${fmt(p.worst.a)} vs ${fmt(p.worst.b)}`,
      ]),
    ),
  )
  md.push('')
  const swaps = report.parity.filter((p) => p.cmp.tieExample)
  if (report.parity.every((p) => p.cmp.top10DifferNotTie === 0 && p.cmp.setDiffer === 0)) {
    let line =
      `Both sides score the same documents, scores agree within ${Math.max(...report.parity.map((p) => p.cmp.maxRel)).toExponential(1)} ` +
      '(relative; float32 arithmetic summed in a different order), and every top-10 disagreement is an exchange of ' +
      'documents with equal scores: ragrank ranks ties in insertion order, bm25s in whatever order its top-k selection returns them.'
    if (swaps.length) {
      const { name, cmp } = swaps.find((p) => p.worst.diff >= 5e-5) ?? swaps[0]
      const e = cmp.tieExample
      line +=
        ` Example: ${name} query ${e.qid}, rank ${e.rank}: ragrank has document ${e.a.id} (${e.a.score.toFixed(6)}), ` +
        `bm25s document ${e.b.id} (${e.b.score.toFixed(6)}).`
    }
    md.push(line)
    md.push('')
  }
  md.push(
    "ragrank's own analyzer set up like bm25s's tokenizer (the `'bm25s'` preset, or `{ segmentation: 'regex' }` without stopwords and stemmer) on the " +
      'raw texts, compared token list by token list with what bm25s produced:',
  )
  md.push('')
  md.push(
    table(
      ['collection', 'tokens', 'docs with different tokens', 'queries with different tokens', 'first difference'],
      report.analyzerParity.map((a) => [
        a.name,
        a.setting,
        String(a.docTokDiff),
        String(a.qTokDiff),
        a.firstDocDiff
          ? `doc ${a.firstDocDiff.id}: ${describeTokDiff(a.firstDocDiff.ragrank, a.firstDocDiff.bm25s)}`
          : '-',
      ]),
    ),
  )
  md.push('')
}

function describeTokDiff(a, b) {
  const ca = new Map()
  for (const t of a) ca.set(t, (ca.get(t) ?? 0) + 1)
  for (const t of b) ca.set(t, (ca.get(t) ?? 0) - 1)
  const onlyA = [...ca]
    .filter(([, c]) => c > 0)
    .map(([t]) => t)
    .slice(0, 5)
  const onlyB = [...ca]
    .filter(([, c]) => c < 0)
    .map(([t]) => t)
    .slice(0, 5)
  if (!onlyA.length && !onlyB.length) return 'same tokens, different order'
  return `ragrank only [${onlyA.join(', ')}], bm25s only [${onlyB.join(', ')}]`.replace(/\|/g, '\\|')
}

if (report.stemmers) {
  const st = report.stemmers
  md.push(
    `Stemmer check: of the ${st.words.toLocaleString('en-US')} distinct non-stopword words of these collections, ${st.differ.length} stem ` +
      `differently in ragrank's \`'bm25s'\` preset (rust-stemmers, Snowball English/Porter2) and in PyStemmer ${st.version} (the stemmer ` +
      'bm25s calls; its bundled Snowball release has a revised English algorithm). ' +
      (st.stopDiffer.length
        ? `The stopword lists differ on: ${st.stopDiffer.join(', ')}. `
        : `The stopword lists agree (ragrank drops all ${st.nStop} words of bm25s's 'en' list and no other word of these collections). `) +
      'Differences, as word: ragrank / PyStemmer' +
      (st.differ.length > 40 ? ' (first 40)' : '') +
      ':',
  )
  md.push('')
  md.push(
    st.differ.length
      ? st.differ
          .slice(0, 40)
          .map((x) => `${x.word}: ${x.ragrank} / ${x.pystemmer}`)
          .join(', ')
      : '(none)',
  )
  md.push('')
  md.push(
    'So the preset rows are close to, but not identical with, the bm25s rows; the parity requirement is checked on identical tokens, above.',
  )
  md.push('')
}

if (report.ko.length) {
  const c = report.ko[0]
  md.push(`## KorQuAD 1.0 dev: paragraph retrieval (${c.docs} documents, ${c.queries.toLocaleString('en-US')} queries)`)
  md.push('')
  md.push(
    "Default analyzer = UAX#29 words, lowercase, CJK runs as character bigrams (`cjk: 'bigram'`); `'wordbigram'` indexes the " +
      "Hangul word and its bigrams; `'none'` keeps whole words (Korean words carry particles, so recall drops). Target: nDCG@10 >= 0.94 for the default. " +
      'Queries run with `searchBatch`, topK = 100.',
  )
  md.push('')
  md.push(
    table(
      ['run', ...KO_METRICS, 'terms', 'index time', 'queries/s'],
      c.rows.map((r) => [
        r.label,
        ...KO_METRICS.map((m) => fmt(r.mean[m])),
        r.terms === undefined ? '-' : r.terms.toLocaleString('en-US'),
        r.indexMs === undefined ? '-' : `${r.indexMs.toFixed(0)} ms`,
        r.qps === undefined ? '-' : Math.round(r.qps).toLocaleString('en-US'),
      ]),
    ),
  )
  md.push('')
}

if (report.notes.length) {
  md.push('## Notes')
  md.push('')
  for (const n of report.notes) md.push(`- ${n}`)
  md.push('')
}

md.push('## Dense, hybrid, auto-merging and reranking')
md.push('')
md.push(
  '- Dense (all-MiniLM-L6-v2 and multilingual-e5-small), BM25 + dense fused by RRF and by weighted fusion, on Cranfield, CISI, MED, ADI and KorQuAD, and the Korean science-QA corpus (no judgements: agreement and chit-chat figures): [HYBRID.md](HYBRID.md), regenerated by `npm run eval:hybrid`.',
)
md.push(
  '- Leaf retrieval vs auto-merged retrieval at equal text budgets, on Cranfield and CISI: [SPLITTING.md](SPLITTING.md#evaluation-leaves-vs-auto-merged-at-equal-text-budget), regenerated by `npm run eval:merge`.',
)
md.push(
  "- Reranking: not evaluated. No trained cross-encoder can be fetched here (the Hugging Face hub is unreachable), and the benchmark cross-encoder's head, fitted on CISI/MED judgements over a bi-encoder's features, barely ranks (held-out AUC 0.53; speed only). `ragrank eval --corpus --queries --qrels --rerank <model folder>` runs it on a BEIR-format collection once a model is available.",
)
md.push('')
md.push('## Runtime')
md.push('')
md.push(
  table(
    ['collection', 'wall time (incl. bm25s subprocesses)'],
    report.timings.map((t) => [t.name, sec(t.ms)]),
  ),
)
md.push('')

const text = md.join('\n')
console.log(text)
if (writeDoc) {
  fs.mkdirSync(path.dirname(outPath), { recursive: true })
  fs.writeFileSync(outPath, text)
  console.error(`eval: wrote ${path.relative(process.cwd(), outPath)}`)
}

// non-zero exit when the parity requirement fails, so CI-like use notices
const failed = report.parity.some((p) => Object.values(p.diffs).some((d) => d > PARITY_LIMIT))
if (failed) process.exitCode = 1
