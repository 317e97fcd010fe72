import { typeError } from '../errors.js'
import { isPlainObject, jsonValue, stringArray } from '../internal/validate.js'

/** A value compared by equality: numbers by value (1 equals 1.0), strings case-sensitively. */
export type FilterValue = string | number | boolean | null

/** Operators on one metadata field; all given must hold (see docs/FILTERS.md). */
export interface FieldOperators {
  /** Equal to the value. */
  $eq?: FilterValue
  /** Not equal to the value (a missing field is not equal). */
  $ne?: FilterValue
  /** Equal to one of the values. */
  $in?: readonly FilterValue[]
  /** Equal to none of the values. */
  $nin?: readonly FilterValue[]
  /** Greater than (numbers with numbers, strings with strings). */
  $gt?: number | string
  /** Greater than or equal. */
  $gte?: number | string
  /** Less than. */
  $lt?: number | string
  /** Less than or equal. */
  $lte?: number | string
  /** The field is present (`true`) or absent (`false`). */
  $exists?: boolean
}

/**
 * A filter over document metadata, evaluated inside the scan (see docs/FILTERS.md):
 * `{ field: value }` (equality), `{ field: [a, b] }` (any of), `{ field: { $gte: 2020 } }`
 * (operators), `{ $and: [...] }`, `{ $or: [...] }`, `{ $not: {...} }`; keys of one object
 * must all hold, and `a.b` reads a nested field. Rust validates it: an unknown operator or
 * a bad operand is a RangeError with code `ERR_INVALID_ARG`.
 */
export interface MetaFilter {
  /** Every filter must hold. */
  $and?: readonly MetaFilter[]
  /** At least one filter must hold. */
  $or?: readonly MetaFilter[]
  /** The filter must not hold. */
  $not?: MetaFilter
  [field: string]:
    | FilterValue
    | readonly FilterValue[]
    | FieldOperators
    | MetaFilter
    | readonly MetaFilter[]
    | undefined
}

/** Restricts a search: documents must have one of `ids` (when given) and match `meta` (when given). */
export interface Filter {
  /** Only these document ids (unknown ids are ignored). */
  ids?: readonly string[]
  /** A condition on the documents' metadata. */
  meta?: MetaFilter
}

/** A filter's parts for the native call. Unknown keys are errors: a dropped filter would leak. */
export function filterParts(v: unknown, name = 'options.filter'): { ids?: string[]; meta?: Record<string, unknown> } {
  if (!isPlainObject(v)) throw typeError(`${name} must be an object such as { meta: { tenant: 'a' } }`)
  for (const key of Object.keys(v)) {
    if (key !== 'ids' && key !== 'meta') {
      throw typeError(`${name}.${key} is not a filter key (use ids, or meta: { ${key}: ... } for a metadata field)`)
    }
  }
  const out: { ids?: string[]; meta?: Record<string, unknown> } = {}
  if (v.ids !== undefined) out.ids = stringArray(v.ids, `${name}.ids`)
  if (v.meta !== undefined) {
    if (!isPlainObject(v.meta)) throw typeError(`${name}.meta must be an object such as { tenant: 'a' }`)
    jsonValue(v.meta, `${name}.meta`)
    out.meta = v.meta
  }
  return out
}
