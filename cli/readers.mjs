// Input formats of the CLI: documents (JSONL incl. BEIR corpus.jsonl, CSV/TSV, a folder of .txt/.md), queries
// (BEIR queries.jsonl or "id<TAB>text" lines) and judgements (TREC qrels or BEIR qrels TSV). Every parse error
// names the file and line.
//
// Every reader streams: a file is read in chunks and decoded a line (or a CSV record) at a time, so no string ever
// holds the whole file. That is what lets a corpus larger than V8's maximum string length (~512 MB) be split or
// indexed at all, and keeps memory to the records in flight rather than the file: readFileSync(file, 'utf8') on
// such a file fails with "Invalid string length" before a single record is parsed.
import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs'
import { extname, join, relative } from 'node:path'
import { createInterface } from 'node:readline'
import { parse as csvParser } from 'csv-parse'
import { InputError, UsageError } from './errors.mjs'

export function requirePath(path, what) {
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`)
  return path
}

/** A file, or a readable stream someone else controls (tests, stdin), as a stream. */
const streamOf = (source) => (typeof source === 'string' ? createReadStream(source) : source)
const nameOf = (source, name) => name ?? (typeof source === 'string' ? source : '<stream>')

/** The lines of a file or stream with their 1-based numbers, one at a time (a leading BOM removed). */
export async function* readLines(source) {
  const rl = createInterface({ input: streamOf(source), crlfDelay: Number.POSITIVE_INFINITY })
  let line = 0
  for await (const raw of rl) {
    line++
    yield { raw: line === 1 ? raw.replace(/^\uFEFF/, '') : raw, line }
  }
}

/** Each non-empty line of a JSONL file or stream parsed, with its 1-based line number. */
export async function* readJsonl(source, name) {
  const file = nameOf(source, name)
  for await (const { raw, line } of readLines(source)) {
    if (raw.trim() === '') continue
    let value
    try {
      value = JSON.parse(raw)
    } catch (e) {
      throw new InputError(file, line, `invalid JSON (${e.message})`)
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InputError(file, line, 'expected a JSON object per line')
    yield { value, line }
  }
}

/**
 * Rows of a CSV/TSV file or stream as arrays of fields, each with the line it starts on, parsed by csv-parse:
 * quoted fields may hold the separator, doubled quotes and newlines (RFC 4180); a stray quote inside an unquoted
 * field is kept as text, and a row may have any number of fields (readTableDocuments checks them against the header,
 * naming the line).
 */
export async function* readDelimited(source, sep, name) {
  const file = nameOf(source, name)
  const parser = streamOf(source).pipe(
    csvParser({
      delimiter: sep,
      bom: true,
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // Every line ending, even mixed in one file (csv-parse otherwise guesses one from the first line).
      record_delimiter: ['\r\n', '\n', '\r'],
    }),
  )
  try {
    for await (const { record, info } of parser) {
      // info.lines is the line a record ends on; a quoted field's own newlines take it back to where it starts.
      const inner = record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0)
      yield { fields: record, line: info.lines - inner }
    }
  } catch (e) {
    if (!e.code?.startsWith?.('CSV_')) throw e
    const message = e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'unterminated quoted field' : e.message
    throw new InputError(file, e.lines, message)
  }
}

const TEXT_EXT = new Set(['.txt', '.md', '.markdown'])

/** The format `openDocuments` reads `input` as, or a UsageError. */
function formatOf(input) {
  if (statSync(input).isDirectory()) return 'folder'
  const ext = extname(input).toLowerCase()
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  if (ext === '.csv' || ext === '.tsv') return ext.slice(1)
  throw new UsageError(`cannot tell the format of ${input}: use .jsonl, .csv, .tsv or a folder of .txt/.md files`)
}

/**
 * Documents `{ id, text, meta }` from a JSONL file (`id`/`_id`, `text`/`content`, optional `title` prepended and
 * `meta`/`metadata`), a CSV/TSV file with a header (text column chosen by `textColumn`; id column `idColumn`, which
 * must exist when given, and without it the `id` column if there is one, else the row number), or a folder of
 * .txt/.md files (id = path relative to the folder), as an async iterable read one document at a time.
 *
 * `progress()` says how far the reading is, as `{ done, total }` in bytes of a file (or files of a folder), for a
 * progress bar over a corpus whose document count is not known until it has been read.
 */
export function openDocuments(input, { textColumn = 'text', idColumn } = {}) {
  requirePath(input, 'input')
  const format = formatOf(input)
  if (format === 'folder') {
    const files = textFiles(input)
    if (files.length === 0) throw new InputError(input, 0, 'no .txt or .md files in this folder')
    let done = 0
    return {
      progress: () => ({ done, total: files.length }),
      async *[Symbol.asyncIterator]() {
        for (const path of files) {
          yield { id: relative(input, path).split('\\').join('/'), text: readTextFile(path) }
          done++
        }
      },
    }
  }
  const stream = createReadStream(input)
  const total = statSync(input).size
  return {
    // bytesRead runs ahead of parsing by at most one read buffer (64 KiB): close enough for a bar.
    progress: () => ({ done: stream.bytesRead, total }),
    [Symbol.asyncIterator]:
      format === 'jsonl'
        ? () => jsonlDocuments(stream, input)
        : () => tableDocuments(stream, input, format === 'tsv' ? '\t' : ',', textColumn, idColumn),
  }
}

/** Every document of `input` in an array (for commands that need them all at once, like eval). */
export async function readDocuments(input, options) {
  const out = []
  for await (const d of openDocuments(input, options)) out.push(d)
  return out
}

/** Documents of a JSONL file or stream; ids must be unique. */
export async function* jsonlDocuments(source, name) {
  const file = nameOf(source, name)
  const seen = new Set()
  for await (const { value: o, line } of readJsonl(source, file)) {
    const id = o._id ?? o.id
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new InputError(file, line, 'missing "id" (or BEIR "_id")')
    const body = o.text ?? o.content
    if (typeof body !== 'string') throw new InputError(file, line, 'missing "text" (or "content") string')
    const text = typeof o.title === 'string' && o.title !== '' ? `${o.title}\n${body}` : body
    if (seen.has(String(id))) throw new InputError(file, line, `duplicate id ${JSON.stringify(String(id))}`)
    seen.add(String(id))
    const meta = o.meta ?? o.metadata
    yield { id: String(id), text, ...(meta && typeof meta === 'object' ? { meta } : {}) }
  }
}

/** Documents of a CSV/TSV file or stream with a header row. */
export async function* tableDocuments(source, name, sep, textColumn = 'text', idColumn = undefined) {
  const file = nameOf(source, name)
  let header
  let t
  let k
  let n = 0
  for await (const { fields, line } of readDelimited(source, sep, file)) {
    if (!header) {
      header = fields
      t = header.indexOf(textColumn)
      if (t < 0)
        throw new UsageError(
          `${file}: no column "${textColumn}" in the header (${header.join(', ')}); choose one with --text-column`,
        )
      k = header.indexOf(idColumn ?? 'id')
      // A named id column that is not there is a mistake to report, not a reason to number the rows silently.
      if (k < 0 && idColumn !== undefined)
        throw new UsageError(
          `${file}: no column "${idColumn}" in the header (${header.join(', ')}); choose one with --id-column, ` +
            'or leave it out to number the rows',
        )
      continue
    }
    if (fields.length !== header.length)
      throw new InputError(file, line, `expected ${header.length} fields as in the header, found ${fields.length}`)
    n++
    yield { id: k >= 0 ? fields[k] : String(n), text: fields[t] }
  }
  if (!header) throw new InputError(file, 1, 'empty file: expected a header row')
}

/** The largest .txt/.md file of a folder input that is read (64 MiB): a larger one is an error naming it. */
export const MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024

/** A text file listed by textFiles, checked again once open (non-blocking, so a FIFO swapped in cannot block). */
function readTextFile(path) {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new InputError(path, 0, `it is ${kindOf(st)}, not a regular file`)
    if (st.size > MAX_TEXT_FILE_BYTES)
      throw new InputError(path, 0, `${st.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text file may have`)
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** What a non-regular file system entry is, for messages. */
function kindOf(st) {
  if (st.isFIFO()) return 'a FIFO'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isSocket()) return 'a socket'
  return 'not a regular file'
}

/**
 * The .txt/.md files under `dir`, sorted, depth first (symbolic links followed). An entry with a text extension that
 * is not a regular file (a FIFO would block the read forever, /dev/zero never ends) is skipped with a warning on
 * stderr; a file larger than MAX_TEXT_FILE_BYTES is an InputError, before anything is read.
 */
function textFiles(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      let st
      try {
        st = statSync(path)
      } catch (e) {
        console.error(`ragrank: warning: skipping ${path}: ${e.code === 'ENOENT' ? 'a dangling link' : e.message}`)
        continue
      }
      if (st.isDirectory()) walk(path)
      else if (!TEXT_EXT.has(extname(name).toLowerCase())) continue
      else if (!st.isFile())
        console.error(`ragrank: warning: skipping ${path}: it is ${kindOf(st)}, not a regular file`)
      else if (st.size > MAX_TEXT_FILE_BYTES)
        throw new InputError(path, 0, `${st.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text file may have`)
      else out.push(path)
    }
  }
  walk(dir)
  return out
}

/** Queries `[{ id, text }]` from BEIR queries.jsonl or a TSV of `id<TAB>text` lines. */
export async function readQueries(file) {
  requirePath(file, 'queries file')
  const out = []
  if (extname(file).toLowerCase() === '.jsonl') {
    for await (const { value: o, line } of readJsonl(file)) {
      const id = o._id ?? o.id
      if (id === undefined || typeof o.text !== 'string') throw new InputError(file, line, 'expected {"_id", "text"}')
      out.push({ id: String(id), text: o.text })
    }
    return out
  }
  for await (const { raw, line } of readLines(file)) {
    if (raw.trim() === '') continue
    const tab = raw.indexOf('\t')
    if (tab < 0) throw new InputError(file, line, 'expected "query-id<TAB>text"')
    out.push({ id: raw.slice(0, tab), text: raw.slice(tab + 1) })
  }
  return out
}

/**
 * Judgements `{ qid: { docId: grade } }` from TREC qrels (`qid iter docid grade`, whitespace-separated) or BEIR
 * qrels (`query-id<TAB>corpus-id<TAB>score`, with or without its header).
 */
export async function readQrels(file) {
  requirePath(file, 'qrels file')
  const qrels = {}
  for await (const { raw, line } of readLines(file)) {
    const parts = raw.trim().split(/\s+/)
    if (parts[0] === '' || (line === 1 && parts[0] === 'query-id')) continue
    if (parts.length !== 3 && parts.length !== 4)
      throw new InputError(
        file,
        line,
        `expected "qid 0 docid grade" (TREC) or "qid<TAB>docid<TAB>grade" (BEIR), found ${parts.length} fields`,
      )
    const [qid, doc, grade] = parts.length === 4 ? [parts[0], parts[2], parts[3]] : parts
    const g = Number(grade)
    if (!Number.isFinite(g)) throw new InputError(file, line, `grade ${JSON.stringify(grade)} is not a number`)
    qrels[qid] ??= {}
    qrels[qid][doc] = g
  }
  return qrels
}
