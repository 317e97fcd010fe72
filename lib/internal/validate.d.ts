/**
 * Runs a read of a caller's value. A revoked Proxy makes the engine throw a TypeError
 * without a code at the first touch; it becomes a coded one. Other errors (a caller's
 * throwing getter) pass on unchanged.
 */
export declare function readValue<T>(read: () => T): T;
/** `Array.isArray` (with its narrowing), safe on a revoked Proxy. */
export declare const isArray: (v: unknown) => v is any[];
/** Whether `v` is an object with a method `name` (duck typing of retrievers, rankers, generators). */
export declare const hasMethod: (v: unknown, name: string) => boolean;
export declare const isPlainObject: (v: unknown) => v is Record<string, unknown>;
/**
 * An options object (undefined and null mean `{}`). With `known`, a key outside it is a
 * TypeError naming the key and the likely intended one (see `checkKeys`).
 */
export declare function optionsObject(v: unknown, what: string, known?: OptionKeys): Record<string, unknown>;
/** The keys an options object may have; build once per call site with `optionKeys`, not per call. */
export type OptionKeys = ReadonlySet<string>;
export declare const optionKeys: (...names: string[]) => OptionKeys;
/**
 * Rejects a key of `o` that is not in `known`: a misspelled option would otherwise be
 * silently ignored. A key counts even when its value is `undefined` (`{ limit: undefined }`
 * is still a typo). Only own keys count: an enumerable property added to `Object.prototype`
 * must not break every call. Cheap on hot paths: a `for-in` over the few keys against a
 * Set, allocating nothing unless it throws.
 */
export declare function checkKeys(o: object, known: OptionKeys, what: string): void;
export declare function finiteNumber(v: unknown, name: string, min: number, max?: number): number;
/**
 * An integer in [`min`, `max`]: a TypeError when `v` is not an integer, a RangeError when it
 * is out of range. Every integer option goes through here, so the messages agree.
 */
export declare function integer(v: unknown, name: string, min?: number, max?: number): number;
export declare const nonNegativeInteger: (v: unknown, name: string) => number;
export declare const positiveInteger: (v: unknown, name: string) => number;
/** How many results a call returns when it does not say. */
export declare const DEFAULT_TOP_K = 10;
/**
 * A `topK` option: an integer >= `min` (0: "none", a valid answer), or, when it is left
 * out, `fallback` (which may be undefined: "all"). The one parser of `topK` across
 * indexes, retrievers and rankers.
 */
export declare function topK(v: unknown): number;
export declare function topK<F extends number | undefined>(v: unknown, fallback: F, name?: string, min?: number): number | F;
/** One of `values`: a TypeError when `v` is not a string, a RangeError when it is not one of them. */
export declare function oneOf<T extends string>(v: unknown, values: readonly T[], name: string): T;
/** A boolean option, `fallback` when left out; anything else (`'no'`, 1) is a TypeError, not coerced. */
export declare function booleanOption(v: unknown, name: string, fallback: boolean): boolean;
/**
 * An option renamed in a release: the new name is read, and the deprecated one still is.
 * Giving both is a TypeError, since which one was meant cannot be known. Returns the value and the name
 * the caller used, so error messages speak of what they wrote.
 */
export declare function renamedOption(o: Record<string, unknown>, name: string, deprecated: string, where?: string): {
    value: unknown;
    name: string;
};
/** Ids must be well-formed UTF-16: a lone surrogate would not survive the trip to Rust. */
export declare function documentId(v: unknown, where: string): string;
/** An array of strings; holes count as missing strings (`some` would skip them). */
export declare function stringArray(v: unknown, name: string): string[];
/** The deepest a JSON value may nest (containers, the root counting as 1): far past real metadata, far short of a stack. */
export declare const MAX_JSON_DEPTH = 128;
/** The most values (every container and leaf, shared ones once per path) a JSON value may hold. */
export declare const MAX_JSON_VALUES = 1000000;
/**
 * A value JSON can hold, checked before it crosses to Rust (`meta`, filter values), so the
 * error names the field: no NaN or Infinity, functions, Symbols, BigInts, `undefined`,
 * holes or cycles. Iterative and bounded: nesting past {@link MAX_JSON_DEPTH} or more than
 * {@link MAX_JSON_VALUES} values (an object shared by many paths counts once per path, so a
 * shared-object DAG cannot make the walk exponential) is a RangeError.
 */
export declare function jsonValue(v: unknown, name: string): void;
/** Type checks only, for options whose values Rust checks (and names in its RangeError). */
export declare function optionalString(v: unknown, name: string): void;
/** Type check only: an integer of any sign, for options whose range Rust checks. */
export declare function anyInteger(v: unknown, name: string): number;
