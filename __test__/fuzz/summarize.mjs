// Prints a survey (`run.mjs --count` output files) as a table: target, cases, class, hits, minimal case.
import { readFileSync } from 'node:fs'
import { FINDINGS, isFinding } from './findings.mjs'

const findingOf = (target, cls) => FINDINGS.find((f) => isFinding(f, target, cls))?.id ?? 'NEW'
let total = 0
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, 'utf8').trim().split('\n').filter(Boolean)) {
    const o = JSON.parse(line)
    total += o.runs
    console.log(`${o.target} (${o.runs} cases)`)
    for (const [cls, n] of Object.entries(o.classes)) {
      const ex = o.examples[cls]
      console.log(`   ${findingOf(o.target, cls)} ${n}x ${cls}\n        min: ${ex.counterexample ?? 'not reproduced'}  [seed ${ex.seed} path ${ex.path}]\n        ${ex.detail}`)
    }
  }
}
console.log(`total cases: ${total}`)
