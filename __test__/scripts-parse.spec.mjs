// Every script outside the tested API must at least parse: a stray quote in a benchmark's report
// text once broke `npm run eval` without any test noticing, because no test imports that file.
import test from 'ava'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')

function scripts(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(mjs|js)$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)))
}

const files = ['bench', 'examples', 'demo', 'scripts'].flatMap(scripts).filter((f) => !f.includes(`${path.sep}.cache${path.sep}`))

test('there are scripts to check', (t) => {
  t.true(files.includes(path.join('bench', 'eval.mjs')))
  t.true(files.length > 10)
})

for (const file of files) {
  test(`${file} parses`, (t) => {
    t.notThrows(() => execFileSync(process.execPath, ['--check', path.join(root, file)], { stdio: 'pipe' }))
  })
}
