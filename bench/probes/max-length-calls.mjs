// What a per-call `maxLength` costs an encoder with a large vocabulary, two builds of ragrank compared: the
// resident memory an Embedder adds at load (the tokenizer copies it keeps), and milliseconds per `embed` of one
// short text at the load's length and at a shorter per-call `maxLength` (64, then 128, alternating: a build that
// caches per length is not flattered by one length). The model (bench/models/make_wide_vocab.py) has a
// 250,002-piece WordPiece vocabulary, XLM-RoBERTa's size, and a graph that is one embedding lookup, so what is
// timed is the tokenizer's part. Each build runs in its own process, one after the other, `--rounds` times.
//
//   .venv-py/bin/python bench/models/make_wide_vocab.py
//   node bench/probes/max-length-calls.mjs A_ROOT B_ROOT [--rounds 3] [--calls 40]
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { machineInfo, mdTable, quantile } from '../lib/harness.mjs'
import { modelsDir } from '../lib/paths.mjs'

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '3' },
    calls: { type: 'string', default: '40' },
    child: { type: 'boolean', default: false },
  },
})
const MODEL = path.join(modelsDir, 'wide-vocab-embedder')

if (opt.child) await child(path.resolve(positionals[0]))
else driver(positionals.map((p) => path.resolve(p)))

function driver(roots) {
  if (roots.length !== 2) throw new Error('usage: max-length-calls.mjs A_ROOT B_ROOT [--rounds N] [--calls N]')
  const runs = roots.map(() => ({ loadMiB: [], full: [], short: [] }))
  for (let r = 0; r < Number(opt.rounds); r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const res = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), '--child', roots[i], '--calls', opt.calls],
        { encoding: 'utf8' },
      )
      if (res.status !== 0) throw new Error(`${roots[i]} failed:\n${res.stderr}`)
      const got = JSON.parse(res.stdout.trim().split('\n').pop())
      runs[i].loadMiB.push(got.loadMiB)
      runs[i].full.push(...got.full)
      runs[i].short.push(...got.short)
    }
  }
  const m = machineInfo()
  console.log(`${m.cpu}, ${m.cores} cores, node ${m.node}; ${opt.rounds} rounds x ${opt.calls} calls per case`)
  console.log(`A = ${roots[0]}\nB = ${roots[1]}\n`)
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
  const row = (name, a, b) => {
    const [ma, mb] = [quantile(a, 0.5), quantile(b, 0.5)]
    const iqr = (xs) => `${f(quantile(xs, 0.25))}-${f(quantile(xs, 0.75))}`
    return [name, f(ma), iqr(a), f(mb), iqr(b), (mb / ma).toFixed(3)]
  }
  const [a, b] = runs
  console.log(
    mdTable(
      ['case', 'A median', 'A p25-p75', 'B median', 'B p25-p75', 'B / A'],
      [
        row('RSS added by the load, MiB', a.loadMiB, b.loadMiB),
        row('embed, load length (ms)', a.full, b.full),
        row('embed, per-call maxLength (ms)', a.short, b.short),
      ],
    ),
  )
}

async function child(root) {
  const { Embedder } = await import(pathToFileURL(path.join(root, 'dist/esm/index.js')).href)
  const rss = () => process.memoryUsage().rss / 2 ** 20
  const before = rss()
  const em = await Embedder.load(MODEL, { threads: 1 })
  const loadMiB = rss() - before
  const text = ['a short passage about retrieval']
  const time = async (options) => {
    const t = performance.now()
    await em.embed(text, options)
    return performance.now() - t
  }
  for (let i = 0; i < 3; i++) await time({})
  const full = []
  const short = []
  for (let i = 0; i < Number(opt.calls); i++) {
    full.push(await time({}))
    short.push(await time({ maxLength: i % 2 === 0 ? 64 : 128 }))
  }
  console.log(JSON.stringify({ loadMiB, full, short }))
}
