import { checkSignal, childController, throwIfAborted } from '../internal/abort.js';
import { isChatGenerator } from './chat.js';
import { chatJson, fallbackPolicy, withFallback } from './call.js';
import { mapLimit } from '../internal/concurrency.js';
import { checkCandidates, dedupe } from '../retrieval/dedupe.js';
import { rangeError, typeError } from '../errors.js';
import { replyError } from './json-reply.js';
import { OpenAIChatGenerator } from './openai-chat.js';
import { PromptTemplate } from './prompt-template.js';
import { integer, isArray, isPlainObject, optionKeys, optionsObject, positiveInteger, topK, } from '../internal/validate.js';
/** The prompt `LLMRanker` uses by default; a custom `prompt` needs the same `{{query}}` and `{{documents}}` slots. */
export const DEFAULT_LLM_RANKER_PROMPT = `Your task is to order search results by how well they help answer a search query.

Query:
{{query}}

Candidate documents, numbered from 1:
{{documents}}

Instructions:
- List the numbers of the documents that help answer the query, the most useful first.
- Leave out every document that does not help; if none does, give an empty list.
- Use each number at most once, and only numbers shown above.
- Reply with one JSON object and nothing else, in this form: {"documents": [{"index": 3}, {"index": 1}]}`;
/** The schema sent as `response_format`; servers that honour it can only produce a parseable reply. */
export const RANKING_FORMAT = {
    name: 'document_ranking',
    schema: {
        type: 'object',
        properties: {
            documents: {
                type: 'array',
                items: {
                    type: 'object',
                    properties: { index: { type: 'integer' } },
                    required: ['index'],
                    additionalProperties: false,
                },
            },
        },
        required: ['documents'],
        additionalProperties: false,
    },
};
const RANKER_KEYS = optionKeys('chatGenerator', 'prompt', 'topK', 'raiseOnFailure', 'window', 'onFailure');
const WINDOW_KEYS = optionKeys('size', 'step', 'concurrency');
const RERANK_KEYS = optionKeys('topK', 'signal');
/**
 * Reranks candidates with a language model, as Haystack's LLMRanker: the model sees the
 * query and the numbered documents and names the relevant ones, best first, so it also
 * decides how many to keep. Same `rerank(query, documents, { topK, signal })` as
 * `CrossEncoder`, so either fits wherever a ranker is expected.
 *
 * @example
 * ```ts
 * import { Bm25Index, LLMRanker, OpenAIChatGenerator } from 'ragrank'
 *
 * // OPENAI_API_KEY for OpenAI, or any OpenAI-compatible server:
 * const llm = new OpenAIChatGenerator({ baseURL: 'http://localhost:11434/v1', model: 'qwen2.5' })
 * const ranker = new LLMRanker({ chatGenerator: llm, topK: 5 })
 * const candidates = await index.retrieve(query, { topK: 20 }) // any retriever
 * const top = await ranker.rerank(query, candidates) // score = 1 / rank, meta.priorScore = the retriever's
 * ```
 */
