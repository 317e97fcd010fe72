import { optionKeys, optionsObject } from '../internal/validate.js'
import { CLIENT_KEYS, type ClientOptions, transportFor } from './client.js'
import { type IngestOptions, type IngestReport, ingestInto } from './ingest.js'
import {
  CREATE_INDEX_KEYS,
  type CreateIndexOptions,
  createIndex,
  type Dialect,
  deleteIndex,
  ENGINE_INGEST_KEYS,
  EngineNodeStore,
  EngineRetriever,
  EngineSink,
  type EngineIngestOptions,
  type EngineRetrieverOptions,
  RETRIEVER_KEYS,
} from './search-engine.js'
import type { EngineTransport } from './transport.js'

/** The entry points of a query-DSL engine (ragrank/elasticsearch, ragrank/opensearch). */
export interface QueryDslEngine {
  Retriever: new (options: ClientOptions & EngineRetrieverOptions) => EngineRetriever
  NodeStore: new (options: ClientOptions & { index: string }) => EngineNodeStore
  createIndex(options: ClientOptions & CreateIndexOptions): Promise<void>
  deleteIndex(options: ClientOptions & { index: string }): Promise<void>
  ingest(options: ClientOptions & EngineIngestOptions): Promise<IngestReport>
}

/** The options of a node store and of an index deletion. */
const INDEX_KEYS = optionKeys(...CLIENT_KEYS, 'index')

/**
 * The entry points of the engine `d` describes, over the shared modules: each checks its options, then makes
 * the transport (the given `client`'s, or a client of `d.clientPackage` made from `node`), which the one-shot
 * calls close when they end.
 */
export function queryDslEngine(d: Dialect): QueryDslEngine {
  const transport = (o: Record<string, unknown>) => transportFor(o, d.engine, d.clientPackage, d.loadClient)
  return {
    Retriever: class extends EngineRetriever {
      constructor(options: ClientOptions & EngineRetrieverOptions) {
        const o = optionsObject(options, 'options', RETRIEVER_KEYS)
        super(transport(o), d, o)
      }
    },
    NodeStore: class extends EngineNodeStore {
      constructor(options: ClientOptions & { index: string }) {
        const o = optionsObject(options, 'options', INDEX_KEYS)
        super(transport(o), o.index as string)
      }
    },
    async createIndex(options) {
      const o = optionsObject(options, 'options', CREATE_INDEX_KEYS)
      const t = transport(o)
      await closing(t, () => createIndex(t, d, o))
    },
    async deleteIndex(options) {
      const o = optionsObject(options, 'options', INDEX_KEYS)
      const t = transport(o)
      await closing(t, () => deleteIndex(t, o.index as string))
    },
    // Not async: bad options throw before a promise exists, as they always did.
    ingest(options) {
      const o = optionsObject(options, 'options', ENGINE_INGEST_KEYS)
      const t = transport(o)
      return closing(t, () =>
        ingestInto(
          new EngineSink(t, d, o as unknown as EngineIngestOptions),
          o as unknown as IngestOptions,
          ENGINE_INGEST_KEYS,
        ),
      )
    },
  }
}

/** Runs `fn`, then closes the transport if ragrank made its client. */
async function closing<T>(t: EngineTransport, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } finally {
    await t.close()
  }
}
