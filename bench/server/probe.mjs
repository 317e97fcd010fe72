// The probe of the large-index target: on a ragrank server over `docs` documents, BM25 search p99 at
// concurrency 16 frozen and with the writer running; how long a new document takes to become searchable
// (POST /documents, then poll /search/bm25 for its unique token); and the worst event-loop stall meanwhile.
import { sleep } from '../lib/harness.mjs'
import { cell, drive, getJson, postJson, startServer, startWriter } from './load.mjs'
import { freshToken, writerDocument } from './data.mjs'

const CONNECTIONS = 16
const FRESHNESS_SAMPLES = 10
const POLL_MS = 5
const GIVE_UP_MS = 10_000

/** Milliseconds from sending POST /documents to the first search that finds the document. */
async function timeToSearchable(url, doc, token) {
  const t0 = performance.now()
  await postJson(url, '/documents', { documents: [doc] })
  for (;;) {
    const { hits } = await postJson(url, '/search/bm25', { query: token, topK: 1 })
    if (hits[0]?.id === doc.id) return performance.now() - t0
    if (performance.now() - t0 > GIVE_UP_MS) return Infinity
    await sleep(POLL_MS)
  }
}

export async function runProbe({ docs, vectors, dim, seconds, warmupSeconds, corpus, bodies, log }) {
  log(`probe: ragrank server over ${docs.toLocaleString('en-US')} documents`)
  const server = await startServer({ stack: 'ragrank', docs, vectors, dim, reranker: null }, { log })
  try {
    const path = '/search/bm25'
    const opts = { connections: CONNECTIONS, seconds, warmupSeconds }
    const frozen = await cell(server.url, path, bodies, opts)
    const writer = (first) => startWriter(server.url, { corpus, dim, first })
    // writer ids of the probe start at 10M, apart from the freshness documents' (20M)
    const live = await cell(server.url, path, bodies, { ...opts, writer, writerFirst: 10_000_000 })
    // Freshness under the same load: searches and the writer keep running while new documents are timed.
    await postJson(server.url, '/metrics/reset', {})
    const w = writer(live.writes.next)
    const load = drive(server.url, path, bodies, { connections: CONNECTIONS, seconds: seconds + 2 })
    const freshness = []
    for (let k = 0; k < FRESHNESS_SAMPLES; k++) {
      const i = 20_000_000 + k
      freshness.push(await timeToSearchable(server.url, writerDocument(i, corpus, dim), freshToken(i)))
    }
    const [underLoad, writes] = await Promise.all([load, w.stop()])
    const m = await getJson(server.url, '/metrics')
    return {
      docs,
      buildSeconds: server.info.buildSeconds,
      frozen,
      live,
      freshnessMs: freshness,
      freshnessLoad: { ...underLoad, writes, loopP99: m.eventLoopDelayMs.p99, loopMax: m.eventLoopDelayMs.max },
      worstStallMs: Math.max(live.loopMax, m.eventLoopDelayMs.max),
    }
  } finally {
    await server.stop()
  }
}
