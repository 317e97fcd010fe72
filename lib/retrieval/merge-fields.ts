import { isPlainObject } from '../internal/validate'

/**
 * One document from its copies, given in precedence order (the copy that wins first), so a
 * composition never loses a field one source returned and another did not (fusion of BM25,
 * which returns text and meta, with a vector index that returns only ids):
 * - `text`: the first non-empty string;
 * - `meta`: every copy's meta merged, a key of an earlier copy winning over a later one;
 * - any other field: the first copy's value that is not `undefined`.
 * A single copy is returned as it is (no copy made).
 */
export function mergeCopies<T extends object>(copies: readonly T[]): T {
  if (copies.length === 1) return copies[0]
  const out: Record<string, unknown> = {}
  const metas: Record<string, unknown>[] = []
  for (const copy of copies as readonly Record<string, unknown>[]) {
    for (const [key, value] of Object.entries(copy)) {
      if (key === 'meta') {
        if (isPlainObject(value)) metas.push(value)
      } else if (key === 'text') {
        if (typeof value === 'string' && value !== '' && (typeof out.text !== 'string' || out.text === ''))
          out.text = value
        else if (out.text === undefined) out.text = value
      } else if (out[key] === undefined) out[key] = value
    }
  }
  if (metas.length > 0) out.meta = metas.length === 1 ? metas[0] : Object.assign({}, ...metas.reverse())
  return out as T
}
