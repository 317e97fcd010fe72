import { callbackError, describe, typeError } from '../errors.js'
import { abortable, checkSignal, throwIfAborted } from '../internal/abort.js'
import { isArray, isPlainObject } from '../internal/validate.js'
import { type RetrieveFilter, type Retriever, withFilter } from '../retrieval/retriever.js'

/**
 * A ragrank hit read the same way whatever retriever returned it, for the framework adapters:
 * BM25 and vector hits carry `text` and `meta` themselves, auto-merged hits on their `node`.
 */
export interface HitDocument {
  id: string
  score: number
  /** The hit's text, or the merged node's; `''` when the retriever returned none. */
  text: string
  /** A copy of the document's metadata (`{}` when it has none). */
  meta: Record<string, unknown>
  /** Where an auto-merged hit sits in its document's tree. */
  node?: { sourceId?: string; parentId?: string | null; start?: number; end?: number }
  /** The leaf hits an auto-merged hit stands for. */
  leafIds?: string[]
}

/** Reads hit `i` of `who`'s result; a hit without a string id and a number score is a TypeError. */
export function hitDocument(hit: unknown, i: number, who: string): HitDocument {
  if (!isPlainObject(hit) || typeof hit.id !== 'string' || typeof hit.score !== 'number')
    throw typeError(`${who} result ${i} must be an object { id, score }, got ${describe(hit)}`)
  const node = isPlainObject(hit.node) ? hit.node : undefined
  const text = typeof hit.text === 'string' ? hit.text : typeof node?.text === 'string' ? node.text : ''
  const meta = isPlainObject(hit.meta) ? hit.meta : isPlainObject(node?.meta) ? node.meta : {}
  const out: HitDocument = { id: hit.id, score: hit.score, text, meta: { ...meta } }
  if (node) {
    out.node = {
      sourceId: typeof node.sourceId === 'string' ? node.sourceId : undefined,
      parentId: typeof node.parentId === 'string' ? node.parentId : null,
      start: typeof node.start === 'number' ? node.start : undefined,
      end: typeof node.end === 'number' ? node.end : undefined,
    }
  }
  if (isArray(hit.leafIds)) out.leafIds = hit.leafIds.filter((x): x is string => typeof x === 'string')
  return out
}

/**
 * One `retrieve` call of a user's retriever, its result checked and read as `HitDocument`s.
 * `abortable`, so a retriever that ignores the signal cannot hold the caller.
 */
export async function retrieveHits(
  retriever: Retriever,
  query: string,
  options: { topK: number; filter?: RetrieveFilter; signal?: AbortSignal },
): Promise<HitDocument[]> {
  const { topK, filter } = options
  const signal = checkSignal(options.signal)
  throwIfAborted(signal)
  const call = Promise.resolve()
    .then(() => retriever.retrieve(query, { topK, ...withFilter(filter), ...(signal ? { signal } : {}) }))
    .catch((e: unknown) => {
      throw callbackError(e, 'retriever.retrieve')
    })
  const hits: unknown = await abortable(call, signal)
  if (!isArray(hits)) throw typeError('retriever.retrieve must resolve to an array')
  // Array.from visits the holes of a sparse array too: each is a bad hit, never a hole in the result.
  return Array.from(hits, (h, i) => hitDocument(h, i, 'retriever.retrieve'))
}
