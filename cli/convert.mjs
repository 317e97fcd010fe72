// `ragrank convert`: a hub repo or folder of PyTorch weights (BAAI/bge-reranker-v2-m3 ships no ONNX) to the ONNX
// folder ragrank loads, by the Python exporter cli/export_onnx.py. Python is found, never installed: when it or a
// package it needs is missing, the error says exactly what to install.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CrossEncoder, Embedder } from 'ragrank'
import { EXIT, UsageError } from './errors.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const EXPORTER = join(root, 'cli', 'export_onnx.py')
const REQUIREMENTS = join(root, 'cli', 'requirements-convert.txt')
export const DTYPES = ['fp32', 'int8', 'uint8', 'q8']
const NEEDED = ['torch', 'transformers', 'onnx', 'onnxruntime', 'onnxscript']

/** A failure of the conversion itself (exit 1). */
export class ConvertError extends Error {
  exitCode = EXIT.RUNTIME
}

/** The interpreter to run: --python, RAGRANK_CONVERT_PYTHON, the repository's .venv-export, else python3. */
export function pythonFor(o, env = process.env) {
  if (o.python) return o.python
  if (env.RAGRANK_CONVERT_PYTHON) return env.RAGRANK_CONVERT_PYTHON
  const venv = join(root, '.venv-export', 'bin', 'python')
  return existsSync(venv) ? venv : 'python3'
}

const installHint = (python) =>
  [
    `Install the exporter's packages into it:`,
    `  ${python} -m pip install -r ${REQUIREMENTS}`,
    `(pinned: torch, transformers, onnx, onnxruntime, onnxscript; about 3.4 GB with PyTorch's CUDA wheels),`,
    `or in a clone of ragrank: npm run setup:export. Another interpreter: --python <path> or RAGRANK_CONVERT_PYTHON.`,
  ].join('\n')

/** Throws ConvertError naming what to install unless `python` runs and imports every package the exporter needs. */
export function checkPython(python) {
  const probe = `import importlib.util as u, sys; m = [n for n in ${JSON.stringify(NEEDED)} if u.find_spec(n) is None]; print(' '.join(m)); sys.exit(1 if m else 0)`
  const r = spawnSync(python, ['-c', probe], { encoding: 'utf8' })
  if (r.error)
    throw new ConvertError(
      `ragrank convert needs Python 3 (${python}: ${r.error.code ?? r.error.message}).\n${installHint('python3')}`,
    )
  if (r.status !== 0) {
    const missing = r.stdout.trim() || 'its packages'
    throw new ConvertError(`ragrank convert: ${python} lacks ${missing.split(' ').join(', ')}.\n${installHint(python)}`)
  }
}

export const defaultOutput = (source) => `${basename(source.replace(/[\\/]+$/, '')).replace(/[^\w.-]+/g, '-')}-onnx`

export async function convertCommand(source, o) {
  if (o.dtype !== undefined && !DTYPES.includes(o.dtype))
    throw new UsageError(`--dtype must be one of ${DTYPES.join(', ')}, got ${o.dtype}`)
  const output = resolve(o.output ?? defaultOutput(source))
  const python = pythonFor(o)
  checkPython(python)
  const args = [
    EXPORTER,
    source,
    output,
    '--dtype',
    o.dtype ?? 'fp32',
    ...(o.revision ? ['--revision', o.revision] : []),
    ...(o.instruction ? ['--instruction', o.instruction] : []),
  ]
  const r = spawnSync(python, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (r.status !== 0)
    throw new ConvertError(`the exporter failed (exit ${r.status ?? r.signal}); its messages are above`)
  const result = JSON.parse(r.stdout.trim().split('\n').pop())
  // The folder must load the way users load it: a classifier as a CrossEncoder, an encoder as an Embedder.
  const Model = result.output === 'logits' ? CrossEncoder : Embedder
  const model = await Model.load(output, o.dtype && o.dtype !== 'fp32' ? { file: basename(result.files.at(-1)) } : {})
  model.dispose()
  console.log(`${output}: ${result.files.map((f) => f.slice(output.length + 1)).join(', ')}`)
  console.log(
    `checked: onnxruntime matches PyTorch within ${result.max_abs_diff.toExponential(1)}; loads as a ${Model.name}`,
  )
  return result
}
