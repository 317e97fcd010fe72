// The cost of a search call of each index, two builds of ragrank compared in one run: microseconds per query of
// the sync `search`, the awaited `searchAsync` (one caller, default coalescing) and `searchBatch`, for
// BM25 (Zipf documents; default 100k) and f32 vectors (random unit rows; default 100k x 384), top-10, each on an
// index without stored fields and on one where every hit carries a text and metadata, and with a metadata
// filter. It times the whole call from JavaScript: option checks, the crossing, the search and the hit objects.
//
// A build is a package root with `dist/` built and the addon beside it. Each round is one process that loads
// both builds, builds the same indexes with each, and times every case in laps that alternate the builds
// (A B A B ...), so load from other work on the machine falls on both; the rounds alternate which build goes
// first. Prints per case the median over all laps, the spread (the middle half of the laps) and the ratio B / A.
//
//   node bench/probes/search-ab.mjs A_ROOT B_ROOT [--rounds 3] [--laps 6] [--ms 250]
//        [--bm25-docs 100000] [--vec-docs 100000] [--dim 384]
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gc, machineInfo, mdTable, quantile } from '../lib/harness.mjs'
import { generateUnitVectors } from '../lib/vectors.mjs'
import { generateZipf } from '../lib/zipf.mjs'

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '3' },
    laps: { type: 'string', default: '6' },
    ms: { type: 'string', default: '250' },
    'bm25-docs': { type: 'string', default: '100000' },
    'vec-docs': { type: 'string', default: '100000' },
    dim: { type: 'string', default: '384' },
    child: { type: 'boolean', default: false },
  },
})

if (opt.child) await child(positionals.map((p) => path.resolve(p)))
else driver(positionals.map((p) => path.resolve(p)))

function driver(roots) {
  if (roots.length !== 2) throw new Error('usage: search-ab.mjs A_ROOT B_ROOT [--rounds N] ...')
  const passOn = ['laps', 'ms', 'bm25-docs', 'vec-docs', 'dim'].flatMap((k) => [`--${k}`, opt[k]])
  const laps = {}
  for (let r = 0; r < Number(opt.rounds); r++) {
    // The child's builds in the order given: odd rounds build and time B first.
    const order = r % 2 === 0 ? roots : [roots[1], roots[0]]
    const res = spawnSync(
      process.execPath,
      ['--expose-gc', fileURLToPath(import.meta.url), '--child', ...order, ...passOn],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    )
    if (res.status !== 0) throw new Error(`round ${r + 1} failed:\n${res.stderr}`)
    const got = JSON.parse(res.stdout.trim().split('\n').pop())
    for (const [name, [first, second]] of Object.entries(got)) {
      laps[name] ??= [[], []]
      const [a, b] = r % 2 === 0 ? [first, second] : [second, first]
      laps[name][0].push(...a)
      laps[name][1].push(...b)
    }
    process.stderr.write(`round ${r + 1} of ${opt.rounds} done\n`)
  }
  const m = machineInfo()
  console.log(
    `${m.cpu}, ${m.cores} cores, node ${m.node}; ${opt.rounds} rounds x ${opt.laps} laps of ${opt.ms} ms per build and case; µs per query`,
  )
  console.log(`A = ${roots[0]}\nB = ${roots[1]}\n`)
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
  const rows = Object.entries(laps).map(([name, [a, b]]) => {
    const [ma, mb] = [quantile(a, 0.5), quantile(b, 0.5)]
    const iqr = (xs) => `${f(quantile(xs, 0.25))}-${f(quantile(xs, 0.75))}`
    return [name, f(ma), iqr(a), f(mb), iqr(b), (mb / ma).toFixed(3)]
  })
  console.log(mdTable(['case', 'A median', 'A p25-p75', 'B median', 'B p25-p75', 'B / A'], rows))
}

