import { typeError } from '../errors.js'
import { type AnalyzerOptions, Bm25Index } from '../indexes/bm25.js'
import { hasMethod, isPlainObject } from '../internal/validate.js'

/**
 * How text becomes the tokens an engine indexes when ragrank does the analysis: the options of a
 * `Bm25Index` analyzer (e.g. CJK bigrams for Korean, which no bundled engine analyzer makes), or any object
 * with `analyze(text)` such as a `Bm25Index` itself. Documents and queries go through the same function, so
 * the engine's BM25 sees exactly ragrank's tokens in a whitespace-analyzed field.
 */
export type TextAnalysis =
  | AnalyzerOptions
  | 'bm25s'
  | {
      /** The tokens of `text`. */
      analyze(text: string): string[]
    }

/** The field pre-analyzed tokens go to unless told otherwise. */
export const DEFAULT_TOKENS_FIELD = 'tokens'

/** `text` -> its tokens joined by single spaces (tokens never hold whitespace, so the engine splits them back). */
export function tokenJoiner(analysis: unknown, name = 'options.analysis'): (text: string) => string {
  let analyze: (text: string) => string[]
  if (hasMethod(analysis, 'analyze')) {
    const a = analysis as { analyze(text: string): string[] }
    analyze = (text) => a.analyze(text)
  } else if (analysis === 'bm25s' || isPlainObject(analysis)) {
    // An empty index is just the analyzer: its options are validated here, once.
    const index = new Bm25Index({ analyzer: analysis as AnalyzerOptions | 'bm25s' })
    analyze = (text) => index.analyze(text)
  } else {
    throw typeError(
      `${name} must be analyzer options such as { cjk: 'bigram' }, 'bm25s', or an object with analyze(text)`,
    )
  }
  return (text) => {
    const tokens = analyze(text)
    if (!Array.isArray(tokens)) throw typeError(`${name}.analyze must return an array of strings`)
    return tokens.filter((t) => typeof t === 'string' && t.length > 0 && !/\s/.test(t)).join(' ')
  }
}

/** What an index records of the analysis its tokens were made with, so a query analyzed otherwise is refused. */
export interface AnalysisRecord {
  /** The options as given (`custom` for an object with `analyze`). */
  description: string
  /** The tokens of `ANALYSIS_PROBE`: two analyses that agree on it agree on case, stemming, stopwords and scripts. */
  probe: string
}

/** Cased, stemmable, stopword, accented, CJK, Korean and numeric text. */
const ANALYSIS_PROBE =
  'The Running runners ran quickly over 2 bridges; naïve Café ÜBER-fast e-mail U.S.A. 東京タワーへ 서울특별시에서 먹었다 ١٢٣'

export function analysisRecord(analysis: unknown, joiner = tokenJoiner(analysis)): AnalysisRecord {
  const description = hasMethod(analysis, 'analyze') ? 'custom' : JSON.stringify(analysis)
  return { description, probe: joiner(ANALYSIS_PROBE) }
}
