// An index bound to a durable directory (docs/STORAGE.md), on a Zipf corpus: the cost of `durability: 'sync'`
// writes from 16 concurrent callers (with the log's fsync count: group commit shares them), a commit after one add
// (bytes written, time), opening the directory and answering a first query against `load` of the same index saved
// as one file, the proportional memory (PSS) of four reader processes on one directory against one reader, and
// opening a vector directory and its first exact query.
//
//   node bench/run.mjs --suite durability           1M documents, 1M x 384 vectors
//   node bench/run.mjs --suite durability --quick   50k of each
//
// Output: bench/results/durability.md and durability.json (a --quick run writes durability-quick.*).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { fmt, fmtBytes, isaLine, machineInfo, mdTable, now, summarize } from '../lib/harness.mjs'
import { distEntry } from '../lib/paths.mjs'
import { generateZipf } from '../lib/zipf.mjs'

const log = (s) => process.stderr.write(`[durability] ${s}\n`)
const CALLERS = 16
const REPEATS = 5
const READERS = 4
const DIM = 384

/** Bytes of the files in `dir` and their names. */
const files = (dir) => new Map(fs.readdirSync(dir).map((f) => [f, fs.statSync(path.join(dir, f)).size]))

/** Runs `source` (module code given `Bm25Index`) in a fresh Node process; resolves with its last JSON line. */
function child(source, { keep } = {}) {
  const proc = spawn(
    process.execPath,
    ['--input-type=module', '-e', `import { Bm25Index, VectorIndex } from '${pathToFileURL(distEntry)}'\n${source}`],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let out = ''
  const lines = []
  let wake = () => {}
  proc.stdout.on('data', (b) => {
    out += b
    const parts = out.split('\n')
    out = parts.pop()
    lines.push(...parts.filter(Boolean).map((l) => JSON.parse(l)))
    wake()
  })
  const next = async () => {
    while (lines.length === 0) {
      if (proc.exitCode !== null) throw new Error('child exited')
      await new Promise((r) => (wake = r))
    }
    return lines.shift()
  }
  if (keep) return { proc, next }
  return next().finally(() => proc.kill())
}

/** The summed PSS of a process, from /proc (kB there). */
const pssBytes = (pid) => {
  const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
  return m ? Number(m[1]) * 1024 : NaN
}

export async function runDurabilitySuite(opts = {}) {
  const { Bm25Index, VectorIndex } = await import(pathToFileURL(distEntry).href)
  const nDocs = opts.quick ? 50_000 : 1_000_000
  const nVectors = opts.quick ? 50_000 : 1_000_000
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ragrank-durability-'))
  const results = {}
  try {
    log(`corpus: zipf ${nDocs} documents`)
    const corpus = generateZipf({ nDocs })
    const docs = Array.from({ length: nDocs }, (_, i) => ({
      id: corpus.docId(i),
      text: corpus.docText(i),
      meta: { tenant: `t${i % 1000}` },
    }))
    const query = corpus.queryText(corpus.queries[0])

    // Sync writes from 16 concurrent callers (addAsync: each waits for its fsync on the pool).
    {
      const dir = path.join(root, 'sync')
      const index = await Bm25Index.open(dir, { durability: 'sync' })
      const perCaller = opts.quick ? 100 : 250
      const t0 = now()
      await Promise.all(
        Array.from({ length: CALLERS }, async (_, c) => {
          for (let k = 0; k < perCaller; k++) await index.addAsync([docs[c * perCaller + k]])
        }),
      )
      const seconds = now() - t0
      const adds = CALLERS * perCaller
      results.sync = { adds, seconds, addsPerSecond: adds / seconds, fsyncs: index.stats().logFsyncs }
      log(`sync: ${fmt(adds / seconds)} adds/s, ${results.sync.fsyncs} fsyncs for ${adds} adds`)
      await index.close()
    }

    // The index of nDocs documents, committed; then commits after one add.
    const dir = path.join(root, 'index')
    {
      const index = await Bm25Index.open(dir, { fields: { tenant: 'keyword' } })
      for (let i = 0; i < nDocs; i += 50_000) index.add(docs.slice(i, i + 50_000))
      await index.merge()
      const t0 = now()
      await index.commit()
      results.firstCommitSeconds = now() - t0
      const samples = []
      for (let r = 0; r < REPEATS; r++) {
        const before = files(dir)
        index.add([{ id: `extra${r}`, text: query, meta: { tenant: 't1' } }])
        const t = now()
        await index.commit()
        const ms = (now() - t) * 1000
        let written = 0
        for (const [f, size] of files(dir)) if (!before.has(f)) written += size
        samples.push({ ms, written })
      }
      results.commitAfterOneAdd = {
        ms: summarize(samples.map((s) => s.ms)),
        bytes: summarize(samples.map((s) => s.written)),
      }
      log(
        `commit after one add: ${fmt(results.commitAfterOneAdd.ms.median)} ms, ${fmtBytes(results.commitAfterOneAdd.bytes.median)}`,
      )
      await index.save(path.join(root, 'index.rgrk'))
      await index.close()
    }

    // Open + first query, in fresh processes, warm page cache; against load of the single file.
    const openSource = (how) => `
      const t0 = performance.now()
      const index = ${how}
      const hits = index.search(${JSON.stringify(query)}, { topK: 10 })
      console.log(JSON.stringify({ ms: performance.now() - t0, hits: hits.length }))`
    const timed = async (how) => {
      const ms = []
      for (let r = 0; r < REPEATS; r++) ms.push((await child(openSource(how))).ms)
      return summarize(ms)
    }
    results.openFirstQuery = await timed(`await Bm25Index.open(${JSON.stringify(dir)}, { readOnly: true })`)
    results.loadFirstQuery = await timed(`await Bm25Index.load(${JSON.stringify(path.join(root, 'index.rgrk'))})`)
    log(`open + first query ${fmt(results.openFirstQuery.median)} ms, load ${fmt(results.loadFirstQuery.median)} ms`)

    // PSS: one reader alone, then four at once, each after the same queries (a server's readers touch the
    // postings their queries need; PSS counts the pages touched). Bare Node processes (ragrank imported, no
    // index) are measured the same way: their runtime is private to each process whatever the index does.
    const queries = JSON.stringify(corpus.queries.slice(0, 200).map((q) => corpus.queryText(q)))
    const reader = (withIndex) =>
      child(
        withIndex
          ? `const index = await Bm25Index.open(${JSON.stringify(dir)}, { readOnly: true })
             for (const q of ${queries}) index.search(q, { topK: 10 })
             console.log(JSON.stringify({ ready: true }))
             setInterval(() => {}, 1000)`
          : `console.log(JSON.stringify({ ready: true }))
             setInterval(() => {}, 1000)`,
        { keep: true },
      )
    const measure = async (n, withIndex = true) => {
      const readers = Array.from({ length: n }, () => reader(withIndex))
      await Promise.all(readers.map((r) => r.next()))
      await new Promise((r) => setTimeout(r, 500))
      const pss = readers.map((r) => pssBytes(r.proc.pid))
      for (const r of readers) r.proc.kill()
      return pss.reduce((a, b) => a + b, 0)
    }
    const one = await measure(1)
    const four = await measure(READERS)
    const bareOne = await measure(1, false)
    const bareFour = await measure(READERS, false)
    results.pss = { one, four, ratio: four / one, bareOne, bareFour, indexRatio: (four - bareFour) / (one - bareOne) }
    log(
      `PSS: one reader ${fmtBytes(one)}, four ${fmtBytes(four)} (${fmt(four / one)}x); bare Node ${fmtBytes(bareOne)}, four ${fmtBytes(bareFour)}; the index's part ${fmt(results.pss.indexRatio)}x`,
    )

    // A vector directory of nVectors x 384 f32 (pseudo-random unit rows), committed; then open and the first
    // exact query in fresh processes, the open timed apart from the query (the query scans every row).
    const vdir = path.join(root, 'vectors')
    {
      const index = await VectorIndex.open(vdir, { dim: DIM })
      let seed = 12345
      const rand = () => {
        seed = (seed * 1664525 + 1013904223) >>> 0
        return seed / 2 ** 32 - 0.5
      }
      const batch = 50_000
      for (let i = 0; i < nVectors; i += batch) {
        const n = Math.min(batch, nVectors - i)
        const rows = new Float32Array(n * DIM).map(rand)
        index.add(
          Array.from({ length: n }, (_, j) => `v${i + j}`),
          rows,
        )
      }
      await index.commit()
      await index.close()
    }
    const vectorQuery = JSON.stringify(Array.from({ length: DIM }, (_, i) => Math.sin(i)))
    const vectorOpen = []
    const vectorQueryMs = []
    for (let r = 0; r < REPEATS; r++) {
      const out = await child(`
        const t0 = performance.now()
        const index = await VectorIndex.open(${JSON.stringify(vdir)}, { readOnly: true })
        const t1 = performance.now()
        const hits = index.search(${vectorQuery}, { topK: 10 })
        const t2 = performance.now()
        const again = index.search(${vectorQuery}, { topK: 10 })
        console.log(JSON.stringify({ open: t1 - t0, first: t2 - t1, second: performance.now() - t2, hits: hits.length + again.length }))`)
      vectorOpen.push(out.open)
      vectorQueryMs.push({ first: out.first, second: out.second })
    }
    results.vectorOpen = summarize(vectorOpen)
    results.vectorFirstQuery = summarize(vectorQueryMs.map((q) => q.first))
    results.vectorSecondQuery = summarize(vectorQueryMs.map((q) => q.second))
    log(
      `vectors: open ${fmt(results.vectorOpen.median)} ms, first query ${fmt(results.vectorFirstQuery.median)} ms, second ${fmt(results.vectorSecondQuery.median)} ms`,
    )
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }

  const m = machineInfo()
  const c = results.commitAfterOneAdd
  const spread = (s, f = fmt) => `${f(s.median)} (${f(s.min)}-${f(s.max)})`
  const markdown = `# Durable directory (${nDocs.toLocaleString('en')} Zipf documents)

Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}; ${isaLine(m.isa)}.
Command: \`node bench/run.mjs --suite durability${opts.quick ? ' --quick' : ''}\`. Medians of ${REPEATS} (min-max).

${mdTable(
  ['measure', 'result', 'target'],
  [
    [
      `\`durability: 'sync'\`, ${CALLERS} concurrent callers (\`addAsync\`, one document each)`,
      `${fmt(results.sync.addsPerSecond)} adds/s; ${results.sync.fsyncs} fsyncs for ${results.sync.adds} adds`,
      '>= 1,000 adds/s',
    ],
    ['commit after one add', `${spread(c.ms)} ms, ${spread(c.bytes, fmtBytes)} written`, '<= 10 ms, <= 1 MiB'],
    ['first commit of the whole index', `${fmt(results.firstCommitSeconds)} s`, ''],
    ['open (reader) + first query, fresh process', `${spread(results.openFirstQuery)} ms`, '<= 50 ms at 1M'],
    ['`load` of the same index as one file + first query', `${spread(results.loadFirstQuery)} ms`, ''],
    [
      `vector directory ${nVectors.toLocaleString('en')} x ${DIM} f32: open (reader), fresh process`,
      `${spread(results.vectorOpen)} ms`,
      '<= 50 ms at 1M (open + first query)',
    ],
    [
      'its first exact query (a scan of every row), then the second',
      `${spread(results.vectorFirstQuery)} ms, then ${spread(results.vectorSecondQuery)} ms`,
      '',
    ],
    [
      `PSS of ${READERS} reader processes / one reader's (each after the same 200 queries)`,
      `${fmtBytes(results.pss.four)} / ${fmtBytes(results.pss.one)} = ${fmt(results.pss.ratio)}x`,
      '<= 1.5x',
    ],
    [
      'the same less bare Node processes (ragrank imported, no index)',
      `(${fmtBytes(results.pss.four)} - ${fmtBytes(results.pss.bareFour)}) / (${fmtBytes(results.pss.one)} - ${fmtBytes(results.pss.bareOne)}) = ${fmt(results.pss.indexRatio)}x`,
      '',
    ],
  ],
)}
`
  const outDir = opts.outDir
  fs.mkdirSync(outDir, { recursive: true })
  const suffix = opts.quick ? '-quick' : ''
  fs.writeFileSync(path.join(outDir, `durability${suffix}.md`), markdown)
  fs.writeFileSync(
    path.join(outDir, `durability${suffix}.json`),
    `${JSON.stringify({ machine: m, nDocs, results }, null, 1)}\n`,
  )
  return { markdown }
}
