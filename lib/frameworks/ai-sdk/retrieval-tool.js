import { jsonSchema, tool } from 'ai';
import { typeError } from '../../errors.js';
import { isPlainObject, optionKeys, optionsObject, topK } from '../../internal/validate.js';
import { checkFilterSupport, isRetriever } from '../../retrieval/retriever.js';
import { retrieveHits } from '../hits.js';
const TOOL_KEYS = optionKeys('retriever', 'topK', 'description', 'filter');
const INPUT = jsonSchema({
    type: 'object',
    properties: { query: { type: 'string', description: 'What to search the documents for' } },
    required: ['query'],
    additionalProperties: false,
});
/**
 * A ragrank retriever as an AI SDK tool (`tools: { search: retrievalTool({ retriever }) }`):
 * the model calls it with `{ query }` and gets the documents found, each with its id, text,
 * score and metadata. The SDK's `abortSignal` for the call reaches the retriever.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai'
 * import { generateText, stepCountIs } from 'ai'
 * import { retrievalTool } from 'ragrank/ai-sdk'
 *
 * const { text } = await generateText({
 *   model: openai('gpt-4o-mini'),
 *   tools: { search: retrievalTool({ retriever: bm25, topK: 3 }) },
 *   stopWhen: stepCountIs(3),
 *   prompt: 'Where did the cat sit?',
 * })
 * ```
 */
export function retrievalTool(options) {
    const o = optionsObject(options, 'options', TOOL_KEYS);
    if (!isRetriever(o.retriever))
        throw typeError('options.retriever must be a ragrank retriever (with retrieve(query, options))');
    if (o.description !== undefined && typeof o.description !== 'string')
        throw typeError('options.description must be a string');
    const retriever = o.retriever;
    const k = topK(o.topK, 5, 'options.topK', 1);
    const filter = o.filter;
    checkFilterSupport(filter, [{ retriever, who: 'options.retriever' }]);
    return tool({
        description: o.description ?? 'Search the documents; returns the best matches with their text',
        inputSchema: INPUT,
        execute: async (input, execution) => {
            if (!isPlainObject(input) || typeof input.query !== 'string')
                throw typeError('the tool input must be { query: string }');
            const signal = isPlainObject(execution) ? execution.abortSignal : undefined;
            const hits = await retrieveHits(retriever, input.query, { topK: k, filter, signal });
            return hits.map(({ id, text, score, meta }) => ({ id, text, score, meta }));
        },
    });
}
