// A `require` for the ESM build, anchored at this file like CommonJS `require` is in the CommonJS build
// (tshy swaps in package-require-cjs.cts there): the napi loader and the optional peer dependencies
// (pg, the engine clients, onnxruntime-node) are CommonJS and are loaded synchronously, on first use.
import { createRequire } from 'node:module';
// biome-ignore lint/suspicious/noTsIgnore: not @ts-expect-error, which would fail the ESM build, where this is valid
// @ts-ignore tshy also compiles this file for CommonJS (then replaces it), where import.meta is an error
export const packageRequire = createRequire(import.meta.url);
