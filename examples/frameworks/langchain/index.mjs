// ragrank inside LangChain.js, offline: BM25 and ragrank's vector store fused by LangChain's
// EnsembleRetriever, reranked by a cross-encoder through ContextualCompressionRetriever,
// ragrank's Embedder in LangChain's MemoryVectorStore, the vector store with a filter and
// MMR, and a LangChain chat model as the LLM ranker's generator.
//
//   node examples/frameworks/langchain/index.mjs
//
// Models: RAGRANK_EXAMPLE_EMBEDDER and RAGRANK_EXAMPLE_RERANKER (a folder or a Hugging Face
// id), by default the repository's tiny random-weight test models, whose rankings are
// arbitrary: the checks below test the plumbing, not relevance. Exits non-zero on a failure.
import assert from 'node:assert/strict'
import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression'
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble'
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory'
import { Document } from '@langchain/core/documents'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { Bm25Index, CrossEncoder, Embedder, LLMRanker } from 'ragrank'
import {
  LangChainChatGenerator,
  RagrankEmbeddings,
  RagrankRetriever,
  RagrankVectorStore,
  RankerCompressor,
} from 'ragrank/langchain'

const fixture = (name) => new URL(`../../../fixtures/models/${name}`, import.meta.url).pathname
const embedderModel = process.env.RAGRANK_EXAMPLE_EMBEDDER || fixture('tiny-embedder')
const rerankerModel = process.env.RAGRANK_EXAMPLE_RERANKER || fixture('tiny-cross-encoder')

const corpus = [
  { id: 'cats-1', text: 'Cats sleep for most of the day and hunt at dusk.', meta: { topic: 'pets', year: 2021 } },
  { id: 'cats-2', text: 'A kitten learns to hunt by playing with its litter.', meta: { topic: 'pets', year: 2023 } },
  {
    id: 'dogs-1',
    text: 'Dogs were domesticated from wolves thousands of years ago.',
    meta: { topic: 'pets', year: 2019 },
  },
  { id: 'cars-1', text: 'Electric cars store energy in large lithium batteries.', meta: { topic: 'cars', year: 2024 } },
  {
    id: 'cars-2',
    text: 'A hybrid car pairs a petrol engine with an electric motor.',
    meta: { topic: 'cars', year: 2022 },
  },
  {
    id: 'space-1',
    text: 'The Moon has no atmosphere, so its sky is black by day.',
    meta: { topic: 'space', year: 2020 },
  },
]
const documents = corpus.map((c) => new Document({ id: c.id, pageContent: c.text, metadata: c.meta }))

const embedder = await Embedder.load(embedderModel)
const reranker = await CrossEncoder.load(rerankerModel)
const embeddings = new RagrankEmbeddings({ embedder })

// 1. BM25 as a LangChain retriever, and ragrank's vector store as another: fused by LangChain.
const bm25 = new Bm25Index()
bm25.add(corpus)
const keyword = new RagrankRetriever({ retriever: bm25, topK: 4 })
const store = await RagrankVectorStore.fromDocuments(documents, embeddings)
const ensemble = new EnsembleRetriever({ retrievers: [keyword, store.asRetriever({ k: 4 })], weights: [0.5, 0.5] })
const fused = await ensemble.invoke('how do cats hunt')
console.log('EnsembleRetriever (BM25 + RagrankVectorStore):', fused.map((d) => d.id).join(', '))
assert.ok(fused.length >= 4, 'both retrievers contributed')
assert.ok(
  fused.some((d) => d.id === 'cats-1'),
  'BM25 finds the cat passage',
)
assert.ok(
  fused.every((d) => typeof d.id === 'string' && d.metadata.topic),
  'every Document keeps its id and metadata',
)

// 2. The cross-encoder as a LangChain compressor: reranked, the score kept in metadata.
const reranked = await new ContextualCompressionRetriever({
  baseRetriever: ensemble,
  baseCompressor: new RankerCompressor({ ranker: reranker, topK: 3 }),
}).invoke('how do cats hunt')
console.log(
  'ContextualCompressionRetriever (RankerCompressor):',
  reranked.map((d) => `${d.id} ${d.metadata.relevanceScore.toFixed(3)}`).join(', '),
)
assert.equal(reranked.length, 3)
assert.ok(reranked.every((d, i) => i === 0 || reranked[i - 1].metadata.relevanceScore >= d.metadata.relevanceScore))

// 3. ragrank's Embedder inside LangChain's own MemoryVectorStore.
const memory = await MemoryVectorStore.fromDocuments(documents, embeddings)
const [[nearest, similarity]] = await memory.similaritySearchWithScore(corpus[3].text, 1)
console.log(`MemoryVectorStore (RagrankEmbeddings): ${nearest.id ?? nearest.metadata.topic} ${similarity.toFixed(3)}`)
assert.equal(nearest.pageContent, corpus[3].text, 'a passage is nearest to itself')

// 4. The vector store with a ragrank filter, and MMR.
const recentPets = await store.similaritySearch('animals', 3, { meta: { topic: 'pets', year: { $gte: 2020 } } })
console.log('RagrankVectorStore filter (pets since 2020):', recentPets.map((d) => d.id).join(', '))
assert.deepEqual(recentPets.map((d) => d.id).sort(), ['cats-1', 'cats-2'])
const diverse = await store.maxMarginalRelevanceSearch('animals and machines', { k: 3, fetchK: 6, lambda: 0.5 })
console.log('RagrankVectorStore MMR (k 3 of 6):', diverse.map((d) => d.id).join(', '))
assert.equal(diverse.length, 3)
assert.equal(new Set(diverse.map((d) => d.id)).size, 3)
const carsOnly = store.asRetriever({ k: 2, filter: { meta: { topic: 'cars' } } })
assert.deepEqual(
  (await carsOnly.invoke('engines')).map((d) => d.metadata.topic),
  ['cars', 'cars'],
)

// 5. A LangChain chat model as the LLMRanker's generator (a scripted one here: offline).
const chatModel = new FakeListChatModel({ responses: ['{"documents":[{"index":2},{"index":1}]}'] })
const llm = new LLMRanker({ chatGenerator: new LangChainChatGenerator(chatModel), raiseOnFailure: true })
const byLlm = await llm.rerank(
  'how do cats hunt',
  corpus.slice(0, 3).map((c) => ({ id: c.id, text: c.text })),
)
console.log('LLMRanker (LangChainChatGenerator):', byLlm.map((r) => r.id).join(', '))
assert.deepEqual(
  byLlm.map((r) => r.id),
  ['cats-2', 'cats-1'],
)

embedder.dispose()
reranker.dispose()
console.log('ok: ragrank works inside LangChain.js')
