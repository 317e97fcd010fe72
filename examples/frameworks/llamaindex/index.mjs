// ragrank inside LlamaIndex.TS: a ragrank BM25 index as a LlamaIndex retriever, a cross-encoder
// as a node postprocessor in a RetrieverQueryEngine, and a ragrank Embedder as the embedding
// model of a VectorStoreIndex. Runs offline: the query engine answers with LlamaIndex's MockLLM
// (put a real LLM in Settings.llm for real answers). Models come from RAGRANK_EXAMPLE_EMBEDDER and
// RAGRANK_EXAMPLE_RERANKER (model folders or hub ids), by default the repository's tiny test models,
// whose scores mean nothing: with real models the rankings make sense.
import assert from 'node:assert/strict'
import { MockLLM } from '@llamaindex/core/llms/mock'
import { Document, RetrieverQueryEngine, Settings, VectorStoreIndex } from 'llamaindex'
import { Bm25Index, CrossEncoder, Embedder } from 'ragrank'
import { RagrankEmbedding, RagrankReranker, RagrankRetriever } from 'ragrank/llamaindex'

const fixture = (name) => new URL(`../../../fixtures/models/${name}`, import.meta.url).pathname
const embedderPath = process.env.RAGRANK_EXAMPLE_EMBEDDER ?? fixture('tiny-embedder')
const rerankerPath = process.env.RAGRANK_EXAMPLE_RERANKER ?? fixture('tiny-cross-encoder')

const corpus = [
  {
    id: 'photosynthesis',
    text: 'Photosynthesis turns light, water and carbon dioxide into sugar.',
    meta: { topic: 'biology' },
  },
  {
    id: 'chloroplast',
    text: 'Chloroplasts are where photosynthesis takes place in plant cells.',
    meta: { topic: 'biology' },
  },
  { id: 'mitochondria', text: 'Mitochondria release the energy stored in sugar.', meta: { topic: 'biology' } },
  { id: 'rust', text: 'Rust is a systems programming language with memory safety.', meta: { topic: 'computing' } },
]
const query = 'where does photosynthesis take place'

// 1. A ragrank retriever (BM25 here; vector, hybrid or auto-merging alike) as a LlamaIndex retriever.
const bm25 = new Bm25Index()
bm25.add(corpus)
const retriever = new RagrankRetriever({
  retriever: bm25,
  topK: 3,
  filters: { filters: [{ key: 'topic', value: 'biology', operator: '==' }] },
})
const nodes = await retriever.retrieve({ query })
console.log('BM25 through LlamaIndex (topic == biology):')
for (const n of nodes) console.log(`  ${n.score.toFixed(3)}  ${n.node.id_}  ${JSON.stringify(n.node.metadata)}`)
assert.ok(nodes.length > 0 && nodes.every((n) => n.node.metadata.topic === 'biology'))
assert.equal(nodes[0].node.text, corpus.find((d) => d.id === nodes[0].node.id_).text)

// 2. The same retriever in a query engine, reranked by a cross-encoder.
Settings.llm = new MockLLM()
const crossEncoder = await CrossEncoder.load(rerankerPath)
const engine = new RetrieverQueryEngine(new RagrankRetriever({ retriever: bm25, topK: 4 }), undefined, [
  new RagrankReranker({ ranker: crossEncoder, topN: 2 }),
])
const response = await engine.query({ query })
console.log('query engine, reranked by the cross-encoder (top 2):')
for (const n of response.sourceNodes) console.log(`  ${n.score.toFixed(3)}  ${n.node.id_}`)
assert.equal(response.sourceNodes.length, 2)
assert.ok(response.sourceNodes[0].score >= response.sourceNodes[1].score)

// 3. A ragrank Embedder as LlamaIndex's embedding model, for a VectorStoreIndex in memory.
const embedder = await Embedder.load(embedderPath)
Settings.embedModel = new RagrankEmbedding({ embedder })
const index = await VectorStoreIndex.fromDocuments(
  corpus.map((d) => new Document({ id_: d.id, text: d.text, metadata: d.meta })),
)
const similar = await index.asRetriever({ similarityTopK: 2 }).retrieve({ query })
console.log(`VectorStoreIndex with ragrank embeddings (dim ${embedder.dim}):`)
for (const n of similar) console.log(`  ${n.score.toFixed(3)}  ${n.node.sourceNode.nodeId}`)
assert.equal(similar.length, 2)
assert.ok(similar.every((n) => corpus.some((d) => d.id === n.node.sourceNode.nodeId)))

crossEncoder.dispose()
embedder.dispose()
console.log('llamaindex example: ok')
