import type { MetadataFilters } from '@llamaindex/core/vector-store';
import type { MetaFilter } from '../../indexes/filter.js';
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
export declare function fromMetadataFilters(filters: MetadataFilters, what?: string): MetaFilter | undefined;
