import { typeError } from '../errors.js';
import { parseFilter } from '../indexes/filter.js';
export function filterClauses(filter, engine, metaField) {
    if (filter === undefined)
        return [];
    const parsed = parseFilter(filter);
    const out = [];
    if (parsed.ids)
        out.push({ ids: { values: parsed.ids } });
    if (parsed.tree)
        out.push(clause(parsed.tree, engine, metaField));
    return out;
}
/** A TypeError for a filter an engine cannot express exactly: refused rather than answered differently. */
function unsupported(engine, what) {
    return typeError(`${engine} cannot express ${what} exactly; refused rather than answered differently`);
}
function nonNull(v, engine, field) {
    if (v === null)
        throw unsupported(engine, `a comparison of ${field} with null (null is not indexed)`);
    return v;
}
function clause(n, engine, meta) {
    switch (n.kind) {
        case 'and':
            return n.nodes.length === 0
                ? { match_all: {} }
                : { bool: { filter: n.nodes.map((c) => clause(c, engine, meta)) } };
        case 'or':
            return { bool: { should: n.nodes.map((c) => clause(c, engine, meta)), minimum_should_match: 1 } };
        case 'not':
            return { bool: { must_not: [clause(n.node, engine, meta)] } };
        case 'eq':
            return { term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } };
        case 'ne':
            return { bool: { must_not: [{ term: { [`${meta}.${n.field}`]: nonNull(n.value, engine, n.field) } }] } };
        case 'in':
            return { terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } };
        case 'nin':
            return {
                bool: { must_not: [{ terms: { [`${meta}.${n.field}`]: n.values.map((v) => nonNull(v, engine, n.field)) } }] },
            };
        case 'exists':
            return n.value
                ? { exists: { field: `${meta}.${n.field}` } }
                : { bool: { must_not: [{ exists: { field: `${meta}.${n.field}` } }] } };
        default:
            return { range: { [`${meta}.${n.field}`]: { [n.kind]: n.value } } };
    }
}
