#!/usr/bin/env node
// Fuzz runner, in its own process so that a crash, an unhandled rejection or a hang cannot
// take the test runner down with it. Prints one JSON line per target.
//
//   node __test__/fuzz/run.mjs [--group g] [--target name] [--runs n] [--seed s] [--path p] [--strict]
//       assert mode: fast-check stops at the first failure not explained by a known finding
//       (all failures with --strict), shrinks it and reports seed, path and counterexample.
//   node __test__/fuzz/run.mjs --count [--seconds t | --runs n] [--group g]
//       survey mode: runs every case, counts failure classes, then shrinks one
//       counterexample per class (what a new finding in findings.mjs is written from).
//   node __test__/fuzz/run.mjs --replay <finding id | all>
//       runs a finding's minimal case (a racy one up to its `repeat` times).
//
// Cases run with the working directory in a fresh temp folder, the hub offline and OpenAI
// pointed at a closed local port: nothing a case invents reaches the network or the checkout.
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { runCase, installEscapeListeners } from './check.mjs'
import { FINDINGS, isFinding, knownFinding } from './findings.mjs'
import { prepare, TARGETS } from './targets.mjs'
import { cleanup } from './fixtures.mjs'

const { values: a } = parseArgs({
  options: {
    group: { type: 'string' },
    target: { type: 'string' },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    path: { type: 'string' },
    count: { type: 'boolean' },
    strict: { type: 'boolean' },
    replay: { type: 'string' },
  },
})

