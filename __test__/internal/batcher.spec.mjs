// The coalescing batcher (lib/internal/batcher.ts) with fake batch functions: it is internal,
// so it is loaded from its compiled module.
import test from 'ava'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Batcher, coalesceOption } = require('../../dist/commonjs/internal/batcher.js')

const DEFAULTS = { maxBatch: 64, maxWaitMs: 0 }

/** A fake batch function that records its batches and resolves each when told. */
function fake({ fail } = {}) {
  const batches = []
  const run = (inputs, signal) =>
    new Promise((resolve, reject) => {
      const b = { inputs, signal, resolve: () => resolve(inputs.map((x) => x * 10)), reject }
      batches.push(b)
      if (fail?.(inputs)) reject(new Error(`bad batch ${inputs}`))
    })
  return { run, batches }
}

const tick = () => new Promise((r) => setImmediate(r))

test('an idle batcher dispatches at once (before any timer), and a burst shares one batch', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, DEFAULTS)
  const p = [1, 2, 3].map((x) => b.submit('k', x))
  await Promise.resolve()
  t.is(f.batches.length, 1, 'dispatched on a microtask, no timer')
  t.deepEqual(f.batches[0].inputs, [1, 2, 3])
  f.batches[0].resolve()
  t.deepEqual(await Promise.all(p), [10, 20, 30])
})

test('calls made while a batch runs go together as the next batch, up to maxBatch, in order', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, { maxBatch: 3, maxWaitMs: 0 })
  const first = b.submit('k', 0)
  await tick()
  const later = [1, 2, 3, 4, 5].map((x) => b.submit('k', x))
  await tick()
  t.is(f.batches.length, 1, 'queued behind the running batch')
  t.is(b.queued, 5)
  f.batches[0].resolve()
  await tick()
  t.deepEqual(f.batches[1].inputs, [1, 2, 3])
  f.batches[1].resolve()
  await tick()
  t.deepEqual(f.batches[2].inputs, [4, 5])
  f.batches[2].resolve()
  t.is(await first, 0)
  t.deepEqual(await Promise.all(later), [10, 20, 30, 40, 50])
})

test('calls of different keys never share a batch; the longest-waiting key goes first', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, DEFAULTS)
  const a = b.submit('a', 1)
  await tick()
  const c = [b.submit('c', 2), b.submit('d', 3), b.submit('c', 4)]
  f.batches[0].resolve()
  await tick()
  t.deepEqual(f.batches[1].inputs, [2, 4])
  f.batches[1].resolve()
  await tick()
  t.deepEqual(f.batches[2].inputs, [3])
  f.batches[2].resolve()
  t.deepEqual(await Promise.all([a, ...c]), [10, 20, 30, 40])
})

test('a failed batch is retried call by call: the error reaches only the call that caused it', async (t) => {
  const f = fake({ fail: (inputs) => inputs.includes(2) })
  const b = new Batcher(f.run, DEFAULTS)
  const p = [1, 2, 3].map((x) => b.submit('k', x))
  await tick()
  for (const batch of f.batches.slice(1)) batch.resolve()
  const [one, two, three] = await Promise.allSettled(p)
  t.deepEqual([one.value, three.value], [10, 30])
  t.regex(two.reason.message, /bad batch 2/)
  t.deepEqual(
    f.batches.map((x) => x.inputs),
    [[1, 2, 3], [1], [2], [3]],
  )
})

test('an aborted caller rejects at once and leaves; the batch is cancelled only when all its callers aborted', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, DEFAULTS)
  const [c1, c2, c3] = [new AbortController(), new AbortController(), new AbortController()]
  const p1 = b.submit('k', 1, c1.signal)
  const p2 = b.submit('k', 2, c2.signal)
  await tick()
  // Queued behind the running batch, then aborted: it never runs.
  const p3 = b.submit('k', 3, c3.signal)
  c3.abort()
  await t.throwsAsync(p3, { name: 'AbortError' })
  c1.abort()
  await t.throwsAsync(p1, { name: 'AbortError' })
  t.false(f.batches[0].signal.aborted, 'one caller left')
  c2.abort()
  await t.throwsAsync(p2, { name: 'AbortError' })
  t.true(f.batches[0].signal.aborted)
  f.batches[0].resolve()
  await tick()
  t.is(f.batches.length, 1, 'the aborted queued call never ran')
  const aborted = new AbortController()
  aborted.abort()
  await t.throwsAsync(b.submit('k', 4, aborted.signal), { name: 'AbortError' })
})

