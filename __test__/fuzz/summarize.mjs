// Prints a survey (`run.mjs --count` output files) as a table: per target, each failure class
// with its finding id (or NEW), hits and shrunk case; with --by-finding, per finding instead.
import { readFileSync } from 'node:fs'
import { FINDINGS, isFinding } from './findings.mjs'

const byFinding = process.argv.includes('--by-finding')
const files = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const findingOf = (target, cls) => FINDINGS.find((f) => isFinding(f, target, cls))?.id ?? 'NEW'
const rows = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)),
)
const total = rows.reduce((n, o) => n + o.runs, 0)

if (byFinding) {
  const agg = new Map()
  for (const o of rows) {
    for (const [cls, n] of Object.entries(o.classes)) {
      const id = findingOf(o.target, cls)
      const a = agg.get(id) ?? { hits: 0, targets: {}, smallest: undefined }
      a.hits += n
      a.targets[o.target] = (a.targets[o.target] ?? 0) + n
      const ex = o.examples[cls]?.counterexample
      if (ex && (!a.smallest || ex.length < a.smallest.ex.length)) a.smallest = { ex, target: o.target, cls }
      agg.set(id, a)
    }
  }
  const order = [...FINDINGS.map((f) => f.id), 'NEW']
  for (const id of order.filter((i) => agg.has(i))) {
    const a = agg.get(id)
    console.log(`${id}: ${a.hits} hits in ${Object.keys(a.targets).length} targets`)
    console.log(
      `   targets: ${Object.entries(a.targets)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
    )
    if (a.smallest) console.log(`   smallest: ${a.smallest.target} ${a.smallest.ex}\n      ${a.smallest.cls}`)
  }
  const silent = FINDINGS.filter((f) => !agg.has(f.id)).map((f) => f.id)
  if (silent.length) console.log(`not hit in this survey: ${silent.join(', ')}`)
} else {
  for (const o of rows) {
    console.log(`${o.target} (${o.runs} cases)`)
    for (const [cls, n] of Object.entries(o.classes)) {
      const ex = o.examples[cls]
      console.log(
        `   ${findingOf(o.target, cls)} ${n}x ${cls}\n        min: ${ex.counterexample ?? 'not reproduced'}  [seed ${ex.seed} path ${ex.path}]\n        ${ex.detail}`,
      )
    }
  }
}
console.log(`total cases: ${total} in ${rows.length} targets`)
