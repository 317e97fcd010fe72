import test from 'ava'
import {
  createElasticsearchIndex,
  deleteElasticsearchIndex,
  ElasticsearchNodeStore,
  ElasticsearchRetriever,
  ingestElasticsearch,
} from '../../dist/esm/engines/elasticsearch.js'
import { engineReachable, esClient, probeEs } from './env.mjs'
import { registerSearchEngineSuite } from './search-suite.mjs'

if (await engineReachable(test, 'Elasticsearch', probeEs)) {
  registerSearchEngineSuite(test, {
    name: 'Elasticsearch',
    client: esClient,
    Retriever: ElasticsearchRetriever,
    NodeStore: ElasticsearchNodeStore,
    ingest: ingestElasticsearch,
    createIndex: createElasticsearchIndex,
    deleteIndex: deleteElasticsearchIndex,
  })
}
