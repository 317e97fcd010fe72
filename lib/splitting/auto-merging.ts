import { abortable, checkSignal, throwIfAborted } from '../internal/abort.js'
import { describe, RagrankError, rangeError, typeError } from '../errors.js'
import type { HierarchyNode } from './splitter.js'
import {
  booleanOption,
  finiteNumber,
  isArray,
  isPlainObject,
  optionKeys,
  optionsObject,
  positiveInteger,
  renamedOption,
  topK,
} from '../internal/validate.js'
import {
  checkFilterSupport,
  isRetriever,
  RETRIEVE_KEYS,
  type RetrieveFilter,
  type RetrieveOptions,
  type Retriever,
  supportsFilter,
  withFilter,
} from '../retrieval/retriever.js'

/** The fields the merge needs from a node. `HierarchyNode` has them. */
export type StoredNode = Pick<HierarchyNode, 'id' | 'parentId' | 'childrenIds'> & Partial<HierarchyNode>

/** A node store: `get` returns, for each id, the node or undefined/null when it is missing. */
export interface NodeStore {
  get(ids: string[]): Promise<(StoredNode | undefined | null)[]>
}

/** How a merged parent is scored from the scores of its matched children. */
export type ParentScore = 'max' | 'mean' | 'sum' | ((childScores: number[], parent: StoredNode) => number)

export interface AutoMergingOptions {
  retriever: Retriever
  /** The nodes `HierarchicalSplitter.split` returned, or a store with an async `get(ids)`. */
  store: readonly StoredNode[] | NodeStore
  /** A parent replaces its matched children when matched / all children > threshold. In (0, 1); default 0.5. */
  threshold?: number
  /**
   * Leaves to ask the retriever for, at least the call's `topK`; default `4 * topK`. `'topK'`
   * asks for exactly the call's `topK`, as a Haystack pipeline does (its retriever's `top_k`
   * hits go to the AutoMergingRetriever): the faithful setting when porting one.
   */
  candidates?: number | 'topK'
  /** @deprecated use `candidates`, the depth option's name in every other composite retriever. */
  candidateK?: number
  /** Default `max`. */
  parentScore?: ParentScore
  /** Throw (ERR_MISSING_NODE) when a hit or an ancestor is not in the store, instead of not merging there. */
  strict?: boolean
}

export interface AutoMergedHit {
  id: string
  score: number
  /** The stored node; undefined for a hit the store does not know (non-strict mode). */
  node: StoredNode | undefined
  /** The retrieved leaf hits this result stands for (itself when not merged). */
  leafIds: string[]
}

interface Item {
  id: string
  score: number
  node: StoredNode | undefined
  leafIds: string[]
  /** Order of first appearance, for stable ties. */
  rank: number
}

const AUTO_MERGING_KEYS = optionKeys(
  'retriever',
  'store',
  'threshold',
  'candidates',
  'candidateK',
  'parentScore',
  'strict',
)

/**
 * Retrieves leaves, then replaces groups of sibling hits by their parent when enough of the
 * parent's children matched (Haystack's AutoMergingRetriever rule, recursively up to the root).
 * Unlike Haystack: a leaf hit twice counts once, a missing ancestor stops merging at that
 * level (unless `strict`), and results are ordered by score, a merged parent taking the
 * `parentScore` of its matched children.
 *
 * A `filter` goes to the leaf retriever, and then a parent replaces its children only when
 * every one of them matched: a parent's text is its children's, and a sibling that was not
 * retrieved may be one the filter excludes (another tenant's, or an id not in `filter.ids`).
 * So a merged parent is made only of leaves that passed the filter.
 */
export class AutoMergingRetriever implements Retriever {
  readonly threshold: number
  /** Leaves asked for per call (undefined: `4 * topK`; `'topK'`: the call's `topK`). */
  readonly candidates: number | 'topK' | undefined
  readonly strict: boolean
  readonly #retriever: Retriever
  readonly #store: NodeStore
  readonly #parentScore: (scores: number[], parent: StoredNode) => number

