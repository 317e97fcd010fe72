// Property-based fuzzing of every public entry point with hostile values (see README.md here).
// Each target runs in a child process (run.mjs), so a native crash, an unhandled rejection or
// a hang is observed from outside instead of taking ava down. Properties per call: nothing
// escapes (no unhandled rejection or uncaught exception, also after pending signals fire),
// every error is a TypeError/RangeError/RagrankError with a documented code, a failed call
// leaves its object unchanged, and an already-aborted signal is not ignored.
//
// Known failures (findings.mjs) are tolerated by the fuzz tests and replayed
// below under test.failing: each such test starts passing, so ava fails, the day its bug is fixed.
//
//   RAGRANK_FUZZ_RUNS=2000 npx ava __test__/fuzz/fuzz.spec.mjs     more cases per target (default 100)
//   RAGRANK_FUZZ_SECONDS=600 npx ava __test__/fuzz/fuzz.spec.mjs   a wall-clock budget for all targets instead
//   RAGRANK_FUZZ_SEED=123 ...                                      another seed (default fixed, so CI is repeatable)
import test from 'ava'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { FINDINGS } from './findings.mjs'
import { TARGETS } from './targets.mjs'

const RUNNER = fileURLToPath(new URL('./run.mjs', import.meta.url))
const RUNS = Number(process.env.RAGRANK_FUZZ_RUNS ?? 100)
const SECONDS = process.env.RAGRANK_FUZZ_SECONDS === undefined ? undefined : Number(process.env.RAGRANK_FUZZ_SECONDS)
const SEED = Number(process.env.RAGRANK_FUZZ_SEED ?? 20261201)
const CHILDREN = 2 // processes at once: the machines this runs on have few cores
const perTargetSeconds = SECONDS && Math.max(0.2, (SECONDS * CHILDREN) / TARGETS.length) // approximate: shrinking and start-up come on top
// A group's process is killed after this; the default's 110 s per 100 cases is ten times a quiet run.
const childTimeoutMs = SECONDS ? SECONDS * 1000 * 2 + 60_000 : 110_000 * Math.max(1, RUNS / 100)
// A test waits for its group, which may queue behind the others (CHILDREN at a time).
const testTimeoutMs = childTimeoutMs * Math.ceil(new Set(TARGETS.map((x) => x.group)).size / CHILDREN) + 10_000

let running = 0
const waiting = []
/** Runs run.mjs with `args`; resolves to its JSON lines, exit code, signal and stderr. */
async function runner(args) {
  if (running >= CHILDREN) await new Promise((r) => waiting.push(r))
  running++
  try {
    return await new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--no-warnings', RUNNER, ...args],
        { timeout: childTimeoutMs, maxBuffer: 64 << 20 },
        (error, stdout, stderr) => {
          const lines = stdout
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
          resolve({ lines, code: error?.code ?? 0, signal: error?.signal ?? null, stderr: stderr.slice(-4000) })
        },
      )
    })
  } finally {
    running--
    waiting.shift()?.()
  }
}

const groups = new Map()
function group(name) {
  if (!groups.has(name)) {
    const budget = perTargetSeconds ? ['--seconds', String(perTargetSeconds)] : ['--runs', String(RUNS)]
    groups.set(name, runner(['--group', name, '--seed', String(SEED), ...budget]))
  }
  return groups.get(name)
}

const died = (run, what) =>
  `the fuzz runner stopped before reporting ${what} (exit ${run.code}, signal ${run.signal}): a crash, a hang or a harness error\n${run.stderr}`

for (const target of TARGETS) {
  test(`fuzz: ${target.name}`, async (t) => {
    t.timeout(testTimeoutMs)
    const run = await group(target.group)
    const r = run.lines.find((l) => l.target === target.name)
    if (!r) return t.fail(died(run, target.name))
    if (r.error) return t.fail(`harness error: ${r.error}`)
    const known = Object.entries(r.known)
    t.log(
      `${r.runs} cases in ${r.ms} ms${known.length ? `; known findings hit: ${known.map(([c, n]) => `${n}x ${c}`).join('; ')}` : ''}`,
    )
    if (r.failure) {
      return t.fail(
        `${r.failure.cls}\n  ${r.failure.detail}\n  minimal case: ${r.failure.counterexample}\n  seed ${r.seed}, path ${r.failure.path}\n  replay: ${r.failure.replay}`,
      )
    }
    t.true(r.runs > 0, `${r.runs} cases ran`)
  })
}

const replays = () => (replays.run ??= runner(['--replay', 'all']))

test('every finding replays (the runner reports each one)', async (t) => {
  const run = await replays()
  for (const f of FINDINGS)
    t.truthy(
      run.lines.find((l) => l.finding === f.id),
      died(run, f.id),
    )
  t.is(run.code, 0, died(run, 'the replay run'))
  t.is(run.lines.filter((l) => l.finding !== undefined).length, FINDINGS.length, 'one replay line per finding')
})

// Each finding's minimal case, expected to fail until the bug is fixed (findings.mjs).
for (const f of FINDINGS) {
  test.failing(`finding ${f.id} (${f.target}): ${f.title}`, async (t) => {
    const r = (await replays()).lines.find((l) => l.finding === f.id)
    t.truthy(r)
    t.true(r.ok, `${r?.cls}\n  ${r?.detail}`)
  })
}
