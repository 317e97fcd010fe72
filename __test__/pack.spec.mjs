// The npm tarball, packed from a fresh clone, passes publint and attw, installs into empty apps (offline, from the
// npm cache) and its demo, CLI, library (ESM, CommonJS, strict TypeScript), LangChain adapters and framework examples
// run there.
import test from 'ava'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'

;(linuxX64 ? test : test.skip)('scripts/pack-smoke.sh: a fresh clone packed, checked, installed and run', async (t) => {
  t.timeout(20 * 60_000) // a clone, the tshy build, two offline installs and tsc runs
  const r = await promisify(execFile)('bash', ['scripts/pack-smoke.sh'], { cwd: root, maxBuffer: 64 << 20 }).catch(
    (e) => e,
  )
  t.is(r.code ?? 0, 0, `${r.stdout?.slice(-3000)}\n${r.stderr?.slice(-3000)}`)
  t.regex(r.stdout, /== Evaluation/)
  t.regex(r.stdout, /pack-smoke: ok$/m)
})
