// Adapters for the BM25 peers measured next to ragrank: four JavaScript libraries used through their
// normal text APIs, and bm25s (Python) through bench/py/bm25s_runner.py in a subprocess.
//
// Every JS adapter has the same shape:
//   key, label, pkg, version, tokenization (one line for the report), indexless (true = no build step),
//   build(docs: [{ id, text }]) -> engine      (the index build that the benchmark times)
//   search(engine, queryText, k) -> hits       (top-k, best first; the benchmark times this call)
//   ids(hits) -> string[]                      (doc ids of the hits, for the overlap check; untimed)

import fs from 'node:fs'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createRequire } from 'node:module'
import MiniSearch from 'minisearch'
import { create as oramaCreate, insertMultiple as oramaInsertMultiple, search as oramaSearch } from '@orama/orama'
import winkBm25 from 'wink-bm25-text-search'
import winkNlpUtils from 'wink-nlp-utils'
import okapiModule from 'okapibm25'
import { runCommand, lastJsonLine } from './harness.mjs'
import { pyScript, repoRoot, venvPython } from './paths.mjs'

const require = createRequire(import.meta.url)

/** Installed version of an npm package (read from its package.json). */
export function pkgVersion(name) {
  try {
    return require(`${name}/package.json`).version
  } catch {
    // packages whose "exports" hide package.json: walk node_modules directly
    try {
      const p = path.join(repoRoot, 'node_modules', ...name.split('/'), 'package.json')
      return JSON.parse(fs.readFileSync(p, 'utf8')).version
    } catch {
      return 'unknown'
    }
  }
}

const okapiBM25 = okapiModule.default ?? okapiModule
const splitSpaces = (s) => s.split(' ').filter((t) => t.length > 0)

/** MiniSearch's build, search and ids, with `options` added to its constructor's (the tokenizer, when given). */
function miniSearch(options) {
  return {
    build(docs) {
      const ms = new MiniSearch({ fields: ['text'], idField: 'id', ...options })
      ms.addAll(docs)
      return ms
    },
    search: (ms, q, k) => ms.search(q).slice(0, k),
    ids: (hits) => hits.map((h) => String(h.id)),
  }
}
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export const JS_PEERS = [
  {
    key: 'minisearch',
    label: 'MiniSearch',
    pkg: 'minisearch',
    tokenization:
      'default tokenizer (split on Unicode space/punctuation), lowercased, no stemming/stopwords; default search options (OR, no prefix, no fuzzy); BM25+ k=1.2 b=0.7 d=0.5',
    ...miniSearch({}),
  },
  {
    // MiniSearch on ragrank's tokens (the bigrams of the default analyzer on Korean text): what the Korean
    // targets compare with, so the two engines index and query the same terms.
    key: 'minisearch-tokens',
    label: "MiniSearch (ragrank's tokens)",
    pkg: 'minisearch',
    tokens: true,
    tokenization:
      "ragrank's default analyzer tokens (on Korean: its CJK bigrams) joined by spaces, MiniSearch `tokenize: split(' ')`, `processTerm` identity; default search options; BM25+ k=1.2 b=0.7 d=0.5",
    ...miniSearch({ tokenize: splitSpaces, processTerm: (t) => t }),
  },
  {
    key: 'orama',
    label: 'Orama',
    pkg: '@orama/orama',
    tokenization:
      'default English tokenizer (lowercase, split on non-letters/digits), no stemming/stopwords; default search: OR (threshold 1) with PREFIX expansion of every query term (exact:false); BM25 k=1.2 b=0.75 d=0.5',
    build(docs) {
      const db = oramaCreate({ schema: { text: 'string' } })
      oramaInsertMultiple(db, docs)
      return db
    },
    search(db, q, k) {
      return oramaSearch(db, { term: q, limit: k }).hits
    },
    ids: (hits) => hits.map((h) => String(h.id)),
  },
  {
    key: 'wink',
    label: 'wink-bm25-text-search',
    pkg: 'wink-bm25-text-search',
    tokenization:
      'no built-in tokenizer; prep tasks = wink-nlp-utils lowerCase + tokenize0 (split on non-word characters), no stemming/stopwords; BM25F k1=1.2 b=0.75 k=1',
    build(docs) {
      const engine = winkBm25()
      engine.defineConfig({ fldWeights: { text: 1 } })
      engine.definePrepTasks([winkNlpUtils.string.lowerCase, winkNlpUtils.string.tokenize0])
      for (const d of docs) engine.addDoc({ text: d.text }, d.id)
      engine.consolidate()
      return engine
    },
    search(engine, q, k) {
      return engine.search(q, k)
    },
    ids: (hits) => hits.map((h) => String(h[0])),
  },
  {
    key: 'okapibm25',
    label: 'okapibm25 (LangChain/LlamaIndex BM25)',
    pkg: 'okapibm25',
    indexless: true,
    tokenization:
      'no index: every query rescans all docs (regex TF, substring DF, /\\w+/ doc lengths, docs not lowercased); query = lowercase + split on whitespace, regex-escaped as LangChain does; k1=1.2 b=0.75',
    build(docs) {
      // Nothing to build: the libraries that use it (LangChain BM25Retriever, LlamaIndex Bm25Retriever) keep
      // the document texts and call BM25() on every query.
      const texts = docs.map((d) => d.text)
      const idOf = new Map(docs.map((d) => [d.text, d.id]))
      return { texts, idOf }
    },
    search(e, q, k) {
      const keywords = q
        .toLowerCase()
        .split(/\s+/)
        .filter((t) => t.length > 0)
        .map(escapeRegExp)
      return okapiBM25(e.texts, keywords, undefined, (a, b) => b.score - a.score)
        .slice(0, k)
        .map((h) => ({ ...h, id: e.idOf.get(h.document) }))
    },
    ids: (hits) => hits.map((h) => String(h.id)),
  },
]

