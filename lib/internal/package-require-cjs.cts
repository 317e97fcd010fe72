// The CommonJS build's package-require.ts (tshy builds this file in its place): the module's own `require`.
export const packageRequire: NodeJS.Require = require
