import { typeError } from '../errors.js';
import { Bm25Index } from '../indexes/bm25.js';
import { hasMethod, isPlainObject } from '../internal/validate.js';
/** The field pre-analyzed tokens go to unless told otherwise. */
export const DEFAULT_TOKENS_FIELD = 'tokens';
/** `text` -> its tokens joined by single spaces (tokens never hold whitespace, so the engine splits them back). */
export function tokenJoiner(analysis, name = 'options.analysis') {
    let analyze;
    if (hasMethod(analysis, 'analyze')) {
        const a = analysis;
        analyze = (text) => a.analyze(text);
    }
    else if (analysis === 'bm25s' || isPlainObject(analysis)) {
        // An empty index is just the analyzer: its options are validated here, once.
        const index = new Bm25Index({ analyzer: analysis });
        analyze = (text) => index.analyze(text);
    }
    else {
        throw typeError(`${name} must be analyzer options such as { cjk: 'bigram' }, 'bm25s', or an object with analyze(text)`);
    }
    return (text) => {
        const tokens = analyze(text);
        if (!Array.isArray(tokens))
            throw typeError(`${name}.analyze must return an array of strings`);
        return tokens.filter((t) => typeof t === 'string' && t.length > 0 && !/\s/.test(t)).join(' ');
    };
}
