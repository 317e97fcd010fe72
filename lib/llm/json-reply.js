import { RagrankError } from '../errors.js';
import { isPlainObject } from '../internal/validate.js';
/**
 * The JSON object in a model's reply. Models asked for JSON still often wrap it in a
 * markdown fence or add a sentence around it, so the fence is stripped and, failing a
 * direct parse, the outermost `{ ... }` span is tried.
 */
export function parseJsonObject(text) {
    const body = unfence(text.trim());
    let value;
    try {
        value = JSON.parse(body);
    }
    catch {
        const start = body.indexOf('{');
        const end = body.lastIndexOf('}');
        if (start < 0 || end <= start)
            throw replyError(`the reply is not JSON: ${preview(text)}`);
        try {
            value = JSON.parse(body.slice(start, end + 1));
        }
        catch {
            throw replyError(`the reply is not JSON: ${preview(text)}`);
        }
    }
    if (!isPlainObject(value))
        throw replyError(`the reply is JSON but not an object: ${preview(text)}`);
    return value;
}
function unfence(s) {
    const m = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(s);
    return m ? m[1].trim() : s;
}
const preview = (s) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
export const replyError = (message) => new RagrankError('ERR_LLM_REPLY', message);
