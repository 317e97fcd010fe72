/**
 * The reusable output buffer of a synchronous native `search` (see `src/hits.rs`): the
 * native side fills `out[0]` = hit count, then the scores, then the UTF-16 end offsets of
 * the ids, and returns the ids joined in one string. No typed array is made per query.
 */
export class HitBuffer {
  #out = new Float64Array(1 + 2 * 16)

  /** The buffer, grown for `topK` hits unless that is beyond what is worth keeping. */
  forTopK(topK: number): Float64Array {
    if (this.#out.length < 1 + 2 * topK && topK <= MAX_BUFFERED_HITS) this.#out = new Float64Array(1 + 2 * topK)
    return this.#out
  }
}

/** Top-k sizes up to which `search` keeps a reusable output buffer. */
const MAX_BUFFERED_HITS = 1024

/** `{ id, score }` hits from a filled buffer and the joined ids. */
export function hitsFromBuffer(ids: string, out: Float64Array): { id: string; score: number }[] {
  const n = out[0]
  const hits: { id: string; score: number }[] = new Array(n)
  let start = 0
  for (let i = 0; i < n; i++) {
    const end = out[1 + n + i]
    hits[i] = { id: ids.slice(start, end), score: out[1 + i] }
    start = end
  }
  return hits
}
