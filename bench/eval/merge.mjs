#!/usr/bin/env node
// Leaf retrieval vs auto-merged retrieval on Cranfield and CISI, at equal returned-text budgets.
//
//   npm run build && node bench/eval/merge.mjs          # prints Markdown; --write also updates docs/SPLITTING.md
//
// Each collection is split with HierarchicalSplitter (word, blockSizes {128, 32}); BM25 (ragrank's defaults of
// bench/eval/retrieval.mjs) indexes the leaves. Per query, a system returns a ranked list of nodes; we read it from the
// top until `budget` words of text are returned (the result that crosses the budget counts: it is read in
// part). Every returned node stands for its source document (`sourceId`); the documents in order of first
// appearance form the run that trec_eval-style metrics judge against the collection's qrels.
// Systems: "leaves" (BM25 hits), "auto-merged" (AutoMergingRetriever, threshold 0.5, max rule, candidates 100),
// and "documents" (BM25 over whole documents: a reference with no splitting).
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { hasData, loadDataset } from '../lib/datasets.mjs'
import { distEntry, repoRoot } from '../lib/paths.mjs'

const { AutoMergingRetriever, Bm25Index, HierarchicalSplitter, evaluate } = await import(pathToFileURL(distEntry).href)

const BM25 = { variant: 'lucene', k1: 1.5, b: 0.75 }
const BLOCKS = [128, 32]
const BUDGETS = [100, 300, 1000]
const METRICS = ['ndcg@10', 'map@10', 'recall@10']
const CANDIDATES = 100
const words = (t) => t.split(/\s+/).filter(Boolean).length

/** Documents (by sourceId, first appearance) read within `budget` words of a ranked node list. */
function withinBudget(nodes, budget) {
  const out = []
  const seen = new Set()
  let used = 0
  for (const n of nodes) {
    if (used >= budget) break
    used += words(n.text)
    if (!seen.has(n.sourceId)) {
      seen.add(n.sourceId)
      out.push({ id: n.sourceId, score: -out.length })
    }
  }
  return out
}

async function evalCollection(name) {
  const { docs, queries, qrels } = loadDataset(name)
  const tree = new HierarchicalSplitter({ blockSizes: BLOCKS }).split(docs.map((d) => ({ id: d.id, text: d.text })))
  const byId = new Map(tree.map((n) => [n.id, n]))
  const docText = new Map(docs.map((d) => [d.id, d.text]))
  const leaves = tree.filter((n) => n.childrenIds.length === 0)
  const leafIndex = new Bm25Index({ ...BM25, storeText: false })
  leafIndex.add(leaves.map((n) => ({ id: n.id, text: n.text })))
  const docIndex = new Bm25Index({ ...BM25, storeText: false })
  docIndex.add(docs.map((d) => ({ id: d.id, text: d.text })))
  const bm25 = { retrieve: async (q, { topK }) => leafIndex.search(q, { topK, includeFields: false }) }
  const merger = new AutoMergingRetriever({ retriever: bm25, store: tree, threshold: 0.5, candidates: CANDIDATES })

  const lists = { leaves: {}, 'auto-merged': {}, documents: {} }
  let merged = 0
  let returned = 0
  for (const q of queries) {
    lists.leaves[q.id] = leafIndex.search(q.text, { topK: CANDIDATES, includeFields: false }).map((h) => byId.get(h.id))
    const m = await merger.retrieve(q.text, { topK: CANDIDATES })
    lists['auto-merged'][q.id] = m.map((h) => h.node)
    merged += m.filter((h) => h.leafIds.length > 1).length
    returned += m.length
    const docHits = docIndex.search(q.text, { topK: CANDIDATES, includeFields: false })
    lists.documents[q.id] = docHits.map((h) => ({ sourceId: h.id, text: docText.get(h.id) }))
  }
  const rows = []
  for (const budget of BUDGETS) {
    for (const [system, perQuery] of Object.entries(lists)) {
      const run = {}
      for (const [qid, nodes] of Object.entries(perQuery)) run[qid] = withinBudget(nodes, budget)
      const { mean } = evaluate(run, qrels, METRICS)
      const docsRead = Object.values(run).reduce((a, r) => a + r.length, 0) / queries.length
      rows.push({ budget, system, ...mean, docsRead })
    }
  }
  return {
    name,
    docs: docs.length,
    queries: queries.length,
    nodes: tree.length,
    leaves: leaves.length,
    mergedShare: merged / Math.max(1, returned),
    rows,
  }
}

const results = []
for (const name of ['cran', 'cisi']) {
  if (!hasData(name)) {
    console.error(`eval-merge: ${name} data missing, skipped`)
    continue
  }
  results.push(await evalCollection(name))
}

const f = (x) => x.toFixed(3)
const lines = []
for (const r of results) {
  lines.push(
    `**${r.name}**: ${r.docs} documents -> ${r.nodes} nodes (${r.leaves} leaves), ${r.queries} judged queries; ` +
      `${(100 * r.mergedShare).toFixed(1)}% of the auto-merged results are merged parents.`,
    '',
    `| budget (words) | system | ${METRICS.join(' | ')} | documents read |`,
    `| ---: | --- | ${METRICS.map(() => '---:').join(' | ')} | ---: |`,
  )
  for (const row of r.rows) {
    lines.push(
      `| ${row.budget} | ${row.system} | ${METRICS.map((m) => f(row[m])).join(' | ')} | ${row.docsRead.toFixed(1)} |`,
    )
  }
  lines.push('')
}
const markdown = lines.join('\n')
process.stdout.write(`${markdown}\n`)

if (process.argv.includes('--write')) {
  const doc = path.join(repoRoot, 'docs', 'SPLITTING.md')
  const text = fs.readFileSync(doc, 'utf8')
  const begin = '<!-- eval-merge:begin -->'
  const end = '<!-- eval-merge:end -->'
  const a = text.indexOf(begin)
  const b = text.indexOf(end)
  if (a < 0 || b < 0) throw new Error(`docs/SPLITTING.md lacks the ${begin} / ${end} markers`)
  fs.writeFileSync(doc, `${text.slice(0, a + begin.length)}\n${markdown}\n${text.slice(b)}`)
  console.error('eval-merge: docs/SPLITTING.md updated')
}
