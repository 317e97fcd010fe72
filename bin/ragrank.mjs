#!/usr/bin/env node
// ragrank command line: index, search, eval, split, convert, ingest, demo, bench. Exit codes: 0 ok, 1 runtime error, 2 usage, 130 Ctrl-C.
import { interrupt as controller, stopOnSignal } from '../cli/interrupt.mjs'
import { readFileSync } from 'node:fs'
import { Command, Option } from 'commander'
import { EXIT } from '../cli/errors.mjs'
import { evalCommand, scriptCommand, indexCommand, searchCommand, splitCommand } from '../cli/commands.mjs'
import { INGEST_ENGINES, ingestCommand } from '../cli/ingest.mjs'
import { VARIANTS } from '../cli/pipeline.mjs'
import { convertCommand, DTYPES } from '../cli/convert.mjs'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
// A closed pipe (`ragrank search ... | head -1`) is the reader saying it has enough: stop quietly, not with a stack.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(EXIT.OK)
  console.error(`ragrank: cannot write to stdout: ${e.message}`)
  process.exit(EXIT.RUNTIME)
})
// The same for stderr (`2>&1 | head`): there is nowhere left to report to.
process.stderr.on('error', () => process.exit(process.exitCode ?? EXIT.OK))

const analysis = (cmd) =>
  cmd
    .addOption(new Option('--variant <name>', 'BM25 variant').choices(VARIANTS).default('lucene'))
    .option('--k1 <number>', 'term-frequency saturation (default 1.5)')
    .option('--b <number>', 'length normalisation in [0, 1] (default 0.75)')
    .addOption(
      new Option('--analyzer <name>', 'unicode (UAX #29 words, CJK bigrams) or bm25s (bm25s tokenizer preset)')
        .choices(['unicode', 'bm25s'])
        .default('unicode'),
    )
    .option('--stopwords <lang>', "stopword list, e.g. 'en'")
    .option('--stemmer <lang>', "Snowball stemmer, e.g. 'english'")
const columns = (cmd) =>
  cmd
    .option('--text-column <name>', 'CSV/TSV column holding the text', 'text')
    .option('--id-column <name>', 'CSV/TSV column holding the id (default: the "id" column, else the row number)')
const splitting = (cmd) =>
  cmd
    .addOption(
      new Option('--split-by <unit>', 'unit of the block sizes')
        .choices(['word', 'sentence', 'passage', 'page', 'line', 'period', 'char'])
        .default('word'),
    )
    .option('--overlap <n>', 'units shared by neighbouring blocks', '0')

const program = new Command('ragrank')
  .description('Fast local retrieval: BM25 indexes, search, evaluation and hierarchical splitting')
  .version(version)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')

splitting(columns(analysis(program.command('index <input>'))))
  .description('index a JSONL file (incl. BEIR corpus.jsonl), a CSV/TSV file or a folder of .txt/.md files')
  .requiredOption('-o, --output <file>', 'index file to write')
  .option(
    '--split <sizes>',
    'split documents hierarchically (e.g. 512,128,32) and index the leaves; search then auto-merges',
  )
  .option('--embed <model>', 'also embed the documents with this model folder, for search --hybrid')
  .option('--json', 'print a JSON summary to stdout: {output, documents, indexed, terms, split, embedded}')
  .option('--no-progress', 'no progress bar')
  .action((input, o) => indexCommand(input, o, stopOnSignal()))

program
  .command('search <index> [query]')
  .description('search an index; without a query, read queries from stdin one per line')
  .option('-k, --top-k <n>', 'hits to return', '10')
  .option('--json', 'print one JSON object per query to stdout: {query, hits: [{id, score, text}]}')
  .option('-o, --output <file>', 'also write the hits as JSON lines to this file ("-": to stdout, as --json)')
  .option('--rerank <model>', 'rerank the candidates with a cross-encoder model folder')
  .option('--candidates <n>', 'BM25 candidates given to --rerank', '50')
  .option('--no-merge', 'for a split index: return leaves instead of auto-merged blocks')
  .option(
    '--hybrid',
    'fuse BM25 with the vectors of an index built with --embed (reciprocal rank fusion); needs --model',
  )
  .option('--model <dir>', 'embedding model folder for --hybrid (the one given to index --embed)')
  .action((index, query, o) => searchCommand(index, query, o))

