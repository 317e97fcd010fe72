import { isPlainObject } from '../internal/validate.js';
/**
 * One document from its copies, given in precedence order (the copy that wins first), so a
 * composition never loses a field one source returned and another did not (fusion of BM25,
 * which returns text and meta, with a vector index that returns only ids):
 * - `text`: the first non-empty string;
 * - `meta`: every copy's meta merged, a key of an earlier copy winning over a later one;
 * - any other field: the first copy's value that is not `undefined`.
 * A single copy is returned as it is; several give a new object (the copies are not changed).
 */
export function mergeCopies(copies) {
    if (copies.length === 1)
        return copies[0];
    const out = { ...copies[0] };
    for (let c = 1; c < copies.length; c++) {
        const copy = copies[c];
        for (const key in copy) {
            if (!Object.hasOwn(copy, key))
                continue;
            const value = copy[key];
            if (key === 'meta') {
                if (!isPlainObject(value))
                    continue;
                // Allocates only when both have meta: the earlier copy's keys win.
                out.meta = isPlainObject(out.meta) ? (out.meta === value ? value : { ...value, ...out.meta }) : value;
            }
            else if (key === 'text') {
                if (typeof value === 'string' && value !== '' && (typeof out.text !== 'string' || out.text === ''))
                    out.text = value;
            }
            else if (out[key] === undefined)
                out[key] = value;
        }
    }
    return out;
}
