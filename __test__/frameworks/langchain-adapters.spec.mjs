// The LangChain adapters on both supported lines of @langchain/core: 1.x in this process,
// 0.3 in a child process whose node_modules resolve @langchain/core to the 0.3 alias.
import test from 'ava'
import { execFile } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { checks, coreVersion } from './langchain-checks.mjs'

const root = new URL('../..', import.meta.url).pathname
const here = new URL('.', import.meta.url).pathname

for (const [name, check] of Object.entries(checks)) {
  test(`@langchain/core ${coreVersion}: ${name}`, async (t) => {
    await check()
    t.pass()
  })
}

test('in process, @langchain/core is the 1.x line', (t) => {
  t.regex(coreVersion, /^1\./)
})

/**
 * A project folder as an install would lay it out, with the 0.3 line as @langchain/core:
 * every shared package linked, and `ragrank` a folder of links to this checkout's files
 * (not to its node_modules, which would resolve @langchain/core 1.x again).
 */
function v03Project() {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-lc03-'))
  const modules = realpathSync(join(root, 'node_modules'))
  const nm = join(dir, 'node_modules')
  mkdirSync(join(nm, '@langchain'), { recursive: true })
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.') || entry === '@langchain' || entry === 'ragrank') continue
    symlinkSync(join(modules, entry), join(nm, entry))
  }
  for (const entry of readdirSync(join(modules, '@langchain'))) {
    if (entry === 'core' || entry === 'core-v03') continue
    symlinkSync(join(modules, '@langchain', entry), join(nm, '@langchain', entry))
  }
  symlinkSync(join(modules, '@langchain', 'core-v03'), join(nm, '@langchain', 'core'))
  mkdirSync(join(nm, 'ragrank'))
  for (const entry of readdirSync(root)) {
    if (entry === 'node_modules' || entry === '.git') continue
    symlinkSync(join(root, entry), join(nm, 'ragrank', entry))
  }
  for (const file of ['langchain-checks.mjs', 'langchain-v03-run.mjs']) copyFileSync(join(here, file), join(dir, file))
  return dir
}

const v03 = (async () => {
  const dir = v03Project()
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--preserve-symlinks', '--preserve-symlinks-main', join(dir, 'langchain-v03-run.mjs')],
      {
        cwd: dir,
        env: { ...process.env, RAGRANK_TEST_MODELS: join(root, 'fixtures/models') },
        timeout: 90_000,
      },
    )
    return stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})()

test('in the child process, @langchain/core is the 0.3 line, and every check ran', async (t) => {
  const results = await v03
  t.deepEqual(
    results.map((r) => r.name),
    Object.keys(checks),
  )
  t.true(
    results.every((r) => r.coreVersion.startsWith('0.3.')),
    results[0]?.coreVersion,
  )
})

for (const name of Object.keys(checks)) {
  test(`@langchain/core 0.3: ${name}`, async (t) => {
    const result = (await v03).find((r) => r.name === name)
    t.truthy(result, 'the check ran')
    t.true(result.ok, result.error)
  })
}

test('@langchain/core 0.3, strict TypeScript (node16): the classes are assignable to the LangChain classes', async (t) => {
  const dir = v03Project()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  copyFileSync(join(here, 'langchain-types.mts'), join(dir, 'check.mts'))
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'node16',
    moduleResolution: 'node16',
    target: 'es2022',
    preserveSymlinks: true, // else ragrank's types resolve @langchain/core from this checkout (1.x)
    skipLibCheck: true,
    types: ['node'],
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.mts'] }))
  const tsc = join(dir, 'node_modules/typescript/bin/tsc')
  const run = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: dir, timeout: 90_000 }).catch(
    (e) => e,
  )
  t.is(run.code ?? 0, 0, `${run.stdout}${run.stderr}`)
})
