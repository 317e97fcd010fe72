// The field-index options of both indexes: which metadata fields are indexed, and how (see docs/FILTERS.md).
import { describe, typeError } from '../errors.js'
import { booleanOption, isPlainObject } from '../internal/validate.js'

/** How a declared metadata field is indexed: exact values, numbers (ranges), or ISO 8601 dates (ranges in time order). */
export type FieldType = 'keyword' | 'number' | 'date'

/**
 * Metadata fields to index, by name (`a.b` for a nested one): a type (a document whose value has another type is
 * a RangeError at `add`), `true` (indexed whatever its type) or `false` (never indexed: filters on it test each
 * candidate's metadata). Top-level fields not named here are indexed as they come unless `dynamicFields: false`.
 */
export type FieldsOption = Readonly<Record<string, FieldType | boolean>>

/** The two options as they cross to Rust, which checks the type names and names a bad one in a RangeError. */
export interface FieldOptions {
  fields?: Record<string, unknown>
  dynamicFields?: boolean
}

/** Types and shapes of `options.fields` and `options.dynamicFields`; undefined when both are left out. */
export function fieldOptions(fields: unknown, dynamicFields: unknown): FieldOptions | undefined {
  if (fields === undefined && dynamicFields === undefined) return undefined
  const out: FieldOptions = {}
  if (fields !== undefined) {
    if (!isPlainObject(fields)) throw typeError(`options.fields must be an object, got ${describe(fields)}`)
    for (const [name, decl] of Object.entries(fields)) {
      if (typeof decl !== 'string' && typeof decl !== 'boolean') {
        throw typeError(
          `options.fields.${name} must be 'keyword', 'number', 'date', true or false, got ${describe(decl)}`,
        )
      }
    }
    out.fields = { ...fields }
  }
  if (dynamicFields !== undefined) out.dynamicFields = booleanOption(dynamicFields, 'options.dynamicFields', true)
  return out
}
