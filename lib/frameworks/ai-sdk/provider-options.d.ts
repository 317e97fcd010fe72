import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import { type OptionKeys } from '../../internal/validate.js';
/** The key of ragrank's own options in the SDK's `providerOptions`. */
export declare const PROVIDER_KEY = "ragrank";
/**
 * `providerOptions.ragrank` of a call, its keys checked (a misspelled one is a TypeError);
 * other providers' entries are theirs and ignored, as the spec intends.
 */
export declare function ragrankOptions(providerOptions: SharedV3ProviderOptions | undefined, known: OptionKeys): Record<string, unknown>;
export declare const NO_OPTIONS: OptionKeys;
