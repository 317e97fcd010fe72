// Markdown of the server benchmark: a table per endpoint, the per-call vector baseline, the large-index
// probe, and the targets, each marked met or not from the numbers of the run.
import { fmt, fmtBytes, mdTable } from '../lib/harness.mjs'

export const STACK_LABELS = {
  ragrank: 'ragrank',
  'ragrank-per-call': 'ragrank, one searchBatch per query',
  'ragrank-workers': 'ragrank, 2 workers on an index directory (1 writer, 1 reader)',
  js: 'MiniSearch + JS cosine + transformers.js',
  orama: 'Orama (+ transformers.js rerank)',
}
const PEERS = ['js', 'orama']
const mark = (ok) => (ok === null ? '–' : ok ? '✓ met' : '✗ not met')
const ms = (x) => (x === Infinity ? '∞' : Number.isFinite(x) ? fmt(x) : '–')

/** Event-loop p99 and max, unless the metrics window missed most of the run (the reset waited on a blocked loop). */
const loopColumns = (c) =>
  c.metricsSeconds !== undefined && c.metricsSeconds < c.window / 2
    ? [`– (${fmt(c.metricsSeconds)} s)`, ms(c.loopMax)]
    : [ms(c.loopP99), ms(c.loopMax)]

function cellRow(c) {
  return [
    STACK_LABELS[c.stack] ?? c.stack,
    c.writer ? 'yes' : 'no',
    c.concurrency,
    c.window && c.window > c.baseWindow ? `${fmt(c.rps)} (${c.window} s)` : fmt(c.rps),
    c.littleRps === undefined ? '–' : fmt(c.littleRps),
    ms(c.p50),
    ms(c.p99),
    ...loopColumns(c),
    fmtBytes(c.rssMax),
    `${c.errors + c.non2xx}`,
    c.writes ? fmt(c.writes.addsPerSecond) : '',
  ]
}

const HEAD = [
  'stack',
  'writer',
  'conc.',
  'req/s',
  'c / mean latency',
  'p50 ms',
  'p99 ms',
  'loop p99 ms',
  'loop max ms',
  'RSS max',
  'errors',
  'adds/s',
]

/** The cell of `stack` with the same endpoint, concurrency and writer as `c`. */
const twin = (cells, c, stack) =>
  cells.find(
    (x) => x.stack === stack && x.endpoint === c.endpoint && x.concurrency === c.concurrency && x.writer === c.writer,
  )

/** [{ target, measured, met }] from the run's numbers (met: true, false, or null when not measured). */
export function targets({ cells, probe, soak }) {
  const out = []
  if (probe) {
    const at = probe.docs >= 1_000_000 ? '' : ` (probe at ${probe.docs.toLocaleString('en-US')} documents, not 1M)`
    const ratio = probe.live.p99 / probe.frozen.p99
    out.push({
      target: `BM25 search p99 with a writer (100 adds/s + removes) <= 2x frozen, c=16${at}`,
      measured: `${ms(probe.live.p99)} vs ${ms(probe.frozen.p99)} ms (${fmt(ratio)}x)`,
      met: ratio <= 2,
    })
    const worst = Math.max(...probe.freshnessMs)
    out.push({
      target: `a new document searchable within 1 s${at}`,
      measured: `worst ${ms(worst)} ms, median ${ms([...probe.freshnessMs].sort((a, b) => a - b)[probe.freshnessMs.length >> 1])} ms`,
      met: worst <= 1000,
    })
    out.push({
      target: `no call blocks the event loop for more than 5 ms (worst event-loop delay with the writer)${at}`,
      measured: `${ms(probe.worstStallMs)} ms`,
      met: probe.worstStallMs <= 5,
    })
  } else out.push({ target: 'large-index targets (probe)', measured: 'probe not run (--probe-docs 0)', met: null })
  out.push({
    target: 'index build through the CLI within 1.2x of one API add (400k documents)',
    measured: 'not measured by this suite (see the CLI build in the bm25 suite)',
    met: null,
  })
  const vec = cells.find((c) => c.stack === 'ragrank' && c.endpoint === 'vector' && c.concurrency === 64 && !c.writer)
  const base = vec && twin(cells, vec, 'ragrank-per-call')
  out.push({
    target: 'vector endpoint at c=64: >= 4x the req/s of one async searchBatch per query, event-loop p99 < 10 ms',
    measured:
      vec && base
        ? `${fmt(vec.rps)} vs ${fmt(base.rps)} req/s (${fmt(vec.rps / base.rps)}x), loop p99 ${ms(vec.loopP99)} ms`
        : 'not run',
    met: vec && base ? vec.rps / base.rps >= 4 && vec.loopP99 < 10 : null,
  })
  const ours = cells.filter((c) => c.stack === 'ragrank')
  const compared = ours
    .map((c) => {
      const peers = PEERS.map((p) => twin(cells, c, p)).filter(Boolean)
      if (peers.length === 0) return null
      const best = peers.reduce((a, b) => (b.rps > a.rps ? b : a))
      return { c, best, ratio: c.rps / best.rps, met: c.rps >= 3 * best.rps && c.p99 <= best.p99 }
    })
    .filter(Boolean)
  const misses = compared.filter((x) => !x.met)
  out.push({
    target: "every endpoint >= 3x the best JS-stack peer's req/s, at a p99 no higher than the peer's",
    measured: compared.length
      ? `${compared.length - misses.length} of ${compared.length} cells met${misses.length ? `; not met: ${misses.map((x) => `${x.c.endpoint} c=${x.c.concurrency}${x.c.writer ? ' +writer' : ''} (${fmt(x.ratio)}x)`).join(', ')}` : ''}`
      : 'no peer in this run',
    met: compared.length ? misses.length === 0 : null,
  })
  if (soak) {
    const flat = soak.indexBytes.ratio <= 1.1 && soak.rss.ratio <= 1.1
    out.push({
      target: 'memory flat over the soak (last-third median <= 1.1x the first third, index memory and RSS)',
      measured: `${soak.minutes} min: index ${fmt(soak.indexBytes.ratio)}x, RSS ${fmt(soak.rss.ratio)}x (soak.md)`,
      met: flat,
    })
  } else out.push({ target: 'memory flat over the soak', measured: 'no soak.json yet (--soak <minutes>)', met: null })
  return out
}

