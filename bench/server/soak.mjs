// The soak: churn against a ragrank server under a steady query load, its memory sampled throughout.
// Churn = one new document per tick (a fresh unique token, a vector), the removal of the one added `live`
// ticks earlier (so the live set stays constant) and, every `upsertEvery` ticks, an upsert of a live document
// with new text (fresh tokens again). Terms that no live document has must be reclaimed, or index memory
// grows with every tick. Reports the medians of the first and last thirds of the samples and the slope.
import { quantile, sleep } from '../lib/harness.mjs'
import { freshToken, writerDocument } from './data.mjs'
import { drive, getJson, postJson, startServer } from './load.mjs'

const SAMPLE_MS = 5000
const QUERY_CONNECTIONS = 8

function startChurn(url, { corpus, dim, live = 1000, perSecond = 100, upsertEvery = 5, maxInFlight = 8 }) {
  const stats = { adds: 0, removes: 0, upserts: 0, errors: 0, skipped: 0, errorSamples: [] }
  // The first few failed writes, so an error count in the report can be explained.
  const failed = (what) => {
    stats.errors++
    if (stats.errorSamples.length < 5) stats.errorSamples.push(what)
  }
  let i = 0
  let inFlight = 0
  const send = (path, init, counter) => {
    inFlight++
    fetch(`${url}${path}`, init)
      .then(async (res) => {
        const body = await res.text()
        if (res.ok) stats[counter]++
        else failed(`${init.method} ${path}: ${res.status} ${body.slice(0, 200)}`)
      })
      .catch((e) => failed(`${init.method} ${path}: ${e?.cause?.code ?? e?.message ?? e}`))
      .finally(() => inFlight--)
  }
  const post = (body, counter) =>
    send(
      '/documents',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      counter,
    )
  const timer = setInterval(() => {
    if (inFlight >= maxInFlight) return void stats.skipped++
    post({ documents: [writerDocument(i, corpus, dim)] }, 'adds')
    if (i >= live) send(`/documents/w${i - live}`, { method: 'DELETE' }, 'removes')
    if (i % upsertEvery === 0 && i > live) {
      const j = i - 1 - Math.floor(Math.random() * (live - 1)) // a live one
      const doc = {
        ...writerDocument(j, corpus, dim),
        text: `${corpus.docText(j % corpus.nDocs)} ${freshToken(1e9 + i)}`,
      }
      post({ documents: [doc], upsert: true }, 'upserts')
    }
    i++
  }, 1000 / perSecond)
  return {
    async stop() {
      clearInterval(timer)
      while (inFlight > 0) await sleep(5)
      return stats
    },
  }
}

/** Least-squares slope of y over x. */
function slope(xs, ys) {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let k = 0; k < n; k++) {
    num += (xs[k] - mx) * (ys[k] - my)
    den += (xs[k] - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

/** { firstThird, lastThird (medians), ratio, slopePerMinute } of a series sampled at `minutes`. */
export function trend(minutes, values) {
  const third = Math.max(1, Math.floor(values.length / 3))
  const firstThird = quantile(values.slice(0, third), 0.5)
  const lastThird = quantile(values.slice(-third), 0.5)
  return { firstThird, lastThird, ratio: lastThird / firstThird, slopePerMinute: slope(minutes, values) }
}

export async function runSoak({ minutes, docs, vectors, dim, corpus, bodies, log }) {
  log(`soak: ${minutes} min of churn against a ragrank server over ${docs.toLocaleString('en-US')} documents`)
  const server = await startServer({ stack: 'ragrank', docs, vectors, dim, reranker: null }, { log })
  try {
    const seconds = Math.round(minutes * 60)
    const samples = []
    const t0 = performance.now()
    const sample = async () => {
      const m = await getJson(server.url, '/metrics')
      const b = m.indexes.bm25
      samples.push({
        minute: (performance.now() - t0) / 60_000,
        rss: m.memory.rss,
        heapUsed: m.memory.heapUsed,
        indexBytes: b.memoryBytes,
        terms: b.terms,
        documents: b.documents,
        vectors: m.indexes.vectors.size,
        loopP99: m.eventLoopDelayMs.p99,
      })
      await postJson(server.url, '/metrics/reset', {})
    }
    await sample()
    const churn = startChurn(server.url, { corpus, dim })
    const queries = drive(server.url, '/search/hybrid', bodies, { connections: QUERY_CONNECTIONS, seconds })
    const sampler = setInterval(() => sample().catch((e) => log(`sample failed: ${e.message}`)), SAMPLE_MS)
    const load = await queries
    clearInterval(sampler)
    const writes = await churn.stop()
    await sample()
    // The first minute (or tenth) is warm-up: the churn set fills and allocators settle.
    const warm = samples.filter((s) => s.minute >= Math.min(1, minutes / 10))
    const xs = warm.map((s) => s.minute)
    const series = (k) =>
      trend(
        xs,
        warm.map((s) => s[k]),
      )
    return {
      minutes,
      docs,
      load,
      writes,
      samples,
      rss: series('rss'),
      indexBytes: series('indexBytes'),
      terms: series('terms'),
      heapUsed: series('heapUsed'),
    }
  } finally {
    await server.stop()
  }
}
