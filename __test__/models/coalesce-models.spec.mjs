// Coalesced CrossEncoder.rerank and Embedder single-text calls equal the same calls run alone.
import test from 'ava'
import { join } from 'node:path'
import { CrossEncoder, Embedder } from '../../dist/esm/index.js'

const models = new URL('../../fixtures/models/', import.meta.url).pathname
const docs = (q) => Array.from({ length: 7 + (q % 5) }, (_, i) => `document ${i} on topic ${(q * 7 + i) % 11} and lift`)

test('concurrent rerank calls with mixed options equal each call alone, and an aborted one rejects alone', async (t) => {
  const shared = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const alone = await CrossEncoder.load(join(models, 'tiny-cross-encoder'), { coalesce: false })
  const options = (i) => [{}, { activation: 'none' }, { topK: 3 }, { batchSize: 2 }, { maxLength: 8 }][i % 5]
  const ac = new AbortController()
  const calls = Array.from({ length: 40 }, (_, i) =>
    shared.rerank(`query ${i}`, docs(i), i === 7 ? { signal: ac.signal } : options(i)),
  )
  ac.abort()
  const got = await Promise.allSettled(calls)
  t.is(got[7].reason?.name, 'AbortError')
  for (let i = 0; i < 40; i++) {
    if (i === 7) continue
    const want = await alone.rerank(`query ${i}`, docs(i), options(i))
    t.deepEqual(
      got[i].value.map((d) => d.index),
      want.map((d) => d.index),
      `call ${i}`,
    )
    got[i].value.forEach((d, j) => t.true(Math.abs(d.score - want[j].score) < 1e-5, `call ${i} doc ${j}`))
  }
  t.deepEqual(await shared.rerank('q', []), [])
})

test('calls accepted before dispose finish; later calls reject with ERR_DISPOSED', async (t) => {
  const ce = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
  const first = ce.rerank('lift', docs(1))
  const queued = ce.rerank('wings', docs(2)) // waits behind the first batch
  ce.dispose()
  t.is((await first).length, docs(1).length)
  t.is((await queued).length, docs(2).length)
  await t.throwsAsync(ce.rerank('lift', docs(1)), { code: 'ERR_DISPOSED' })
})

test('concurrent single-text embedQuery calls equal one embed of all texts', async (t) => {
  const e = await Embedder.load(join(models, 'tiny-embedder'), { queryPrefix: 'q: ' })
  const texts = Array.from({ length: 30 }, (_, i) => `a question about wing ${i}`)
  const one = await Promise.all(texts.map((x) => e.embedQuery(x)))
  const all = await e.embed(
    texts.map((x) => `q: ${x}`),
    { batchSize: 1 },
  )
  one.forEach((v, i) => {
    t.is(v.length, e.dim)
    for (let d = 0; d < e.dim; d++) t.true(Math.abs(v[d] - all.data[i * e.dim + d]) < 1e-5, `text ${i} dim ${d}`)
  })
  const cls = await Promise.all([e.embed(['x'], { pooling: 'cls' }), e.embed(['x'])])
  t.notDeepEqual(cls[0].data, cls[1].data, 'calls of different pooling were not mixed')
  await t.throwsAsync(Embedder.load(join(models, 'tiny-embedder'), { coalesce: { maxWaitMs: -1 } }), {
    instanceOf: RangeError,
  })
})
