// The CLI's input readers stream: each record is yielded as soon as its bytes have arrived, before the input has
// ended, and a file is read in chunks rather than as one string. That is why `split` and `index` work on a corpus
// larger than V8's maximum string length (~512 MB): no string ever holds more than one line or CSV record, so the
// limit cannot be reached by construction, whatever the file size (bench/probes/cli-stream.mjs measures the memory
// of a 400 MB split). A test with such a file would take minutes; these tests check the property that makes it work.
import test from 'ava'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { jsonlDocuments, openDocuments, readDelimited, tableDocuments } from '../../cli/readers.mjs'

const tmp = () => mkdtempSync(join(tmpdir(), 'ragrank-readers-'))

/** The first value of `iterable`, while `input` is still open (the test fails by timeout if it waits for the end). */
async function firstBeforeEnd(iterable, input) {
  const it = iterable[Symbol.asyncIterator]()
  const first = await it.next()
  const ended = input.writableEnded
  input.end()
  for await (const _ of { [Symbol.asyncIterator]: () => it });
  return { first: first.value, ended }
}

test('JSONL documents come one at a time, the first before the input has ended', async (t) => {
  const input = new PassThrough()
  input.write('{"id":"a","text":"first"}\n')
  const { first, ended } = await firstBeforeEnd(jsonlDocuments(input, 'in.jsonl'), input)
  t.false(ended)
  t.deepEqual(first, { id: 'a', text: 'first' })
})

test('CSV documents come one at a time, the first before the input has ended (csv-parse, streaming)', async (t) => {
  const input = new PassThrough()
  // csv-parse looks one character past a line ending (it could be \r\n), so a record is out once the next has begun.
  input.write('id,text\nr1,"one, quoted\nover two lines"\nr2,')
  const { first, ended } = await firstBeforeEnd(tableDocuments(input, 'in.csv', ','), input)
  t.false(ended)
  t.deepEqual(first, { id: 'r1', text: 'one, quoted\nover two lines' })
})

test('a file is read in chunks: its first document arrives when only the first chunk has been read', async (t) => {
  const dir = tmp()
  const file = join(dir, 'big.jsonl')
  const line = (i) => `${JSON.stringify({ id: `d${i}`, text: `word${i} `.repeat(20) })}\n`
  writeFileSync(file, Array.from({ length: 40_000 }, (_, i) => line(i)).join('')) // ~9 MB
  const source = openDocuments(file)
  let at
  let n = 0
  for await (const d of source) {
    if (n++ === 0) {
      t.is(d.id, 'd0')
      at = source.progress()
    }
  }
  t.is(n, 40_000)
  t.true(at.total > 8_000_000)
  t.true(at.done <= 256 * 1024, `read ${at.done} of ${at.total} bytes before the first document`)
  t.deepEqual(source.progress(), { done: at.total, total: at.total })
})

test('CSV rows report the line they start on, across quoted newlines, CRLF and blank lines', async (t) => {
  const input = new PassThrough()
  input.end('id,text\r\na,"x\ny"\r\n\r\nb,"q ""z"""\nc,stray " quote\n')
  const rows = []
  for await (const r of readDelimited(input, ',', 'in.csv')) rows.push(r)
  t.deepEqual(rows, [
    { fields: ['id', 'text'], line: 1 },
    { fields: ['a', 'x\ny'], line: 2 },
    { fields: ['b', 'q "z"'], line: 5 },
    { fields: ['c', 'stray " quote'], line: 6 },
  ])
})

test('an unterminated quote and a wrong field count name the file and line', async (t) => {
  const drain = async (it) => {
    for await (const _ of it);
  }
  const quote = new PassThrough()
  quote.end('id,text\na,ok\nb,"never closed\n')
  await t.throwsAsync(drain(tableDocuments(quote, 'q.csv', ',')), { message: /^q\.csv:\d+: unterminated quoted field/ })
  const fields = new PassThrough()
  fields.end('id\ttext\na\tone\nb\ttwo\tthree\n')
  await t.throwsAsync(drain(tableDocuments(fields, 'f.tsv', '\t')), {
    message: 'f.tsv:3: expected 2 fields as in the header, found 3',
  })
})

test('the id column: "id" when there is one, row numbers when not, and a named column must exist', async (t) => {
  const docs = async (text, idColumn) => {
    const input = new PassThrough()
    input.end(text)
    const out = []
    for await (const d of tableDocuments(input, 'in.csv', ',', 'text', idColumn)) out.push(d.id)
    return out
  }
  t.deepEqual(await docs('id,text\nx,a\ny,b\n'), ['x', 'y'])
  t.deepEqual(await docs('key,text\nx,a\ny,b\n'), ['1', '2'])
  t.deepEqual(await docs('key,text\nx,a\ny,b\n', 'key'), ['x', 'y'])
  const e = await t.throwsAsync(docs('key,text\nx,a\n', 'id'), {
    message: /no column "id" in the header \(key, text\); choose one with --id-column/,
  })
  t.is(e.exitCode, 2)
})
