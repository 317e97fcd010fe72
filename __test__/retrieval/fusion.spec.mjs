import test from 'ava'
import fc from 'fast-check'
import assert from 'node:assert/strict'
import { fuse } from '../../dist/esm/index.js'

const docs = (ids, scores = ids.map((_, i) => 10 - i)) => ids.map((id, i) => ({ id, score: scores[i] }))
const ids = (fused) => fused.map((d) => d.id)
const close = (t, actual, expected, message) =>
  t.true(Math.abs(actual - expected) < 1e-12, `${message ?? ''} ${actual} != ${expected}`)

// ---- hand-computed examples ----

test('RRF with weights matches the hand-computed weighted sum (LangChain fixture)', (t) => {
  const fused = fuse([docs(['d1', 'd2', 'd3']), docs(['d3', 'd1'])], { weights: [0.5, 0.5] })
  t.deepEqual(ids(fused), ['d1', 'd3', 'd2'])
  close(t, fused[0].score, 0.5 / 61 + 0.5 / 62)
  close(t, fused[1].score, 0.5 / 63 + 0.5 / 61)
  close(t, fused[2].score, 0.5 / 62)
  t.is(fused[0].score.toFixed(8), '0.01626124')
  t.is(fused[1].score.toFixed(8), '0.01613323')
  t.is(fused[2].score.toFixed(8), '0.00806452')
})

test('RRF defaults: rrfK = 60, weight 1, and the per-list contributions', (t) => {
  const [b, a] = fuse([docs(['a', 'b']), docs(['b'], [0.3])], {})
  t.is(b.id, 'b')
  close(t, b.score, 1 / 62 + 1 / 61)
  t.deepEqual(b.fusion, [
    { list: 0, rank: 2, score: 9, contribution: 1 / 62 },
    { list: 1, rank: 1, score: 0.3, contribution: 1 / 61 },
  ])
  t.deepEqual(a.fusion, [{ list: 0, rank: 1, score: 10, contribution: 1 / 61 }])
  const k1 = fuse([docs(['a', 'b'])], { rrfK: 1 })
  t.deepEqual(
    k1.map((d) => d.score),
    [1 / 2, 1 / 3],
  )
})

test('weighted min-max: best -> 1, worst -> 0, missing -> 0', (t) => {
  const fused = fuse([docs(['a', 'b', 'c'], [10, 6, 2]), docs(['c', 'a'], [0.9, 0.3])], {
    method: 'weighted',
    weights: [1, 2],
  })
  t.deepEqual(ids(fused), ['c', 'a', 'b'])
  t.deepEqual(
    fused.map((d) => d.score),
    [2, 1, 0.5],
  )
  t.deepEqual(fused[2].fusion, [{ list: 0, rank: 2, score: 6, contribution: 0.5 }])
})

test('weighted min-max: a single item or all-equal scores each get 1', (t) => {
  t.deepEqual(
    fuse([docs(['a'], [-3])], { method: 'weighted' }).map((d) => d.score),
    [1],
  )
  t.deepEqual(
    fuse([docs(['a', 'b'], [4, 4])], { method: 'weighted' }).map((d) => d.score),
    [1, 1],
  )
})

test('weighted z-score: (s - mean) / population std; zero variance gives 0', (t) => {
  const fused = fuse([docs(['a', 'b'], [3, 1]), docs(['c'], [7]), docs(['a', 'c', 'b'], [0.1, 0.1, 0.1])], {
    method: 'weighted',
    scoreNormalization: 'zscore',
  })
  t.deepEqual(
    fused.map((d) => [d.id, d.score]),
    [
      ['a', 1],
      ['c', 0],
      ['b', -1],
    ],
  )
})

test('weighted none: raw scores times weights', (t) => {
  const fused = fuse([docs(['a', 'b'], [3, 1]), docs(['b'], [5])], {
    method: 'weighted',
    scoreNormalization: 'none',
    weights: [2, 0.5],
  })
  t.deepEqual(
    fused.map((d) => [d.id, d.score]),
    [
      ['a', 6],
      ['b', 4.5],
    ],
  )
})

test('a repeated id within one list counts once, at its first position', (t) => {
  const lists = [
    [
      { id: 'a', score: 3, text: 'first' },
      { id: 'a', score: 2, text: 'second' },
      { id: 'b', score: 1 },
    ],
  ]
  const fused = fuse(lists)
  t.deepEqual(ids(fused), ['a', 'b'])
  t.is(fused[0].text, 'first')
  t.is(fused[1].fusion[0].rank, 2)
  close(t, fused[1].score, 1 / 62)
  t.deepEqual(fused, fuse([[lists[0][0], lists[0][2]]]))
})

