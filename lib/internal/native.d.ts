import type * as Native from '../../index.js';
export declare const native: typeof Native;
export type { NativeBm25Index, NativeBm25Snapshot, NativeHits, NativeSearchOptions, NativeDoc, NativeSplit, NativeVectorIndex, } from '../../index.js';
