// The `@example` of each main class and function in lib/ runs as written, against dist/ (the
// API reference shows them to users). Hub ids become the tiny test models; the few free
// names an example leaves to the reader (`docs`, `text`, ...) are defined before it. The
// LLM and engine examples need a server and are not run here.
import test from 'ava'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = new URL('..', import.meta.url).pathname
const models = join(root, 'fixtures/models')

const sentence = (i) => `Tides rise and fall with the pull of the Moon, paragraph ${i}. Waves follow the wind.`
const givens = `
const text = ${JSON.stringify(Array.from({ length: 30 }, (_, i) => sentence(i)).join(' '))}
const longText = text
const docs = [
  { id: 'a', text: 'Tides follow the Moon.', meta: { lang: 'en' } },
  { id: 'b', text: 'How do tides work?', meta: { lang: 'en' } },
  { id: 'c', text: '밀물과 썰물은 달 때문이다', meta: { lang: 'ko' } },
]
`

/** [source file, exported name] of every example run here. */
const EXAMPLES = [
  ['lib/indexes/bm25.ts', 'Bm25Index'],
  ['lib/indexes/vector.ts', 'VectorIndex'],
  ['lib/models/cross-encoder.ts', 'CrossEncoder'],
  ['lib/models/embedder.ts', 'Embedder'],
  ['lib/retrieval/fusion.ts', 'fuse'],
  ['lib/retrieval/hybrid.ts', 'HybridRetriever'],
  ['lib/splitting/splitter.ts', 'HierarchicalSplitter'],
  ['lib/splitting/auto-merging.ts', 'AutoMergingRetriever'],
  ['lib/evaluate.ts', 'evaluate'],
]

/** The code of the `@example` in the doc comment right before `export class|function <name>`. */
function exampleOf(source, name) {
  const declaration = new RegExp(
    `\\n/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\nexport (?:async )?(?:class|function) ${name}\\b`,
  )
  const comment = declaration.exec(source)?.[1]
  const code = comment && /@example\s*\n\s*\* ```ts\n([\s\S]*?)\n\s*\* ```/.exec(comment)?.[1]
  return code?.replace(/^\s*\* ?/gm, '')
}

const HUB_MODELS = {
  "'sentence-transformers/all-MiniLM-L6-v2'": JSON.stringify(join(models, 'tiny-embedder')),
  "'cross-encoder/ms-marco-MiniLM-L6-v2'": JSON.stringify(join(models, 'tiny-cross-encoder')),
}

for (const [file, name] of EXAMPLES) {
  test(`the @example of ${name} (${file}) runs against dist/`, async (t) => {
    const code = exampleOf(await readFile(join(root, file), 'utf8'), name)
    t.truthy(code, `${file} has an @example on ${name}`)
    let program = code.replaceAll("from 'ragrank'", `from '${pathToFileURL(join(root, 'dist/esm/index.js'))}'`)
    for (const [id, path] of Object.entries(HUB_MODELS)) program = program.replaceAll(id, path)
    const dir = await mkdtemp(join(tmpdir(), 'ragrank-example-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const script = join(dir, 'example.mjs')
    await writeFile(script, `${givens}\n${program}\n`)
    // Offline: an unreplaced hub id fails instead of downloading; files it saves land in `dir`.
    await run(process.execPath, [script], { cwd: dir, env: { ...process.env, HF_HUB_OFFLINE: '1' }, timeout: 60_000 })
    t.pass()
  })
}

test('exampleOf finds the example of the named declaration only', (t) => {
  const source =
    '\n/**\n * A.\n *\n * @example\n * ```ts\n * a()\n * ```\n */\nexport class A {}\n/** B. */\nexport function B() {}\n'
  t.is(exampleOf(source, 'A'), 'a()')
  t.is(exampleOf(source, 'B'), undefined)
})
