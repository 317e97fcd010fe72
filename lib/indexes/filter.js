import { rangeError, typeError } from '../errors.js';
import { isArray, isPlainObject, jsonValue, stringArray } from '../internal/validate.js';
const MAX_DEPTH = 32;
/** Parses and checks a filter. Unknown keys are errors: a dropped filter would leak. */
export function parseFilter(v, name = 'options.filter') {
    if (!isPlainObject(v))
        throw typeError(`${name} must be an object such as { meta: { tenant: 'a' } }`);
    for (const key of Object.keys(v)) {
        if (key !== 'ids' && key !== 'meta') {
            throw typeError(`${name}.${key} is not a filter key (use ids, or meta: { ${key}: ... } for a metadata field)`);
        }
    }
    const out = {};
    if (v.ids !== undefined)
        out.ids = stringArray(v.ids, `${name}.ids`);
    if (v.meta !== undefined) {
        if (!isPlainObject(v.meta))
            throw typeError(`${name}.meta must be an object such as { tenant: 'a' }`);
        jsonValue(v.meta, `${name}.meta`);
        out.meta = v.meta;
        out.tree = parseObject(v.meta, `${name}.meta`, 0);
    }
    return out;
}
/** A filter's parts for the native call, checked by `parseFilter`. */
export function filterParts(v, name = 'options.filter') {
    const { ids, meta } = parseFilter(v, name);
    return meta === undefined ? (ids === undefined ? {} : { ids }) : ids === undefined ? { meta } : { ids, meta };
}
// After jsonValue every value is JSON: numbers are finite, nothing is undefined or cyclic.
function scalar(v, where) {
    if (typeof v === 'object' && v !== null)
        throw rangeError(`${where} must be a string, number, boolean or null`);
    return v;
}
const scalars = (v, where) => v.map((x, i) => scalar(x, `${where}[${i}]`));
function parseObject(o, where, depth) {
    if (depth > MAX_DEPTH)
        throw rangeError(`${where} nests $and/$or/$not deeper than ${MAX_DEPTH}`);
    if (!isPlainObject(o))
        throw rangeError(`${where} must be an object such as { tenant: 'a' }`);
    const nodes = [];
    for (const [key, v] of Object.entries(o)) {
        const at = `${where}.${key}`;
        if (key === '$and' || key === '$or') {
            if (!isArray(v) || v.length === 0)
                throw rangeError(`${at} must be a non-empty array of filter objects`);
            const list = v.map((f, i) => parseObject(f, `${at}[${i}]`, depth + 1));
            nodes.push({ kind: key === '$and' ? 'and' : 'or', nodes: list });
        }
        else if (key === '$not') {
            nodes.push({ kind: 'not', node: parseObject(v, at, depth + 1) });
        }
        else if (key.startsWith('$')) {
            throw rangeError(`${at} is not a filter operator (use $and, $or, $not, or a field name)`);
        }
        else {
            nodes.push(parseField(key, v, at));
        }
    }
    return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes };
}
function parseField(field, v, where) {
    if (isArray(v))
        return { kind: 'in', field, values: scalars(v, where) };
    if (!isPlainObject(v))
        return { kind: 'eq', field, value: scalar(v, where) };
    const keys = Object.keys(v);
    // An empty operator object is a mistake, not "match all".
    if (keys.length === 0)
        throw rangeError(`${where} is an empty object; give an operator such as { $eq: value }`);
    const nodes = [];
    for (const op of keys) {
        const at = `${where}.${op}`;
        const x = v[op];
        if (op === '$eq' || op === '$ne')
            nodes.push({ kind: op === '$eq' ? 'eq' : 'ne', field, value: scalar(x, at) });
        else if (op === '$in' || op === '$nin') {
            if (!isArray(x))
                throw rangeError(`${at} must be an array of values`);
            nodes.push({ kind: op === '$in' ? 'in' : 'nin', field, values: scalars(x, at) });
        }
        else if (op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') {
            if (typeof x !== 'string' && typeof x !== 'number')
                throw rangeError(`${at} must be a number or a string`);
            nodes.push({ kind: op.slice(1), field, value: x });
        }
        else if (op === '$exists') {
            if (typeof x !== 'boolean')
                throw rangeError(`${at} must be a boolean (true or false)`);
            nodes.push({ kind: 'exists', field, value: x });
        }
        else if (op.startsWith('$')) {
            throw rangeError(`${at} is not a field operator (one of $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists)`);
        }
        else {
            throw rangeError(`${where} mixes a field name with operators; an object value must hold operators only`);
        }
    }
    return nodes.length === 1 ? nodes[0] : { kind: 'and', nodes };
}
