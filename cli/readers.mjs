// Input formats of the CLI: documents (JSONL incl. BEIR corpus.jsonl, CSV/TSV, a folder of .txt/.md), queries
// (BEIR queries.jsonl or "id<TAB>text" lines) and judgements (TREC qrels or BEIR qrels TSV). Every parse error
// names the file and line.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative } from 'node:path'
import { InputError, UsageError } from './errors.mjs'

export function requirePath(path, what) {
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`)
  return path
}

const lines = (file) =>
  readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)

/** Each non-empty line of a JSONL file parsed, with its 1-based line number. */
export function readJsonl(file) {
  const out = []
  lines(file).forEach((raw, i) => {
    if (raw.trim() === '') return
    let value
    try {
      value = JSON.parse(raw)
    } catch (e) {
      throw new InputError(file, i + 1, `invalid JSON (${e.message})`)
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InputError(file, i + 1, 'expected a JSON object per line')
    out.push({ value, line: i + 1 })
  })
  return out
}

/**
 * Rows of a CSV/TSV file as arrays of fields, each with the line it starts on. Quoted fields may hold the
 * separator, doubled quotes and newlines (RFC 4180).
 */
export function readDelimited(file, sep) {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '')
  const rows = []
  let row = []
  let field = ''
  let quoted = false
  let line = 1
  let rowLine = 1
  let fieldStart = true
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else {
        if (c === '\n') line++
        field += c
      }
    } else if (c === '"' && fieldStart) quoted = true
    else if (c === sep) {
      row.push(field)
      field = ''
      fieldStart = true
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      if (row.length > 1 || row[0] !== '') rows.push({ fields: row, line: rowLine })
      row = []
      field = ''
      fieldStart = true
      line++
      rowLine = line
      continue
    } else field += c
    if (c !== sep) fieldStart = false
  }
  if (quoted) throw new InputError(file, rowLine, 'unterminated quoted field')
  row.push(field)
  if (row.length > 1 || row[0] !== '') rows.push({ fields: row, line: rowLine })
  return rows
}

const TEXT_EXT = new Set(['.txt', '.md', '.markdown'])

/**
 * Documents `{ id, text, meta }` from a JSONL file (`id`/`_id`, `text`/`content`, optional `title` prepended and
 * `meta`/`metadata`), a CSV/TSV file with a header (text column chosen by `textColumn`, id by `idColumn` or the row
 * number), or a folder of .txt/.md files (id = path relative to the folder).
 */
export function readDocuments(input, { textColumn = 'text', idColumn = 'id' } = {}) {
  requirePath(input, 'input')
  if (statSync(input).isDirectory()) return readFolder(input)
  const ext = extname(input).toLowerCase()
  if (ext === '.jsonl' || ext === '.ndjson') return readJsonlDocuments(input)
  if (ext === '.csv' || ext === '.tsv')
    return readTableDocuments(input, ext === '.tsv' ? '\t' : ',', textColumn, idColumn)
  throw new UsageError(`cannot tell the format of ${input}: use .jsonl, .csv, .tsv or a folder of .txt/.md files`)
}

function readJsonlDocuments(file) {
  const seen = new Set()
  return readJsonl(file).map(({ value: o, line }) => {
    const id = o._id ?? o.id
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new InputError(file, line, 'missing "id" (or BEIR "_id")')
    const body = o.text ?? o.content
    if (typeof body !== 'string') throw new InputError(file, line, 'missing "text" (or "content") string')
    const text = typeof o.title === 'string' && o.title !== '' ? `${o.title}\n${body}` : body
    if (seen.has(String(id))) throw new InputError(file, line, `duplicate id ${JSON.stringify(String(id))}`)
    seen.add(String(id))
    const meta = o.meta ?? o.metadata
    return { id: String(id), text, ...(meta && typeof meta === 'object' ? { meta } : {}) }
  })
}

function readTableDocuments(file, sep, textColumn, idColumn) {
  const [header, ...rows] = readDelimited(file, sep)
  if (!header) throw new InputError(file, 1, 'empty file: expected a header row')
  const t = header.fields.indexOf(textColumn)
  if (t < 0)
    throw new UsageError(
      `${file}: no column "${textColumn}" in the header (${header.fields.join(', ')}); choose one with --text-column`,
    )
  const k = header.fields.indexOf(idColumn)
  return rows.map(({ fields, line }, n) => {
    if (fields.length !== header.fields.length) {
      throw new InputError(
        file,
        line,
        `expected ${header.fields.length} fields as in the header, found ${fields.length}`,
      )
    }
    return { id: k >= 0 ? fields[k] : String(n + 1), text: fields[t] }
  })
}

function readFolder(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (TEXT_EXT.has(extname(name).toLowerCase()))
        out.push({ id: relative(dir, path).split('\\').join('/'), text: readFileSync(path, 'utf8') })
    }
  }
  walk(dir)
  if (out.length === 0) throw new InputError(dir, 0, 'no .txt or .md files in this folder')
  return out
}

/** Queries `[{ id, text }]` from BEIR queries.jsonl or a TSV of `id<TAB>text` lines. */
export function readQueries(file) {
  requirePath(file, 'queries file')
  if (extname(file).toLowerCase() === '.jsonl') {
    return readJsonl(file).map(({ value: o, line }) => {
      const id = o._id ?? o.id
      if (id === undefined || typeof o.text !== 'string') throw new InputError(file, line, 'expected {"_id", "text"}')
      return { id: String(id), text: o.text }
    })
  }
  return lines(file).flatMap((raw, i) => {
    if (raw.trim() === '') return []
    const tab = raw.indexOf('\t')
    if (tab < 0) throw new InputError(file, i + 1, 'expected "query-id<TAB>text"')
    return [{ id: raw.slice(0, tab), text: raw.slice(tab + 1) }]
  })
}

/**
 * Judgements `{ qid: { docId: grade } }` from TREC qrels (`qid iter docid grade`, whitespace-separated) or BEIR
 * qrels (`query-id<TAB>corpus-id<TAB>score`, with or without its header).
 */
export function readQrels(file) {
  requirePath(file, 'qrels file')
  const qrels = {}
  lines(file).forEach((raw, i) => {
    const parts = raw.trim().split(/\s+/)
    if (parts[0] === '' || (i === 0 && parts[0] === 'query-id')) return
    if (parts.length !== 3 && parts.length !== 4)
      throw new InputError(
        file,
        i + 1,
        `expected "qid 0 docid grade" (TREC) or "qid<TAB>docid<TAB>grade" (BEIR), found ${parts.length} fields`,
      )
    const [qid, doc, grade] = parts.length === 4 ? [parts[0], parts[2], parts[3]] : parts
    const g = Number(grade)
    if (!Number.isFinite(g)) throw new InputError(file, i + 1, `grade ${JSON.stringify(grade)} is not a number`)
    qrels[qid] ??= {}
    qrels[qid][doc] = g
  })
  return qrels
}
