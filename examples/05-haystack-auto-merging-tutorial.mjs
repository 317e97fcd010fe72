// Haystack's auto-merging tutorial, ported: BBC News (2,225 articles, the tutorial's CSV), split by
// sentence into blocks of 10 and 5, the level-1 blocks in one store and the articles in another, BM25
// top 10, then auto-merging at threshold 0.6 for 'phishing attacks spoof websites spam e-mails spyware'.
// The tutorial prints 10 BM25 titles and 7 after merging; so does this, with:
// - splitBy 'period' (Haystack's sentence splitter differs from every other one, see docs/SPLITTING.md);
// - Haystack's BM25: variant 'bm25l-lvzhai' (its 3.x BM25L) and its old tokenizer, lowercase \w\w+ words;
// - candidates: 'topK', so the merge sees exactly the retriever's top 10, as a Haystack pipeline does.
// `--all-leaves` indexes every node without children instead (what ragrank would do): the short
// articles that are one childless root, never retrievable in the two-store setup, are found too.
//
//   node examples/05-haystack-auto-merging-tutorial.mjs [--all-leaves]
// Without ../shared/data (or RAGRANK_DATA) it runs on fixtures/bbc-excerpt.tsv, synthetic articles.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AutoMergingRetriever, Bm25Index, HierarchicalSplitter } from 'ragrank'
import { DATA } from './_shared.mjs'

export const QUERY = 'phishing attacks spoof websites spam e-mails spyware'
export const BBC_CSV = join(DATA, 'splitting', 'bbc-news-data.csv')
export const EXCERPT = new URL('../fixtures/bbc-excerpt.tsv', import.meta.url).pathname

/** Haystack <= 2.x's BM25 tokenizer, `(?u)\b\w\w+\b` on the lowercased text. */
export const haystackTokens = (text) => text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []

/** The tutorial's CSV (category, filename, title, content; tab-separated, quoted when a field has a quote). */
export function readArticles(path) {
  const [, ...rows] = parseTsv(readFileSync(path, 'utf8'))
  return rows
    .filter((r) => r.length >= 4)
    .map(([category, filename, title, content]) => ({
      file: `${category.trim()}/${filename.trim()}`,
      title: title.trim(),
      content: content.trim(),
    }))
}

/** Rows of tab-separated fields; a field that starts with `"` is quoted (`""` is a quote), as Python's csv writes. */
function parseTsv(text) {
  const rows = []
  let row = []
  let field = ''
  let quoted = false
  const endField = () => {
    row.push(field)
    field = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c !== '"') field += c
      else if (text[i + 1] === '"') field += text[++i]
      else quoted = false
    } else if (c === '"' && field === '') quoted = true
    else if (c === '\t') endField()
    else if (c === '\n') {
      endField()
      rows.push(row)
      row = []
    } else if (c !== '\r') field += c
  }
  if (field !== '' || row.length > 0) {
    endField()
    rows.push(row)
  }
  return rows
}

/**
 * The tutorial's pipeline. `allLeaves: false` (the tutorial): level-1 nodes are searched and a
 * childless root (an article of at most 5 sentences) is in no searched store. `true`: every node
 * without children is searched; a childless root comes back as itself (Haystack's
 * AutoMergingRetriever raises on a hit without a parent, ragrank returns it unmerged).
 */
export async function tutorial(articles, { splitBy = 'period', allLeaves = false, topK = 10 } = {}) {
  const splitter = new HierarchicalSplitter({ blockSizes: [10, 5], splitBy })
  const nodes = await splitter.splitAsync(
    articles.map((a) => ({ id: a.file, text: a.content, meta: { title: a.title } })),
  )
  const searched = nodes.filter((n) => (allLeaves ? n.childrenIds.length === 0 : n.level === 1))
  const roots = nodes.filter((n) => n.level === 0)
  const index = new Bm25Index({ variant: 'bm25l-lvzhai', k1: 1.5, b: 0.75, delta: 0.5, tokenizer: haystackTokens })
  index.add(searched.map((n) => ({ id: n.id, text: n.text })))
  const merging = new AutoMergingRetriever({
    retriever: index,
    store: allLeaves ? nodes : [...searched, ...roots], // the tutorial's two stores
    threshold: 0.6,
    candidates: 'topK',
  })
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const bm25 = (await index.retrieve(QUERY, { topK })).map((h) => ({ ...h, node: byId.get(h.id) }))
  const merged = await merging.retrieve(QUERY, { topK })
  const neverRetrievable = roots.filter((r) => r.childrenIds.length === 0).length
  return { nodes, searched, bm25, merged, neverRetrievable: allLeaves ? 0 : neverRetrievable }
}

async function main() {
  const allLeaves = process.argv.includes('--all-leaves')
  const path = existsSync(BBC_CSV) ? BBC_CSV : EXCERPT
  const articles = readArticles(path)
  const r = await tutorial(articles, { allLeaves })
  console.log(`${articles.length} articles from ${path}`)
  console.log(
    `${r.nodes.length} nodes, ${r.searched.length} searched (${allLeaves ? 'every node without children' : 'level 1, as the tutorial'}); ` +
      `${r.neverRetrievable} articles are never retrievable`,
  )
  if (r.neverRetrievable > 0)
    console.log(
      '(--all-leaves searches every node without children instead: ragrank returns a childless root as itself, ' +
        "where Haystack's AutoMergingRetriever raises on a hit without a parent)",
    )
  const title = (n) => `${n.meta.title} (${n.sourceId}, level ${n.level})`
  console.log(`\nBM25 top ${r.bm25.length}:`)
  for (const t of r.bm25.map((h) => title(h.node)).sort()) console.log(`  ${t}`)
  console.log(`\nafter auto-merging at 0.6: ${r.merged.length}`)
  for (const t of r.merged.map((h) => title(h.node)).sort()) console.log(`  ${t}`)
}

// Run only as a script, not when a test imports the pipeline.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
