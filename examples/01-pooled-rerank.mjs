// Seed scenario 1: candidates pooled from several "books" (here one BM25 index per BBC
// News section) reranked in one call, with duplicates merged and the source's own score
// kept as meta.priorScore.
//
//   node examples/01-pooled-rerank.mjs
//
// Ranker: RAGRANK_CROSS_ENCODER (a model folder or hub id) if set; otherwise a
// bi-encoder ranker over RAGRANK_EMBEDDER (default bench/.cache/models/minilm-l6-embedder,
// built by bench/models/prepare.py); otherwise an LLMRanker (OpenAI with OPENAI_API_KEY, else
// the local scripted server). Any object with rerank(query, documents, { topK }) works.
import { existsSync } from 'node:fs'
import { Bm25Index, CrossEncoder, Embedder, LLMRanker, rerankPooled } from 'ragrank'
import { chatGenerator, loadBbc, wordShareRanking } from './_shared.mjs'

let closeLlm = async () => {}

async function loadRanker() {
  if (process.env.RAGRANK_CROSS_ENCODER) {
    console.log(`ranker: CrossEncoder ${process.env.RAGRANK_CROSS_ENCODER}`)
    return CrossEncoder.load(process.env.RAGRANK_CROSS_ENCODER)
  }
  const path =
    process.env.RAGRANK_EMBEDDER ?? new URL('../bench/.cache/models/minilm-l6-embedder', import.meta.url).pathname
  if (!existsSync(path)) {
    console.log(`no ranker model (RAGRANK_CROSS_ENCODER, or RAGRANK_EMBEDDER: ${path} is absent): using an LLMRanker`)
    const llm = await chatGenerator(wordShareRanking)
    closeLlm = llm.close
    return new LLMRanker({ chatGenerator: llm.generator })
  }
  console.log(`ranker: cosine similarity of ${path} embeddings`)
  const embedder = await Embedder.load(path)
  return {
    // The Ranker contract: documents in, the same documents out with score and input index, best first.
    async rerank(query, documents, { topK = 10, signal } = {}) {
      const q = await embedder.embedQuery(query, { signal })
      const { data, dim } = await embedder.embedDocuments(
        documents.map((d) => d.text),
        { signal },
      )
      const scored = documents.map((d, index) => {
        let s = 0
        for (let j = 0; j < dim; j++) s += q[j] * data[index * dim + j]
        return { ...d, index, score: s }
      })
      return scored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, topK)
    },
  }
}

const articles = loadBbc()
const books = new Map()
for (const a of articles) {
  if (!books.has(a.category)) books.set(a.category, new Bm25Index({ analyzer: { stopwords: 'en' } }))
  books
    .get(a.category)
    .add(
      a.paragraphs.map((text, i) => ({ id: `${a.id}#${i}`, text: `${a.title}. ${text}`, meta: { book: a.category } })),
    )
}
console.log(`${books.size} books, ${articles.length} articles`)
const ranker = await loadRanker()

try {
  for (const query of [
    'mobile phones that play music',
    'rising oil prices hurt the economy',
    'film stars at the awards ceremony',
  ]) {
    const pool = []
    for (const index of books.values()) pool.push(...(await index.retrieve(query, { topK: 5 })))
    // The BBC set holds some articles twice under different file names: merge equal texts
    // whatever their ids. (A corrected re-publication, e.g. tech/064 vs tech/338, differs by a
    // few characters and is not merged: exact-content dedupe, not near-duplicate detection.)
    const top = await rerankPooled(query, pool, ranker, { topK: 5, dedupeBy: 'content' })
    console.log(`\n${query}  (${pool.length} pooled candidates from ${books.size} books)`)
    for (const d of top) {
      console.log(
        `  ${d.score.toFixed(3)}  bm25 ${d.meta.priorScore.toFixed(2).padStart(6)}  [${d.meta.book}] ${d.text.slice(0, 90)}…`,
      )
    }
  }
} finally {
  await closeLlm()
}
