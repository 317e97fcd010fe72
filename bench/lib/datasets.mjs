// Loaders for the evaluation collections kept outside the repository (../shared/data by default).
//
// Every loader returns { name, docs: [{ id, text }], queries: [{ id, text }], qrels: { qid: { docId: grade } } }
// with string ids. qrels hold only the judgements of each collection (no zero-filled entries), and only queries
// that appear in the qrels with at least one grade > 0 are returned as queries (evaluation queries).
//
// Conventions chosen here (see docs/EVALUATION.md):
//   cran    doc text = .T + ' ' + .W; the two empty records (.I 471 and .I 995) are dropped -> 1,398 docs.
//           cran.qrels refers to queries by their position 1..225 in cran.qry (the .I numbers skip values); the
//           query id used here is that position. Grades 1..4 (1 = most relevant) become gain 5 - grade
//           (1 -> 4, 2 -> 3, 3 -> 2, 4 -> 1); -1 and 5 (no interest) become 0 and are left out of the qrels.
//   cisi    doc text = .T + ' ' + .W (authors, .X cross-references and the stray .K/.C fields are ignored);
//           query text = .T + ' ' + .W (.T only exists for some queries); 76 of the 112 queries are judged.
//   med     .W only (documents and queries have no title field).
//   adi     doc text = .T + ' ' + .W (a repeated field, e.g. the double .T of doc 67, is concatenated).
//   korquad every unique paragraph context is a document (964 paragraphs, 961 unique contexts: three
//           paragraphs repeat an earlier one verbatim and are merged into its first occurrence, id "title#index");
//           every question is a query whose single relevant document (grade 1) is its paragraph.

import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from './paths.mjs'

export function dataRoot() {
  return process.env.RAGRANK_DATA ?? path.resolve(repoRoot, '../shared/data')
}

const FILES = {
  cran: ['en/cran/cran.all.1400', 'en/cran/cran.qry', 'en/cran/cran.qrels'],
  cisi: ['en/cisi/CISI.ALL', 'en/cisi/CISI.QRY', 'en/cisi/CISI.REL'],
  med: ['en/med/MED.ALL', 'en/med/MED.QRY', 'en/med/MED.REL'],
  adi: ['en/adi/ADI.ALL', 'en/adi/ADI.QRY', 'en/adi/ADI.REL'],
  korquad: ['ko/korquad_v1_dev/KorQuAD_v1.0_dev.json'],
}

export const DATASETS = Object.keys(FILES)

/** True when every file the loader of `name` reads exists under dataRoot(). */
export function hasData(name) {
  const files = FILES[name]
  if (!files) throw new Error(`unknown dataset ${JSON.stringify(name)}; known: ${DATASETS.join(', ')}`)
  return files.every((f) => fs.existsSync(path.join(dataRoot(), f)))
}

function read(rel) {
  return fs.readFileSync(path.join(dataRoot(), rel), 'utf8')
}

/**
 * Parse a SMART-format file (.I id, then field markers such as .T/.A/.W alone on a line).
 * Returns [{ id, fields: { T: '...', W: '...' } }] in file order; repeated fields are concatenated.
 */
export function parseSmart(content) {
  const records = []
  let rec = null
  let lines = null // the line list of the current field
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trimEnd()
    const mI = /^\.I\s+(\S+)$/.exec(line)
    if (mI) {
      rec = { id: String(Number(mI[1])), fields: {} }
      records.push(rec)
      lines = null
      continue
    }
    const mF = /^\.([A-Z])$/.exec(line)
    if (mF && rec) {
      lines = rec.fields[mF[1]] ??= []
      continue
    }
    if (lines) lines.push(line)
  }
  for (const r of records) {
    for (const k of Object.keys(r.fields)) r.fields[k] = r.fields[k].join(' ').replace(/\s+/g, ' ').trim()
  }
  return records
}

function joinFields(rec, names) {
  return names
    .map((n) => rec.fields[n] ?? '')
    .filter((s) => s.length > 0)
    .join(' ')
}

/** Keep only queries with at least one relevant (grade > 0) judgement; drop grade <= 0 entries. */
function finish(name, docs, queries, qrels) {
  const clean = {}
  for (const [qid, judged] of Object.entries(qrels)) {
    const rel = {}
    for (const [d, g] of Object.entries(judged)) if (g > 0) rel[d] = g
    if (Object.keys(rel).length > 0) clean[qid] = rel
  }
  const judgedQueries = queries.filter((q) => clean[q.id] !== undefined)
  const known = new Set(queries.map((q) => q.id))
  for (const qid of Object.keys(clean)) {
    if (!known.has(qid)) throw new Error(`${name}: qrels mention unknown query ${qid}`)
  }
  if (new Set(docs.map((d) => d.id)).size !== docs.length) throw new Error(`${name}: duplicate document ids`)
  return { name, docs, queries: judgedQueries, qrels: clean }
}

