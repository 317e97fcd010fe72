// Synthetic Zipfian corpus for the BM25 throughput benchmark.
//
// Deterministic for a given seed: documents come from one PRNG stream and queries from another, so the
// 10k corpus is exactly the first 10,000 documents of the 100k and 1M corpora, and every size shares the
// same query set.
//
// Model
//   vocabulary  `vocabSize` terms (default 150,000); the term of frequency rank r (1-based) has probability
//               proportional to 1 / r^exponent (default exponent 1.0).
//   documents   length uniform in [minLen, maxLen] (default 20..80 tokens, mean 50), every token drawn
//               independently from the Zipf distribution (so frequent terms repeat inside a document).
//   queries     2..6 distinct terms, each drawn from the same Zipf law restricted to ranks
//               [queryRankLo, queryRankHi] (default 10..50,000). With exponent 1 that is log-uniform over the
//               rank range: about a quarter of the query terms come from ranks 10-100 (in roughly 4-33% of
//               the documents), a quarter from 100-1,000, a quarter from 1,000-10,000 and the rest from the
//               tail. Stopword-like head terms (ranks 1-9, in nearly every document) never appear in queries.
//   term text   every term is a 3-4 letter lowercase string (a-z only), assigned to ranks through a seeded
//               permutation, so every tokenizer (ragrank's analyzers, MiniSearch, Orama, wink) keeps it whole
//               and lowercase, and the text form of a document (tokens joined with single spaces) re-tokenizes
//               to the same token list.
//
// Storage is flat: doc i's term ids are terms[offsets[i] .. offsets[i+1]); a term id is its frequency
// rank minus one, and vocab[id] is its text. Materialise token lists or texts per document only when needed.

/** Corpus sizes exposed by name. */
export const ZIPF_SIZES = Object.freeze({ '10k': 10_000, '100k': 100_000, '1m': 1_000_000 })

export const ZIPF_DEFAULTS = Object.freeze({
  vocabSize: 150_000,
  exponent: 1.0,
  minLen: 20,
  maxLen: 80,
  nQueries: 1000,
  queryMinTerms: 2,
  queryMaxTerms: 6,
  queryRankLo: 10,
  queryRankHi: 50_000,
  seed: 20261129,
})

/**
 * Small seeded PRNG: a Weyl sequence (golden-ratio increment) pushed through a 32-bit integer mixer.
 * Returns a function giving uniform floats in [0, 1). Fast and good enough for sampling benchmark data.
 */
export function makeRng(seed) {
  let state = seed >>> 0
  return function next() {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad)
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97)
    z ^= z >>> 15
    return (z >>> 0) / 4294967296
  }
}

/** Cumulative distribution over ranks 1..n for P(r) ~ r^-s, as a Float64Array (last entry 1). */
function zipfCdf(n, s) {
  const cdf = new Float64Array(n)
  let acc = 0
  for (let r = 1; r <= n; r++) {
    acc += 1 / r ** s
    cdf[r - 1] = acc
  }
  for (let i = 0; i < n; i++) cdf[i] /= acc
  cdf[n - 1] = 1
  return cdf
}

/** Smallest index i with cdf[i] > u (binary search); lo/hi bound the searched slice. */
function sampleCdf(cdf, u, lo = 0, hi = cdf.length - 1) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (cdf[mid] > u) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Term text for a code: bijective base-26, offset so that every term has 3 or 4 letters. */
function termText(code) {
  let n = code + 26 * 26 + 26 + 1 // skip the 1- and 2-letter strings
  let s = ''
  while (n > 0) {
    n -= 1
    s = String.fromCharCode(97 + (n % 26)) + s
    n = Math.floor(n / 26)
  }
  return s
}

/**
 * Generate a corpus.
 * @param {object} opts  nDocs (required) plus any key of ZIPF_DEFAULTS.
 * @returns {{ name, params, nDocs, nTokens, vocab: string[], terms: Uint32Array, offsets: Uint32Array,
 *             queries: Array<{ id: string, terms: Uint32Array }>,
 *             docId(i): string, docTokens(i): string[], docText(i): string,
 *             queryTokens(q): string[], queryText(q): string }}
 */
