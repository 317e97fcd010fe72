// `ragrank index` against one API `add` of the same documents (issue 17 target: the CLI within 1.2x at 400k).
// Writes a synthetic Zipf corpus as JSONL once, then per round times, each in a fresh process:
//   cli       node bin/ragrank.mjs index corpus.jsonl -o out.idx   (wall clock: read, parse, index, save)
//   api-add   one `index.add(all)` in a process that has read the same JSONL (the add alone)
//   api-async one `await index.addAsync(all)` (the add plus the impact build)
//   api-e2e   read the JSONL, one `add`, `save`: what the CLI does, through the API (the fair end-to-end peer of cli)
//   build     the CLI's chunked `buildBm25` in-process (the CLI's indexing step alone, same measure as api-add)
// and prints the median of the rounds and the spread (min..max) for each, as wall clock and (for the in-process
// steps) CPU time, which a machine shared with other work disturbs less.
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
  const mode = process.env.CLI_INDEX_CHILD
  // api-e2e times the read too; the other modes only their step.
  let c0 = process.cpuUsage()
  let t0 = performance.now()
  const docs = await readDocuments(join(dir, 'corpus.jsonl'), {})
  if (mode !== 'api-e2e') [c0, t0] = [process.cpuUsage(), performance.now()]
  if (mode === 'api-e2e') {
    const index = new Bm25Index(bm25Options())
    index.add(docs)
    await index.save(join(dir, 'api.idx'))
  } else if (mode === 'api-add') new Bm25Index(bm25Options()).add(docs)
  else if (mode === 'api-async') await new Bm25Index(bm25Options()).addAsync(docs)
  else await buildBm25(docs, bm25Options())
  const cpu = process.cpuUsage(c0)
  process.stdout.write(JSON.stringify({ wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 }))
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
  const r =
    mode === 'cli'
      ? spawnSync(process.execPath, [join(root, 'bin/ragrank.mjs'), 'index', corpus, '-o', join(dir, 'out.idx')], {
          cwd: root,
          encoding: 'utf8',
        })
      : spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(nDocs), String(rounds), dir], {
          cwd: root,
          encoding: 'utf8',
          env: { ...process.env, CLI_INDEX_CHILD: mode },
        })
  if (r.status !== 0) throw new Error(`${mode} failed: ${r.stderr}`)
  return mode === 'cli' ? { wall: (performance.now() - t0) / 1000, cpu: NaN } : JSON.parse(r.stdout)
}

const modes = ['cli', 'api-e2e', 'api-add', 'api-async', 'build']
const times = Object.fromEntries(modes.map((m) => [m, []]))
for (let i = 0; i < rounds; i++) for (const m of modes) times[m].push(run(m))
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
console.log(`${nDocs} documents, ${rounds} rounds, ${cpus()[0].model}, ${cpus().length} cores`)
const summary = (xs) =>
  `median ${median(xs).toFixed(2)} s (${Math.min(...xs).toFixed(2)}..${Math.max(...xs).toFixed(2)})`
for (const m of modes) {
  const cpu = times[m].map((x) => x.cpu)
  console.log(
    `${m.padEnd(10)} wall ${summary(times[m].map((x) => x.wall))}${m === 'cli' ? '' : `  cpu ${summary(cpu)}`}`,
  )
}
const ratio = (k) => (median(times.build.map((x) => x[k])) / median(times['api-add'].map((x) => x[k]))).toFixed(2)
console.log(`build / api-add: wall ${ratio('wall')}x, cpu ${ratio('cpu')}x`)
const e2e = (median(times.cli.map((x) => x.wall)) / median(times['api-e2e'].map((x) => x.wall))).toFixed(2)
console.log(`cli / api-e2e: wall ${e2e}x (the CLI adds process start-up and its argument handling)`)
