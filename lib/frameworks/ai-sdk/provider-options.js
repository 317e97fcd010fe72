import { optionKeys, optionsObject, readValue } from '../../internal/validate.js';
/** The key of ragrank's own options in the SDK's `providerOptions`. */
export const PROVIDER_KEY = 'ragrank';
/**
 * `providerOptions.ragrank` of a call, its keys checked (a misspelled one is a TypeError);
 * other providers' entries are theirs and ignored, as the spec intends.
 */
export function ragrankOptions(providerOptions, known) {
    const mine = readValue(() => providerOptions?.[PROVIDER_KEY]);
    return optionsObject(mine, `providerOptions.${PROVIDER_KEY}`, known);
}
export const NO_OPTIONS = optionKeys();
