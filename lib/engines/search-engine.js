import { RagrankError, typeError } from '../errors.js';
import { fuse } from '../retrieval/fusion.js';
import { checkQuery, RETRIEVE_KEYS, retrieveOptions, } from '../retrieval/retriever.js';
import { booleanOption, finiteNumber, integer, isArray, isPlainObject, oneOf, optionKeys, positiveInteger, } from '../internal/validate.js';
import { DEFAULT_TOKENS_FIELD, tokenJoiner } from './analysis.js';
import { filterClauses } from './filter-dsl.js';
import { INGEST_KEYS } from './ingest.js';
import { embedQuery, queryEmbedding, vectorArray } from './query-vector.js';
import { statusError } from './transport.js';
const ENGINE_KEYS = ['client', 'node', 'index', 'textField', 'metaField', 'vectorField', 'tokensField'];
export const RETRIEVER_KEYS = optionKeys(...ENGINE_KEYS, 'mode', 'embed', 'analysis', 'numCandidates', 'candidates', 'fusion', 'checkMapping');
/** `retrieveByVector` takes the contract's options and the `query` of the hybrid mode's BM25 side. */
const BY_VECTOR_KEYS = optionKeys(...RETRIEVE_KEYS, 'query');
function fieldName(v, name, fallback) {
    if (v === undefined)
        return fallback;
    if (typeof v !== 'string' || v.length === 0)
        throw typeError(`${name} must be a non-empty string`);
    return v;
}
export function indexName(v, name = 'options.index') {
    if (typeof v !== 'string' || v.length === 0 || /[\s,*?"<>|\\/]/.test(v))
        throw typeError(`${name} must be an index name (no spaces, commas, wildcards or slashes), got ${JSON.stringify(v)}`);
    return v;
}
export function engineFields(o) {
    return {
        textField: fieldName(o.textField, 'options.textField', 'text'),
        metaField: fieldName(o.metaField, 'options.metaField', 'meta'),
        vectorField: fieldName(o.vectorField, 'options.vectorField', 'embedding'),
        tokensField: fieldName(o.tokensField, 'options.tokensField', DEFAULT_TOKENS_FIELD),
    };
}
/** The mapping of `a.b` in a `properties` tree. */
function fieldMapping(properties, path) {
    let node = { properties };
    for (const part of path.split('.')) {
        const props = isPlainObject(node) ? node.properties : undefined;
        if (!isPlainObject(props) || !isPlainObject(props[part]))
            return undefined;
        node = props[part];
    }
    return node;
}
/** The `properties` of an index (or of the one index behind an alias); 404 becomes ERR_ENGINE_INDEX_NOT_FOUND. */
export async function indexProperties(t, index, signal) {
    const body = await t.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_mapping` }, signal);
    const first = isPlainObject(body) ? Object.values(body)[0] : undefined;
    const props = isPlainObject(first) && isPlainObject(first.mappings) ? first.mappings.properties : undefined;
    return isPlainObject(props) ? props : {};
}
/**
 * Checks that `index` has a vector field of the dialect's type and returns its dimension:
 * ERR_ENGINE_MAPPING when the field is missing or of another type.
 */
export function vectorFieldDims(d, properties, index, field) {
    const m = fieldMapping(properties, field);
    if (!m || m.type !== d.vectorType) {
        throw new RagrankError('ERR_ENGINE_MAPPING', `${d.engine} index ${JSON.stringify(index)} has no ${d.vectorType} field ${JSON.stringify(field)}` +
            (m ? ` (it is a ${String(m.type)})` : ''));
    }
    const dims = d.vectorDims(m);
    if (dims === undefined)
        throw new RagrankError('ERR_ENGINE_MAPPING', `${d.engine} field ${JSON.stringify(field)} has no dimension in its mapping`);
    return dims;
}
function checkDims(d, index, expected, got) {
    if (expected !== got) {
        throw new RagrankError('ERR_ENGINE_DIMENSION', `${d.engine} index ${JSON.stringify(index)} holds ${expected}-dimensional vectors, the query vector has ${got}`);
    }
}
/** Hits of a search response as ragrank's `{ id, score, text, meta }`. */
function hitsOf(body, fields, engine) {
    const hits = isPlainObject(body) && isPlainObject(body.hits) ? body.hits.hits : undefined;
    if (!isArray(hits))
        throw new RagrankError('ERR_ENGINE', `${engine} returned a search response without hits`);
    return hits.map((h) => {
        const source = isPlainObject(h._source) ? h._source : {};
        const out = { id: String(h._id), score: Number(h._score ?? 0) };
        const text = readPath(source, fields.textField);
        if (typeof text === 'string')
            out.text = text;
        const meta = readPath(source, fields.metaField);
        if (isPlainObject(meta))
            out.meta = meta;
        return out;
    });
}
function readPath(o, path) {
    if (path in o)
        return o[path];
    let v = o;
    for (const part of path.split('.'))
        v = isPlainObject(v) ? v[part] : undefined;
    return v;
}
/**
 * A `Retriever` over an Elasticsearch or OpenSearch index: BM25 `match`, kNN, or both in one `_msearch`
 * request fused in ragrank (the engines' own hybrid / RRF need a licence or a plugin). Filters become the
 * engine's filter clauses (pre-filtering, so `topK` best matching documents come back).
 */
export class EngineRetriever {
    supportsFilter = true;
    #t;
    #d;
    #index;
    #mode;
    #fields;
    #embed;
    #analyze;
    #numCandidates;
    #candidates;
    #fusion;
    #checkMapping;
    #dims;
    constructor(transport, dialect, o) {
        this.#t = transport;
        this.#d = dialect;
        this.#index = indexName(o.index);
        this.#fields = engineFields(o);
        this.#mode = o.mode === undefined ? 'bm25' : oneOf(o.mode, ['bm25', 'knn', 'hybrid'], 'options.mode');
        this.#embed = queryEmbedding(o.embed);
        this.#analyze = o.analysis === undefined ? undefined : tokenJoiner(o.analysis);
        this.#numCandidates =
            o.numCandidates === undefined ? undefined : positiveInteger(o.numCandidates, 'options.numCandidates');
        this.#candidates = o.candidates === undefined ? undefined : positiveInteger(o.candidates, 'options.candidates');
        if (o.fusion !== undefined && !isPlainObject(o.fusion))
            throw typeError('options.fusion must be fuse options such as { method: "rrf" }');
        this.#fusion = o.fusion;
        this.#checkMapping = booleanOption(o.checkMapping, 'options.checkMapping', true);
    }
    /** The search mode in use. */
    get mode() {
        return this.#mode;
    }
    /** Closes the client ragrank made from `node` (a `client` you passed stays open). */
    close() {
        return this.#t.close();
    }
    /** The best `topK` documents for `query` in the retriever's `mode`, with the call's `filter` as engine filter clauses. */
    async retrieve(query, options) {
        checkQuery(query);
        const { topK, signal, filter } = retrieveOptions(options);
        const filters = filterClauses(filter, this.#d.engine, this.#fields.metaField);
        if (this.#mode === 'bm25')
            return this.#search([this.#bm25Body(query, topK, filters)], signal).then((r) => r[0]);
        if (!this.#embed)
            throw typeError(`options.embed is needed to search ${this.#mode} with a text query (or use retrieveByVector)`);
        const vector = await embedQuery(this.#embed, query, signal);
        return this.#byVector(query, vector, topK, filters, signal);
    }
    /** kNN (or hybrid, with `query` for the BM25 side) with a vector you computed. */
    async retrieveByVector(vector, options) {
        const { topK, signal, filter } = retrieveOptions(options, BY_VECTOR_KEYS);
        const query = options?.query;
        if (this.#mode === 'hybrid')
            checkQuery(query);
        const filters = filterClauses(filter, this.#d.engine, this.#fields.metaField);
        return this.#byVector(query, vectorArray(vector, 'vector'), topK, filters, signal);
    }
    async #byVector(query, vector, topK, filters, signal) {
        const dims = await this.#vectorDims(signal);
        if (dims !== undefined)
            checkDims(this.#d, this.#index, dims, vector.length);
        if (this.#mode !== 'hybrid')
            return (await this.#search([this.#knnBody(vector, topK, filters)], signal))[0];
        const depth = Math.max(topK, this.#candidates ?? 4 * topK);
        const [sparse, dense] = await this.#search([this.#bm25Body(query, depth, filters), this.#knnBody(vector, depth, filters)], signal);
        return fuse([sparse, dense], this.#fusion).slice(0, topK);
    }
    #bm25Body(query, size, filters) {
        const field = this.#analyze ? this.#fields.tokensField : this.#fields.textField;
        const text = this.#analyze ? this.#analyze(query) : query;
        return {
            size,
            _source: [this.#fields.textField, this.#fields.metaField],
            query: { bool: { must: [{ match: { [field]: { query: text } } }], filter: filters } },
        };
    }
    #knnBody(vector, k, filters) {
        const numCandidates = Math.max(k, this.#numCandidates ?? Math.max(100, 2 * k));
        return {
            size: k,
            _source: [this.#fields.textField, this.#fields.metaField],
            ...this.#d.knnSearch(this.#fields.vectorField, vector, k, numCandidates, filters),
        };
    }
    /** One search, or several in one `_msearch` request. */
    async #search(bodies, signal) {
        if (this.#checkMapping)
            await this.#vectorDims(signal);
        const index = encodeURIComponent(this.#index);
        if (bodies.length === 1) {
            const body = await this.#t.request({ method: 'POST', path: `/${index}/_search`, body: bodies[0] }, signal);
            return [hitsOf(body, this.#fields, this.#d.engine)];
        }
        const res = await this.#t.request({ method: 'POST', path: `/${index}/_msearch`, bulkBody: bodies.flatMap((b) => [{}, b]) }, signal);
        const responses = isPlainObject(res) && isArray(res.responses) ? res.responses : undefined;
        if (!responses || responses.length !== bodies.length)
            throw new RagrankError('ERR_ENGINE', `${this.#d.engine} _msearch returned ${responses?.length ?? 'no'} responses`);
        return responses.map((r) => {
            if (r.error)
                throw statusError(this.#d.engine, Number(r.status ?? 500), r, `search of ${this.#index}`);
            return hitsOf(r, this.#fields, this.#d.engine);
        });
    }
    /** The mapping, checked once: the index exists, the text / tokens field is there, and the vector field's dimension. */
    #vectorDims(signal) {
        if (!this.#checkMapping)
            return Promise.resolve(undefined);
        this.#dims ??= (async () => {
            const props = await indexProperties(this.#t, this.#index, signal);
            if (this.#mode !== 'knn') {
                const field = this.#analyze ? this.#fields.tokensField : this.#fields.textField;
                const m = fieldMapping(props, field);
                if (!m || (m.type !== 'text' && m.type !== undefined))
                    throw new RagrankError('ERR_ENGINE_MAPPING', `${this.#d.engine} index ${JSON.stringify(this.#index)} has no text field ${JSON.stringify(field)} for BM25`);
            }
            return this.#mode === 'bm25' ? undefined : vectorFieldDims(this.#d, props, this.#index, this.#fields.vectorField);
        })();
        // A failed check (engine down, index created later) is tried again on the next call.
        this.#dims.catch(() => {
            this.#dims = undefined;
        });
        return this.#dims;
    }
}
/**
 * A `NodeStore` for `AutoMergingRetriever` over the node index ingestion writes: the parents of a result
 * are fetched by id in one `_mget` request.
 */
export class EngineNodeStore {
    #t;
    #index;
    constructor(transport, index) {
        this.#t = transport;
        this.#index = indexName(index);
    }
    /** Closes the client ragrank made from `node`. */
    close() {
        return this.#t.close();
    }
    /** The stored nodes for `ids`, in order; undefined where an id is unknown. */
    async get(ids) {
        if (!isArray(ids) || !ids.every((id) => typeof id === 'string'))
            throw typeError('ids must be an array of strings');
        if (ids.length === 0)
            return [];
        const body = await this.#t.request({
            method: 'POST',
            path: `/${encodeURIComponent(this.#index)}/_mget`,
            body: { ids },
        });
        const docs = isPlainObject(body) && isArray(body.docs) ? body.docs : [];
        const byId = new Map();
        for (const d of docs) {
            if (d.found && isPlainObject(d._source))
                byId.set(String(d._id), { id: String(d._id), ...d._source });
        }
        return ids.map((id) => byId.get(id));
    }
}
/** The index body ragrank's adapters expect: text, keyword metadata (exact, case-sensitive filters), vectors. */
export function indexBody(d, o) {
    const properties = {
        [o.textField]: { type: 'text', similarity: 'ragrank_bm25' },
        [o.metaField]: { type: 'object', dynamic: true },
    };
    if (o.tokens)
        properties[o.tokensField] = { type: 'text', analyzer: 'whitespace', similarity: 'ragrank_bm25' };
    if (o.dims !== undefined)
        properties[o.vectorField] = d.vectorMapping(o.dims, o.vectorIndex);
    return {
        settings: {
            number_of_shards: o.shards,
            number_of_replicas: o.replicas,
            similarity: { ragrank_bm25: { type: 'BM25', k1: o.k1, b: o.b } },
            ...d.indexSettings(),
        },
        mappings: {
            dynamic_templates: [
                {
                    meta_strings: { path_match: `${o.metaField}.*`, match_mapping_type: 'string', mapping: { type: 'keyword' } },
                },
            ],
            properties,
        },
    };
}
/** The node index: nodes are only fetched by id, so nothing in it is indexed. */
const NODE_INDEX_BODY = {
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: { dynamic: false, properties: {} },
};
export async function indexExists(t, index, signal) {
    try {
        await t.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_mapping` }, signal);
        return true;
    }
    catch (e) {
        if (e instanceof RagrankError && e.code === 'ERR_ENGINE_INDEX_NOT_FOUND')
            return false;
        throw e;
    }
}
export async function createIndex(t, d, o, signal) {
    const index = indexName(o.index);
    const body = indexBody(d, {
        ...engineFields(o),
        dims: o.dims === undefined ? undefined : positiveInteger(o.dims, 'options.dims'),
        tokens: o.tokens === true,
        k1: o.k1 === undefined ? 1.5 : finiteNumber(o.k1, 'options.k1', 0),
        b: o.b === undefined ? 0.75 : finiteNumber(o.b, 'options.b', 0, 1),
        shards: o.shards === undefined ? 1 : positiveInteger(o.shards, 'options.shards'),
        replicas: o.replicas === undefined ? 0 : integer(o.replicas, 'options.replicas', 0),
        vectorIndex: vectorIndexOption(o.vectorIndex),
    });
    await t.request({ method: 'PUT', path: `/${encodeURIComponent(index)}`, body }, signal);
}
export async function deleteIndex(t, index, signal) {
    try {
        await t.request({ method: 'DELETE', path: `/${encodeURIComponent(indexName(index))}` }, signal);
    }
    catch (e) {
        if (!(e instanceof RagrankError && e.code === 'ERR_ENGINE_INDEX_NOT_FOUND'))
            throw e;
    }
}
export const CREATE_INDEX_KEYS = optionKeys(...ENGINE_KEYS, 'dims', 'tokens', 'k1', 'b', 'shards', 'replicas', 'vectorIndex');
function vectorIndexOption(v) {
    if (v === undefined)
        return undefined;
    if (!isPlainObject(v))
        throw typeError("options.vectorIndex must be an object such as { type: 'int8_hnsw' }");
    return v;
}
/** Where ingestion writes in Elasticsearch / OpenSearch: `_bulk` with `index` actions on the documents' ids. */
export class EngineSink {
    #t;
    #d;
    #index;
    #nodeIndex;
    #fields;
    #create;
    constructor(t, d, o) {
        this.#t = t;
        this.#d = d;
        this.#index = indexName(o.index);
        this.#nodeIndex = o.nodeIndex === undefined ? `${this.#index}-nodes` : indexName(o.nodeIndex, 'options.nodeIndex');
        this.#fields = engineFields(o);
        this.#create = { k1: o.k1 ?? 1.5, b: o.b ?? 0.75, vectorIndex: vectorIndexOption(o.vectorIndex) };
    }
    get engine() {
        return this.#d.engine;
    }
    async prepare(info, signal) {
        if (!(await indexExists(this.#t, this.#index, signal))) {
            const body = indexBody(this.#d, {
                ...this.#fields,
                dims: info.dims,
                tokens: info.tokens,
                ...this.#create,
                shards: 1,
                replicas: 0,
            });
            await this.#createIfMissing(this.#index, body, signal);
        }
        else if (info.dims !== undefined) {
            const props = await indexProperties(this.#t, this.#index, signal);
            const dims = vectorFieldDims(this.#d, props, this.#index, this.#fields.vectorField);
            if (dims !== info.dims) {
                throw new RagrankError('ERR_ENGINE_DIMENSION', `${this.#d.engine} index ${JSON.stringify(this.#index)} holds ${dims}-dimensional vectors, the documents have ${info.dims}`);
            }
        }
        if (info.nodes && !(await indexExists(this.#t, this.#nodeIndex, signal)))
            await this.#createIfMissing(this.#nodeIndex, NODE_INDEX_BODY, signal);
    }
    /** Two ingestions may race to create the index: the loser's "already exists" is fine. */
    async #createIfMissing(index, body, signal) {
        try {
            await this.#t.request({ method: 'PUT', path: `/${encodeURIComponent(index)}`, body }, signal);
        }
        catch (e) {
            if (!(e instanceof RagrankError && /resource_already_exists/.test(e.message)))
                throw e;
        }
    }
    async write(records, signal) {
        const lines = [];
        for (const r of records) {
            if (r.searchable) {
                const source = { [this.#fields.textField]: r.text };
                if (r.meta !== undefined)
                    source[this.#fields.metaField] = r.meta;
                if (r.tokens !== undefined)
                    source[this.#fields.tokensField] = r.tokens;
                if (r.vector !== undefined)
                    source[this.#fields.vectorField] = r.vector;
                if (r.node)
                    source.parentId = r.node.parentId;
                lines.push({ index: { _index: this.#index, _id: r.id } }, source);
            }
            if (r.node)
                lines.push({ index: { _index: this.#nodeIndex, _id: r.id } }, { text: r.text, meta: r.meta, ...r.node });
        }
        const body = await this.#t.request({ method: 'POST', path: '/_bulk', bulkBody: lines }, signal);
        if (!isPlainObject(body) || !isArray(body.items))
            throw new RagrankError('ERR_ENGINE', `${this.#d.engine} _bulk returned no items`);
        if (!body.errors)
            return [];
        // A record is refused when any of its actions (search index, node index) is; the worst status wins.
        const refused = new Map();
        for (const item of body.items) {
            const action = item.index ?? item.create ?? item.update;
            if (!action || action.status < 300)
                continue;
            const id = String(action._id);
            const status = Number(action.status);
            const retryable = status === 429 || status === 503;
            const reason = action.error ? `${action.error.type}: ${action.error.reason}` : `HTTP ${status}`;
            const seen = refused.get(id);
            if (!seen || (seen.retryable && !retryable))
                refused.set(id, { id, status, reason, retryable });
        }
        return [...refused.values()];
    }
    async finish(signal) {
        await this.#t.request({ method: 'POST', path: `/${encodeURIComponent(this.#index)}/_refresh` }, signal);
        if (await indexExists(this.#t, this.#nodeIndex, signal))
            await this.#t.request({ method: 'POST', path: `/${encodeURIComponent(this.#nodeIndex)}/_refresh` }, signal);
    }
}
export const ENGINE_INGEST_KEYS = optionKeys(...INGEST_KEYS, ...ENGINE_KEYS, 'nodeIndex', 'k1', 'b', 'vectorIndex');
