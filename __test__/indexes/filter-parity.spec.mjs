// The metadata filter grammar has one parser (lib/indexes/filter.ts): the local indexes check with it and every
// engine translation walks its tree, while Rust (ragrank_core::filter) compiles the same JSON again to evaluate it.
// This property holds them to one grammar: a filter the local indexes accept is one the parser and both engine
// translations accept, and one the indexes refuse, they refuse with the same error class, code and message.
import test from 'ava'
import fc from 'fast-check'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'
import { filterClauses, parsedFilter } from '../../dist/esm/engines/filter-dsl.js'
import { filterSql } from '../../dist/esm/engines/filter-sql.js'
import { parseFilter } from '../../dist/esm/indexes/filter.js'

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

/** What a call did: 'ok', or the error's class, code and message. */
function outcome(fn) {
  try {
    fn()
    return 'ok'
  } catch (e) {
    return `${e?.constructor?.name} ${e?.code} ${e?.message}`
  }
}

test('the parser and the engine translations accept exactly the metadata filters the local indexes accept', (t) => {
  fc.assert(
    fc.property(meta, (m) => {
      const filter = { meta: m }
      const local = outcome(() => bm25.search('kiwi', { filter }))
      t.is(
        outcome(() => vectors.search([1, 0], { filter })),
        local,
        'the two local indexes agree',
      )
      const parsed = outcome(() => parseFilter(filter))
      if (parsed !== local) throw new Error(`local ${local}, parser ${parsed}: ${JSON.stringify(m)}`)
      const sql = outcome(() => filterSql(filter, { id: 'id', meta: 'meta' }))
      if (sql !== local) throw new Error(`local ${local}, SQL ${sql}: ${JSON.stringify(m)}`)
      // The query DSL over the typed copy (indexes ragrank made) takes every filter; over an engine's own mapping
      // it also refuses comparisons with null (the engines do not index it), and only those.
      const typed = outcome(() => filterClauses(parsedFilter(filter), 'E', 'meta', 'typed'))
      if (typed !== local) throw new Error(`local ${local}, typed DSL ${typed}: ${JSON.stringify(m)}`)
      const mapped = outcome(() => filterClauses(parsedFilter(filter), 'E', 'meta', 'mapped'))
      if (mapped !== local && !(local === 'ok' && /^TypeError ERR_INVALID_ARG E cannot express/.test(mapped)))
        throw new Error(`local ${local}, mapped DSL ${mapped}: ${JSON.stringify(m)}`)
    }),
    { numRuns: 2000 },
  )
  t.pass()
})