columns(analysis(program.command('eval')))
  .description('evaluate configurations on BEIR-style files and print a table of metrics')
  .option('--corpus <file>', 'documents (JSONL/BEIR corpus.jsonl, CSV/TSV or folder)')
  .option('--queries <file>', 'queries: BEIR queries.jsonl or id<TAB>text lines')
  .option('--qrels <file>', 'judgements: TREC qrels or BEIR qrels TSV')
  .option('--metrics <list>', 'metrics', 'map@3,mrr@10,ndcg@10')
  .option('--variants <list>', `BM25 variants to compare (${VARIANTS.join(', ')})`, 'lucene')
  .option('--top-k <n>', 'depth of each ranking', '100')
  .option('--rerank <model>', 'also rerank the first variant with a cross-encoder model folder')
  .option('--candidates <n>', 'candidates given to --rerank', '20')
  .option('--hybrid', 'also evaluate dense and hybrid (BM25 + dense, RRF); needs --model')
  .option('--model <dir>', 'embedding model folder for --hybrid')
  .option('--json', 'print the results as JSON to stdout instead of the table')
  .option('-o, --output <file>', 'also write the results as JSON to this file ("-": to stdout, as --json)')
  .option('--no-progress', 'no progress bar')
  .action((o) => evalCommand(o))

splitting(columns(program.command('split <input>')))
  .description('split documents hierarchically and write the nodes as JSONL')
  .option('--block-sizes <sizes>', 'units per block at each level', '512,128,32')
  .option('-o, --output <file>', 'JSONL file to write (default and "-": stdout)')
  .option('--json', 'the nodes as JSON lines (always the format; accepted for symmetry with the other commands)')
  .action((input, o) => splitCommand(input, o, stopOnSignal()))

program
  .command('convert <source>')
  .description('convert a hub model id or a folder of PyTorch weights to an ONNX folder ragrank loads (needs Python)')
  .option('-o, --output <dir>', 'folder to write (default: <name>-onnx)')
  .addOption(
    new Option('--dtype <type>', 'also write a quantized model (int8, uint8, q8)').choices(DTYPES).default('fp32'),
  )
  .option('--revision <rev>', 'hub branch, tag or commit')
  .option('--instruction <text>', 'the task written into the prompt of a yes/no reranker (Qwen3-Reranker)')
  .option(
    '--python <path>',
    'Python with the exporter packages (default: RAGRANK_CONVERT_PYTHON, .venv-export, python3)',
  )
  .action((source, o) => convertCommand(source, o))

splitting(columns(program.command('ingest <input>')))
  .description('index documents into Elasticsearch, OpenSearch or PostgreSQL + pgvector (bulk, retried, idempotent)')
  .addOption(new Option('--engine <name>', 'the engine').choices(INGEST_ENGINES).makeOptionMandatory())
  .option('--url <url>', 'the engine: http://127.0.0.1:9200, or postgres://user@host:5432/db')
  .option('--index <name>', "index (table for pgvector); created with the adapters' mapping when missing")
  .option('--split <sizes>', 'split hierarchically (e.g. 512,128,32): leaves indexed, all nodes in <index>-nodes')
  .option('--embed <model>', 'embed the indexed texts with this model folder (kNN)')
  .addOption(
    new Option(
      '--analysis <name>',
      "also index ragrank's tokens (e.g. Korean CJK bigrams) for the engine's BM25",
    ).choices(['unicode', 'bm25s']),
  )
  .option('--batch-size <n>', 'documents per bulk request', '500')
  .option('--concurrency <n>', 'bulk requests in flight', '2')
  .option('--retries <n>', 'retries on 429 / 503 / a lost connection', '8')
  .option('--no-progress', 'no progress bar')
  .action(async (input, o) => {
    process.exitCode = await ingestCommand(input, o, controller.signal)
  })

// Commands that run a script of the package with their arguments untouched (the script parses them, --help included).
const scripts = [
  [
    'demo',
    'demo/run.mjs',
    'run the offline demo on the bundled bilingual corpus (options are passed on; demo --help lists them)',
  ],
  ['bench', 'bench/run.mjs', 'run the benchmark suites of bench/run.mjs (options are passed on, e.g. --suite bm25)'],
]
for (const [name, script, description] of scripts) {
  program
    .command(name)
    .description(description)
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action((args) => {
      process.exitCode = scriptCommand(script, args)
    })
}

try {
  await program.parseAsync()
} catch (e) {
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
    process.exit(EXIT.OK)
  if (e.code?.startsWith?.('commander.')) process.exit(EXIT.USAGE) // commander printed the message already
  if (controller.signal.aborted) {
    console.error('interrupted: nothing was written')
    process.exit(EXIT.INTERRUPTED)
  }
  console.error(`ragrank: ${e.message}`)
  process.exit(e.exitCode ?? EXIT.RUNTIME)
}
