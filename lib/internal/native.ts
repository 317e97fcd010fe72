// The generated napi loader (index.js at the package root, CommonJS) and its types. The built module sits in
// dist/<esm|commonjs>/internal/, three folders below the root; the type import resolves from lib/internal/
// here and, in the published declarations, through dist/index.d.ts (a re-export of the root index.d.ts).
import type * as Native from '../../index.js'
import { packageRequire } from './package-require.js'

export const native: typeof Native = packageRequire('../../../index.js')
export type {
  NativeBm25Index,
  NativeBm25Snapshot,
  NativeHits,
  NativeSearchOptions,
  NativeDoc,
  NativeSplit,
  NativeVectorIndex,
} from '../../index.js'
