import { packageRequire } from './package-require.js';
export const native = packageRequire('../../../index.js');
