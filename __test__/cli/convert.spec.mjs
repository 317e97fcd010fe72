// `ragrank convert`: the message when the Python exporter cannot run (always tested), and a real conversion of a
// PyTorch model whose result must load and match PyTorch (when the exporter venv exists; a skip says why).
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CrossEncoder } from '../../dist/esm/index.js'
import { fakeCommit, startHub } from '../../fixtures/hub-server.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(root, 'bin/ragrank.mjs')
const VENV_PYTHON = join(root, '.venv-export', 'bin', 'python')
const cli = (args, env = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } })
/** `cli` without blocking the event loop: the local hub server in this process must answer meanwhile. */
const cliAsync = (args, env = {}) =>
  new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: root, env: { ...process.env, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (status) => done({ status, stdout, stderr }))
  })

test('without Python the error names the interpreter and the exact install command (exit 1)', (t) => {
  const r = cli(['convert', 'BAAI/bge-reranker-v2-m3', '--python', '/nonexistent/python3'])
  t.is(r.status, 1)
  t.regex(r.stderr, /needs Python 3 \(\/nonexistent\/python3: ENOENT\)/)
  t.true(r.stderr.includes(`-m pip install -r ${join(root, 'cli', 'requirements-convert.txt')}`), r.stderr)
  t.regex(r.stderr, /npm run setup:export/)
})

test('a Python without the exporter packages: the missing ones are listed, then what to install', (t) => {
  // an interpreter that finds no site packages at all
  const bare = join(mkdtempSync(join(tmpdir(), 'ragrank-py-')), 'python')
  const wrapper = `#!/bin/sh\nexec python3 -S -I "$@"\n`
  spawnSync('sh', ['-c', `printf '%s' '${wrapper}' > ${bare} && chmod +x ${bare}`])
  const r = cli(['convert', 'some/model'], { RAGRANK_CONVERT_PYTHON: bare })
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /lacks torch, transformers, onnx, onnxruntime, onnxscript/)
  t.true(r.stderr.includes(`${bare} -m pip install -r `), r.stderr)
})

test('--dtype takes only the known names (usage error, exit 2)', (t) => {
  const r = cli(['convert', 'x', '--dtype', 'fp8'])
  t.is(r.status, 2)
  t.regex(r.stderr, /fp32, int8, uint8, q8/)
})

const MAKE_MODEL = `
import json, sys, torch
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification, PreTrainedTokenizerFast
out = sys.argv[1]
vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(f"\\u2581{w}", -1.0 - i / 10) for i, w in enumerate("the cat sat on a mat dog ran far away".split())] + [(c, -5.0) for c in "abcdefghijklmnopqrstuvwxyz"]
tok = Tokenizer(models.Unigram(vocab, unk_id=3))
tok.pre_tokenizer = pre_tokenizers.Metaspace()
tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
torch.manual_seed(7)
cfg = XLMRobertaConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, max_position_embeddings=514, pad_token_id=1, type_vocab_size=1, num_labels=1, architectures=["XLMRobertaForSequenceClassification"])
model = XLMRobertaForSequenceClassification(cfg).eval()
model.save_pretrained(out)
fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>", model_max_length=512)
fast.save_pretrained(out)
docs = ["the cat sat on the mat", "a dog ran far away", "zzz"]
enc = fast(["the cat"] * 3, docs, padding=True, return_tensors="pt")
with torch.no_grad():
    print(json.dumps({"docs": docs, "logits": model(**enc).logits[:, 0].tolist()}))
`

test('converts a PyTorch XLM-R reranker, weights as external data; the result loads and matches PyTorch, int8 too', async (t) => {
  t.timeout(300_000) // PyTorch starts twice; on a loaded 2-core machine that alone can take a minute
  if (!existsSync(VENV_PYTHON)) {
    t.log(`skipped: no exporter venv at ${VENV_PYTHON} (npm run setup:export makes it)`)
    console.log(`convert.spec: the real conversion was skipped: no ${VENV_PYTHON} (npm run setup:export)`)
    t.pass()
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-convert-'))
  try {
    const src = join(dir, 'torch-model')
    const made = spawnSync(VENV_PYTHON, ['-c', MAKE_MODEL, src], { encoding: 'utf8' })
    t.is(made.status, 0, made.stderr)
    const want = JSON.parse(made.stdout.trim().split('\n').pop())
    const out = join(dir, 'onnx-model')
    // weights in onnx/model.onnx_data, as every export over 2 GB has them (the threshold lowered for the test)
    const r = cli(['convert', src, '-o', out, '--dtype', 'int8'], { RAGRANK_EXTERNAL_DATA_OVER: '1000' })
    t.is(r.status, 0, r.stderr)
    t.regex(r.stdout, /onnx\/model\.onnx, onnx\/model\.onnx_data, onnx\/model_int8\.onnx/)
    t.true(statSync(join(out, 'onnx', 'model.onnx')).size < 50_000, 'the graph without its weights')
    t.regex(r.stdout, /loads as a CrossEncoder/)
    t.true(existsSync(join(out, 'tokenizer.json')))
    t.is(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).max_position_embeddings, 514)
    for (const [file, tolerance] of [
      [undefined, 1e-4],
      ['model_int8.onnx', 0.05],
    ]) {
      const model = await CrossEncoder.load(out, file ? { file } : {})
      const hits = await model.rerank('the cat', want.docs, { activation: 'none' })
      for (const h of hits) t.true(Math.abs(h.score - want.logits[h.index]) <= tolerance, `${file}: ${h.score}`)
      model.dispose()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('converts a hub id through HF_ENDPOINT (the local hub server), weights as an LFS file', async (t) => {
  t.timeout(300_000) // PyTorch starts twice; on a loaded 2-core machine that alone can take a minute
  if (!existsSync(VENV_PYTHON)) {
    t.log(`skipped: no exporter venv at ${VENV_PYTHON} (npm run setup:export makes it)`)
    console.log(`convert.spec: the hub conversion was skipped: no ${VENV_PYTHON} (npm run setup:export)`)
    t.pass()
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-convert-hub-'))
  const hub = await startHub()
  try {
    const src = join(dir, 'torch-model')
    const made = spawnSync(VENV_PYTHON, ['-c', MAKE_MODEL, src], { encoding: 'utf8' })
    t.is(made.status, 0, made.stderr)
    const want = JSON.parse(made.stdout.trim().split('\n').pop())
    const files = Object.fromEntries(readdirSync(src).map((f) => [f, readFileSync(join(src, f))]))
    const commit = fakeCommit('convert')
    hub.repos.set('test-org/tiny-reranker', {
      refs: { main: commit },
      commits: { [commit]: files },
      lfs: ['model.safetensors'],
    })
    const out = join(dir, 'out')
    const env = { HF_ENDPOINT: hub.url, HF_HOME: join(dir, 'hf'), HF_HUB_DISABLE_TELEMETRY: '1' }
    const r = await cliAsync(['convert', 'test-org/tiny-reranker', '-o', out], env)
    t.is(r.status, 0, r.stderr)
    t.true(hub.requests.some((q) => q.url.includes('/test-org/tiny-reranker/resolve/main/model.safetensors')))
    const model = await CrossEncoder.load(out)
    for (const h of await model.rerank('the cat', want.docs, { activation: 'none' }))
      t.true(Math.abs(h.score - want.logits[h.index]) <= 1e-4)
    model.dispose()
  } finally {
    await hub.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