const cwd = mkdtempSync(join(tmpdir(), 'ragrank-fuzz-cwd-'))
process.chdir(cwd) // relative paths a case invents land here
process.env.HF_HUB_OFFLINE = '1'
process.env.HF_ENDPOINT = 'http://127.0.0.1:9'
process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1'
installEscapeListeners()
const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`)
const targets = TARGETS.filter((x) => (!a.group || x.group === a.group) && (!a.target || x.name === a.target))
const show = (v) => fc.stringify(v).slice(0, 2000)

async function main() {
  await prepare()
  if (targets.length === 0) throw new Error(`no target matches --group ${a.group} --target ${a.target}`)
  if (a.replay) await replay()
  else if (a.count) await survey()
  else await check()
}

/** Each finding's minimal case: is it still failing? */
async function replay() {
  const list = a.replay === 'all' ? FINDINGS : FINDINGS.filter((x) => x.id === a.replay)
  if (list.length === 0 && a.replay !== 'all') throw new Error(`no finding ${a.replay}`)
  for (const f of list) {
    const target = TARGETS.find((x) => x.name === f.target)
    if (!target) throw new Error(`finding ${f.id}: no target ${f.target}`)
    // only the finding's own class counts (a case may show several); a racy finding gets several tries
    let hit
    let tries = 0
    while (!hit && tries++ < (f.repeat ?? 1)) {
      const r = await runCase(target, f.args)
      hit = r.ok ? undefined : r.all.find((x) => isFinding(f, target.name, x.cls))
    }
    out({ finding: f.id, target: f.target, tries, ok: !hit, cls: hit?.cls, detail: hit?.detail })
  }
}

/** Every case runs; failures are counted by class, then one case per class is shrunk. */
async function survey() {
  const deadline = a.seconds ? Date.now() + Number(a.seconds) * 1000 : Infinity
  const perTarget = a.runs ? Number(a.runs) : Infinity
  const stats = new Map(targets.map((x) => [x.name, { runs: 0, classes: {}, first: {} }]))
  let seed = a.seed ? Number(a.seed) : Date.now() % 1e9
  // rounds of 50 cases per target until the budget is spent, so every target gets its share
  while (Date.now() < deadline && [...stats.values()].some((s) => s.runs < perTarget)) {
    for (const target of targets) {
      const s = stats.get(target.name)
      if (s.runs >= perTarget || Date.now() >= deadline) continue
      const n = Math.min(50, perTarget - s.runs)
      const roundSeed = seed++
      let i = 0
      await fc.assert(
        fc.asyncProperty(target.args, async (args) => {
          const r = await runCase(target, args)
          s.runs++
          if (!r.ok) {
            for (const f of r.all) {
              s.classes[f.cls] = (s.classes[f.cls] ?? 0) + 1
              s.first[f.cls] ??= { seed: roundSeed, path: String(i), detail: f.detail }
            }
          }
          i++
        }),
        { numRuns: n, seed: roundSeed, endOnFailure: true },
      )
    }
  }
  // one shrunk counterexample per class, shrinking from the first case that hit it
  for (const target of targets) {
    const s = stats.get(target.name)
    const examples = {}
    for (const cls of Object.keys(s.classes)) {
      const { seed: firstSeed, path, detail } = s.first[cls]
      const r = await fc.check(
        fc.asyncProperty(target.args, async (args) => {
          const c = await runCase(target, args)
          return c.ok || !c.all.some((f) => f.cls === cls)
        }),
        { seed: firstSeed, path, numRuns: 1 },
      )
      examples[cls] = r.failed
        ? { counterexample: show(r.counterexample), seed: r.seed, path: r.counterexamplePath, detail }
        : { notReproduced: true, seed: firstSeed, path, detail } // a race that did not happen again
    }
    out({ target: target.name, runs: s.runs, classes: s.classes, examples })
  }
}

/** fast-check's usual run: stop at the first failure no known finding explains, shrink it, report it. */
async function check() {
  // a time budget (seconds per target) replaces the run count: as many cases as fit
  const budgetMs = a.seconds ? Number(a.seconds) * 1000 : undefined
  const runs = budgetMs ? 1e9 : Number(a.runs ?? process.env.RAGRANK_FUZZ_RUNS ?? 60)
  const seed = Number(a.seed ?? process.env.RAGRANK_FUZZ_SEED ?? 20261201)
  for (const target of targets) {
    const known = {}
    let unexpected
    const t0 = Date.now()
    const r = await fc.check(
      fc.asyncProperty(target.args, async (args) => {
        const c = await runCase(target, args)
        if (c.ok) return true
        const fresh = c.all.filter((f) => a.strict || !knownFinding(target.name, f.cls))
        for (const f of c.all) if (!fresh.includes(f)) known[f.cls] = (known[f.cls] ?? 0) + 1
        if (fresh.length === 0) return true
        unexpected = fresh[0]
        return false
      }),
      {
        numRuns: budgetMs ? runs : Math.max(5, Math.round(runs * (target.runsFactor ?? 1))),
        seed,
        ...(budgetMs ? { interruptAfterTimeLimit: budgetMs } : {}),
        ...(a.path ? { path: a.path } : {}),
      },
    )
    out({
      target: target.name,
      ms: Date.now() - t0,
      runs: r.numRuns,
      seed: r.seed,
      known,
      failure: r.failed
        ? {
            ...unexpected,
            counterexample: show(r.counterexample),
            path: r.counterexamplePath,
            replay: `node __test__/fuzz/run.mjs --target '${target.name}' --seed ${r.seed} --path '${r.counterexamplePath}' --runs 1${a.strict ? ' --strict' : ''}`,
          }
        : null,
      error: r.errorInstance && !unexpected ? String(r.errorInstance.stack ?? r.errorInstance) : undefined,
    })
  }
}

main().then(
  () => {
    cleanup()
    process.chdir(tmpdir())
    rmSync(cwd, { recursive: true, force: true })
    // no process.exit: the process must end on its own, a handle the library left open keeps it alive (and the spec's timeout reports it)
  },
  (e) => {
    // the harness itself failed (not the library): say so loudly
    process.stderr.write(`fuzz harness error: ${e?.stack ?? e}\ncause: ${e?.cause?.stack ?? e?.cause}\n`)
    process.exit(2)
  },
)