/** Latencies of a cell without replies are beyond its window: Infinity, which JSON stores as null. */
const revived = (cells) => cells.map((c) => (c.requests === 0 ? { ...c, p50: Infinity, p99: Infinity } : c))

export function serverReport({ meta, builds = [], cells: stored, probe, soak, skipped, notes }) {
  const cells = revived(stored)
  const lines = [
    '# Server benchmark',
    '',
    `${meta.date.slice(0, 19).replace('T', ' ')} UTC · ${meta.machine.cpu}, ${meta.machine.cores} cores, ${meta.machine.memoryGiB} GiB · Node ${meta.machine.node} · ragrank ${meta.ragrank ?? '?'} · load average ${meta.loadStart} at the start, ${meta.loadEnd} at the end (the machine is shared)`,
    '',
    `Command: \`${meta.command}\`. Corpus: Zipf ${meta.settings.docs.toLocaleString('en-US')} documents (bench/lib/zipf.mjs), vectors ${Math.min(meta.settings.vectors, meta.settings.docs).toLocaleString('en-US')} x ${meta.settings.dim} (for the first documents) (seeded unit vectors); queries: the corpus's query texts and seeded unit vectors, ${meta.settings.queries} of each, sent in turn (vectors ${meta.settings.vectorEncoding === 'base64' ? 'as base64 of float32' : 'as JSON number arrays'}). Top-${meta.settings.topK}; hybrid = RRF of 50 candidates per side (Orama: its own hybrid); hybrid-rerank = the hybrid's top ${meta.settings.rerankDepth} reranked at max length ${meta.settings.rerankMaxLength}.`,
    '',
    `Each cell: autocannon (programmatic, ${meta.settings.warmupSeconds} s warm-up then ${meta.settings.seconds} s measured; hybrid-rerank at least ${meta.settings.rerankWarmupSeconds ?? 3} s and ${meta.settings.rerankSeconds ?? 10} s${meta.settings.steadyWindow ? '; the warm-up runs on into the measured window, so it starts with every connection waiting on a request, and counts and latencies are those of the replies in the window' : ''}; req/s counts the window's replies, and c / mean latency is the closed loop's throughput by Little's law, which does not depend on where bursts of replies fall against the window's edges; a cell with fewer replies than connections is run again in a window 4x as long, up to 20 s, shown as \`s\`; p50/p99 ∞: no reply even then; before each ${meta.settings.steadyWindow ? 'warm-up' : 'measured window'} the server is drained: requests a finished run left behind are worked off first, until its /metrics shows no search in flight or 180 s passed) on 127.0.0.1 against one server process; the client, the writer and the server share the machine's cores. Writer: a separate client, ${meta.settings.addsPerSecond} POST /documents per second (one new document each, a fresh unique token and a vector) and one DELETE per ${meta.settings.addsPerRemove} adds, at most 8 writes in flight (adds/s is what it achieved). Event-loop delay and RSS come from the server's /metrics over the measured window (monitorEventLoopDelay at 1 ms resolution: an idle loop reads about 1 ms).`,
    '',
    `Versions: ${Object.entries(meta.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  ]
  if (builds.length > 0)
    lines.push(
      '',
      `Server start-up (data generation, index build, model load): ${builds.map((b) => `${STACK_LABELS[b.stack] ?? b.stack} ${fmt(b.seconds)} s, RSS ${fmtBytes(b.rss)}`).join('; ')}.`,
    )
  for (const s of skipped) lines.push('', `Skipped: ${s}`)
  const endpoints = [...new Set(cells.map((c) => c.endpoint))]
  for (const e of endpoints) {
    lines.push('', `## /search/${e}`, '')
    const rows = cells
      .filter((c) => c.endpoint === e)
      .sort((a, b) => a.concurrency - b.concurrency || Number(a.writer) - Number(b.writer))
      .map(cellRow)
    lines.push(mdTable(HEAD, rows))
  }
  if (probe) {
    lines.push(
      '',
      `## Large-index probe (${probe.docs.toLocaleString('en-US')} documents, BM25, c=16)`,
      '',
      `Built in ${fmt(probe.buildSeconds)} s.`,
      '',
      mdTable(
        ['run', 'req/s', 'p50 ms', 'p99 ms', 'loop p99 ms', 'loop max ms', 'RSS max', 'adds/s'],
        [
          ['frozen', probe.frozen],
          ['with writer', probe.live],
        ].map(([k, c]) => [
          k,
          fmt(c.rps),
          ms(c.p50),
          ms(c.p99),
          ms(c.loopP99),
          ms(c.loopMax),
          fmtBytes(c.rssMax),
          c.writes ? fmt(c.writes.addsPerSecond) : '',
        ]),
      ),
      '',
      `Time from POST /documents to the first search that finds the document (writer and c=16 searches running): ${probe.freshnessMs.map((x) => ms(x)).join(', ')} ms.`,
    )
  }
  lines.push(
    '',
    '## Targets',
    '',
    mdTable(
      ['target', 'measured', ''],
      targets({ cells, probe, soak }).map((t) => [t.target, t.measured, mark(t.met)]),
      'lll',
    ),
  )
  // Hand-written findings about the numbers (server-notes.md beside server.md), kept across re-runs.
  if (notes) lines.push('', '## Notes', '', notes.trim())
  return lines.join('\n')
}

