import test from 'ava'
import {
  createOpenSearchIndex,
  deleteOpenSearchIndex,
  OpenSearchNodeStore,
  OpenSearchRetriever,
  ingestOpenSearch,
} from '../../dist/esm/engines/opensearch.js'
import { engineReachable, osClient, probeOs } from './env.mjs'
import { registerSearchEngineSuite } from './search-suite.mjs'

if (await engineReachable(test, 'OpenSearch', probeOs)) {
  registerSearchEngineSuite(test, {
    name: 'OpenSearch',
    client: osClient,
    Retriever: OpenSearchRetriever,
    NodeStore: OpenSearchNodeStore,
    ingest: ingestOpenSearch,
    createIndex: createOpenSearchIndex,
    deleteIndex: deleteOpenSearchIndex,
  })
}
