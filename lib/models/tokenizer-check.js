/**
 * What the tokenizers library only finds at the first word it does not know: a WordLevel or WordPiece model whose
 * unk_token is not in its vocabulary fails every call with such a word ("Missing [UNK] token from the
 * vocabulary"). Checked at load instead, naming the file. BPE is left alone: a byte-level BPE never needs its unk.
 */
import { RagrankError } from '../errors.js';
import { readTextFile, TOKENIZER_MAX_BYTES } from './model-file.js';
/** The tokenizers library's default unk_token when tokenizer.json has none. */
const DEFAULT_UNK = { WordLevel: '<unk>', WordPiece: '[UNK]' };
export async function checkTokenizer(path) {
    const text = await readTextFile(path, 'the tokenizer', TOKENIZER_MAX_BYTES);
    // Most tokenizers are BPE or Unigram: the text says so without a parse of a vocabulary of 250k entries.
    if (!/"(WordLevel|WordPiece)"/.test(text))
        return;
    let model;
    try {
        model = JSON.parse(text)?.model;
    }
    catch {
        return; // the native loader reports invalid JSON with its position
    }
    if (typeof model !== 'object' || model === null)
        return;
    const { type, unk_token, vocab } = model;
    if (typeof type !== 'string' || !(type in DEFAULT_UNK) || typeof vocab !== 'object' || vocab === null)
        return;
    const unk = typeof unk_token === 'string' ? unk_token : DEFAULT_UNK[type];
    if (!Object.hasOwn(vocab, unk)) {
        throw new RagrankError('ERR_MODEL_LOAD', `${path}: the ${type} model's unk_token ${JSON.stringify(unk)} is not in its vocabulary, so any word outside it would fail`);
    }
}
