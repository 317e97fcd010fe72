// Seed scenario 4: hierarchical splitting with auto-merging over BBC News. Articles are
// split into 90-, 30- and 10-word blocks; BM25 searches only the 12-word leaves; when more
// than half of a block's children match, the block replaces them (recursively), so the
// reader gets a coherent passage instead of scattered fragments. The merged passages then
// go to an LLMRanker (local scripted server offline) through a CompressionRetriever.
//
//   node examples/04-hierarchical-auto-merging.mjs
import { AutoMergingRetriever, Bm25Index, CompressionRetriever, HierarchicalSplitter, LLMRanker } from 'ragrank'
import { chatGenerator, loadBbc, wordShareRanking, words } from './_shared.mjs'

const articles = loadBbc().filter((a) => a.category === 'tech')
const splitter = new HierarchicalSplitter({ blockSizes: [90, 30, 10], splitBy: 'word' })
const nodes = await splitter.splitAsync(
  articles.map((a) => ({ id: a.id, text: [a.title, ...a.paragraphs].join('\n\n') })),
)
const leaves = nodes.filter((n) => n.childrenIds.length === 0)
const index = new Bm25Index({ analyzer: { stopwords: 'en' } })
index.add(leaves.map((n) => ({ id: n.id, text: n.text })))
console.log(`${articles.length} tech articles → ${nodes.length} nodes, ${leaves.length} leaves indexed`)

const merging = new AutoMergingRetriever({ retriever: index, store: nodes, threshold: 0.5, candidates: 60 })

const llm = await chatGenerator(wordShareRanking)
try {
  const pipeline = new CompressionRetriever({
    retriever: merging,
    ranker: new LLMRanker({ chatGenerator: llm.generator }),
    candidates: 8,
    dedupeBy: 'content',
  })
  // dedupeBy 'content': BBC has some articles twice under two file names, hence equal passages under two ids.
  for (const query of ['spam email filters and junk mail', 'games console sales over christmas']) {
    const merged = await merging.retrieve(query, { topK: 8 })
    console.log(
      `\n${query}\n  top 8 after merging (level, leaf hits): ${merged.map((h) => `L${h.node?.level}/${h.leafIds.length}`).join(' ')}`,
    )
    for (const d of await pipeline.retrieve(query, { topK: 3 })) {
      console.log(
        `  ${d.score.toFixed(2)}  level ${d.node.level}, ${d.leafIds.length} leaf hit(s), ${words(d.text).length} words: ${d.text.replace(/\s+/g, ' ').slice(0, 100)}…`,
      )
    }
  }
} finally {
  await llm.close()
}
