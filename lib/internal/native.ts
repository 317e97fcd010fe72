// The generated napi loader (index.js at the package root) and its types.
import type * as Native from '../../index'

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const native: typeof Native = require('../../index.js')
export type {
  NativeBm25Index,
  NativeHits,
  NativeSearchOptions,
  NativeDoc,
  NativeSplit,
  NativeVectorHits,
  NativeVectorIndex,
} from '../../index'