function addQrel(qrels, qid, docId, grade) {
  qrels[qid] ??= {}
  qrels[qid][docId] = grade
}

/** Cranfield gain mapping: grade 1..4 (1 = most relevant) -> 5 - grade; anything else -> 0. */
export function cranGain(grade) {
  return Number.isInteger(grade) && grade >= 1 && grade <= 4 ? 5 - grade : 0
}

export function loadCran() {
  const [allF, qryF, relF] = FILES.cran
  const docs = parseSmart(read(allF))
    .map((r) => ({ id: r.id, text: joinFields(r, ['T', 'W']) }))
    .filter((d) => d.text.length > 0)
  // qrels refer to queries by position (1..225), so the query id is the position, not the .I number.
  const queries = parseSmart(read(qryF)).map((r, i) => ({ id: String(i + 1), text: joinFields(r, ['W']) }))
  const qrels = {}
  for (const line of read(relF).split(/\r?\n/)) {
    const p = line.trim().split(/\s+/)
    if (p.length < 3) continue
    addQrel(qrels, String(Number(p[0])), String(Number(p[1])), cranGain(Number(p[2])))
  }
  return finish('cran', docs, queries, qrels)
}

// CISI.REL and ADI.REL: "qid docid 0 0.000000"; MED.REL: "qid 0 docid 1". All binary.
function loadSmartBinary(name, docFields, queryFields, relColumns) {
  const [allF, qryF, relF] = FILES[name]
  const docs = parseSmart(read(allF))
    .map((r) => ({ id: r.id, text: joinFields(r, docFields) }))
    .filter((d) => d.text.length > 0)
  const queries = parseSmart(read(qryF)).map((r) => ({ id: r.id, text: joinFields(r, queryFields) }))
  const qrels = {}
  for (const line of read(relF).split(/\r?\n/)) {
    const p = line.trim().split(/\s+/)
    if (p.length < 3) continue
    addQrel(qrels, String(Number(p[relColumns[0]])), String(Number(p[relColumns[1]])), 1)
  }
  return finish(name, docs, queries, qrels)
}

export const loadCisi = () => loadSmartBinary('cisi', ['T', 'W'], ['T', 'W'], [0, 1])
export const loadMed = () => loadSmartBinary('med', ['T', 'W'], ['T', 'W'], [0, 2])
export const loadAdi = () => loadSmartBinary('adi', ['T', 'W'], ['T', 'W'], [0, 1])

export function loadKorquad() {
  const json = JSON.parse(read(FILES.korquad[0]))
  const docs = []
  const byContext = new Map()
  const queries = []
  const qrels = {}
  for (const article of json.data) {
    article.paragraphs.forEach((para, i) => {
      let id = byContext.get(para.context)
      if (id === undefined) {
        id = `${article.title}#${i}`
        byContext.set(para.context, id)
        docs.push({ id, text: para.context })
      }
      for (const qa of para.qas) {
        queries.push({ id: qa.id, text: qa.question })
        qrels[qa.id] = { [id]: 1 }
      }
    })
  }
  return finish('korquad', docs, queries, qrels)
}

const LOADERS = { cran: loadCran, cisi: loadCisi, med: loadMed, adi: loadAdi, korquad: loadKorquad }

/** Load a collection by name ('cran' | 'cisi' | 'med' | 'adi' | 'korquad'). */
export function loadDataset(name) {
  const f = LOADERS[name]
  if (!f) throw new Error(`unknown dataset ${JSON.stringify(name)}; known: ${DATASETS.join(', ')}`)
  return f()
}

const KO_SCI_FILES = ['ko/upstage_sci/documents.jsonl', 'ko/upstage_sci/eval.jsonl']

/** True when the Korean science-QA corpus is under dataRoot(). */
export const hasKoSci = () => KO_SCI_FILES.every((f) => fs.existsSync(path.join(dataRoot(), f)))

/**
 * The Korean science-QA corpus of an IR competition (4,272 passages): documents {docid, content}; every eval
 * conversation's last user message is a query. No relevance judgements are published, so it serves speed
 * benchmarks only (qrels empty) and is not in DATASETS (the evaluations iterate those).
 */
export function loadKoSci() {
  const lines = (rel) =>
    read(rel)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
  const docs = lines(KO_SCI_FILES[0]).map((d) => ({ id: String(d.docid), text: String(d.content) }))
  const queries = lines(KO_SCI_FILES[1]).flatMap((e) => {
    const last = [...e.msg].reverse().find((m) => m.role === 'user')
    return last ? [{ id: String(e.eval_id), text: String(last.content) }] : []
  })
  return { name: 'ko-sci', docs, queries, qrels: {} }
}