async function child(roots) {
  const builds = []
  for (const root of roots) builds.push(await import(pathToFileURL(path.join(root, 'dist/esm/index.js')).href))
  const ms = Number(opt.ms)
  const out = {}

  /** µs per query of `call(build, i)` for each build, in laps of `ms` that alternate the builds. */
  async function time(name, calls, perCall = 1) {
    const laps = [[], []]
    for (let lap = 0; lap < Number(opt.laps); lap++) {
      for (let b = 0; b < 2; b++) {
        gc()
        let n = 0
        const t0 = performance.now()
        const end = t0 + ms
        while (performance.now() < end) {
          const r = calls[b](n++)
          if (r instanceof Promise) await r
        }
        laps[b].push(((performance.now() - t0) * 1000) / (n * perCall))
      }
    }
    out[name] = laps
  }

  const nDocs = Number(opt['bm25-docs'])
  const zipf = generateZipf({ nDocs, nQueries: 1000 })
  const tokens = zipf.queries.map((q) => zipf.queryTokens(q))
  const texts = tokens.map((t) => t.join(' '))
  const q = (i) => tokens[i % tokens.length]
  const qt = (i) => texts[i % texts.length]
  const plainDocs = Array.from({ length: nDocs }, (_, i) => ({ id: `d${i}`, tokens: zipf.docTokens(i) }))
  const fieldDocs = Array.from({ length: nDocs }, (_, i) => ({
    id: `d${i}`,
    text: zipf.docText(i),
    meta: { group: i % 10, source: 'zipf' },
  }))
  const bm25 = builds.map(({ Bm25Index }) => {
    const plain = new Bm25Index({ storeText: false })
    const fielded = new Bm25Index()
    plain.add(plainDocs)
    fielded.add(fieldDocs)
    return { plain, fielded }
  })
  await new Promise((r) => setTimeout(r, 1500)) // the background precompute of a quiet snapshot
  const each = (f) => bm25.map((x) => (i) => f(x, i))
  const batch = (pick, i, n) => Array.from({ length: n }, (_, k) => pick(i * n + k))
  const filter = { topK: 10, filter: { meta: { group: 3 } }, includeFields: false }
  await time(
    'bm25 search',
    each((x, i) => x.plain.search(q(i), { topK: 10 })),
  )
  await time(
    'bm25 search, fields',
    each((x, i) => x.fielded.search(qt(i), { topK: 10 })),
  )
  await time(
    'bm25 search, filter',
    each((x, i) => x.fielded.search(qt(i), filter)),
  )
  await time(
    'bm25 searchAsync',
    each((x, i) => x.plain.searchAsync(q(i), { topK: 10 })),
  )
  await time(
    'bm25 searchAsync, fields',
    each((x, i) => x.fielded.searchAsync(qt(i), { topK: 10 })),
  )
  await time(
    'bm25 searchBatch 64',
    each((x, i) => x.plain.searchBatch(batch(q, i, 64), { topK: 10 })),
    64,
  )
  await time(
    'bm25 searchBatch 64, fields',
    each((x, i) => x.fielded.searchBatch(batch(qt, i, 64), { topK: 10 })),
    64,
  )
  bm25.length = 0

  const rows = Number(opt['vec-docs'])
  const dim = Number(opt.dim)
  const data = generateUnitVectors(rows, dim, 7)
  const queries = generateUnitVectors(256, dim, 11)
  const ids = Array.from({ length: rows }, (_, i) => `v${i}`)
  const items = ids.map((id, i) => ({
    id,
    vector: data.subarray(i * dim, (i + 1) * dim),
    meta: { group: i % 10, source: 'random' },
    text: `passage ${i} of the random vectors`,
  }))
  const vec = builds.map(({ VectorIndex }) => {
    const plain = new VectorIndex({ dim })
    const fielded = new VectorIndex({ dim })
    plain.add(ids, data)
    fielded.add(items)
    return { plain, fielded }
  })
  const veach = (f) => vec.map((x) => (i) => f(x, i))
  const v = (i) => queries.subarray((i % 256) * dim, ((i % 256) + 1) * dim)
  const vb = (i, n) => queries.subarray(((i * n) % (256 - n)) * dim, (((i * n) % (256 - n)) + n) * dim)
  await time(
    'vector search',
    veach((x, i) => x.plain.search(v(i), { topK: 10 })),
  )
  await time(
    'vector search, fields',
    veach((x, i) => x.fielded.search(v(i), { topK: 10 })),
  )
  await time(
    'vector search, filter',
    veach((x, i) => x.fielded.search(v(i), filter)),
  )
  await time(
    'vector searchAsync',
    veach((x, i) => x.plain.searchAsync(v(i), { topK: 10 })),
  )
  await time(
    'vector searchAsync, fields',
    veach((x, i) => x.fielded.searchAsync(v(i), { topK: 10 })),
  )
  await time(
    'vector searchBatch 16',
    veach((x, i) => x.plain.searchBatch(vb(i, 16), { topK: 10 })),
    16,
  )
  await time(
    'vector searchBatch 16, fields',
    veach((x, i) => x.fielded.searchBatch(vb(i, 16), { topK: 10 })),
    16,
  )
  console.log(JSON.stringify(out))
  process.exit(0)
}
