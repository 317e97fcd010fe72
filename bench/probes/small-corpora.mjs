// The small BM25 corpora as token lists, the same for every build an A/B probe loads: Zipf 10k from its generator,
// the real collections through `analyzer` (with their own ids) (a Bm25Index of one build, so both builds index the same tokens).
import { generateZipf } from '../lib/zipf.mjs'

export async function smallCorpus(name, analyzer) {
  if (name.startsWith('zipf-')) {
    const z = generateZipf({ nDocs: 10_000 })
    return {
      docs: Array.from({ length: z.nDocs }, (_, i) => z.docTokens(i)),
      ids: Array.from({ length: z.nDocs }, (_, i) => `d${i}`),
      queries: z.queries.map((q) => z.queryTokens(q)),
    }
  }
  const ds = await import('../lib/datasets.mjs')
  const d = { cran: ds.loadCran, cisi: ds.loadCisi, korquad: ds.loadKorquad, 'ko-sci': ds.loadKoSci }[name]()
  return {
    docs: d.docs.map((x) => analyzer.analyze(x.text)),
    ids: d.docs.map((x) => x.id),
    queries: d.queries.map((q) => analyzer.analyze(q.text)),
  }
}

/** Sequential sync `search` passes over `queries` for at least `minMs`: ms per query. */
export function sequentialPass(idx, queries, minMs) {
  let n = 0
  const t0 = performance.now()
  do {
    for (const q of queries) idx.search(q, { topK: 10 })
    n += queries.length
  } while (performance.now() - t0 < minMs)
  return (performance.now() - t0) / n
}
