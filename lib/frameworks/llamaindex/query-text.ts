import type { MessageContent } from '@llamaindex/core/llms'
import { extractText } from '@llamaindex/core/utils'
import { describe, typeError } from '../../errors'
import { isArray } from '../../internal/validate'

/**
 * The text of a LlamaIndex query (a string, or content parts whose text parts are joined).
 * Checked first: LlamaIndex's `extractText` turns anything else into a string such as "undefined".
 */
export function queryText(query: MessageContent, name: string): string {
  if (typeof query !== 'string' && !isArray(query))
    throw typeError(`${name} must be a string or text content parts, got ${describe(query)}`)
  return extractText(query)
}
