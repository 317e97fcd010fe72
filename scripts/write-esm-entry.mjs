// Writes dist/<entry>.mjs and dist/<entry>.d.mts for each public entry (the main one, the
// framework adapters and the engine adapters): an ESM face over the CommonJS build, so both
// `import` and `require` share one module instance (no dual-package hazard).
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'

const require = createRequire(import.meta.url)
for (const entry of [
  'index',
  'langchain',
  'llamaindex',
  'ai-sdk',
  'engines/elasticsearch',
  'engines/opensearch',
  'engines/pgvector',
]) {
  const base = entry.split('/').pop()
  const names = Object.keys(require(`../dist/${entry}.js`)).filter((n) => n !== 'default' && n !== '__esModule')
  const esm = [
    `import cjs from './${base}.js'`,
    `export const { ${names.join(', ')} } = cjs`,
    'export default cjs',
    '',
  ].join('\n')
  writeFileSync(new URL(`../dist/${entry}.mjs`, import.meta.url), esm)
  writeFileSync(new URL(`../dist/${entry}.d.mts`, import.meta.url), `export * from './${base}.js'\n`)
}
