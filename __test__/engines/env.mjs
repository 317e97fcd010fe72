// Shared by the engine adapters' specs: where the engines are (scripts/engines.sh starts them), a corpus with
// metadata and deterministic vectors, and the rule that an unreachable engine fails the suite unless
// RAGRANK_ENGINES=skip says to skip it (then it says so).
import { Client as EsClient } from '@elastic/elasticsearch'
import { Client as OsClient } from '@opensearch-project/opensearch'
import pg from 'pg'

export const ES_URL = process.env.RAGRANK_ES_URL ?? 'http://127.0.0.1:19200'
export const OS_URL = process.env.RAGRANK_OS_URL ?? 'http://127.0.0.1:19201'
export const PG_URL = process.env.RAGRANK_PG_URL ?? 'postgres://ragrank@127.0.0.1:15432/ragrank'

export const esClient = () => new EsClient({ node: ES_URL })
export const osClient = () => new OsClient({ node: OS_URL })
export const pgPool = () => new pg.Pool({ connectionString: PG_URL, max: 4 })

/** A unique index / table name per test file run, so parallel files and re-runs never collide. */
export const uniqueName = (prefix) => `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

/** The probe's error, or undefined when the engine answers. */
export async function probeError(probe) {
  try {
    await probe()
  } catch (e) {
    return e ?? new Error('probe failed')
  }
  return undefined
}

/**
 * Declares, synchronously, what an unreachable engine means: one failing test that says how to start it, or, with
 * RAGRANK_ENGINES=skip, one skipped test and a line on stderr. Returns whether the engine is up.
 */
export function declareReachability(test, name, error) {
  if (!error) return true
  const why = `${name} is not reachable (${error?.message ?? error}): start it with \`bash scripts/engines.sh start\``
  // In CI a missing engine is a failure, whatever RAGRANK_ENGINES says.
  if (process.env.RAGRANK_ENGINES === 'skip' && process.env.CI !== 'true') {
    process.stderr.write(`SKIPPED ${name} tests: ${why} (RAGRANK_ENGINES=skip)\n`)
    test.skip(`${name} tests (skipped: RAGRANK_ENGINES=skip)`, () => {})
  } else {
    test(`${name} is reachable`, (t) => t.fail(`${why}, or set RAGRANK_ENGINES=skip to skip on purpose`))
  }
  return false
}

/**
 * Registers the suite only when the engine answers (see declareReachability). A file that probes several engines
 * must probe them all before declaring anything (probeError, then declareReachability): ava takes declarations only
 * until the first await after one.
 */
export async function engineReachable(test, name, probe) {
  return declareReachability(test, name, await probeError(probe))
}

export const probeEs = async () =>
  (await fetch(`${ES_URL}/_cluster/health`, { signal: AbortSignal.timeout(3000) })).json()
export const probeOs = async () =>
  (await fetch(`${OS_URL}/_cluster/health`, { signal: AbortSignal.timeout(3000) })).json()
export async function probePg() {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  await c.connect()
  await c.end()
}

export const DIM = 32

/** A deterministic bag-of-words embedding (hashed words, L2-normalised): enough structure for kNN to mean something. */
export function embedText(text) {
  const v = new Float32Array(DIM)
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0
    v[h % DIM] += 1
    v[(h >>> 8) % DIM] += 0.5
  }
  const n = Math.hypot(...v) || 1
  return v.map((x) => x / n)
}

const WORDS =
  'river mountain forest ocean desert city village bridge castle garden storm winter summer harvest engine'.split(' ')
const LANGS = ['en', 'de', 'fr']

/** 48 short documents with varied metadata (numbers, strings, arrays, a nested object). */
export const CORPUS = Array.from({ length: 48 }, (_, i) => {
  const words = [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length], WORDS[(i * 3 + 1) % WORDS.length]]
  if (i % 4 === 0) words.push(WORDS[(i + 5) % WORDS.length])
  const text = `${words.join(' ')} story number ${i}`
  const meta = {
    lang: LANGS[i % 3],
    year: 2015 + (i % 10),
    title: `${String.fromCharCode(97 + (i % 26))}title`,
    tags: i % 2 ? ['x', `t${i % 5}`] : [`t${i % 5}`],
    src: { site: i % 3 === 0 ? 'wiki' : 'news' },
  }
  return { id: `doc-${i}`, text, meta, vector: Array.from(embedText(text)) }
})

/** Filters the engines must answer exactly as the local indexes do. */
export const FILTERS = [
  { meta: { lang: 'en' } },
  { meta: { year: { $gte: 2020 } } },
  { meta: { year: { $gt: 2016, $lte: 2021 }, lang: { $ne: 'fr' } } },
  { meta: { tags: 'x' } },
  { meta: { tags: { $in: ['t1', 't2'] } } },
  { meta: { tags: { $nin: ['x'] } } },
  { meta: { lang: ['de', 'fr'] } },
  { meta: { $or: [{ lang: 'de' }, { year: { $lt: 2017 } }] } },
  { meta: { $not: { lang: 'en' } } },
  { meta: { $and: [{ year: { $gte: 2018 } }, { $not: { tags: 'x' } }] } },
  { meta: { title: { $gte: 'm', $lt: 't' } } },
  { meta: { 'src.site': 'wiki' } },
  { meta: { missing: { $exists: false }, year: { $exists: true } } },
  { meta: { lang: { $eq: 'en' }, year: { $in: [2015, 2018, 2021] } } },
  { ids: ['doc-1', 'doc-2', 'doc-3', 'doc-40'], meta: { lang: { $ne: 'de' } } },
  { ids: [] },
]

export const ids = (hits) => hits.map((h) => h.id)

/** Ids in rank order with tied scores (engines break ties their own way) ordered by id. */
export function canonical(hits) {
  const out = []
  let group = []
  for (const h of hits) {
    if (group.length && Math.abs(group[0].score - h.score) > 1e-5 * Math.abs(group[0].score)) {
      out.push(...ids(group).sort())
      group = []
    }
    group.push(h)
  }
  out.push(...ids(group).sort())
  return out
}
export const sorted = (hits) => ids(hits).sort()

/** Korean passages for the pre-analysis check (no Korean analyzer in the engines). */
export const KOREAN = [
  { id: 'ko-0', text: '대한민국의 수도는 서울이며 가장 큰 도시이다.' },
  { id: 'ko-1', text: '부산은 대한민국 제2의 도시이자 최대의 항구 도시이다.' },
  { id: 'ko-2', text: '한강은 서울을 가로질러 흐르는 강이다.' },
  { id: 'ko-3', text: '제주도는 화산섬으로 한라산이 있다.' },
  { id: 'ko-4', text: '김치는 배추와 고춧가루로 만드는 한국의 전통 음식이다.' },
  { id: 'ko-5', text: '경주는 신라의 수도였으며 많은 유적이 남아 있다.' },
]
