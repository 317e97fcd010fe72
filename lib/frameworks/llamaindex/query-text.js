import { describe, typeError } from '../../errors.js';
import { isArray, isPlainObject, readValue } from '../../internal/validate.js';
/**
 * The text of a LlamaIndex query: a string, or content parts whose text parts are joined by a
 * blank line (as LlamaIndex's `extractText`). Anything else is a TypeError: `extractText` would
 * turn it into a string such as "undefined" and search for that.
 */
export function queryText(query, name) {
    if (typeof query === 'string')
        return query;
    if (!isArray(query))
        throw typeError(`${name} must be a string or text content parts, got ${describe(query)}`);
    const parts = query;
    const texts = [];
    // By index, so a hole of a sparse array is an error, not skipped.
    for (let i = 0; i < parts.length; i++) {
        const part = parts[i];
        if (!isPlainObject(part))
            throw typeError(`${name}[${i}] must be a content part { type, ... }, got ${describe(part)}`);
        const { type, text } = readValue(() => ({ type: part.type, text: part.text }));
        if (type !== 'text')
            continue;
        if (typeof text !== 'string')
            throw typeError(`${name}[${i}].text must be a string`);
        texts.push(text);
    }
    return texts.join('\n\n');
}
