import { checkSignal, throwIfAborted } from '../internal/abort.js';
import { isChatGenerator } from './chat.js';
import { chatJson, fallbackPolicy, withFallback } from './call.js';
import { typeError } from '../errors.js';
import { replyError } from './json-reply.js';
import { checkMessages, OpenAIChatGenerator } from './openai-chat.js';
import { integer, isArray, oneOf, optionKeys, optionsObject } from '../internal/validate.js';
const STRATEGY_HINTS = {
    synonyms: 'say the same thing with different words: synonyms, a paraphrase, the technical or the everyday term',
    'broader-narrower': 'move one step up or down in generality: the wider topic it belongs to, or a more specific case of it',
    'cause-effect': 'use the words of what causes it or what it leads to (mechanisms, consequences, conditions)',
};
/** Every `RewriteStrategy`, in the order `QueryRewriter` uses them by default. */
export const REWRITE_STRATEGIES = Object.freeze(Object.keys(STRATEGY_HINTS));
const REWRITE_FORMAT = {
    name: 'query_rewrite',
    schema: {
        type: 'object',
        properties: {
            needs_retrieval: { type: 'boolean' },
            standalone_query: { type: 'string' },
            language: { type: 'string' },
            variants: { type: 'array', items: { type: 'string' } },
        },
        required: ['needs_retrieval', 'standalone_query', 'language', 'variants'],
        additionalProperties: false,
    },
};
const REWRITER_KEYS = optionKeys('chatGenerator', 'variants', 'strategies', 'raiseOnFailure', 'onFailure');
const SIGNAL_ONLY = optionKeys('signal');
/**
 * Turns a conversation into what a retriever needs: a standalone query, whether to search
 * at all, and variants by named strategies, all in the conversation's language, in one
 * LLM call. Also a variant source for `MultiQueryRetriever` (`queries: rewriter`).
 */
export class QueryRewriter {
    #chat;
    #variants;
    #strategies;
    #fallback;
    constructor(options = {}) {
        const o = optionsObject(options, 'options', REWRITER_KEYS);
        if (o.chatGenerator !== undefined && !isChatGenerator(o.chatGenerator))
            throw typeError('options.chatGenerator must have a chat(request) method');
        this.#variants = o.variants === undefined ? 3 : integer(o.variants, 'options.variants', 0, 20);
        if (o.strategies !== undefined) {
            if (!isArray(o.strategies) || o.strategies.length === 0)
                throw typeError('options.strategies must be a non-empty array');
            o.strategies.forEach((s, i) => {
                oneOf(s, REWRITE_STRATEGIES, `options.strategies[${i}]`);
            });
        }
        this.#strategies = [...(o.strategies ?? REWRITE_STRATEGIES)];
        this.#fallback = fallbackPolicy(o, 'QueryRewriter fell back to the last user turn');
        this.#chat = o.chatGenerator ?? new OpenAIChatGenerator();
    }
    /** Rewrites a conversation (`[{ role, content }]`, the last user turn being the question) or a lone question. */
    async rewrite(conversation, options = {}) {
        const turns = typeof conversation === 'string'
            ? [{ role: 'user', content: conversation }]
            : checkMessages(conversation, 'conversation');
        const lastUser = [...turns].reverse().find((m) => m.role === 'user');
        if (!lastUser)
            throw typeError('conversation must contain a user turn');
        const signal = checkSignal(optionsObject(options, 'options', SIGNAL_ONLY).signal);
        throwIfAborted(signal);
        const plan = Array.from({ length: this.#variants }, (_, i) => this.#strategies[i % this.#strategies.length]);
        const request = { messages: this.#messages(turns, plan), responseFormat: REWRITE_FORMAT, signal };
        return withFallback(this.#fallback, signal, () => chatJson(this.#chat, request, (reply, text) => parseRewrite(reply, text, plan)), () => ({ query: lastUser.content.trim(), needsRetrieval: true, variants: [], fallback: true }));
    }
    /** For `MultiQueryRetriever`: the standalone query and the variants of a lone question (none if it needs no search). */
    async variants(query, options = {}) {
        const r = await this.rewrite(query, options);
        return r.needsRetrieval ? [r.query, ...r.variants.map((v) => v.query)] : [];
    }
    #messages(turns, plan) {
        const transcript = turns.map((m) => `${m.role}: ${m.content}`).join('\n');
        const wanted = plan.length === 0
            ? '- "variants": an empty list.'
            : `- "variants": exactly ${plan.length} alternative search queries, in this order:\n${plan.map((s, i) => `  ${i + 1}. ${STRATEGY_HINTS[s]}`).join('\n')}`;
        const system = [
            'You prepare the search step of a question-answering assistant. Read the conversation and look at its last user message.',
            'Answer with one JSON object and nothing else, with these fields:',
            '- "needs_retrieval": false when the message is small talk, a greeting, thanks or something answerable without looking anything up; otherwise true.',
            '- "standalone_query": the last user message rewritten so it can be understood without the conversation (replace pronouns and references with what they point to), kept short and in search-query style.',
            '- "language": the language code of the conversation (for example "en", "ko").',
            wanted,
            'Write the query and the variants in the language of the conversation. Do not repeat the standalone query among the variants.',
        ].join('\n');
        return [
            { role: 'system', content: system },
            { role: 'user', content: `Conversation:\n${transcript}` },
        ];
    }
}
/** Reads the model's JSON; wrong types make the whole reply unusable, bad variants are dropped. */
export function parseRewrite(o, text, plan) {
    if (typeof o.needs_retrieval !== 'boolean')
        throw replyError(`"needs_retrieval" must be a boolean: ${text.slice(0, 200)}`);
    if (typeof o.standalone_query !== 'string')
        throw replyError(`"standalone_query" must be a string: ${text.slice(0, 200)}`);
    const query = o.standalone_query.trim();
    if (o.needs_retrieval && query === '')
        throw replyError('"standalone_query" is empty although retrieval is needed');
    if (o.variants !== undefined && !isArray(o.variants))
        throw replyError(`"variants" must be an array: ${text.slice(0, 200)}`);
    const seen = new Set([query.toLowerCase()]);
    const variants = [];
    if (o.needs_retrieval) {
        ;
        (o.variants ?? []).forEach((v, i) => {
            if (typeof v !== 'string' || i >= plan.length)
                return;
            const q = v.trim();
            if (q === '' || seen.has(q.toLowerCase()))
                return;
            seen.add(q.toLowerCase());
            variants.push({ strategy: plan[i], query: q });
        });
    }
    const out = { query, needsRetrieval: o.needs_retrieval, variants, fallback: false };
    if (typeof o.language === 'string' && o.language.trim() !== '')
        out.language = o.language.trim();
    return out;
}