test('the representative is the best-ranked copy; equal ranks go to the earliest list', (t) => {
  const fused = fuse([
    [
      { id: 'x', score: 1, text: 'x from 0', meta: { list: 0 } },
      { id: 'y', score: 0.5, text: 'y from 0' },
    ],
    [
      { id: 'y', score: 9, text: 'y from 1', extra: true },
      { id: 'x', score: 8, text: 'x from 1' },
    ],
    [{ id: 'x', score: 7, text: 'x from 2' }],
  ])
  const byId = Object.fromEntries(fused.map((d) => [d.id, d]))
  t.deepEqual(byId.x.meta, { list: 0 })
  t.is(byId.x.text, 'x from 0')
  t.is(byId.y.text, 'y from 1')
  t.true(byId.y.extra)
})

test('ties: best rank first, then the earlier list', (t) => {
  const fused = fuse([docs(['a', 'b']), docs(['c', 'd'])])
  t.deepEqual(ids(fused), ['a', 'c', 'b', 'd'])
  t.is(fused[0].score, fused[1].score)
  const swapped = fuse([docs(['c', 'd']), docs(['a', 'b'])])
  t.deepEqual(ids(swapped), ['c', 'a', 'd', 'b'])
})

test('topK, empty input, a custom dedupe key, and inputs left untouched', (t) => {
  t.deepEqual(ids(fuse([docs(['a', 'b', 'c'])], { topK: 2 })), ['a', 'b'])
  t.deepEqual(fuse([docs(['a'])], { topK: 0 }), [])
  t.deepEqual(fuse([]), [])
  t.deepEqual(fuse([[], []]), [])
  const lists = [
    [
      { id: '1', score: 2, text: 'Same' },
      { id: '2', score: 1, text: 'other' },
    ],
    [{ id: '3', score: 5, text: 'same' }],
  ]
  const copy = structuredClone(lists)
  const fused = fuse(lists, { keyBy: (d) => d.text.toLowerCase() })
  t.deepEqual(ids(fused), ['1', '2'])
  t.is(fused[0].fusion.length, 2)
  t.deepEqual(lists, copy)
})

test('k, normalize and dedupeBy are not options of fuse: TypeErrors that name them (k points at topK)', (t) => {
  const lists = [[{ id: '1', score: 1, text: 'a' }]]
  t.throws(() => fuse(lists, { k: 5 }), {
    instanceOf: TypeError,
    code: 'ERR_INVALID_ARG',
    message: /options\.k is not a known option \(did you mean options\.topK\?\)/,
  })
  t.throws(() => fuse(lists, { method: 'weighted', normalize: 'zscore' }), {
    instanceOf: TypeError,
    message: /options\.normalize is not a known option/,
  })
  t.throws(() => fuse(lists, { dedupeBy: (d) => d.text }), {
    instanceOf: TypeError,
    message: /options\.dedupeBy is not a known option/,
  })
})

test('a zero-weight list adds nothing but its documents are still returned, last', (t) => {
  const fused = fuse([docs(['a']), docs(['z', 'a'])], { weights: [1, 0] })
  t.deepEqual(
    fused.map((d) => [d.id, d.score]),
    [
      ['a', 1 / 61],
      ['z', 0],
    ],
  )
  t.deepEqual(fused[1].fusion, [{ list: 1, rank: 1, score: 10, contribution: 0 }])
})

test('ids that are Object.prototype names fuse like any other', (t) => {
  const fused = fuse([docs(['__proto__', 'constructor']), docs(['constructor', 'toString'])])
  t.deepEqual(ids(fused), ['constructor', '__proto__', 'toString'])
})

test('linear in the number of items: 300k items in 30 lists', (t) => {
  const lists = Array.from({ length: 30 }, (_, l) =>
    Array.from({ length: 10_000 }, (_, i) => ({ id: `d${(i * 7 + l * 13) % 50_000}`, score: 1 - i / 1e4 })),
  )
  const fused = fuse(lists, { topK: 5 })
  t.is(fused.length, 5)
  const all = fuse(lists, { method: 'weighted', scoreNormalization: 'zscore' })
  t.true(all.length > 10_000)
})