test("a batch of one runs under its caller's own signal; a batch with a caller without one runs under none", async (t) => {
  const f = fake()
  const b = new Batcher(f.run, DEFAULTS)
  const c = new AbortController()
  const p = b.submit('k', 1, c.signal)
  await Promise.resolve()
  t.is(f.batches[0].signal, c.signal, 'no AbortController of its own')
  f.batches[0].resolve()
  t.is(await p, 10)
  const mixed = [b.submit('k', 2, new AbortController().signal), b.submit('k', 3)]
  await tick()
  t.deepEqual(f.batches[1].inputs, [2, 3])
  t.is(f.batches[1].signal, undefined, 'the caller without a signal never aborts, so neither can the batch')
  f.batches[1].resolve()
  t.deepEqual(await Promise.all(mixed), [20, 30])
  const both = [new AbortController(), new AbortController()]
  const ps = both.map((ac, i) => b.submit('k', 4 + i, ac.signal))
  await tick()
  t.true(f.batches[2].signal instanceof AbortSignal, 'all callers have signals: the batch gets one')
  f.batches[2].resolve()
  t.deepEqual(await Promise.all(ps), [40, 50])
})

test('maxWaitMs waits for more calls when idle, but dispatches at once when maxBatch are queued', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, { maxBatch: 3, maxWaitMs: 30 })
  const start = Date.now()
  const p = b.submit('k', 1)
  await tick()
  t.is(f.batches.length, 0, 'waiting')
  const more = [b.submit('k', 2)]
  await new Promise((r) => setTimeout(r, 60))
  t.is(f.batches.length, 1)
  t.true(Date.now() - start >= 25)
  t.deepEqual(f.batches[0].inputs, [1, 2])
  f.batches[0].resolve()
  await Promise.all([p, ...more])
  const full = [4, 5, 6].map((x) => b.submit('k', x))
  await tick()
  t.deepEqual(f.batches[1].inputs, [4, 5, 6], 'a full batch does not wait')
  f.batches[1].resolve()
  t.deepEqual(await Promise.all(full), [40, 50, 60])
})

test('a large batch resolves its callers a slice per loop turn; the next batch and idle() do not wait wrongly', async (t) => {
  const f = fake()
  const b = new Batcher(f.run, DEFAULTS)
  const resolved = []
  const first = Array.from({ length: 40 }, (_, i) => b.submit('k', i).then((v) => resolved.push(v)))
  await Promise.resolve()
  let idle = false
  b.idle().then(() => {
    idle = true
  })
  const later = b.submit('k', 100)
  f.batches[0].resolve()
  await first[0]
  // Other work queued on the loop after the first caller's reply gets its turn before the last callers'.
  const seenByLaterWork = await new Promise((r) => setImmediate(() => r(resolved.length)))
  t.true(seenByLaterWork < 40, `other work ran after ${seenByLaterWork} of 40 callers were resolved`)
  t.true(seenByLaterWork >= 8)
  t.is(f.batches.length, 2, 'the next batch was sent before the callers of the last one were all resolved')
  t.false(idle, 'not idle while callers wait for their results')
  f.batches[1].resolve()
  t.is(await later, 1000)
  await Promise.all(first)
  t.deepEqual(
    resolved,
    Array.from({ length: 40 }, (_, i) => i * 10),
    'every caller got its own result, in order',
  )
  await tick()
  t.true(idle)
})

test('coalesceOption: false turns it off, an object overrides the defaults, bad values throw', (t) => {
  t.is(coalesceOption(false, 'o', DEFAULTS), false)
  t.deepEqual(coalesceOption(undefined, 'o', DEFAULTS), DEFAULTS)
  t.deepEqual(coalesceOption({ maxWaitMs: 2 }, 'o', DEFAULTS), { maxBatch: 64, maxWaitMs: 2 })
  t.throws(() => coalesceOption({ maxBatch: 0 }, 'o', DEFAULTS), { instanceOf: RangeError })
  t.throws(() => coalesceOption({ maxBatch: 1.5 }, 'o', DEFAULTS), { instanceOf: TypeError })
  t.throws(() => coalesceOption({ maxWaitMs: -1 }, 'o', DEFAULTS), { instanceOf: RangeError })
  t.throws(() => coalesceOption({ wait: 1 }, 'o', DEFAULTS), { instanceOf: TypeError })
  t.throws(() => coalesceOption('yes', 'o', DEFAULTS), { instanceOf: TypeError })
})
