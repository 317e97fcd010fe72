// Type-checked by langchain-adapters.spec.mjs under strict node16 resolution in a project whose
// @langchain/core is the 0.3 line: ragrank's classes must be assignable to LangChain's own.
import { Bm25Index, LLMRanker } from 'ragrank'
import {
  LangChainChatGenerator,
  type RagrankEmbeddings,
  RagrankRetriever,
  RagrankVectorStore,
  type RankerCompressor,
} from 'ragrank/langchain'
import type { DocumentInterface } from '@langchain/core/documents'
import type { Embeddings } from '@langchain/core/embeddings'
import type { BaseRetriever } from '@langchain/core/retrievers'
import type { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors'
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import type { VectorStore } from '@langchain/core/vectorstores'

declare const embeddings: RagrankEmbeddings
declare const compressor: RankerCompressor
export const retriever: BaseRetriever = new RagrankRetriever({ retriever: new Bm25Index() })
export const store: VectorStore = new RagrankVectorStore(embeddings)
export const asEmbeddings: Embeddings = embeddings
export const asCompressor: BaseDocumentCompressor = compressor
export const sequence = RunnableSequence.from([retriever, RunnableLambda.from((d: DocumentInterface[]) => d.length)])
export const filtered = new RagrankVectorStore(embeddings).asRetriever({ k: 2, filter: { meta: { tenant: 'a' } } })
export const ranker = new LLMRanker({
  chatGenerator: new LangChainChatGenerator(new FakeListChatModel({ responses: [] })),
})
