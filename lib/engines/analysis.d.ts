import { type AnalyzerOptions } from '../indexes/bm25.js';
/**
 * How text becomes the tokens an engine indexes when ragrank does the analysis: the options of a
 * `Bm25Index` analyzer (e.g. CJK bigrams for Korean, which no bundled engine analyzer makes), or any object
 * with `analyze(text)` such as a `Bm25Index` itself. Documents and queries go through the same function, so
 * the engine's BM25 sees exactly ragrank's tokens in a whitespace-analyzed field.
 */
export type TextAnalysis = AnalyzerOptions | 'bm25s' | {
    /** The tokens of `text`. */
    analyze(text: string): string[];
};
/** The field pre-analyzed tokens go to unless told otherwise. */
export declare const DEFAULT_TOKENS_FIELD = "tokens";
/** `text` -> its tokens joined by single spaces (tokens never hold whitespace, so the engine splits them back). */
export declare function tokenJoiner(analysis: unknown, name?: string): (text: string) => string;