  constructor(options: AutoMergingOptions) {
    const o = optionsObject(options, 'options', AUTO_MERGING_KEYS)
    if (!isRetriever(o.retriever)) {
      throw typeError(
        'retriever must have a retrieve(query, { topK, signal, filter }) method returning Promise<{ id, score }[]>',
      )
    }
    this.#retriever = o.retriever
    this.#store = toStore(o.store)
    this.threshold = o.threshold === undefined ? 0.5 : finiteNumber(o.threshold, 'threshold', 0, 1)
    if (this.threshold <= 0 || this.threshold >= 1) {
      throw rangeError(`threshold must be strictly between 0 and 1, got ${this.threshold}`)
    }
    const depth = renamedOption(o, 'candidates', 'candidateK')
    this.candidates =
      depth.value === undefined || depth.value === 'topK' ? depth.value : positiveInteger(depth.value, depth.name)
    this.strict = booleanOption(o.strict, 'options.strict', false)
    this.#parentScore = toParentScore(o.parentScore)
  }

  /** @deprecated use `candidates` */
  get candidateK(): number | 'topK' | undefined {
    return this.candidates
  }

  /** True when the leaf retriever honours filters. */
  get supportsFilter(): boolean {
    return supportsFilter(this.#retriever)
  }

  async retrieve(query: string, options?: RetrieveOptions): Promise<AutoMergedHit[]> {
    const o = optionsObject(options, 'options', RETRIEVE_KEYS)
    const k = topK(o.topK)
    const signal = checkSignal(o.signal)
    const filter = o.filter as RetrieveFilter | undefined
    checkFilterSupport(filter, [{ retriever: this.#retriever, who: 'retriever' }])
    throwIfAborted(signal) // even for topK 0: an aborted call never resolves
    if (k === 0) return []
    const depth = this.candidates === 'topK' ? k : Math.max(this.candidates ?? 4 * k, k)
    const hits = await abortable(
      this.#retriever.retrieve(query, { topK: depth, signal, ...withFilter(filter) }),
      signal,
    )
    if (!isArray(hits)) throw typeError('retriever.retrieve must resolve to an array of { id, score }')
    const items = await this.#leaves(hits, signal)
    const merged = await this.#merge(items, signal, filter !== undefined)
    merged.sort((a, b) => b.score - a.score || a.rank - b.rank)
    return merged.slice(0, k).map(({ id, score, node, leafIds }) => ({ id, score, node, leafIds }))
  }

  /** Deduplicates hits by id (best score, first position) and looks their nodes up. */
  async #leaves(hits: { id: string; score: number }[], signal: AbortSignal | undefined): Promise<Item[]> {
    const byId = new Map<string, Item>()
    hits.forEach((h, i) => {
      if (!isPlainObject(h) || typeof h.id !== 'string' || typeof h.score !== 'number') {
        throw typeError(`retriever hit ${i} must be { id: string, score: number }`)
      }
      const seen = byId.get(h.id)
      if (!seen) byId.set(h.id, { id: h.id, score: h.score, node: undefined, leafIds: [h.id], rank: i })
      else if (h.score > seen.score) seen.score = h.score
    })
    const items = [...byId.values()]
    const nodes = await this.#fetch(
      items.map((it) => it.id),
      signal,
    )
    items.forEach((it, k) => {
      it.node = nodes[k]
      if (!it.node && this.strict) throw missing(`retrieved node ${JSON.stringify(it.id)} is not in the store`)
    })
    return items
  }

  /** Merges sibling groups into parents until a round merges nothing; `filtered`: only when every child matched. */
  async #merge(items: Item[], signal: AbortSignal | undefined, filtered: boolean): Promise<Item[]> {
    const stuck = new Set<string>() // parents that are missing: never asked for again
    const known = new Map<string, StoredNode>()
    for (;;) {
      const groups = new Map<string, Item[]>()
      for (const it of items) {
        const parentId = it.node?.parentId
        if (parentId === null || parentId === undefined || stuck.has(parentId)) continue
        const group = groups.get(parentId)
        if (group) group.push(it)
        else groups.set(parentId, [it])
      }
      if (groups.size === 0) return items
      const parentIds = [...groups.keys()]
      const unknown = parentIds.filter((id) => !known.has(id))
      const fetched = unknown.length > 0 ? await this.#fetch(unknown, signal) : []
      unknown.forEach((id, k) => {
        const node = fetched[k]
        if (node) known.set(id, node)
      })
      const parents = parentIds.map((id) => known.get(id))
      const replaced = new Set<Item>()
      const added: Item[] = []
      parentIds.forEach((parentId, k) => {
        const parent = parents[k]
        const children = groups.get(parentId)!
        if (!parent || !isArray(parent.childrenIds) || parent.childrenIds.length === 0) {
          if (this.strict) {
            throw missing(
              parent
                ? `parent ${JSON.stringify(parentId)} lists no children`
                : `parent ${JSON.stringify(parentId)} is not in the store`,
            )
          }
          stuck.add(parentId)
          return
        }
        // Not merged yet; the group may still grow when a sibling subtree merges up to it.
        if (children.length / parent.childrenIds.length <= this.threshold) return
        if (filtered && !everyChildMatched(parent, children)) return
        for (const c of children) replaced.add(c)
        added.push({
          id: parent.id,
          score: this.#parentScore(
            children.map((c) => c.score),
            parent,
          ),
          node: parent,
          leafIds: children.flatMap((c) => c.leafIds),
          rank: Math.min(...children.map((c) => c.rank)),
        })
      })
      if (added.length === 0) return items
      items = [...items.filter((it) => !replaced.has(it)), ...added]
    }
  }

