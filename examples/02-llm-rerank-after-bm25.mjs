// Seed scenario 2: BM25 finds candidates, an LLM reranks them and decides how many are
// relevant (Haystack's LLMRanker semantics), with sliding windows for long lists.
//
//   node examples/02-llm-rerank-after-bm25.mjs               # offline: local scripted server
//   OPENAI_API_KEY=sk-... node examples/02-llm-rerank-after-bm25.mjs   # gpt-4.1-mini
import { Bm25Index, LLMRanker } from 'ragrank'
import { chatGenerator, loadBbc, promptDocuments, promptQuery, words } from './_shared.mjs'

// Offline stand-in for the model: a document is "relevant" when its title shares a
// content word with the query, ordered by how many. Only here to exercise the protocol.
const STOP = new Set(['the', 'a', 'of', 'in', 'on', 'and', 'to', 'for', 'is', 'at', 'by', 'with'])
function standIn(body) {
  const prompt = body.messages.at(-1).content
  const q = new Set(words(promptQuery(prompt)).filter((w) => !STOP.has(w)))
  const ranked = promptDocuments(prompt)
    .map((d) => ({ n: d.n, hits: words(d.text.split(' | ')[0]).filter((w) => q.has(w)).length }))
    .filter((d) => d.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.n - b.n)
  return `\`\`\`json\n${JSON.stringify({ documents: ranked.map((d) => ({ index: d.n })) })}\n\`\`\``
}

const articles = loadBbc()
const index = new Bm25Index({ analyzer: { stopwords: 'en' } })
index.add(
  articles.map((a) => ({
    id: a.id,
    text: `${a.title} | ${a.paragraphs.slice(0, 3).join(' ')}`,
    meta: { category: a.category },
  })),
)
const llm = await chatGenerator(standIn)
try {
  const ranker = new LLMRanker({
    chatGenerator: llm.generator,
    topK: 5,
    onFailure: (e) => console.log(`  (fallback to BM25 order: ${e.message})`),
  })
  const windowed = new LLMRanker({
    chatGenerator: llm.generator,
    topK: 5,
    window: { size: 10, step: 5, concurrency: 3 },
  })
  for (const query of ['broadband internet speed in Britain', 'football club debts and new owners']) {
    const candidates = await index.retrieve(query, { topK: 10 })
    const show = (d) => `${d.id.padEnd(18)} ${d.text.split(' | ')[0]}`
    console.log(`\n${query}\n  BM25 top 5:`)
    for (const d of candidates.slice(0, 5)) console.log(`    ${d.score.toFixed(2).padStart(6)}  ${show(d)}`)
    const reranked = await ranker.rerank(query, candidates)
    console.log(`  LLM kept ${reranked.length} of ${candidates.length}:`)
    for (const d of reranked)
      console.log(`    ${d.score.toFixed(2).padStart(6)}  (bm25 ${d.meta.priorScore.toFixed(2)})  ${show(d)}`)
    const long = await index.retrieve(query, { topK: 30 })
    const w = await windowed.rerank(query, long)
    console.log(`  30 candidates in windows of 10 (step 5): ${w.map((d) => d.id).join(', ')}`)
  }
  console.log(`\nusage: ${JSON.stringify(llm.generator.usage)}`)
} finally {
  await llm.close()
}
