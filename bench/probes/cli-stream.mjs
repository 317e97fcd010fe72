// Peak memory of `ragrank split` (or `index`) on a corpus of a few hundred MB: the CLI streams its input and output,
// so the peak resident set should stay far below the corpus size. A probe, not a test: it writes the corpus to a temp
// dir and takes minutes. Measured on the 2-core dev machine, 401 MB corpus, default block sizes 512,128,32:
//   before streaming: JavaScript heap out of memory after 124 s, max RSS 4.87 GB (/usr/bin/time -v)
//   streaming:        exit 0 in 42 s, peak RSS 286 MB (0.71x the corpus; ~180 MB of it is the process at rest)
//
//   node bench/probes/cli-stream.mjs [sizeMB=400] [command=split|index] [dir=<new temp dir>]
//
// Prints the corpus size, the wall time, the exit status and the child's peak RSS, measured by the child itself
// (process.resourceUsage().maxRSS at exit, loaded with --import so the CLI is run unchanged).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const sizeMB = Number(process.argv[2] ?? 400)
const command = process.argv[3] ?? 'split'
const dir = process.argv[4] ?? mkdtempSync(join(tmpdir(), 'ragrank-cli-stream-'))
if (!(sizeMB > 0) || !['split', 'index'].includes(command)) {
  console.error('usage: node bench/probes/cli-stream.mjs [sizeMB=400] [split|index] [dir]')
  process.exit(2)
}

/** A JSONL corpus of about `bytes`, ~1 KB documents of words drawn from a 5,000-word vocabulary (seeded, repeatable). */
async function writeCorpus(file, bytes) {
  const out = createWriteStream(file)
  let seed = 42
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`)
  let written = 0
  let id = 0
  while (written < bytes) {
    let chunk = ''
    for (let k = 0; k < 1000; k++) {
      const words = Array.from({ length: 180 }, () => vocab[Math.floor(rand() ** 2 * vocab.length)])
      // Sentences of 12 words, so sentence- and word-based splitting both have boundaries to find.
      const text = words.map((w, i) => (i % 12 === 11 ? `${w}.` : w)).join(' ')
      chunk += `${JSON.stringify({ id: `d${id++}`, text })}\n`
    }
    written += Buffer.byteLength(chunk)
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'close')
  return id
}

const corpus = join(dir, 'corpus.jsonl')
if (!existsSync(corpus) || statSync(corpus).size < sizeMB * 1e6 * 0.99) {
  console.error(`writing a ${sizeMB} MB corpus to ${corpus} ...`)
  await writeCorpus(corpus, sizeMB * 1e6)
}
const bytes = statSync(corpus).size

// The child reports its own peak RSS on exit, to fd 3, so the CLI's stdout and stderr stay its own.
const report =
  'import{writeSync}from"node:fs";process.on("exit",()=>writeSync(3,String(process.resourceUsage().maxRSS)))'
const hook = `data:text/javascript,${encodeURIComponent(report)}`
const args =
  command === 'split'
    ? ['split', corpus, '-o', '-'] // the nodes (several times the corpus) go to /dev/null through the streamed stdout
    : ['index', corpus, '-o', join(dir, 'corpus.idx'), '--no-progress']
const t0 = performance.now()
const child = spawn(process.execPath, ['--import', hook, join(root, 'bin/ragrank.mjs'), ...args], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
})
let stderr = ''
let maxRSS = ''
child.stderr.on('data', (d) => (stderr += d))
child.stdio[3].on('data', (d) => (maxRSS += d))
const [status] = await once(child, 'exit')
const seconds = (performance.now() - t0) / 1000
if (command === 'index') rmSync(join(dir, 'corpus.idx'), { force: true })
const mb = (n) => `${(n / 1e6).toFixed(0)} MB`
console.log(
  JSON.stringify({
    command: `ragrank ${args.join(' ')}`,
    corpus: mb(bytes),
    status,
    seconds: Number(seconds.toFixed(1)),
    peakRSS: mb(Number(maxRSS) * 1024),
    peakRSSOverCorpus: Number(((Number(maxRSS) * 1024) / bytes).toFixed(2)),
  }),
)
if (status !== 0) console.error(stderr.slice(-2000))
console.error(`corpus kept in ${dir} (remove it when done)`)
