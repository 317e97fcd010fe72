import { optionKeys, optionsObject } from '../internal/validate.js';
import { transportFor } from './client.js';
import { ingestInto } from './ingest.js';
import { CREATE_INDEX_KEYS, createIndex, deleteIndex, ENGINE_INGEST_KEYS, EngineNodeStore, EngineRetriever, EngineSink, RETRIEVER_KEYS, } from './search-engine.js';
/** The options of a node store and of an index deletion. */
const INDEX_KEYS = optionKeys('client', 'node', 'index');
/**
 * The entry points of the engine `d` describes, over the shared modules: each checks its options, then makes
 * the transport (the given `client`'s, or a client of `d.clientPackage` made from `node`), which the one-shot
 * calls close when they end.
 */
export function queryDslEngine(d) {
    const transport = (o) => transportFor(o, d.engine, d.clientPackage, d.loadClient);
    return {
        Retriever: class extends EngineRetriever {
            constructor(options) {
                const o = optionsObject(options, 'options', RETRIEVER_KEYS);
                super(transport(o), d, o);
            }
        },
        NodeStore: class extends EngineNodeStore {
            constructor(options) {
                const o = optionsObject(options, 'options', INDEX_KEYS);
                super(transport(o), o.index);
            }
        },
        async createIndex(options) {
            const o = optionsObject(options, 'options', CREATE_INDEX_KEYS);
            const t = transport(o);
            await closing(t, () => createIndex(t, d, o));
        },
        async deleteIndex(options) {
            const o = optionsObject(options, 'options', INDEX_KEYS);
            const t = transport(o);
            await closing(t, () => deleteIndex(t, o.index));
        },
        // Not async: bad options throw before a promise exists, as they always did.
        ingest(options) {
            const o = optionsObject(options, 'options', ENGINE_INGEST_KEYS);
            const t = transport(o);
            return closing(t, () => ingestInto(new EngineSink(t, d, o), o, ENGINE_INGEST_KEYS));
        },
    };
}
/** Runs `fn`, then closes the transport if ragrank made its client. */
async function closing(t, fn) {
    try {
        return await fn();
    }
    finally {
        await t.close();
    }
}