test('bad input: clear TypeError / RangeError with code ERR_INVALID_ARG', (t) => {
  const l = [docs(['a']), docs(['b'])]
  const bad = [
    [() => fuse('x'), TypeError, /lists must be an array/],
    [() => fuse([docs(['a']), 'x']), TypeError, /lists\[1\] must be an array/],
    [() => fuse([[{ score: 1 }]]), TypeError, /lists\[0\]\[0\]\.id/],
    [() => fuse([[{ id: '', score: 1 }]]), TypeError, /non-empty string/],
    [() => fuse([[null]]), TypeError, /must be an object/],
    [() => fuse([[{ id: 'a', score: '1' }]]), TypeError, /score must be a number/],
    [() => fuse([[{ id: 'a', score: Infinity }]], { method: 'weighted' }), RangeError, /finite/],
    [() => fuse(l, { weights: [1] }), RangeError, /one weight per list: got 1 for 2/],
    [() => fuse(l, { weights: [1, -1] }), RangeError, /weights\[1\]/],
    [() => fuse(l, { weights: [1, NaN] }), TypeError, /weights\[1\]/],
    [() => fuse(l, { weights: [1, Infinity] }), RangeError, /weights\[1\]/],
    [() => fuse(l, { weights: [0, 0] }), RangeError, /at least one weight/],
    [() => fuse(l, { weights: 'x' }), TypeError, /weights must be an array/],
    [() => fuse(l, { rrfK: 0 }), RangeError, /rrfK must be > 0/],
    [() => fuse(l, { rrfK: -1 }), RangeError, /options\.rrfK/],
    [() => fuse(l, { method: 'sum' }), RangeError, /method/],
    [() => fuse(l, { method: 'weighted', rrfK: 60 }), RangeError, /'rrf' only/],
    [() => fuse(l, { keyBy: 'text' }), RangeError, /options\.keyBy/],
    [() => fuse(l, { keyBy: () => 1 }), TypeError, /keyBy must return a string/],
    [() => fuse(l, { method: 'weighted', scoreNormalization: 'l2' }), RangeError, /options\.scoreNormalization/],
    [
      () => fuse(l, { scoreNormalization: 'minmax' }),
      RangeError,
      /scoreNormalization applies to method 'weighted' only/,
    ],
    [() => fuse(l, { method: 'weighted', scoreNormalization: 3 }), TypeError, /scoreNormalization/],
    [() => fuse(l, { method: 3 }), TypeError, /method/],
    [() => fuse(l, { topK: -1 }), RangeError, /topK/],
    [() => fuse(l, { topK: 1.5 }), TypeError, /topK/],
    [() => fuse(l, 'rrf'), TypeError, /options must be an object/],
  ]
  for (const [fn, type, message] of bad) {
    const e = t.throws(fn, { instanceOf: type, message })
    t.is(e.code, 'ERR_INVALID_ARG')
  }
})

// ---- properties ----

const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'constructor')
const scoreArb = fc.double({ min: -1000, max: 1000, noNaN: true })
const listArb = fc.array(fc.record({ id: idArb, score: scoreArb }), { maxLength: 8 })
const listsArb = fc.array(listArb, { minLength: 1, maxLength: 5 })
const weightsFor = (n) => fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: n, maxLength: n })
const listsWithWeights = listsArb.chain((lists) => fc.tuple(fc.constant(lists), weightsFor(lists.length)))
const methodArb = fc.constantFrom(
  { method: 'rrf' },
  { method: 'rrf', rrfK: 1 },
  ...['minmax', 'zscore', 'none'].map((scoreNormalization) => ({ method: 'weighted', scoreNormalization })),
)
const firstCopies = (list) => list.filter((d, i) => list.findIndex((e) => e.id === d.id) === i)
const scoreMap = (fused) => new Map(fused.map((d) => [d.id, d.score]))
const eps = (x) => 1e-9 * Math.max(1, Math.abs(x))

test('property: one output per distinct id, one contribution per list containing it; repeats change nothing', (t) => {
  fc.assert(
    fc.property(listsWithWeights, methodArb, ([lists, weights], m) => {
      const fused = fuse(lists, { ...m, weights })
      const expected = new Set(lists.flat().map((d) => d.id))
      if (fused.length !== expected.size || !fused.every((d) => expected.has(d.id))) return false
      for (const d of fused) {
        const listsWithIt = lists.flatMap((l, i) => (l.some((e) => e.id === d.id) ? [i] : []))
        if (JSON.stringify(d.fusion.map((p) => p.list)) !== JSON.stringify(listsWithIt)) return false
        const sum = d.fusion.reduce((s, p) => s + p.contribution, 0)
        if (Math.abs(sum - d.score) > eps(sum)) return false
      }
      assert.deepEqual(fuse(lists.map(firstCopies), { ...m, weights }), fused)
      return true
    }),
  )
  t.pass()
})