  async #fetch(ids: string[], signal: AbortSignal | undefined): Promise<(StoredNode | undefined)[]> {
    throwIfAborted(signal)
    const found = await this.#store.get(ids)
    throwIfAborted(signal)
    if (!isArray(found)) throw typeError('store.get must resolve to an array')
    // Match by id: a store may return fewer nodes, or in another order.
    const byId = new Map<string, StoredNode>()
    for (const n of found) if (n && typeof n.id === 'string') byId.set(n.id, n)
    return ids.map((id) => byId.get(id))
  }
}

function everyChildMatched(parent: StoredNode, children: readonly Item[]): boolean {
  const matched = new Set(children.map((c) => c.id))
  return parent.childrenIds.every((id) => matched.has(id))
}

function missing(message: string): RagrankError {
  return new RagrankError('ERR_MISSING_NODE', message)
}

function toStore(store: unknown): NodeStore {
  if (isArray(store)) {
    const byId = new Map<string, StoredNode>()
    for (const n of store as StoredNode[]) if (n && typeof n.id === 'string') byId.set(n.id, n)
    return { get: async (ids) => ids.map((id) => byId.get(id)) }
  }
  if (store && typeof (store as NodeStore).get === 'function') return store as NodeStore
  throw typeError('store must be the array of nodes split() returned, or an object with async get(ids)')
}

function toParentScore(rule: unknown): (scores: number[], parent: StoredNode) => number {
  if (rule === undefined || rule === 'max') return (s) => Math.max(...s)
  if (rule === 'sum') return (s) => s.reduce((a, b) => a + b, 0)
  if (rule === 'mean') return (s) => s.reduce((a, b) => a + b, 0) / s.length
  if (typeof rule === 'function') return rule as (scores: number[], parent: StoredNode) => number
  const message = `parentScore must be 'max', 'mean', 'sum' or a function (childScores, parent) => number, got ${describe(rule)}`
  throw typeof rule === 'string' ? rangeError(message) : typeError(message)
}
