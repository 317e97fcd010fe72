// Builds lib/ into dist/esm (ESM) and dist/commonjs (CommonJS) with tshy, and writes the `exports`, `main`,
// `types` and `module` fields tshy derives (and the matching `typesVersions`) into package.json.
//
// tshy reads its sources from ./src only, and ./src here is the Rust binding crate, so tshy runs in a staging
// folder (.tshy-stage/, at the root so that node_modules resolves as from lib/) holding a copy of lib/ as src/.
// The entry points are package.json's `tshy.exports`, written with ./lib/ paths: adding one is one line there.
//
//   node scripts/build-ts.mjs            # npm run build:ts
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const stage = join(root, '.tshy-stage')
const pkgPath = join(root, 'package.json')
const pkgText = readFileSync(pkgPath, 'utf8')
const pkg = JSON.parse(pkgText)
const json = (v) => `${JSON.stringify(v, null, 2)}\n`
const toStage = (p) => (typeof p === 'string' ? p.replace(/^\.\/lib\//, './src/') : p)

rmSync(stage, { recursive: true, force: true })
mkdirSync(stage)
// lib/package.json makes lib/ ESM for `npm run typecheck` and editors; tshy sets the dialect of src/ itself.
cpSync(join(root, 'lib'), join(stage, 'src'), {
  recursive: true,
  filter: (f) => f !== join(root, 'lib', 'package.json'),
})
// lib/internal/native.ts imports the napi types as '../../index.js': the root's, one folder up from here.
writeFileSync(join(stage, 'index.d.ts'), "export * from '../index.js'\n")
writeFileSync(join(stage, 'tsconfig.json'), json({ extends: '../tsconfig.json' }))
writeFileSync(
  join(stage, 'package.json'),
  json({
    name: pkg.name,
    version: pkg.version,
    type: pkg.type,
    tshy: {
      ...pkg.tshy,
      selfLink: false,
      exports: Object.fromEntries(Object.entries(pkg.tshy.exports).map(([k, v]) => [k, toStage(v)])),
    },
  }),
)

const tshy = join(dirname(createRequire(import.meta.url).resolve('tshy/package.json')), 'dist/esm/bin-min.mjs')
try {
  execFileSync(process.execPath, [tshy], { cwd: stage, stdio: 'inherit' })
} catch {
  console.error('build-ts: tshy failed (its tsc errors name files under .tshy-stage/src/: the same paths in lib/)')
  process.exit(1)
}

rmSync(join(root, 'dist'), { recursive: true, force: true })
renameSync(join(stage, 'dist'), join(root, 'dist'))
// The built declarations import the napi types as '../../index.js', which from dist/<dialect>/internal/
// is dist/index.js: this file sends them on to the root index.d.ts (see lib/internal/native.ts).
writeFileSync(join(root, 'dist', 'index.d.ts'), "export * from '../index.js'\n")

// tshy wrote the exports it derived into the staged package.json: keep package.json in step.
const built = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'))
const next = { ...pkg }
for (const field of ['main', 'types', 'module', 'exports']) next[field] = built[field]
// TypeScript's moduleResolution "node" (node10) ignores `exports`: typesVersions gives it each subpath's types.
const subpaths = Object.entries(built.exports).filter(([k, v]) => k !== '.' && v.require?.types)
next.typesVersions = { '*': Object.fromEntries(subpaths.map(([k, v]) => [k.slice(2), [v.require.types]])) }
if (json(next) !== pkgText) {
  writeFileSync(pkgPath, json(next))
  console.error('build-ts: package.json exports/main/types/module updated from tshy.exports')
}
rmSync(stage, { recursive: true, force: true })
