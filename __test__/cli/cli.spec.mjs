// The ragrank CLI, run as a child process on small temp fixtures: every command, its formats, errors and exit codes.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BM25_VARIANTS, Bm25Index, HierarchicalSplitter } from '../../dist/esm/index.js'
import { buildBm25, VARIANTS } from '../../cli/pipeline.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(root, 'bin/ragrank.mjs')
const TINY_RERANKER = join(root, 'fixtures/models/tiny-cross-encoder')
const cli = (args, input) => spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', input })
/** Runs `command` in bash with pipefail, so the exit status is ragrank's even when it is not the last in the pipe. */
const shell = (command) => spawnSync('bash', ['-o', 'pipefail', '-c', command], { cwd: root, encoding: 'utf8' })
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`
const RAGRANK = `${quote(process.execPath)} ${quote(BIN)}`
const tmp = () => mkdtempSync(join(tmpdir(), 'ragrank-cli-'))

/** `n` documents over a small vocabulary with a unique token each, so chunks share terms and each adds new ones. */
const manyDocs = (n) =>
  Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `w${i % 37} v${(i * 7) % 101} u${i} w${(i * 3) % 37}` }))

const DOCS = [
  { id: 'cat', text: 'The cat sat on the warm mat by the fire.' },
  { id: 'dog', text: 'A dog barked at the postman all morning.' },
  { id: 'ko', text: '학교에 가는 길에 고양이를 봤다.' },
  { id: 'fish', text: 'Goldfish swim in a round glass bowl.' },
]
function fixture() {
  const dir = tmp()
  writeFileSync(join(dir, 'docs.jsonl'), `${DOCS.map((d) => JSON.stringify(d)).join('\n')}\n`)
  return dir
}

/** `ragrank eval` over the demo collection and its judgements. */
const DEMO_EVAL = [
  'eval',
  '--corpus',
  'demo/corpus.jsonl',
  '--queries',
  'demo/queries.jsonl',
  '--qrels',
  'demo/qrels.tsv',
]

test('index a JSONL file, then search it as text and as JSON', (t) => {
  const dir = fixture()
  const idx = join(dir, 'docs.idx')
  const r = cli(['index', join(dir, 'docs.jsonl'), '-o', idx])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stderr, /indexed 4 documents/)
  const text = cli(['search', idx, 'cat on a mat', '-k', '2'])
  t.is(text.status, 0, text.stderr)
  t.regex(text.stdout.split('\n')[0], /^ {2}1\. \d+\.\d{4} {2}cat {2}The cat sat/)
  const json = JSON.parse(cli(['search', idx, '학교', '--json']).stdout)
  t.is(json.query, '학교')
  t.deepEqual(
    json.hits.map((h) => h.id),
    ['ko'],
  )
  t.true(json.hits[0].score > 0)
})

test('search without a query reads one query per line from stdin', (t) => {
  const dir = fixture()
  const idx = join(dir, 'docs.idx')
  cli(['index', join(dir, 'docs.jsonl'), '-o', idx])
  const r = cli(['search', idx, '--json', '-k', '1'], 'dog\ngoldfish bowl\n')
  t.is(r.status, 0, r.stderr)
  t.deepEqual(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).hits[0].id),
    ['dog', 'fish'],
  )
})

test('index BEIR corpus.jsonl (_id, title) with the bm25+ variant and English stemming', (t) => {
  const dir = tmp()
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    '{"_id":"d1","title":"Running","text":"She runs every day."}\n{"_id":"d2","title":"","text":"Bread recipes."}\n',
  )
  const idx = join(dir, 'c.idx')
  t.is(cli(['index', join(dir, 'corpus.jsonl'), '-o', idx, '--variant', 'bm25+', '--stemmer', 'english']).status, 0)
  const hits = JSON.parse(cli(['search', idx, 'running', '--json']).stdout).hits
  t.deepEqual(
    hits.map((h) => h.id),
    ['d1'],
  )
  t.is(hits[0].text, 'Running\nShe runs every day.') // the title is indexed with the text
})

test('index a CSV file with a quoted multi-line field and a chosen text column', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'd.csv'), 'key,body\nk1,"Apples, pears\nand ""plums"""\nk2,Cars and trucks\n')
  const idx = join(dir, 'd.idx')
  const r = cli(['index', join(dir, 'd.csv'), '-o', idx, '--text-column', 'body', '--id-column', 'key'])
  t.is(r.status, 0, r.stderr)
  const hits = JSON.parse(cli(['search', idx, 'plums', '--json']).stdout).hits
  t.deepEqual(
    hits.map((h) => [h.id, h.text]),
    [['k1', 'Apples, pears\nand "plums"']],
  )
  // A missing column is a usage error naming the columns there are.
  const bad = cli(['index', join(dir, 'd.csv'), '-o', idx, '--text-column', 'text'])
  t.is(bad.status, 2)
  t.regex(bad.stderr, /no column "text" in the header \(key, body\); choose one with --text-column/)
})

test('index a TSV file and a folder of .txt/.md files', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'd.tsv'), 'id\ttext\na\tred apples\nb\tgreen grapes\n')
  t.is(cli(['index', join(dir, 'd.tsv'), '-o', join(dir, 't.idx')]).status, 0)
  t.deepEqual(
    JSON.parse(cli(['search', join(dir, 't.idx'), 'grapes', '--json']).stdout).hits.map((h) => h.id),
    ['b'],
  )
  mkdirSync(join(dir, 'notes/sub'), { recursive: true })
  writeFileSync(join(dir, 'notes/a.md'), '# Tides\nThe tide comes in twice a day.')
  writeFileSync(join(dir, 'notes/sub/b.txt'), 'Volcanoes erupt lava.')
  writeFileSync(join(dir, 'notes/ignored.bin'), 'tide tide tide')
  const r = cli(['index', join(dir, 'notes'), '-o', join(dir, 'n.idx')])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stderr, /indexed 2 documents/)
  t.deepEqual(
    JSON.parse(cli(['search', join(dir, 'n.idx'), 'lava', '--json']).stdout).hits.map((h) => h.id),
    ['sub/b.txt'],
  )
})

test('bad JSONL and CSV report file and line, exit 1', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'bad.jsonl'), '{"id":"a","text":"ok"}\n\n{"id":"b", text}\n')
  const r = cli(['index', join(dir, 'bad.jsonl'), '-o', join(dir, 'x.idx')])
  t.is(r.status, 1)
  t.regex(r.stderr, /bad\.jsonl:3: invalid JSON/)
  writeFileSync(join(dir, 'notext.jsonl'), '{"id":"a","body":"x"}\n')
  t.regex(
    cli(['index', join(dir, 'notext.jsonl'), '-o', join(dir, 'x.idx')]).stderr,
    /notext\.jsonl:1: missing "text" \(or "content"\)/,
  )
  writeFileSync(join(dir, 'bad.csv'), 'id,text\na,one\nb,two,three\n')
  const c = cli(['index', join(dir, 'bad.csv'), '-o', join(dir, 'x.idx')])
  t.is(c.status, 1)
  t.regex(c.stderr, /bad\.csv:3: expected 2 fields as in the header, found 3/)
  t.false(existsSync(join(dir, 'x.idx')))
})

test('usage errors exit 2: unknown option, missing input, bad variant, missing -o; --help exits 0', (t) => {
  const missing = cli(['index', '/nonexistent/docs.jsonl', '-o', '/tmp/x.idx'])
  t.is(missing.status, 2)
  t.regex(missing.stderr, /input not found: \/nonexistent\/docs\.jsonl/)
  t.is(cli(['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--variant', 'bm26']).status, 2)
  t.is(cli(['index', 'demo/corpus.jsonl']).status, 2)
  t.is(cli(['search']).status, 2)
  t.is(cli(['frobnicate']).status, 2)
  t.is(cli(['search', '/nonexistent.idx', 'q']).status, 2)
  const help = cli(['--help'])
  t.is(help.status, 0)
  for (const c of ['index', 'search', 'eval', 'split', 'bench']) t.regex(help.stdout, new RegExp(`^  ${c} `, 'm'))
})

test('a missing rerank model is a usage error that says what the folder needs', (t) => {
  const dir = fixture()
  cli(['index', join(dir, 'docs.jsonl'), '-o', join(dir, 'd.idx')])
  const r = cli(['search', join(dir, 'd.idx'), 'cat', '--rerank', '/nonexistent/model'])
  t.is(r.status, 2)
  t.regex(r.stderr, /reranker model folder not found: \/nonexistent\/model.*model\.onnx.*tokenizer\.json/)
})

test('search --rerank reorders the BM25 candidates with a cross-encoder (tiny random-weight test model)', (t) => {
  const dir = fixture()
  cli(['index', join(dir, 'docs.jsonl'), '-o', join(dir, 'd.idx')])
  const r = cli(['search', join(dir, 'd.idx'), 'the cat and the dog', '--rerank', TINY_RERANKER, '--json', '-k', '2'])
  t.is(r.status, 0, r.stderr)
  const { hits } = JSON.parse(r.stdout)
  t.is(hits.length, 2)
  // Cross-encoder scores are sigmoid outputs in (0, 1), unlike BM25 scores, and come sorted.
  for (const h of hits) t.true(h.score > 0 && h.score < 1)
  t.true(hits[0].score >= hits[1].score)
})

test('eval compares variants on BEIR files with TREC or BEIR qrels, prints a table and writes JSON with --output', (t) => {
  const dir = tmp()
  const out = join(dir, 'e.json')
  writeFileSync(
    join(dir, 'qrels.trec'),
    readFileSync('demo/qrels.tsv', 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .map(([q, d, g]) => `${q} 0 ${d} ${g}`)
      .join('\n'),
  )
  const args = [...DEMO_EVAL.slice(0, -2), '--variants', 'lucene,bm25+', '--metrics', 'map@3,mrr@10', '--output', out]
  const beir = cli([...args, '--qrels', 'demo/qrels.tsv'])
  t.is(beir.status, 0, beir.stderr)
  const lines = beir.stdout.trim().split('\n')
  t.deepEqual(lines[0].split(/\s{2,}/), ['configuration', 'map@3', 'mrr@10'])
  t.deepEqual(
    lines.slice(2).map((l) => l.split(/\s{2,}/)[0]),
    ['bm25 lucene', 'bm25 bm25+'],
  )
  const json = JSON.parse(readFileSync(out, 'utf8'))
  t.is(json.queries, 48)
  for (const mean of Object.values(json.results))
    for (const m of ['map@3', 'mrr@10']) t.true(mean[m] > 0.3 && mean[m] <= 1)
  const trec = cli([...args, '--qrels', join(dir, 'qrels.trec')])
  t.is(trec.stdout, beir.stdout) // same judgements, same table
})

test('eval --rerank adds a configuration; bad qrels name the line', (t) => {
  const r = cli([...DEMO_EVAL, '--rerank', TINY_RERANKER, '--candidates', '5'])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /^bm25 lucene \+ rerank top 5 /m)
  const dir = tmp()
  writeFileSync(join(dir, 'q.tsv'), 'q1 0 d1 1\nq1 d2\n')
  const bad = cli([...DEMO_EVAL.slice(0, -1), join(dir, 'q.tsv')])
  t.is(bad.status, 1)
  t.regex(bad.stderr, /q\.tsv:2: expected "qid 0 docid grade"/)
  t.is(cli(['eval', '--corpus', 'demo/corpus.jsonl']).status, 2)
  t.regex(cli([...DEMO_EVAL, '--hybrid']).stderr, /--hybrid needs --model/)
})

test('eval --hybrid --model adds dense and hybrid rows (tiny random-weight test embedder)', (t) => {
  const r = cli([...DEMO_EVAL, '--hybrid', '--model', join(root, 'fixtures/models/tiny-embedder')])
  t.is(r.status, 0, r.stderr)
  const rows = r.stdout
    .trim()
    .split('\n')
    .slice(2)
    .map((l) => l.split(/\s{2,}/))
  t.deepEqual(
    rows.map((x) => x[0]),
    ['bm25 lucene', 'dense', 'hybrid bm25 lucene + dense (rrf)'],
  )
  for (const row of rows) for (const v of row.slice(1)) t.true(Number(v) >= 0 && Number(v) <= 1)
})

test('index --embed saves vectors; search --hybrid fuses BM25 and dense by RRF (tiny random-weight test embedder)', (t) => {
  const dir = tmp()
  const idx = join(dir, 'd.idx')
  const model = join(root, 'fixtures/models/tiny-embedder')
  t.is(cli(['index', 'demo/corpus.jsonl', '-o', idx, '--embed', model]).status, 0)
  t.true(existsSync(`${idx}.vectors`) && existsSync(`${idx}.texts.jsonl`))
  const r = cli(['search', idx, 'Saltmere festival', '--hybrid', '--model', model, '--json', '-k', '20'])
  t.is(r.status, 0, r.stderr)
  const { hits } = JSON.parse(r.stdout)
  t.is(hits.length, 20)
  // RRF scores (k = 60, two lists) are at most 2/61, far below BM25 scores; every hit carries its text.
  for (const h of hits) t.true(h.score > 0 && h.score <= 2 / 61 + 1e-12 && h.text.length > 0, JSON.stringify(h))
  const bm25 = JSON.parse(cli(['search', idx, 'Saltmere festival', '--json', '-k', '20']).stdout).hits
  t.notDeepEqual(
    hits.map((h) => h.id),
    bm25.map((h) => h.id),
  )
  t.regex(cli(['search', idx, 'x', '--hybrid']).stderr, /--hybrid needs --model/)
  // Rebuilding without --embed drops the vectors, and --hybrid then says how to get them back.
  t.is(cli(['index', 'demo/corpus.jsonl', '-o', idx]).status, 0)
  t.false(existsSync(`${idx}.vectors`) || existsSync(`${idx}.texts.jsonl`))
  const none = cli(['search', idx, 'x', '--hybrid', '--model', model])
  t.is(none.status, 2)
  t.regex(none.stderr, /has no vectors: rebuild it with ragrank index \.\.\. --embed/)
})

test('split writes the hierarchy as JSONL whose texts are slices of the documents', (t) => {
  const dir = fixture()
  const out = join(dir, 'nodes.jsonl')
  const r = cli(['split', join(dir, 'docs.jsonl'), '--block-sizes', '6,3', '-o', out])
  t.is(r.status, 0, r.stderr)
  const nodes = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  const byId = Object.fromEntries(DOCS.map((d) => [d.id, d.text]))
  t.deepEqual(
    nodes.filter((n) => n.level === 0).map((n) => n.id),
    DOCS.map((d) => d.id),
  )
  for (const n of nodes) t.is(n.text, byId[n.sourceId].slice(n.start, n.end))
  t.true(nodes.some((n) => n.level === 2 && n.blockSize === 3))
  // Without -o the nodes go to stdout.
  t.is(cli(['split', join(dir, 'docs.jsonl'), '--block-sizes', '6,3']).stdout, readFileSync(out, 'utf8'))
  t.is(cli(['split', join(dir, 'docs.jsonl'), '--block-sizes', '6,zero']).status, 2)
})

test('index --split indexes leaves and search merges them back into blocks (--no-merge returns leaves)', (t) => {
  const dir = tmp()
  const long = `${'alpha beta gamma delta. '.repeat(6)}omega words here and there to fill the rest of it.`
  writeFileSync(join(dir, 'd.jsonl'), `${JSON.stringify({ id: 'doc', text: long })}\n`)
  const idx = join(dir, 's.idx')
  t.is(cli(['index', join(dir, 'd.jsonl'), '-o', idx, '--split', '12,4']).status, 0)
  t.true(existsSync(`${idx}.nodes.jsonl`))
  const leaves = JSON.parse(cli(['search', idx, 'alpha gamma', '--json', '--no-merge']).stdout).hits
  t.true(leaves.length > 1)
  t.true(leaves.every((h) => /^doc#\d+\.\d+$/.test(h.id)))
  const merged = JSON.parse(cli(['search', idx, 'alpha gamma', '--json']).stdout).hits
  // Most leaves of each block match, so they merge up into a block or the whole document (doc or doc#i).
  t.true(
    merged.some((h) => /^doc(#\d+)?$/.test(h.id)),
    JSON.stringify(merged.map((h) => h.id)),
  )
  t.true(merged.length < leaves.length)
  // Re-indexing without --split removes the tree that no longer matches.
  t.is(cli(['index', join(dir, 'd.jsonl'), '-o', idx]).status, 0)
  t.false(existsSync(`${idx}.nodes.jsonl`))
})

test('bench delegates to bench/run.mjs and passes its options on', (t) => {
  const help = cli(['bench', '--help'])
  t.is(help.status, 0)
  t.regex(help.stdout, /usage: node bench\/run\.mjs/)
  const bad = cli(['bench', '--no-such-flag'])
  t.is(bad.status, 2)
  t.regex(bad.stderr, /unknown option --no-such-flag/)
})

const hasScript = spawnSync('script', ['--version']).status === 0

;(hasScript ? test : test.skip)(
  'on a terminal, index and eval show progress bars with count, rate and ETA; in a pipe they do not',
  (t) => {
    const dir = tmp()
    const docs = Array.from({ length: 20_000 }, (_, i) =>
      JSON.stringify({ id: `d${i}`, text: `word${i % 50} other${i % 7} x${i}` }),
    )
    writeFileSync(join(dir, 'b.jsonl'), docs.join('\n'))
    // script(1) runs the command under a pseudo-terminal, so stderr is a TTY as in an interactive shell.
    const tty = spawnSync(
      'script',
      ['-qec', `${process.execPath} ${BIN} index ${join(dir, 'b.jsonl')} -o ${join(dir, 'b.idx')}`, '/dev/null'],
      { encoding: 'utf8' },
    )
    t.is(tty.status, 0, tty.stdout)
    // The bar fills with the bytes read (the document count is known only at the end) and counts the documents.
    t.regex(tty.stdout, /indexing \[.+\] 100% \| 20000 documents \| \d+\/s \| ETA \d+s/)
    const piped = cli(['index', join(dir, 'b.jsonl'), '-o', join(dir, 'c.idx')])
    t.is(piped.status, 0)
    t.notRegex(piped.stderr, /indexing \[/)
    t.regex(piped.stderr, /indexed 20000 documents/)
    // eval shows one bar per step: indexing each variant, then searching.
    const evalTty = spawnSync(
      'script',
      ['-qec', `${process.execPath} ${BIN} ${DEMO_EVAL.join(' ')} --variants lucene,bm25+`, '/dev/null'],
      { cwd: root, encoding: 'utf8' },
    )
    t.is(evalTty.status, 0, evalTty.stdout)
    for (const step of ['indexing lucene', 'searching lucene', 'indexing bm25\\+', 'searching bm25\\+'])
      t.regex(evalTty.stdout, new RegExp(`${step} \\[.+\\] 100% \\| \\d+/\\d+ \\| \\d+/s`))
    t.notRegex(cli(DEMO_EVAL).stderr, /indexing \[/)
  },
)

// Serial: the other tests' spawnSync blocks this process's event loop, which would delay the signal past the work.
test.serial('Ctrl-C during indexing exits 130 and leaves no file behind', async (t) => {
  const dir = tmp()
  // Large enough that indexing outlasts the signal, sent once the streamed nodes' temporary file shows the work has
  // begun (a fixed delay raced the process start on a loaded machine).
  const words = ['river', 'stone', 'light', 'harbour', 'field', 'cloud', 'north', 'amber', 'salt', 'wind']
  const lines = []
  for (let i = 0; i < 300_000; i++)
    lines.push(
      JSON.stringify({
        id: `d${i}`,
        text: `${words[i % 10]} ${words[(i * 7) % 10]} w${i} ${words[(i * 3) % 10]} t${i % 997}`,
      }),
    )
  writeFileSync(join(dir, 'big.jsonl'), lines.join('\n'))
  const args = ['index', join(dir, 'big.jsonl'), '-o', join(dir, 'big.idx'), '--split', '4,2']
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise((resolve) => child.on('exit', (c) => resolve(c)))
  const started = async () => {
    while (!readdirSync(dir).some((f) => f.endsWith('.tmp'))) await new Promise((r) => setTimeout(r, 20))
  }
  await Promise.race([started(), exited])
  child.kill('SIGINT')
  const code = await exited
  t.is(code, 130, stderr)
  t.regex(stderr, /interrupted: nothing was written/)
  t.deepEqual(readdirSync(dir), ['big.jsonl'])
})

test('index builds in chunks an index equal to one API add: same stats, same hits and scores', async (t) => {
  const dir = tmp()
  const docs = manyDocs(5_000) // three CLI chunks of 2,000
  writeFileSync(join(dir, 'm.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'))
  const r = cli(['index', join(dir, 'm.jsonl'), '-o', join(dir, 'cli.idx')])
  t.is(r.status, 0, r.stderr)
  const api = new Bm25Index()
  api.add(docs)
  const built = await Bm25Index.load(join(dir, 'cli.idx'))
  const counts = ({ documents, terms, postings, avgDocLength }) => ({ documents, terms, postings, avgDocLength })
  t.deepEqual(counts(built.stats()), counts(api.stats()))
  const queries = ['w3 v10', 'u4999 w0', 'v100', 'u0 u2500 w36', 'w1 w2 w3 v4 v5']
  for (const q of queries) t.deepEqual(built.search(q, { topK: 50 }), api.search(q, { topK: 50 }), q)
})

test('buildBm25 reports progress chunk by chunk up to the total, and stops between chunks once aborted', async (t) => {
  const docs = manyDocs(4_500)
  const seen = []
  const index = await buildBm25(docs, {}, { chunk: 2000, onProgress: (n) => seen.push(n) })
  t.deepEqual(seen, [2000, 4000, 4500])
  t.is(index.size, 4_500)
  const controller = new AbortController()
  const stopped = []
  const build = buildBm25(
    docs,
    {},
    { chunk: 2000, signal: controller.signal, onProgress: (n) => (stopped.push(n), controller.abort()) },
  )
  await t.throwsAsync(build, { name: 'AbortError', code: 'ABORT_ERR' })
  t.deepEqual(stopped, [2000])
})

test('a closed pipe ends the command quietly: search ... | head -1 exits 0 without a stack trace', (t) => {
  const dir = tmp()
  const idx = join(dir, 'd.idx')
  t.is(cli(['index', 'demo/corpus.jsonl', '-o', idx]).status, 0)
  // Thousands of queries on stdin: far more output than the pipe buffer holds, so writes hit the closed pipe.
  writeFileSync(join(dir, 'q.txt'), 'festival lanterns\n'.repeat(3000))
  const json = shell(`${RAGRANK} search ${quote(idx)} --json < ${quote(join(dir, 'q.txt'))} | head -1`)
  t.is(json.status, 0, json.stderr)
  t.is(json.stdout.trim().split('\n').length, 1)
  t.is(JSON.parse(json.stdout).query, 'festival lanterns')
  t.is(json.stderr, '')
  const text = shell(`${RAGRANK} split demo/corpus.jsonl --block-sizes 8,4 | head -1`)
  t.is(text.status, 0, text.stderr)
  t.notRegex(text.stderr, /EPIPE|at \w+ \(/)
})

test('--version prints the version of package.json', (t) => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  for (const flag of ['--version', '-V']) {
    const r = cli([flag])
    t.is(r.status, 0)
    t.is(r.stdout.trim(), version)
  }
})

test('--json prints JSON to stdout and --output FILE writes it, "-" meaning stdout, in every command', (t) => {
  const dir = tmp()
  const idx = join(dir, 'd.idx')
  // index --json: a summary on stdout.
  const built = cli(['index', 'demo/corpus.jsonl', '-o', idx, '--json'])
  t.is(built.status, 0, built.stderr)
  t.like(JSON.parse(built.stdout), { output: idx, documents: 384, indexed: 384, split: false, embedded: false })
  t.is(cli(['index', 'demo/corpus.jsonl', '-o', '-']).status, 2) // an index is files, not a stream
  // search: --output FILE writes the JSON lines --json prints (stdout keeps the text, or JSON with --json too);
  // --output - prints them.
  const printed = cli(['search', idx, 'festival', '--json', '-k', '3'])
  t.is(printed.status, 0, printed.stderr)
  t.is(JSON.parse(printed.stdout).hits.length, 3)
  const out = join(dir, 'hits.jsonl')
  const written = cli(['search', idx, 'festival', '-k', '3', '--output', out])
  t.is(written.status, 0, written.stderr)
  t.regex(written.stdout, /^ {2}1\. \d+\.\d{4} {2}en\//)
  t.is(readFileSync(out, 'utf8'), printed.stdout)
  t.is(cli(['search', idx, 'festival', '-k', '3', '-o', '-']).stdout, printed.stdout)
  const both = join(dir, 'both.jsonl')
  t.is(cli(['search', idx, 'festival', '-k', '3', '--json', '-o', both]).stdout, printed.stdout)
  t.is(readFileSync(both, 'utf8'), printed.stdout)
  // eval: --json prints the JSON instead of the table; --output FILE writes it next to the table; - is stdout.
  const evalJson = cli([...DEMO_EVAL, '--json'])
  t.is(evalJson.status, 0, evalJson.stderr)
  const results = JSON.parse(evalJson.stdout)
  t.is(results.queries, 48)
  t.true(results.results['bm25 lucene']['ndcg@10'] > 0.3)
  t.deepEqual(JSON.parse(cli([...DEMO_EVAL, '--output', '-']).stdout), results)
  const file = join(dir, 'e.json')
  const table = cli([...DEMO_EVAL, '--output', file])
  t.regex(table.stdout, /^configuration +map@3/)
  t.deepEqual(JSON.parse(readFileSync(file, 'utf8')), results)
  t.deepEqual(JSON.parse(cli([...DEMO_EVAL, '--json', '--output', file]).stdout), results)
  // split: -o - is stdout, like no -o.
  const nodes = cli(['split', 'demo/corpus.jsonl', '-o', '-'])
  t.is(nodes.status, 0, nodes.stderr)
  t.is(nodes.stdout, cli(['split', 'demo/corpus.jsonl', '--json']).stdout)
  t.true(nodes.stdout.split('\n').filter(Boolean).length > 384)
})

test('eval --json takes no file: a file after it is a usage error (--output FILE writes one)', (t) => {
  const dir = tmp()
  const file = join(dir, 'results.json')
  const r = cli([...DEMO_EVAL, '--json', file])
  t.is(r.status, 2, r.stderr)
  t.false(existsSync(file))
})

test('a wrong --id-column exits 2 naming the columns; without it, the id column or row numbers', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'd.csv'), 'key,text\nk1,red apples\nk2,green grapes\n')
  const bad = cli(['index', join(dir, 'd.csv'), '-o', join(dir, 'x.idx'), '--id-column', 'id'])
  t.is(bad.status, 2)
  t.regex(bad.stderr, /no column "id" in the header \(key, text\); choose one with --id-column/)
  t.false(existsSync(join(dir, 'x.idx')))
  t.is(cli(['split', join(dir, 'd.csv'), '--id-column', 'nope']).status, 2)
  t.is(cli(['index', join(dir, 'd.csv'), '-o', join(dir, 'n.idx')]).status, 0)
  t.deepEqual(
    JSON.parse(cli(['search', join(dir, 'n.idx'), 'grapes', '--json']).stdout).hits.map((h) => h.id),
    ['2'],
  )
})

test('eval warns on stderr when no judged document id occurs in the corpus (the metrics would all be 0)', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\tnot-a-doc\t1\nq2\talso-not\t1\n')
  const r = cli([...DEMO_EVAL.slice(0, -1), join(dir, 'qrels.tsv')])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stderr, /warning: none of the 2 judged document ids \(e\.g\. "not-a-doc"\) occurs in the corpus/)
  t.regex(r.stdout, /bm25 lucene +0\.0000/)
  t.notRegex(cli(DEMO_EVAL).stderr, /warning/)
})

test('every bad flag value exits 2 with a message naming the flag', (t) => {
  const cases = [
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--stopwords', 'fr'], /--stopwords: .*"fr"/],
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--stemmer', 'klingon'], /--stemmer: .*"klingon"/],
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--b', '2'], /--b: /],
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--k1='], /--k1 must be a non-negative number/],
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--analyzer', 'bm25s', '--stemmer', 'english'], /bm25s/],
    [['index', 'demo/corpus.jsonl', '-o', '/tmp/x.idx', '--overlap', '-1'], /--overlap must be a non-negative/],
    [['split', 'demo/corpus.jsonl', '--block-sizes', '8,4', '--overlap', '6'], /--overlap: overlap \(6\)/],
    [['split', 'demo/corpus.jsonl', '--overlap', '1.5'], /--overlap must be a non-negative integer/],
    [['split', 'demo/corpus.jsonl', '--split-by', 'paragraph'], /--split-by/],
    [['search', 'demo/corpus.jsonl', 'q', '-k', '0'], /--top-k must be a positive integer/],
    [[...DEMO_EVAL, '--metrics', 'map@x'], /--metrics: /],
    [[...DEMO_EVAL, '--metrics', 'foo'], /--metrics: unknown metric "foo"/],
    [[...DEMO_EVAL, '--variants', 'lucene,bm26'], /unknown variant "bm26"/],
    [[...DEMO_EVAL, '--candidates', 'many'], /--candidates must be a positive integer/],
    [[...DEMO_EVAL, '--top-k', '-3'], /--top-k must be a positive integer/],
  ]
  for (const [args, message] of cases) {
    const r = cli(args)
    t.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    t.regex(r.stderr, message, args.join(' '))
  }
})

test('a failure midway through split -o FILE leaves no file (the nodes are streamed into a temporary file)', (t) => {
  const dir = tmp()
  const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `d${i}`, text: `words of doc ${i}` }))
  lines.push('{"id": broken')
  writeFileSync(join(dir, 'd.jsonl'), `${lines.join('\n')}\n`)
  const r = cli(['split', join(dir, 'd.jsonl'), '--block-sizes', '4,2', '-o', join(dir, 'nodes.jsonl')])
  t.is(r.status, 1)
  t.regex(r.stderr, /d\.jsonl:5001: invalid JSON/)
  t.deepEqual(readdirSync(dir), ['d.jsonl'])
})

test('split streams the corpus in batches and writes what one split of all documents gives', (t) => {
  const dir = tmp()
  const docs = manyDocs(4_500) // three batches of up to 2,000
  writeFileSync(join(dir, 'm.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'))
  const r = cli(['split', join(dir, 'm.jsonl'), '--block-sizes', '4,2', '-o', join(dir, 'nodes.jsonl')])
  t.is(r.status, 0, r.stderr)
  const whole = new HierarchicalSplitter({ blockSizes: [4, 2] }).split(docs)
  t.is(readFileSync(join(dir, 'nodes.jsonl'), 'utf8'), whole.map((n) => `${JSON.stringify(n)}\n`).join(''))
})

// Serial, like the other Ctrl-C test: a concurrent spawnSync would hold up this process's events.
test.serial(
  'Ctrl-C stops a command waiting for input (search reading queries) with 130 and no file left',
  async (t) => {
    const dir = tmp()
    const idx = join(dir, 'd.idx')
    t.is(cli(['index', 'demo/corpus.jsonl', '-o', idx]).status, 0)
    const child = spawn(process.execPath, [BIN, 'search', idx, '-k', '1', '-o', join(dir, 'hits.jsonl')], { cwd: root })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise((resolve) => child.on('exit', (c) => resolve(c)))
    child.stdin.write('festival\n') // stdin stays open: search waits for the next query
    await new Promise((resolve) => child.stdout.once('data', resolve))
    t.true(readdirSync(dir).some((f) => f.startsWith('hits.jsonl.') && f.endsWith('.tmp')))
    child.kill('SIGINT')
    t.is(await exited, 130, stderr)
    t.regex(stderr, /interrupted: nothing was written/)
    t.false(readdirSync(dir).some((f) => f.startsWith('hits.jsonl')))
  },
)

test('index of a folder skips a FIFO and a /dev/zero link with a warning, without hanging or reading without end', (t) => {
  const dir = tmp()
  const folder = join(dir, 'texts')
  mkdirSync(folder)
  writeFileSync(join(folder, 'a.txt'), 'a cat on a mat')
  spawnSync('mkfifo', [join(folder, 'pipe.txt')])
  symlinkSync('/dev/zero', join(folder, 'zero.md'))
  const r = spawnSync(process.execPath, [BIN, 'index', folder, '-o', join(dir, 'f.idx'), '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
  })
  t.is(r.signal, null, 'index returned')
  t.is(r.status, 0, r.stderr)
  t.regex(r.stderr, /warning: skipping .*pipe\.txt: it is a FIFO, not a regular file/)
  t.regex(r.stderr, /warning: skipping .*zero\.md: it is a character device, not a regular file/)
  t.is(JSON.parse(r.stdout).documents, 1)
})

test('index of an empty input (an empty JSONL file, a folder of empty files) is an error naming it, nothing written', (t) => {
  const dir = tmp()
  writeFileSync(join(dir, 'empty.jsonl'), '\n\n')
  const r = cli(['index', join(dir, 'empty.jsonl'), '-o', join(dir, 'e.idx')])
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /empty\.jsonl: no documents to index/)
  const folder = join(dir, 'blank')
  mkdirSync(folder)
  for (let i = 0; i < 2000; i++) writeFileSync(join(folder, `f${i}.txt`), i % 2 ? '' : '  \n')
  const f = cli(['index', folder, '-o', join(dir, 'b.idx')])
  t.is(f.status, 1, f.stderr)
  t.regex(f.stderr, /blank: the 2000 documents hold no words to index/)
  t.deepEqual(readdirSync(dir).sort(), ['blank', 'empty.jsonl'])
})

test('index -o in a missing folder, at a directory, a FIFO or a link to /dev/null: a usage error naming it', (t) => {
  const dir = fixture()
  const fifo = join(dir, 'pipe.idx')
  spawnSync('mkfifo', [fifo])
  symlinkSync('/dev/null', join(dir, 'null.idx'))
  const cases = [
    [join(dir, 'no/such/x.idx'), `folder ${join(dir, 'no/such')} does not exist`],
    [dir, 'is a directory'],
    [fifo, 'is a FIFO'],
    [join(dir, 'null.idx'), 'leads to /dev/null, which is a character device'],
  ]
  for (const [out, message] of cases) {
    const r = spawnSync(process.execPath, [BIN, 'index', join(dir, 'docs.jsonl'), '-o', out], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20_000,
    })
    t.is(r.status, 2, r.stderr)
    t.true(r.stderr.includes(out), r.stderr)
    t.true(r.stderr.includes(message), r.stderr)
  }
  t.true(lstatSync(fifo).isFIFO())
  t.true(lstatSync(join(dir, 'null.idx')).isSymbolicLink())
  t.true(statSync('/dev/null').isCharacterDevice())
  t.deepEqual(readdirSync(dir).sort(), ['docs.jsonl', 'null.idx', 'pipe.idx'])
})

// Serial, like the other Ctrl-C tests.
test.serial('Ctrl-C during the save of a --split rebuild keeps the old index and its nodes file', async (t) => {
  const dir = tmp()
  const lines = []
  for (let i = 0; i < 150_000; i++)
    lines.push(JSON.stringify({ id: `d${i}`, text: `river stone w${i} light t${i % 997} field x${i * 7}` }))
  writeFileSync(join(dir, 'big.jsonl'), lines.join('\n'))
  const idx = join(dir, 'big.idx')
  const args = ['index', join(dir, 'big.jsonl'), '-o', idx, '--split', '4,2']
  t.is(cli(args).status, 0)
  const before = { index: readFileSync(idx), nodes: readFileSync(`${idx}.nodes.jsonl`) }
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise((resolve) => child.on('exit', (c) => resolve(c)))
  // The index's own temporary appears when its save begins: the signal lands during the save.
  const saving = async () => {
    while (!readdirSync(dir).some((f) => f.startsWith('.big.idx.ragrank-tmp-')))
      await new Promise((r) => setImmediate(r))
  }
  await Promise.race([saving(), exited])
  child.kill('SIGINT')
  const code = await exited
  t.is(code, 130, `the signal came after the save (${stderr})`)
  t.regex(stderr, /interrupted: nothing was written/)
  t.true(readFileSync(idx).equals(before.index), 'the old index')
  t.true(readFileSync(`${idx}.nodes.jsonl`).equals(before.nodes), 'and its nodes file')
  t.deepEqual(readdirSync(dir).sort(), ['big.idx', 'big.idx.nodes.jsonl', 'big.jsonl'])
  // A nodes file of another build is refused, not merged with the wrong leaves.
  writeFileSync(`${idx}.nodes.jsonl`, before.nodes.subarray(0, before.nodes.indexOf('\n') + 1))
  const r = cli(['search', idx, 'river'])
  t.is(r.status, 1)
  t.regex(r.stderr, /big\.idx\.nodes\.jsonl: holds \d+ leaves but .*big\.idx indexes \d+: it belongs to another build/)
})

test('the CLI takes every BM25 variant the library does (bm25l-lvzhai too), from the library list', (t) => {
  t.deepEqual([...VARIANTS], [...BM25_VARIANTS])
  t.true(BM25_VARIANTS.includes('bm25l-lvzhai'))
  for (const v of BM25_VARIANTS) t.notThrows(() => new Bm25Index({ variant: v }), v)
  const dir = fixture()
  const r = cli(['index', join(dir, 'docs.jsonl'), '-o', join(dir, 'lz.idx'), '--variant', 'bm25l-lvzhai'])
  t.is(r.status, 0, r.stderr)
  const ev = cli([...DEMO_EVAL, '--variants', 'lucene,bm25l-lvzhai', '--json'])
  t.is(ev.status, 0, ev.stderr)
  t.truthy(JSON.parse(ev.stdout).results['bm25 bm25l-lvzhai'])
})
