import { describe, typeError } from '../../errors.js';
import { isArray, isPlainObject } from '../../internal/validate.js';
/**
 * LlamaIndex's `MetadataFilters` as a ragrank metadata filter (`undefined` for an empty list), or a TypeError for what the
 * indexes cannot evaluate exactly (`text_match`, `is_empty`): a filter is never dropped or loosened.
 * ragrank matches an array field when any element does, so `any` and `contains` keep their meaning.
 *
 * @example
 * ```ts
 * fromMetadataFilters({ filters: [{ key: 'year', value: 2020, operator: '>=' }, { key: 'tag', value: ['a', 'b'], operator: 'in' }] }, 'filters')
 * // { $and: [{ year: { $gte: 2020 } }, { tag: { $in: ['a', 'b'] } }] }
 * ```
 */
export function fromMetadataFilters(filters, what = 'filters') {
    // `what` names the argument in error messages.
    const name = typeof what === 'string' ? what : 'filters';
    if (!isPlainObject(filters) || !isArray(filters.filters))
        throw typeError(`${name} must be LlamaIndex MetadataFilters { filters: [{ key, value, operator }], condition }`);
    const condition = filters.condition ?? 'and';
    if (condition !== 'and' && condition !== 'or')
        throw typeError(`${name}.condition must be 'and' or 'or', got ${describe(condition)}`);
    const parts = filters.filters.map((f, i) => fieldFilter(f, `${name}.filters[${i}]`));
    if (parts.length === 0)
        return undefined;
    if (parts.length === 1)
        return parts[0];
    return condition === 'and' ? { $and: parts } : { $or: parts };
}
const RANGE = { '>': '$gt', '<': '$lt', '>=': '$gte', '<=': '$lte' };
function fieldFilter(f, name) {
    if (!isPlainObject(f) || typeof f.key !== 'string' || f.key === '')
        throw typeError(`${name} must be { key, value, operator } with a non-empty string key`);
    const { key, value } = f;
    const operator = f.operator ?? '==';
    switch (operator) {
        case '==':
            return { [key]: { $eq: scalar(value, name) } };
        case '!=':
            return { [key]: { $ne: scalar(value, name) } };
        case '>':
        case '<':
        case '>=':
        case '<=':
            return { [key]: { [RANGE[operator]]: scalar(value, name) } };
        case 'contains':
            return { [key]: scalar(value, name) };
        case 'in':
        case 'any':
            return { [key]: { $in: list(value, name) } };
        case 'nin':
            return { [key]: { $nin: list(value, name) } };
        case 'all':
            return { $and: list(value, name).map((v) => ({ [key]: v })) };
        default:
            throw typeError(`${name}.operator ${describe(operator)} has no exact ragrank equivalent ` +
                '(supported: ==, !=, >, <, >=, <=, in, nin, any, all, contains)');
    }
}
function scalar(v, name) {
    if (typeof v === 'string' || typeof v === 'number')
        return v;
    throw typeError(`${name}.value must be a string or a number for this operator, got ${describe(v)}`);
}
function list(v, name) {
    if (!isArray(v) || v.length === 0)
        throw typeError(`${name}.value must be a non-empty array for this operator`);
    return v.map((x, i) => scalar(x, `${name}.value[${i}]`));
}
