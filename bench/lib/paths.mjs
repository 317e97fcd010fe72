// Where the benchmark's files live, resolved once here so that scripts in bench/suites, bench/eval and
// bench/probes (one folder deeper than bench/) do not each count `..` from their own location.
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const repoRoot = path.resolve(benchDir, '..')
/** Git-ignored: downloaded wheels, generated corpora, the models bench/models/prepare.py writes. */
export const cacheDir = path.join(benchDir, '.cache')
export const modelsDir = path.join(cacheDir, 'models')
export const resultsDir = path.join(benchDir, 'results')
/** The Python workers the suites start (bench/py/*.py). */
export const pyScript = (name) => path.join(benchDir, 'py', name)
/** The interpreter of a repository venv (see scripts/README.md: which venv serves what). */
export const venvPython = (venv) => path.join(repoRoot, venv, 'bin', 'python')
/** The built library, ESM entry. */
export const distEntry = path.join(repoRoot, 'dist', 'esm', 'index.js')
