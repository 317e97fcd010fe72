/**
 * What an index records of the model its vectors came from: the document embedding of a fixed probe text. A model
 * has no portable name (a hub id, a folder, a quantized copy), but its vectors do: two loads of one model (f32 or
 * int8) embed the probe at a cosine near 1, two different models near 0, so a retriever embedding queries with
 * another model than the documents' is refused instead of returning noise.
 */
export interface EmbeddingRecord {
  /** The vectors' dimension. */
  dims: number
  /** The document embedding of `EMBEDDING_PROBE`, to 4 decimals. */
  probe: number[]
}

export const EMBEDDING_PROBE =
  'The tides of the Severn estuary rise fifteen metres twice a day, among the highest on Earth.'

/** Below this cosine of the probe embeddings, two embedders are taken for different models. */
export const SAME_MODEL_COSINE = 0.9

export function embeddingRecord(probe: number[]): EmbeddingRecord {
  return { dims: probe.length, probe: probe.map((x) => Math.round(x * 1e4) / 1e4) }
}

/** The cosine of two probe embeddings (0 when their lengths differ). */
export function probeCosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
