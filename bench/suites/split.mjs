// `split` suite: hierarchical splitting of the BBC News collection (2,225 articles, ~5 MB).
//
// Side by side in one run: ragrank's HierarchicalSplitter (split on the main thread, and splitAsync on the
// libuv pool), Haystack's HierarchicalDocumentSplitter (Python subprocess, .venv-py: npm run
// setup:py) and LangChain.js's RecursiveCharacterTextSplitter applied level by
// level (character sizes of ~6 characters per word: a throughput reference only, its chunks differ).
// For every configuration Haystack runs, the run checks that ragrank's tree is identical (a digest over each
// node's text, level, block size and parent position, computed the same way on both sides).
// Output: bench/results/split.md and split.json (split-quick.* for --quick).
import fs from 'node:fs'
import { createHash } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'

import { HierarchicalSplitter } from '../../dist/esm/index.js'
import { dataRoot } from '../lib/datasets.mjs'
import { pyScript, repoRoot, venvPython } from '../lib/paths.mjs'
import {
  isaLine,
  fmt,
  fmtRatio,
  fmtSeconds,
  fmtSpread,
  gc,
  lastJsonLine,
  machineInfo,
  mdTable,
  now,
  runCommand,
  summarize,
} from '../lib/harness.mjs'

const log = (m) => process.stderr.write(`${m}\n`)
const HAYSTACK_PY = process.env.RAGRANK_HAYSTACK_PYTHON ?? venvPython('.venv-py')
const HAYSTACK_RUNNER = pyScript('haystack_split.py')
const TARGET = 50

const CONFIGS = [
  {
    name: 'word {512,128,32}',
    splitBy: 'word',
    blockSizes: [512, 128, 32],
    overlap: 0,
    haystack: true,
    langchain: [3072, 768, 192],
  },
  { name: 'word {512,128,32}, overlap 8', splitBy: 'word', blockSizes: [512, 128, 32], overlap: 8, haystack: true },
  { name: 'passage {4,2,1}', splitBy: 'passage', blockSizes: [4, 2, 1], overlap: 0, haystack: true },
  // Haystack's sentence mode needs NLTK's punkt_tab (a download); ragrank's sentences are UAX #29 and differ.
  { name: 'sentence {8,4,1}', splitBy: 'sentence', blockSizes: [8, 4, 1], overlap: 0, haystack: false },
]

/** BBC articles as { id: 'category/NNN.txt', text }; one file is latin-1, decoded as such. */
export function loadBbc() {
  const root = path.join(dataRoot(), 'splitting', 'bbc')
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const docs = []
  for (const cat of fs.readdirSync(root).sort()) {
    const dir = path.join(root, cat)
    if (!fs.statSync(dir).isDirectory()) continue
    for (const f of fs.readdirSync(dir).sort()) {
      const buf = fs.readFileSync(path.join(dir, f))
      let text
      try {
        text = utf8.decode(buf)
      } catch {
        text = buf.toString('latin1')
      }
      docs.push({ id: `${cat}/${f}`, text })
    }
  }
  return docs
}

/** Same digest as bench/py/haystack_split.py. */
function digest(nodes) {
  const position = new Map(nodes.map((n, i) => [n.id, i]))
  const h = createHash('sha256')
  for (const n of nodes) {
    h.update(n.text, 'utf8')
    h.update(`\0${n.level}\0${n.blockSize}\0${n.parentId === null ? -1 : position.get(n.parentId)}\n`, 'utf8')
  }
  return h.digest('hex')
}

async function timeIt(fn, repeats) {
  await fn() // warm-up
  const seconds = []
  for (let r = 0; r < repeats; r++) {
    gc()
    const t0 = now()
    await fn()
    seconds.push(now() - t0)
  }
  return seconds
}

async function runHaystack(docs, cfg, repeats) {
  if (!fs.existsSync(HAYSTACK_PY)) return { skipped: `no ${path.relative(repoRoot, HAYSTACK_PY)}` }
  const input = JSON.stringify({
    docs,
    blockSizes: cfg.blockSizes,
    splitBy: cfg.splitBy,
    overlap: cfg.overlap,
    repeats,
  })
  const res = await runCommand(HAYSTACK_PY, [HAYSTACK_RUNNER], { input })
  if (res.code !== 0) return { skipped: `haystack failed: ${res.stderr.trim().split('\n').at(-1)}` }
  return lastJsonLine(res.stdout)
}

async function langchainLevels(sizes) {
  const { RecursiveCharacterTextSplitter } = await import('@langchain/textsplitters')
  const splitters = sizes.map((chunkSize) => new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap: 0 }))
  return async (docs) => {
    let nodes = 0
    for (const d of docs) {
      let level = [d.text]
      for (const s of splitters) {
        const next = []
        for (const t of level) next.push(...(await s.splitText(t)))
        nodes += next.length
        level = next
      }
    }
    return nodes
  }
}

