// The metadata filter grammar is parsed twice: in Rust for the local indexes (ragrank_core::filter) and by
// lib/engines/filter-tree.ts for every engine translation. This property holds them to one grammar: a filter the
// local index accepts is one the engines' parser accepts, and one the index refuses, the parser refuses with the
// same error class and code.
import test from 'ava'
import fc from 'fast-check'
import { Bm25Index, VectorIndex } from '../dist/esm/index.js'
import { parseFilter } from '../dist/esm/engines/filter-tree.js'

const bm25 = new Bm25Index()
bm25.add([
  { id: 'a', text: 'kiwi', meta: { tenant: 't1', n: 3, ok: true } },
  { id: 'b', text: 'kiwi', meta: { tenant: 't2', n: 7, tags: ['x'] } },
])
const vectors = new VectorIndex({ dim: 2 })
vectors.add([{ id: 'a', vector: [1, 0], meta: { tenant: 't1', n: 3 } }])

const field = fc.constantFrom('tenant', 'n', 'ok', 'tags', 'missing')
const scalar = fc.oneof(
  fc.constantFrom('t1', 't2', 'x', ''),
  fc.integer({ min: -5, max: 10 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
)
// Operands that are wrong somewhere: objects, nested arrays, undefined, non-finite numbers.
const odd = fc.oneof(
  fc.constant({}),
  fc.constant([[1]]),
  fc.constant({ a: 1 }),
  fc.constant(Number.NaN),
  fc.constant(Infinity),
)
const operand = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: odd })
const op = fc.constantFrom('$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$like', '$and')
const condition = fc.oneof(
  scalar,
  fc.array(operand, { maxLength: 3 }),
  fc.dictionary(op, fc.oneof(operand, fc.array(operand, { maxLength: 3 })), { maxKeys: 2 }),
  odd,
)
const { meta } = fc.letrec((tie) => ({
  meta: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.dictionary(field, condition, { maxKeys: 2 }),
    fc.record({ $and: fc.array(tie('meta'), { maxLength: 2 }) }),
    fc.record({ $or: fc.array(tie('meta'), { maxLength: 2 }) }),
    fc.record({ $not: fc.oneof(tie('meta'), scalar) }),
    fc.record({ $nor: fc.array(tie('meta'), { maxLength: 1 }) }),
  ),
}))

/** What a call did: 'ok', or the error's class and code. */
function outcome(fn) {
  try {
    fn()
    return 'ok'
  } catch (e) {
    return `${e?.constructor?.name} ${e?.code}`
  }
}

test('the engines parser accepts exactly the metadata filters the local indexes accept', (t) => {
  fc.assert(
    fc.property(meta, (m) => {
      const filter = { meta: m }
      const local = outcome(() => bm25.search('kiwi', { filter }))
      t.is(
        outcome(() => vectors.search([1, 0], { filter })),
        local,
        'the two local indexes agree',
      )
      const engines = outcome(() => parseFilter(filter))
      if (engines !== local) throw new Error(`local ${local}, engines ${engines}: ${JSON.stringify(m)}`)
    }),
    { numRuns: 2000 },
  )
  t.pass()
})
