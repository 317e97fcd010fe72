import test from 'ava'
import {
  createOpenSearchIndex,
  deleteOpenSearchIndex,
  OpenSearchNodeStore,
  OpenSearchRetriever,
  ingestOpenSearch,
} from '../dist/esm/engines/opensearch.js'
import { engineReachable, osClient, probeOs } from './engines-env.mjs'
import { registerSearchEngineSuite } from './engines-search-suite.mjs'

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