export function generateZipf(opts) {
  const p = { ...ZIPF_DEFAULTS, ...opts }
  const { nDocs, vocabSize, exponent, minLen, maxLen } = p
  if (!Number.isInteger(nDocs) || nDocs < 1) throw new Error('generateZipf: nDocs must be a positive integer')
  if (vocabSize > 26 ** 4 - 26 ** 2 - 26) throw new Error('generateZipf: vocabSize too large for 4-letter terms')
  if (!(minLen >= 1 && maxLen >= minLen)) throw new Error('generateZipf: need 1 <= minLen <= maxLen')

  const cdf = zipfCdf(vocabSize, exponent)

  // Term texts: a seeded permutation so that a term's spelling says nothing about its frequency.
  const permRng = makeRng(p.seed ^ 0x5bd1e995)
  const perm = new Uint32Array(vocabSize)
  for (let i = 0; i < vocabSize; i++) perm[i] = i
  for (let i = vocabSize - 1; i > 0; i--) {
    const j = Math.floor(permRng() * (i + 1))
    const t = perm[i]
    perm[i] = perm[j]
    perm[j] = t
  }
  const vocab = new Array(vocabSize)
  for (let i = 0; i < vocabSize; i++) vocab[i] = termText(perm[i])

  // Documents.
  const docRng = makeRng(p.seed)
  const span = maxLen - minLen + 1
  const lengths = new Uint32Array(nDocs)
  let nTokens = 0
  for (let i = 0; i < nDocs; i++) {
    const len = minLen + Math.floor(docRng() * span)
    lengths[i] = len
    nTokens += len
  }
  const offsets = new Uint32Array(nDocs + 1)
  const terms = new Uint32Array(nTokens)
  let pos = 0
  for (let i = 0; i < nDocs; i++) {
    offsets[i] = pos
    const end = pos + lengths[i]
    for (; pos < end; pos++) terms[pos] = sampleCdf(cdf, docRng())
  }
  offsets[nDocs] = pos

  // Queries: the same Zipf law restricted to ranks [queryRankLo, queryRankHi].
  const qRng = makeRng(p.seed ^ 0x27d4eb2f)
  const lo = p.queryRankLo - 1
  const hi = Math.min(p.queryRankHi, vocabSize) - 1
  const uLo = lo === 0 ? 0 : cdf[lo - 1]
  const uHi = cdf[hi]
  const queries = []
  const qSpan = p.queryMaxTerms - p.queryMinTerms + 1
  for (let q = 0; q < p.nQueries; q++) {
    const want = p.queryMinTerms + Math.floor(qRng() * qSpan)
    const set = new Set()
    while (set.size < want) set.add(sampleCdf(cdf, uLo + qRng() * (uHi - uLo), lo, hi))
    queries.push({ id: `q${q}`, terms: Uint32Array.from(set) })
  }

  const name = `zipf-${sizeName(nDocs)}`
  return {
    name,
    params: p,
    nDocs,
    nTokens,
    vocab,
    terms,
    offsets,
    queries,
    docId: (i) => `d${i}`,
    docTokens(i) {
      const out = new Array(offsets[i + 1] - offsets[i])
      for (let k = offsets[i], j = 0; k < offsets[i + 1]; k++, j++) out[j] = vocab[terms[k]]
      return out
    },
    docText(i) {
      return this.docTokens(i).join(' ')
    },
    queryTokens: (q) => Array.from(q.terms, (t) => vocab[t]),
    queryText: (q) => Array.from(q.terms, (t) => vocab[t]).join(' '),
  }
}

/** '10k', '100k', '1m' for the preset sizes, else the number. */
export function sizeName(n) {
  for (const [k, v] of Object.entries(ZIPF_SIZES)) if (v === n) return k
  return String(n)
}

/** Parse '10k' / '100k' / '1m' / '250000' into a document count. */
export function parseSize(s) {
  if (typeof s === 'number') return s
  const key = String(s).toLowerCase()
  if (ZIPF_SIZES[key]) return ZIPF_SIZES[key]
  const m = /^(\d+(?:\.\d+)?)([km]?)$/.exec(key)
  if (!m) throw new Error(`bad corpus size ${JSON.stringify(s)}`)
  return Math.round(Number(m[1]) * (m[2] === 'k' ? 1e3 : m[2] === 'm' ? 1e6 : 1))
}

/** Document frequency of every term id (Uint32Array of vocabSize). */
export function documentFrequencies(corpus) {
  const df = new Uint32Array(corpus.vocab.length)
  const seen = new Int32Array(corpus.vocab.length).fill(-1)
  for (let i = 0; i < corpus.nDocs; i++) {
    for (let k = corpus.offsets[i]; k < corpus.offsets[i + 1]; k++) {
      const t = corpus.terms[k]
      if (seen[t] !== i) {
        seen[t] = i
        df[t]++
      }
    }
  }
  return df
}
