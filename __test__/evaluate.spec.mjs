// evaluate() agrees with pytrec_eval (trec_eval) per query.
// Fixture: scripts/fixtures/make_trec_eval.py (runs the real pytrec_eval).
import test from 'ava'
import { readFileSync } from 'node:fs'
import { evaluate } from '../dist/index.mjs'

const fx = JSON.parse(readFileSync(new URL('../fixtures/trec-eval.json', import.meta.url), 'utf8'))
const metrics = ['map@3', 'map@10', 'map', 'mrr@10', 'ndcg@10', 'recall@10', 'recall@100', 'p@5']

test('per-query values equal pytrec_eval for queries with relevant documents', (t) => {
  const result = evaluate(fx.run, fx.qrels, metrics)
  let compared = 0
  for (const [qid, expected] of Object.entries(fx.expected)) {
    const hasRelevant = Object.values(fx.qrels[qid]).some((g) => g > 0)
    if (!hasRelevant) {
      // Documented difference: such queries are left out of the mean (trec_eval reports 0).
      t.false(qid in result.perQuery)
      continue
    }
    for (const m of metrics) {
      t.true(
        Math.abs(result.perQuery[qid][m] - expected[m]) < 1e-9,
        `${qid} ${m}: ${result.perQuery[qid][m]} vs ${expected[m]}`,
      )
      compared++
    }
  }
  t.true(compared > 50)
  const evaluated = Object.keys(result.perQuery)
  for (const m of metrics) {
    const mean = evaluated.reduce((s, q) => s + fx.expected[q][m], 0) / evaluated.length
    t.true(Math.abs(result.mean[m] - mean) < 1e-9)
  }
})

test('bad metrics and inputs are clear errors', (t) => {
  t.throws(() => evaluate(fx.run, fx.qrels, ['bogus@3']), { instanceOf: RangeError, code: 'ERR_INVALID_ARG' })
  t.throws(() => evaluate(fx.run, fx.qrels, ['ndcg@0']), { instanceOf: RangeError })
  t.throws(() => evaluate([], fx.qrels, ['ndcg@10']), { instanceOf: TypeError })
  t.throws(() => evaluate({ q: [{ id: 1 }] }, fx.qrels, ['ndcg@10']), { instanceOf: TypeError })
  t.throws(() => evaluate(fx.run, { q: { a: 'x' } }, ['ndcg@10']), { instanceOf: TypeError })
})
