"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.packageRequire = void 0;
// The CommonJS build's package-require.ts (tshy builds this file in its place): the module's own `require`.
exports.packageRequire = require;
