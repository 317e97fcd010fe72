// The README's main example is the first thing a user pastes: it must run as printed. The block
// is taken from README.md, its import is pointed at dist/ and its two hub models at the tiny test
// models (random weights: the order of the hits is not checked, their shape and text are).
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

/** The fenced block right after the `readme-example` marker. */
function mainExample(readme) {
  const m = /<!-- readme-example[^>]*-->\n```js\n([\s\S]*?)\n```/.exec(readme)
  return m?.[1]
}

/** Replaces `from` once, failing loudly when the README no longer says it (the test would drift). */
function replaceOnce(t, source, from, to) {
  const parts = source.split(from)
  t.is(parts.length, 2, `the README example should contain ${from} exactly once`)
  return parts.join(to)
}

test('the README main example runs against dist/ and prints the top 2 reranked hits with their text', async (t) => {
  const example = mainExample(await readFile(join(root, 'README.md'), 'utf8'))
  t.truthy(example, 'README.md has a js block after <!-- readme-example -->')
  t.true(example.split('\n').length <= 30, 'the main example stays within 30 lines')

  let source = replaceOnce(t, example, "from 'ragrank'", `from '${pathToFileURL(join(root, 'dist/esm/index.js'))}'`)
  source = replaceOnce(
    t,
    source,
    "'sentence-transformers/all-MiniLM-L6-v2'",
    JSON.stringify(join(models, 'tiny-embedder')),
  )
  source = replaceOnce(
    t,
    source,
    "'cross-encoder/ms-marco-MiniLM-L6-v2'",
    JSON.stringify(join(models, 'tiny-cross-encoder')),
  )

  const dir = await mkdtemp(join(tmpdir(), 'ragrank-readme-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'example.mjs')
  await writeFile(file, source)
  // Offline: a model id left unreplaced must fail here, never download.
  const { stdout } = await run(process.execPath, [file], {
    cwd: dir,
    env: { ...process.env, HF_HUB_OFFLINE: '1' },
    timeout: 60_000,
  })

  const docs = new Map([...example.matchAll(/\{ id: '([^']+)', text: '([^']+)' \}/g)].map((m) => [m[1], m[2]]))
  t.is(docs.size, 5)
  const lines = stdout.trim().split('\n')
  t.is(lines.length, 2, stdout)
  const hits = lines.map((line) => {
    const m = /^(\S+) (-?\d+\.\d{3}) (.+)$/.exec(line)
    t.truthy(m, line)
    return { id: m[1], score: Number(m[2]), text: m[3] }
  })
  for (const hit of hits) t.is(hit.text, docs.get(hit.id), `hit ${hit.id} carries its document's text`)
  t.not(hits[0].id, hits[1].id)
  t.true(hits[0].score >= hits[1].score, 'best first')
})
