// The npm tarball installs into an empty folder (offline, from the npm cache) and its demo, CLI and library run there.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'

;(linuxX64 ? test : test.skip)(
  'scripts/pack-smoke.sh: npm pack, install the tarballs, run the demo and a query',
  (t) => {
    const r = spawnSync('bash', ['scripts/pack-smoke.sh'], { cwd: root, encoding: 'utf8' })
    t.is(r.status, 0, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`)
    t.regex(r.stdout, /== Evaluation/)
    t.regex(r.stdout, /pack-smoke: ok$/m)
  },
)