export function jsPeer(key) {
  const p = JS_PEERS.find((x) => x.key === key)
  if (!p) throw new Error(`unknown JS peer ${key}; known: ${JS_PEERS.map((x) => x.key).join(', ')}`)
  return p
}

export function jsPeerVersions() {
  return Object.fromEntries(JS_PEERS.map((p) => [p.pkg, pkgVersion(p.pkg)]))
}

// ---------------------------------------------------------------------------------------------------------
// bm25s (Python)

export function pythonPath() {
  if (process.env.RAGRANK_PYTHON) return process.env.RAGRANK_PYTHON
  // .venv-bench-peers also holds bm25s (and numba): use it where .venv-py was not set up
  const main = venvPython('.venv-py')
  return fs.existsSync(main) || !fs.existsSync(peersPythonPath()) ? main : peersPythonPath()
}

/** The venv of the strongest BM25 peers (tantivy, PISA): npm run setup:bench-peers. */
export function peersPythonPath() {
  return process.env.RAGRANK_PEERS_PYTHON ?? venvPython('.venv-bench-peers')
}

export const BM25_PEERS_RUNNER = pyScript('bm25_peers.py')

/**
 * Versions of the Python BM25 peers in .venv-bench-peers: { tantivy, 'pyterrier-pisa', python } with null for
 * a package that does not import, or { missing: why } when there is no venv.
 */
export async function strongPeerVersions() {
  const py = peersPythonPath()
  if (!fs.existsSync(py)) return { missing: `no venv at ${path.relative(repoRoot, py)} (npm run setup:bench-peers)` }
  const code = [
    'import json, sys',
    'from importlib.metadata import version',
    'out = {"python": sys.version.split()[0]}',
    'for mod, dist in (("tantivy", "tantivy"), ("pyterrier_pisa", "pyterrier-pisa")):',
    '  try:\n    __import__(mod); out[dist] = version(dist)\n  except Exception as e:\n    out[dist] = None; out[dist + "_error"] = str(e).splitlines()[0][:200]',
    'print(json.dumps(out))',
  ].join('\n')
  const r = await runCommand(py, ['-c', code])
  if (r.code !== 0) return { missing: `${path.relative(repoRoot, py)} failed: ${r.stderr.trim().split('\n').pop()}` }
  return lastJsonLine(r.stdout)
}

