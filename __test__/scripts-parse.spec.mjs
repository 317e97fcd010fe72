// Every script outside the tested API must at least parse: a stray quote in a benchmark's report
// text once broke `npm run eval` without any test noticing, because no test imports that file.
import test from 'ava'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')

function scripts(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(mjs|js)$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)))
}

const files = ['bench', 'examples', 'demo', 'scripts', 'fixtures']
  .flatMap(scripts)
  .filter((f) => !f.includes(`${path.sep}.cache${path.sep}`))

test('there are scripts to check', (t) => {
  for (const dir of ['suites', 'eval', 'probes'])
    t.true(
      files.some((f) => f.startsWith(path.join('bench', dir, ''))),
      dir,
    )
  t.true(files.length > 10)
})

// `node --check` does not resolve imports, so a script moved to another folder would still parse with a
// relative import that no longer exists; the scripts under eval/ and probes/ are never imported by a test.
const relativeImports = (file) =>
  [...readFileSync(path.join(root, file), 'utf8').matchAll(/(?:\bfrom|\bimport\(?)\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map((m) => m[1])
    .filter((spec) => !spec.includes('${')) // a template that writes code, not an import

for (const file of files) {
  test(`${file} parses`, (t) => {
    t.notThrows(() => execFileSync(process.execPath, ['--check', path.join(root, file)], { stdio: 'pipe' }))
  })
  test(`${file}'s relative imports exist`, (t) => {
    const missing = relativeImports(file).filter((spec) => !existsSync(path.resolve(root, path.dirname(file), spec)))
    t.deepEqual(missing, [])
  })
}
