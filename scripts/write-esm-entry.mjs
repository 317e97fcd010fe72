// Writes dist/index.mjs and dist/index.d.mts: an ESM face over the CommonJS build, so
// both `import` and `require` share one module instance (no dual-package hazard).
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'

const require = createRequire(import.meta.url)
const names = Object.keys(require('../dist/index.js')).filter((n) => n !== 'default' && n !== '__esModule')
const esm = [
  "import cjs from './index.js'",
  `export const { ${names.join(', ')} } = cjs`,
  'export default cjs',
  '',
].join('\n')
writeFileSync(new URL('../dist/index.mjs', import.meta.url), esm)
writeFileSync(new URL('../dist/index.d.mts', import.meta.url), "export * from './index.js'\n")
