// evaluate() agrees with pytrec_eval (trec_eval) per query.
// Fixture: scripts/fixtures/make_trec_eval.py (runs the real pytrec_eval).
import test from 'ava'
import { readFileSync } from 'node:fs'
import { evaluate } from '../dist/esm/index.js'

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

test('convention competition (and the trec_eval default) against the hand-computed fixture', (t) => {
  const f = JSON.parse(readFileSync(new URL('../fixtures/competition-metrics.json', import.meta.url), 'utf8'))
  // The fixture writes each value as the arithmetic done by hand, to keep the reasoning visible.
  const value = (expr) => Function(`return ${expr}`)()
  const run = Object.fromEntries(Object.entries(f.run).map(([q, ids]) => [q, ids.map((id) => ({ id }))]))
  for (const convention of ['competition', 'trec_eval']) {
    const got = evaluate(run, f.qrels, ['map@3', 'mrr@3'], convention === 'trec_eval' ? {} : { convention })
    const want = f[convention]
    t.deepEqual(Object.keys(got.perQuery).sort(), Object.keys(want.perQuery).sort(), convention)
    for (const [q, metrics] of Object.entries(want.perQuery))
      for (const [m, expr] of Object.entries(metrics))
        t.true(Math.abs(got.perQuery[q][m] - value(expr)) < 1e-12, `${convention} ${q} ${m}`)
    for (const [m, expr] of Object.entries(want.mean))
      t.true(Math.abs(got.mean[m] - value(expr)) < 1e-12, `${convention} mean ${m}`)
  }
  t.throws(() => evaluate(run, f.qrels, ['map@3'], { convention: 'trec' }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
  })
  t.throws(() => evaluate(run, f.qrels, ['map@3'], { convention: 3 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
  })
  t.throws(() => evaluate(run, f.qrels, ['map@3'], { conventions: 'competition' }), { instanceOf: TypeError })
})