export function soakReport(meta, s) {
  const signed = (f) => (x) => (x < 0 ? `−${f(-x)}` : `+${f(x)}`)
  const row = (label, t, f) => [
    label,
    f(t.firstThird),
    f(t.lastThird),
    `${fmt(t.ratio)}x`,
    `${signed(f)(t.slopePerMinute)}/min`,
  ]
  return [
    '# Soak',
    '',
    `${meta.date.slice(0, 19).replace('T', ' ')} UTC · ${meta.machine.cpu}, ${meta.machine.cores} cores · Node ${meta.machine.node} · ragrank ${meta.ragrank ?? '?'} · load average ${meta.loadStart} at the start, ${meta.loadEnd} at the end (the machine is shared)`,
    '',
    `Command: \`${meta.command}\`. ${s.minutes} min against a ragrank server over ${s.docs.toLocaleString('en-US')} Zipf documents: churn of 100 adds/s (fresh unique tokens), as many removes (1,000 churned documents live) and an upsert with fresh tokens every 5 adds, under hybrid queries at concurrency 8. Samples every 5 s; the first minute (or tenth) is left out as warm-up.`,
    '',
    `Writes: ${s.writes.adds} adds, ${s.writes.removes} removes, ${s.writes.upserts} upserts, ${s.writes.errors} errors. Queries: ${fmt(s.load.rps)} req/s, p99 ${ms(s.load.p99)} ms.`,
    ...(s.writes.errorSamples?.length
      ? [
          '',
          `Failed writes (the first ${s.writes.errorSamples.length}): ${s.writes.errorSamples.map((e) => `\`${e}\``).join('; ')}.`,
        ]
      : []),
    '',
    mdTable(
      ['series', 'first third (median)', 'last third (median)', 'ratio', 'slope'],
      [
        row('index memory (stats().memoryBytes)', s.indexBytes, fmtBytes),
        row('live terms (stats().terms)', s.terms, fmt),
        row('RSS', s.rss, fmtBytes),
        row('JS heap used', s.heapUsed, fmtBytes),
      ],
    ),
  ].join('\n')
}
