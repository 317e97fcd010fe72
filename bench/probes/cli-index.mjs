// `ragrank index` against one API `add` of the same documents (issue 17 target: the CLI within 1.2x at 400k).
// Writes a synthetic Zipf corpus as JSONL once, then per round times, each in a fresh process:
//   cli       node bin/ragrank.mjs index corpus.jsonl -o out.idx   (wall clock: read, parse, index, save)
//   api-add   one `index.add(all)` in a process that has read the same JSONL (the add alone)
//   api-async one `await index.addAsync(all)` (the add plus the impact build)
//   build     the CLI's chunked `buildBm25` in-process (the CLI's indexing step alone, same measure as api-add)
// and prints the median of the rounds and the spread (min..max) for each.
//
//   node bench/probes/cli-index.mjs [nDocs=400000] [rounds=3] [dir=/tmp/ragrank-cli-index]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateZipf } from '../lib/zipf.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const [nDocs = 400_000, rounds = 3] = process.argv.slice(2, 4).map(Number)
const dir = process.argv[4] ?? '/tmp/ragrank-cli-index'

if (process.env.CLI_INDEX_CHILD) {
  // Child: time one step on the JSONL the CLI reads, after parsing it the same way.
  const { Bm25Index } = await import('ragrank')
  const { readDocuments } = await import('../../cli/readers.mjs')
  const { buildBm25, bm25Options } = await import('../../cli/pipeline.mjs')
  const docs = readDocuments(join(dir, 'corpus.jsonl'), {})
  const mode = process.env.CLI_INDEX_CHILD
  const t0 = performance.now()
  if (mode === 'api-add') new Bm25Index(bm25Options()).add(docs)
  else if (mode === 'api-async') await new Bm25Index(bm25Options()).addAsync(docs)
  else await buildBm25(docs, bm25Options())
  process.stdout.write(String((performance.now() - t0) / 1000))
  process.exit(0)
}

mkdirSync(dir, { recursive: true })
const corpus = join(dir, 'corpus.jsonl')
if (!existsSync(corpus) || process.env.REGENERATE) {
  const z = generateZipf({ nDocs })
  const lines = []
  for (let i = 0; i < nDocs; i++) lines.push(JSON.stringify({ id: z.docId(i), text: z.docText(i) }))
  writeFileSync(corpus, `${lines.join('\n')}\n`)
}

function run(mode) {
  const t0 = performance.now()
  const r = mode === 'cli'
    ? spawnSync(process.execPath, [join(root, 'bin/ragrank.mjs'), 'index', corpus, '-o', join(dir, 'out.idx')], { cwd: root, encoding: 'utf8' })
    : spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(nDocs), String(rounds), dir], { cwd: root, encoding: 'utf8', env: { ...process.env, CLI_INDEX_CHILD: mode } })
  if (r.status !== 0) throw new Error(`${mode} failed: ${r.stderr}`)
  return mode === 'cli' ? (performance.now() - t0) / 1000 : Number(r.stdout)
}

const modes = ['cli', 'api-add', 'api-async', 'build']
const times = Object.fromEntries(modes.map((m) => [m, []]))
for (let i = 0; i < rounds; i++) for (const m of modes) times[m].push(run(m))
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
console.log(`${nDocs} documents, ${rounds} rounds, ${cpus()[0].model}, ${cpus().length} cores`)
for (const m of modes) {
  const xs = times[m]
  console.log(`${m.padEnd(10)} median ${median(xs).toFixed(2)} s  (${Math.min(...xs).toFixed(2)}..${Math.max(...xs).toFixed(2)})`)
}
console.log(`build / api-add ${(median(times.build) / median(times['api-add'])).toFixed(2)}x`)