export class LLMRanker {
    #chat;
    #prompt;
    #topK;
    #window;
    #fallback;
    constructor(options = {}) {
        const o = optionsObject(options, 'options', RANKER_KEYS);
        if (o.chatGenerator !== undefined && !isChatGenerator(o.chatGenerator))
            throw typeError('options.chatGenerator must have a chat(request) method');
        this.#prompt = new PromptTemplate(o.prompt ?? DEFAULT_LLM_RANKER_PROMPT, ['query', 'documents']);
        this.#topK = topK(o.topK, 10, 'options.topK', 1);
        if (o.window !== undefined) {
            const w = optionsObject(o.window, 'options.window', WINDOW_KEYS);
            const size = integer(w.size, 'options.window.size', 2);
            const step = w.step === undefined ? Math.max(1, Math.floor(size / 2)) : positiveInteger(w.step, 'options.window.step');
            if (step > size)
                throw rangeError(`options.window.step (${step}) must be <= options.window.size (${size}), or documents would be skipped`);
            const concurrency = w.concurrency === undefined ? 4 : positiveInteger(w.concurrency, 'options.window.concurrency');
            this.#window = { size, step, concurrency };
        }
        this.#fallback = fallbackPolicy(o, 'LLMRanker fell back to the input order');
        // Last, so bad options fail before the default generator asks for a key.
        this.#chat = o.chatGenerator ?? new OpenAIChatGenerator();
    }
    /**
     * The relevant documents, best first, at most `topK`. Duplicates are sent once, by the
     * rankers' one rule (`dedupe`: the same `id`, or without ids the same text): the copy
     * with the highest prior score, at the first copy's position; `index` is that copy's.
     * On a failed call or an unusable reply the input order is returned (cut to `topK`)
     * unless `raiseOnFailure`; an empty list from the model means none is relevant and
     * gives `[]`.
     */
    async rerank(query, documents, options = {}) {
        if (typeof query !== 'string')
            throw typeError('query must be a string');
        checkCandidates(documents, 'documents');
        const o = optionsObject(options, 'options', RERANK_KEYS);
        const k = topK(o.topK, this.#topK);
        const signal = checkSignal(o.signal);
        throwIfAborted(signal);
        const { docs, indices } = dedupe(documents);
        if (docs.length === 0 || k === 0)
            return [];
        const texts = docs.map((d) => (typeof d === 'string' ? d : d.text));
        const inputOrder = () => docs.map((_, i) => i);
        const order = query.trim() === ''
            ? inputOrder() // nothing to rank against
            : await withFallback(this.#fallback, signal, () => this.#rank(query.trim(), texts, signal), inputOrder);
        return order.slice(0, k).map((at, rank) => ranked(docs[at], indices[at], rank));
    }
    /** Positions in `texts` of the relevant documents, best first. */
    async #rank(query, texts, signal) {
        const w = this.#window;
        if (!w || texts.length <= w.size)
            return this.#callOnce(query, texts, signal);
        // Overlapping windows ranked concurrently; each document's verdicts are merged, then one
        // last call orders the best `size` globally, since window tops are not comparable.
        const starts = [];
        for (let s = 0; s + w.size < texts.length; s += w.step)
            starts.push(s);
        starts.push(texts.length - w.size);
        const { controller, dispose } = childController(signal);
        let lists;
        try {
            lists = await mapLimit([...new Set(starts)], w.concurrency, async (s) => {
                try {
                    return (await this.#callOnce(query, texts.slice(s, s + w.size), controller.signal)).map((i) => i + s);
                }
                catch (e) {
                    controller.abort(); // one failed window fails the whole ranking: stop the others
                    throw e;
                }
            });
        }
        finally {
            dispose();
        }
        const merged = mergeWindows(lists, [...new Set(starts)], w.size, texts.length);
        if (merged.length <= 1)
            return merged;
        // The windows decide which documents are kept; the final call only orders the head. A
        // head document it leaves out is not rejected (the tail behind it was never re-judged
        // either): it follows the ones it named, in merged order, so `[]` keeps the merged order.
        const head = merged.slice(0, w.size);
        const final = (await this.#callOnce(query, head.map((i) => texts[i]), signal)).map((i) => head[i]);
        const named = new Set(final);
        return [...final, ...head.filter((i) => !named.has(i)), ...merged.slice(head.length)];
    }
    async #callOnce(query, texts, signal) {
        const documents = texts.map((t, i) => `[${i + 1}] ${t.replace(/\s+/g, ' ').trim()}`).join('\n\n');
        const content = this.#prompt.render({ query, documents });
        const request = { messages: [{ role: 'user', content }], responseFormat: RANKING_FORMAT, signal };
        return chatJson(this.#chat, request, (reply, text) => parseRanking(reply, text, texts.length));
    }
}
/**
 * 0-based positions from a ranking reply. Entries may be `{ "index": n }` or bare `n`, and
 * `n` a number or an integral string (`"3"`: models often quote numbers); duplicates,
 * out-of-range and non-integer indices are dropped. Entries that are all unusable make the
 * reply unusable; an empty list is a valid "nothing is relevant".
 */
export function parseRanking(reply, text, count) {
    const list = reply.documents;
    if (!isArray(list))
        throw replyError(`the reply has no "documents" array: ${text.slice(0, 200)}`);
    const seen = new Set();
    for (const entry of list) {
        const n = indexValue(isPlainObject(entry) ? entry.index : entry);
        if (n === undefined || n < 1 || n > count)
            continue;
        seen.add(n - 1);
    }
    if (list.length > 0 && seen.size === 0)
        throw replyError(`the reply names no valid document index (1..${count}): ${text.slice(0, 200)}`);
    return [...seen];
}
/** A number that is an integer, or a string of decimal digits (surrounding spaces allowed); else undefined. */
function indexValue(v) {
    if (typeof v === 'number')
        return Number.isInteger(v) ? v : undefined;
    if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v))
        return Number(v);
    return undefined;
}
/**
 * Merges window rankings: a document's weight is the mean, over the windows that showed
 * it, of 1/rank there (0 when that window left it out); documents no window kept are
 * dropped. Ties keep input order.
 */
function mergeWindows(lists, starts, size, count) {
    const sum = new Float64Array(count);
    const shown = new Uint32Array(count);
    starts.forEach((s) => {
        for (let i = s; i < Math.min(count, s + size); i++)
            shown[i]++;
    });
    for (const list of lists) {
        list.forEach((doc, rank) => {
            sum[doc] += 1 / (rank + 1);
        });
    }
    const kept = [];
    for (let i = 0; i < count; i++)
        if (sum[i] > 0)
            kept.push(i);
    return kept.sort((a, b) => sum[b] / shown[b] - sum[a] / shown[a] || a - b);
}
function ranked(doc, index, rank) {
    const base = typeof doc === 'string' ? { text: doc } : { ...doc };
    const meta = isPlainObject(base.meta) ? { ...base.meta } : {};
    if (typeof base.score === 'number')
        meta.priorScore = base.score;
    return { ...base, score: 1 / (rank + 1), index, meta };
}