test('property: permuting the lists (with their weights) keeps every score exactly; only ties reorder', (t) => {
  const arb = listsWithWeights.chain(([lists, weights]) =>
    fc.tuple(
      fc.constant(lists),
      fc.constant(weights),
      fc.shuffledSubarray([...lists.keys()], { minLength: lists.length }),
    ),
  )
  fc.assert(
    fc.property(arb, methodArb, ([lists, weights, perm], m) => {
      const a = fuse(lists, { ...m, weights })
      const b = fuse(
        perm.map((i) => lists[i]),
        { ...m, weights: perm.map((i) => weights[i]) },
      )
      const sb = scoreMap(b)
      assert.deepEqual(
        a.map((d) => d.score),
        b.map((d) => d.score),
      )
      return a.every((d) => Object.is(sb.get(d.id), d.score))
    }),
  )
  t.pass()
})

test('property: output is sorted by score, ties by best rank then earliest list, and keeps that copy', (t) => {
  const tagged = listsArb.map((lists) => lists.map((l, i) => l.map((d, j) => ({ ...d, tag: `${i}:${j}` }))))
  fc.assert(
    fc.property(tagged, methodArb, (lists, m) => {
      const fused = fuse(lists, m)
      const best = (d) => d.fusion.reduce((b, p) => (p.rank < b.rank ? p : b))
      for (let i = 1; i < fused.length; i++) {
        const [p, q] = [fused[i - 1], fused[i]]
        if (p.score < q.score) return false
        if (p.score === q.score) {
          const [bp, bq] = [best(p), best(q)]
          if (bp.rank > bq.rank || (bp.rank === bq.rank && bp.list > bq.list)) return false
        }
      }
      for (const d of fused) {
        const b = best(d)
        const copy = lists[b.list].find((e) => e.id === d.id)
        assert.equal(d.tag, copy.tag)
      }
      return true
    }),
  )
  t.pass()
})

test('property: RRF scores lie within their bounds', (t) => {
  fc.assert(
    fc.property(listsWithWeights, fc.double({ min: 0.5, max: 200, noNaN: true }), ([lists, weights], k) => {
      const fused = fuse(lists, { weights, rrfK: k })
      const lengths = lists.map((l) => firstCopies(l).length)
      const total = weights.reduce((s, w) => s + w / (k + 1), 0)
      return fused.every((d) => {
        const hi = d.fusion.reduce((s, p) => s + weights[p.list] / (k + 1), 0)
        const lo = d.fusion.reduce((s, p) => s + weights[p.list] / (k + lengths[p.list]), 0)
        return d.score > 0 && d.score <= hi + eps(hi) && d.score >= lo - eps(lo) && d.score <= total + eps(total)
      })
    }),
  )
  t.pass()
})

test('property: RRF moving a document up one place never lowers its score', (t) => {
  const arb = listsWithWeights.chain(([lists, weights]) => {
    const deduped = lists.map(firstCopies)
    const movable = deduped.flatMap((l, i) => l.slice(1).map((_, j) => [i, j + 1]))
    return fc.tuple(
      fc.constant(deduped),
      fc.constant(weights),
      movable.length ? fc.constantFrom(...movable) : fc.constant(null),
    )
  })
  fc.assert(
    fc.property(arb, ([lists, weights, at]) => {
      if (!at) return true
      const [i, j] = at
      const moved = lists.map((l) => [...l])
      ;[moved[i][j - 1], moved[i][j]] = [moved[i][j], moved[i][j - 1]]
      const id = lists[i][j].id
      const before = scoreMap(fuse(lists, { weights })).get(id)
      const after = scoreMap(fuse(moved, { weights })).get(id)
      return after >= before - eps(before)
    }),
  )
  t.pass()
})

test('property: weighted, raising a document score in one list never lowers its fused score', (t) => {
  const arb = listsArb.chain((lists) => {
    const deduped = lists.map(firstCopies)
    const spots = deduped.flatMap((l, i) => l.map((_, j) => [i, j]))
    return fc.tuple(
      fc.constant(deduped),
      spots.length ? fc.constantFrom(...spots) : fc.constant(null),
      fc.double({ min: 0, max: 500, noNaN: true }),
    )
  })
  fc.assert(
    fc.property(arb, fc.constantFrom('minmax', 'zscore', 'none'), ([lists, at, raise], normalize) => {
      if (!at) return true
      const [i, j] = at
      const raised = lists.map((l) => l.map((d) => ({ ...d })))
      raised[i][j].score += raise
      const id = lists[i][j].id
      const before = scoreMap(fuse(lists, { method: 'weighted', scoreNormalization: normalize })).get(id)
      const after = scoreMap(fuse(raised, { method: 'weighted', scoreNormalization: normalize })).get(id)
      return after >= before - 1e-9
    }),
  )
  t.pass()
})