export const BM25S_RUNNER = pyScript('bm25s_runner.py')

export function hasPython() {
  return fs.existsSync(pythonPath()) && fs.existsSync(BM25S_RUNNER)
}

/** { bm25s, numpy, numba|null, python } versions, or null when the venv is missing / bm25s not importable. */
export async function bm25sVersions() {
  if (!hasPython()) return null
  const code = [
    'import json, sys, bm25s, numpy',
    'try:\n  import numba; nb = numba.__version__\nexcept Exception:\n  nb = None',
    'print(json.dumps({"bm25s": bm25s.__version__, "numpy": numpy.__version__, "numba": nb, "python": sys.version.split()[0]}))',
  ].join('\n')
  const r = await runCommand(pythonPath(), ['-c', code])
  if (r.code !== 0) return null
  return lastJsonLine(r.stdout)
}

/**
 * Write the data part of a bm25s_runner config: `"queries":[...],"corpus":[...]}` (the tail of the JSON
 * object; runBm25s puts the parameters in front and streams the file to the runner's stdin). Streams the
 * JSON so that 1M-document corpora (hundreds of MB) never become one JS string, and lets one written corpus
 * serve several runs with different parameters. `corpus` is { n, tokens(i) -> string[] }, `queries` string[][].
 */
export function writeBm25sData(file, { corpus, queries }) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const fd = fs.openSync(file, 'w')
  try {
    fs.writeSync(fd, `"queries":${JSON.stringify(queries)},"corpus":[`)
    const CHUNK = 20_000
    for (let start = 0; start < corpus.n; start += CHUNK) {
      const end = Math.min(corpus.n, start + CHUNK)
      const parts = []
      for (let i = start; i < end; i++) parts.push(JSON.stringify(corpus.tokens(i)))
      fs.writeSync(fd, (start > 0 ? ',' : '') + parts.join(','))
    }
    fs.writeSync(fd, ']}')
  } finally {
    fs.closeSync(fd)
  }
  return file
}

/**
 * Run bench/py/bm25s_runner.py with `params` (method, k1, b, k, repeats, threads, backend, return_results...)
 * and the data file written by writeBm25sData, fed through stdin. Resolves with the runner's JSON output
 * plus `wallSeconds` (the whole subprocess, including Python start-up and JSON parsing).
 */
export function runBm25s(dataFile, params, opts = {}) {
  return runPythonJson(pythonPath(), BM25S_RUNNER, dataFile, params, opts)
}

/** Run bench/py/bm25_peers.py (tantivy, PISA) the same way as runBm25s, on the same data file. */
export function runStrongPeer(dataFile, params, opts = {}) {
  return runPythonJson(peersPythonPath(), BM25_PEERS_RUNNER, dataFile, params, opts)
}

/**
 * Start `python script -`, stream `params` + the data file (writeBm25sData) to its stdin, resolve with its last
 * JSON line plus `wallSeconds` (the whole subprocess, including Python start-up and JSON parsing).
 */
function runPythonJson(python, script, dataFile, params, { timeoutMs = 0, echo = false } = {}) {
  const name = path.basename(script, '.py')
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(python, [script, '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DISABLE_TQDM: '1' },
    })
    const out = []
    const err = []
    let timer = null
    if (timeoutMs > 0) timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => {
      err.push(d)
      if (echo) process.stderr.write(d)
    })
    child.on('error', reject)
    child.stdin.on('error', () => {}) // the runner may exit early on a bad config; reported below
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      const stderr = Buffer.concat(err).toString('utf8')
      if (code !== 0) {
        reject(new Error(`${name} failed (exit ${code}${signal ? `, ${signal}` : ''}): ${stderr.slice(-2000)}`))
        return
      }
      try {
        const res = lastJsonLine(Buffer.concat(out).toString('utf8'))
        res.wallSeconds = (performance.now() - t0) / 1000
        resolve(res)
      } catch (e) {
        reject(e)
      }
    })
    const head = JSON.stringify(params)
    child.stdin.write(head.length > 2 ? `${head.slice(0, -1)},` : '{')
    fs.createReadStream(dataFile).pipe(child.stdin)
  })
}