export async function runSplitSuite({ quick = false, python = true, outDir, repeats } = {}) {
  const all = loadBbc()
  const docs = quick ? all.slice(0, 300) : all
  const chars = docs.reduce((a, d) => a + d.text.length, 0)
  const R = repeats ?? (quick ? 2 : 7)
  const RH = quick ? 1 : 3
  log(
    `BBC: ${docs.length} documents, ${fmt(chars / 1e6)} M characters; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const loadBefore = os.loadavg()
  const results = []
  for (const cfg of CONFIGS) {
    const splitter = new HierarchicalSplitter(cfg)
    const row = { config: cfg.name, engines: {} }
    log(`  ${cfg.name}: ragrank split x${R}`)
    // Timed runs drop their result, as the async ones do; the digest comes from one more, untimed run.
    const sync = await timeIt(() => {
      splitter.split(docs)
    }, R)
    let nodes = splitter.split(docs)
    row.engines.ragrank = { seconds: sync, nodes: nodes.length }
    row.ragrankDigest = digest(nodes)
    nodes = null
    log(`  ${cfg.name}: ragrank splitAsync x${R}`)
    const asyncSec = await timeIt(async () => {
      await splitter.splitAsync(docs)
    }, R)
    row.engines['ragrank async'] = { seconds: asyncSec }
    if (cfg.haystack && python) {
      log(`  ${cfg.name}: haystack x${RH}`)
      const h = await runHaystack(docs, cfg, RH)
      if (h.skipped) log(`    skipped: ${h.skipped}`)
      else {
        row.engines.haystack = { seconds: h.seconds, nodes: h.nodes, version: h.haystack }
        row.identical = h.digest === row.ragrankDigest && h.nodes === row.engines.ragrank.nodes
        log(`    identical trees: ${row.identical}`)
      }
    }
    if (cfg.langchain) {
      log(`  ${cfg.name}: langchain x${R}`)
      const run = await langchainLevels(cfg.langchain)
      let n = 0
      const sec = await timeIt(async () => {
        n = await run(docs)
      }, R)
      row.engines['langchain (chars)'] = { seconds: sec, nodes: n + docs.length }
    }
    for (const e of Object.values(row.engines)) {
      e.summary = summarize(e.seconds)
      e.docsPerSecond = summarize(e.seconds.map((s) => docs.length / s))
    }
    const hs = row.engines.haystack
    if (hs) row.speedup = hs.summary.median / row.engines.ragrank.summary.median
    results.push(row)
  }
  const loadAfter = os.loadavg()
  const rows = []
  for (const r of results) {
    for (const [engine, e] of Object.entries(r.engines)) {
      const vsHaystack = r.engines.haystack ? r.engines.haystack.summary.median / e.summary.median : undefined
      rows.push([
        r.config,
        engine,
        fmtSeconds(e.summary.median),
        fmtSpread(e.docsPerSecond),
        fmt(chars / e.summary.median / 1e6),
        e.nodes ?? '',
        engine === 'haystack' || vsHaystack === undefined
          ? ''
          : fmtRatio(vsHaystack, engine === 'ragrank' ? TARGET : undefined),
        engine === 'ragrank' && r.identical !== undefined ? (r.identical ? 'yes' : 'NO') : '',
      ])
    }
  }
  const m = machineInfo()
  const markdown = [
    `# Hierarchical splitting: BBC News (${docs.length} articles, ${fmt(chars / 1e6)} M characters)${quick ? ' (quick)' : ''}`,
    '',
    `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${isaLine(m.isa)}; ${new Date().toISOString()}. Load average (1/5/15 min) before ${loadBefore
      .map((l) => l.toFixed(2))
      .join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}.`,
    `Median wall time over ${R} runs (Haystack ${RH}) of splitting the whole collection, after one warm-up run; docs/s as median (min–max).`,
    'ragrank times include building the JS node objects. "identical" compares the whole tree with Haystack (text, level, block size, parent of every node).',
    'LangChain: RecursiveCharacterTextSplitter level by level at 3072/768/192 characters; other chunks, throughput reference only.',
    '',
    mdTable(['config', 'engine', 'time', 'docs/s', 'M chars/s', 'nodes', 'vs Haystack', 'identical'], rows, 'llrrrrrl'),
    '',
  ].join('\n')
  fs.mkdirSync(outDir, { recursive: true })
  const suffix = quick ? '-quick' : ''
  fs.writeFileSync(path.join(outDir, `split${suffix}.md`), markdown)
  const data = { machine: m, loadBefore, loadAfter, docs: docs.length, chars, repeats: R, haystackRepeats: RH, results }
  fs.writeFileSync(path.join(outDir, `split${suffix}.json`), `${JSON.stringify(data, null, 1)}\n`)
  return { markdown, data }
}