test('property: a document first in every list is first overall (RRF, and min-max on score-sorted lists)', (t) => {
  const arb = listsWithWeights.map(([lists, weights]) => [
    lists.map((l) => [{ id: 'top', score: 2000 }, ...l.map((d) => ({ ...d }))].sort((a, b) => b.score - a.score)),
    weights,
  ])
  fc.assert(
    fc.property(arb, ([lists, weights]) => {
      return fuse(lists, { weights })[0].id === 'top' && fuse(lists, { weights, method: 'weighted' })[0].id === 'top'
    }),
  )
  t.pass()
})

test('property: RRF ranking is invariant to scaling all weights', (t) => {
  fc.assert(
    fc.property(
      listsWithWeights,
      fc.integer({ min: -20, max: 20 }),
      fc.double({ min: 0.001, max: 1000, noNaN: true }),
      ([lists, weights], e, c) => {
        const base = fuse(lists, { weights })
        // A power of two scales every float exactly: same order, scores scaled exactly.
        const p = 2 ** e
        const exact = fuse(lists, { weights: weights.map((w) => w * p) })
        assert.deepEqual(ids(exact), ids(base))
        assert.deepEqual(
          exact.map((d) => d.score),
          base.map((d) => d.score * p),
        )
        // Any other factor scales scores up to rounding.
        const scaled = scoreMap(fuse(lists, { weights: weights.map((w) => w * c) }))
        return base.every((d) => Math.abs(scaled.get(d.id) - d.score * c) <= 1e-9 * d.score * c)
      },
    ),
  )
  t.pass()
})

test('property: min-max maps each list into [0, 1] with its best at 1 and worst at 0', (t) => {
  fc.assert(
    fc.property(listsArb, (lists) => {
      const fused = fuse(lists, { method: 'weighted' })
      const parts = fused.flatMap((d) => d.fusion)
      if (!parts.every((p) => p.contribution >= 0 && p.contribution <= 1)) return false
      return lists.every((_l, i) => {
        const mine = parts.filter((p) => p.list === i)
        if (mine.length === 0) return true
        const max = Math.max(...mine.map((p) => p.score))
        const min = Math.min(...mine.map((p) => p.score))
        return mine.every((p) =>
          p.score === max ? p.contribution === 1 : p.score === min ? p.contribution === 0 : true,
        )
      })
    }),
  )
  t.pass()
})

test('property: z-score contributions of a list have mean 0 and variance 1 (or are all 0)', (t) => {
  fc.assert(
    fc.property(listsArb, (lists) => {
      const parts = fuse(lists, { method: 'weighted', scoreNormalization: 'zscore' }).flatMap((d) => d.fusion)
      return lists.every((_, i) => {
        const z = parts.filter((p) => p.list === i).map((p) => p.contribution)
        if (z.length === 0 || z.every((v) => v === 0)) return true
        const mean = z.reduce((s, v) => s + v, 0) / z.length
        const variance = z.reduce((s, v) => s + (v - mean) ** 2, 0) / z.length
        return Math.abs(mean) < 1e-6 && Math.abs(variance - 1) < 1e-6
      })
    }),
  )
  t.pass()
})

test('property: topK is a prefix of the full fusion', (t) => {
  fc.assert(
    fc.property(listsWithWeights, methodArb, fc.nat(12), ([lists, weights], m, topK) => {
      assert.deepEqual(fuse(lists, { ...m, weights, topK }), fuse(lists, { ...m, weights }).slice(0, topK))
    }),
  )
  t.pass()
})

test('property: weighted scores ignore the order of items within a list (only ties and the kept copy can change)', (t) => {
  const arb = listsArb.chain((lists) => {
    const deduped = lists.map(firstCopies)
    return fc.tuple(
      fc.constant(deduped),
      fc.tuple(...deduped.map((l) => fc.shuffledSubarray(l, { minLength: l.length }))),
    )
  })
  fc.assert(
    fc.property(arb, fc.constantFrom('minmax', 'zscore', 'none'), ([lists, shuffled], normalize) => {
      const a = scoreMap(fuse(lists, { method: 'weighted', scoreNormalization: normalize }))
      const b = scoreMap(fuse(shuffled, { method: 'weighted', scoreNormalization: normalize }))
      // Min-max and raw scores are exact; the z-score mean is a sum, so it may differ in the last bits.
      const tolerance = normalize === 'zscore' ? 1e-9 : 0
      return a.size === b.size && [...a].every(([id, s]) => Math.abs(b.get(id) - s) <= tolerance)
    }),
  )
  t.pass()
})
