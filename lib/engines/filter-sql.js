import { parseFilter } from '../indexes/filter.js';
/** `firstParam` is the number of the first placeholder to use (the query's own come before). */
export function filterSql(filter, columns, firstParam = 1) {
    const parsed = filter === undefined ? undefined : parseFilter(filter);
    const params = [];
    const param = (v) => {
        params.push(v);
        return `$${firstParam + params.length - 1}`;
    };
    const parts = [];
    if (parsed?.ids)
        parts.push(`${columns.id} = ANY(${param(parsed.ids)}::text[])`);
    if (parsed?.tree)
        parts.push(condition(parsed.tree, columns.meta, param));
    return { sql: parts.length === 0 ? 'TRUE' : parts.join(' AND '), params };
}
/** The jsonb value of a field: the key itself when the object has it (`"a.b"` wins), else the nested path. */
function value(meta, field, param) {
    if (!field.includes('.'))
        return `(${meta} -> ${param(field)}::text)`;
    const key = param(field);
    return `(CASE WHEN ${meta} ? ${key}::text THEN ${meta} -> ${key}::text ELSE ${meta} #> ${param(field.split('.'))}::text[] END)`;
}
const json = (v) => JSON.stringify(v);
function equals(x, v, param) {
    return `COALESCE(${x} @> ${param(json(v))}::jsonb, FALSE)`;
}
/** Some element (or the value itself) compares with `op`, numbers with numbers, strings with strings by code point. */
function range(x, op, v, param) {
    const elements = `jsonb_array_elements(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} ELSE jsonb_build_array(${x}) END)`;
    const test = typeof v === 'number'
        ? `jsonb_typeof(e) = 'number' AND (e #>> '{}')::numeric ${op} ${param(v)}::numeric`
        : `jsonb_typeof(e) = 'string' AND (e #>> '{}') COLLATE "C" ${op} ${param(v)}::text COLLATE "C"`;
    return `(${x} IS NOT NULL AND EXISTS (SELECT 1 FROM ${elements} AS t(e) WHERE ${test}))`;
}
const OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
function condition(n, meta, param) {
    switch (n.kind) {
        case 'and':
            return n.nodes.length === 0 ? 'TRUE' : `(${n.nodes.map((c) => condition(c, meta, param)).join(' AND ')})`;
        case 'or':
            return `(${n.nodes.map((c) => condition(c, meta, param)).join(' OR ')})`;
        case 'not':
            return `(NOT ${condition(n.node, meta, param)})`;
        case 'eq':
            return equals(value(meta, n.field, param), n.value, param);
        case 'ne':
            return `(NOT ${equals(value(meta, n.field, param), n.value, param)})`;
        case 'in':
        case 'nin': {
            if (n.values.length === 0)
                return n.kind === 'in' ? 'FALSE' : 'TRUE';
            const x = value(meta, n.field, param);
            const any = `(${n.values.map((v) => equals(x, v, param)).join(' OR ')})`;
            return n.kind === 'in' ? any : `(NOT ${any})`;
        }
        case 'exists':
            return `(${value(meta, n.field, param)} IS ${n.value ? 'NOT ' : ''}NULL)`;
        default:
            return range(value(meta, n.field, param), OPS[n.kind], n.value, param);
    }
}
