import type { MessageContent } from '@llamaindex/core/llms';
/**
 * The text of a LlamaIndex query: a string, or content parts whose text parts are joined by a
 * blank line (as LlamaIndex's `extractText`). Anything else is a TypeError: `extractText` would
 * turn it into a string such as "undefined" and search for that.
 */
export declare function queryText(query: MessageContent, name: string): string;
