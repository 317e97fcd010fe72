// ragrank inside the Vercel AI SDK: a provider whose embedding model (embed, embedMany) and
// reranking model (rerank) are ragrank models, a retriever as a tool for generateText, and an
// AI SDK language model driving ragrank's LLMRanker. Runs offline: the language model is the
// SDK's MockLanguageModelV3 with a scripted reply (use openai('gpt-4o-mini') or any provider's
// model instead). Models come from RAGRANK_EXAMPLE_EMBEDDER and RAGRANK_EXAMPLE_RERANKER (model
// folders or hub ids), by default the repository's tiny test models, whose scores mean nothing.
import assert from 'node:assert/strict'
import { cosineSimilarity, embed, embedMany, generateText, rerank, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Bm25Index, CrossEncoder, Embedder, LLMRanker } from 'ragrank'
import { AiSdkChatGenerator, createRagrank, retrievalTool } from 'ragrank/ai-sdk'

const fixture = (name) => new URL(`../../../fixtures/models/${name}`, import.meta.url).pathname
const embedder = await Embedder.load(process.env.RAGRANK_EXAMPLE_EMBEDDER ?? fixture('tiny-embedder'))
const crossEncoder = await CrossEncoder.load(process.env.RAGRANK_EXAMPLE_RERANKER ?? fixture('tiny-cross-encoder'))
const ragrank = createRagrank({ embedder, ranker: crossEncoder })

const corpus = [
  { id: 'photosynthesis', text: 'Photosynthesis turns light, water and carbon dioxide into sugar.' },
  { id: 'chloroplast', text: 'Chloroplasts are where photosynthesis takes place in plant cells.' },
  { id: 'mitochondria', text: 'Mitochondria release the energy stored in sugar.' },
  { id: 'rust', text: 'Rust is a systems programming language with memory safety.' },
]
const query = 'where does photosynthesis take place'

// 1. Embeddings: documents with embedMany, the query with embed and inputType 'query' (its prefix).
const { embeddings } = await embedMany({ model: ragrank.embedding(), values: corpus.map((d) => d.text) })
const { embedding } = await embed({
  model: ragrank.embedding(),
  value: query,
  providerOptions: { ragrank: { inputType: 'query' } },
})
const bySimilarity = corpus
  .map((d, i) => ({ id: d.id, similarity: cosineSimilarity(embedding, embeddings[i]) }))
  .sort((a, b) => b.similarity - a.similarity)
console.log(`embedMany + embed (dim ${embedding.length}), by cosine similarity:`)
for (const d of bySimilarity) console.log(`  ${d.similarity.toFixed(3)}  ${d.id}`)
assert.equal(embeddings.length, corpus.length)
assert.equal(embedding.length, embedder.dim)

// 2. Reranking with rerank() and the cross-encoder.
const { ranking } = await rerank({ model: ragrank.reranking(), query, documents: corpus.map((d) => d.text), topN: 2 })
console.log('rerank (top 2):')
for (const r of ranking) console.log(`  ${r.score.toFixed(3)}  ${corpus[r.originalIndex].id}`)
assert.equal(ranking.length, 2)
assert.ok(ranking[0].score >= ranking[1].score)

// 3. A BM25 index as a tool: the (scripted) model calls it, then answers from what it found.
const bm25 = new Bm25Index()
bm25.add(corpus)
const model = new MockLanguageModelV3({
  doGenerate: [
    scripted(
      [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'search', input: JSON.stringify({ query }) }],
      'tool-calls',
    ),
    scripted([{ type: 'text', text: 'In the chloroplasts of plant cells.' }], 'stop'),
  ],
})
const result = await generateText({
  model,
  tools: { search: retrievalTool({ retriever: bm25, topK: 2 }) },
  stopWhen: stepCountIs(3),
  prompt: 'Where does photosynthesis take place?',
})
const found = result.steps[0].toolResults[0].output
console.log(`generateText called search: ${found.map((d) => d.id).join(', ')}; answer: ${result.text}`)
assert.deepEqual(
  found.map((d) => d.id),
  (await bm25.retrieve(query, { topK: 2 })).map((h) => h.id),
)
assert.equal(result.text, 'In the chloroplasts of plant cells.')

// 4. An AI SDK language model as ragrank's ChatGenerator, here for the LLMRanker.
const judge = new MockLanguageModelV3({
  doGenerate: scripted([{ type: 'text', text: '{"documents":[{"index":2},{"index":1}]}' }], 'stop'),
})
const llmRanked = await new LLMRanker({ chatGenerator: new AiSdkChatGenerator(judge), raiseOnFailure: true }).rerank(
  query,
  corpus,
)
console.log(`LLMRanker on an AI SDK model kept: ${llmRanked.map((d) => d.id).join(', ')}`)
assert.deepEqual(
  llmRanked.map((d) => d.id),
  ['chloroplast', 'photosynthesis'],
)

crossEncoder.dispose()
embedder.dispose()
console.log('ai-sdk example: ok')

/** A generate result as a provider returns it (LanguageModelV3). */
function scripted(content, finishReason) {
  return {
    content,
    finishReason: { unified: finishReason, raw: finishReason },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
    warnings: [],
  }
}
