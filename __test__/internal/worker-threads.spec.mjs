// The addon in worker_threads: loaded again in a second V8 isolate of the same process (its thread-local state,
// including a global allocator's, must work on a thread that dlopen found already loaded), used from both entries,
// and torn down when the worker exits while the main thread keeps using its own indexes.
import test from 'ava'
import { Worker } from 'node:worker_threads'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const docs = Array.from({ length: 500 }, (_, i) => ({ id: `d${i}`, text: `w${i % 37} w${(i * 7) % 53} common` }))

// Builds a BM25 and a vector index in the worker, searches both (sync and async) and posts the results back.
const body = (load) => `
  const { parentPort, workerData } = require('node:worker_threads')
  ;(async () => {
    const { Bm25Index, VectorIndex } = await ${load}
    const bm25 = new Bm25Index()
    bm25.add(workerData.docs)
    const vectors = new VectorIndex({ dim: 4 })
    vectors.add(['a', 'b', 'c'], new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0.9, 0.1, 0, 0]))
    parentPort.postMessage({
      sync: bm25.search('w5 common', { topK: 5 }),
      async: await bm25.searchAsync('w5 common', { topK: 5 }),
      vector: vectors.search(new Float32Array([1, 0, 0, 0]), { topK: 2 }).map((h) => h.id),
    })
  })().catch((e) => { throw e })
`

const run = (load) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(body(load), { eval: true, workerData: { docs } })
    let result
    worker.once('message', (m) => (result = m))
    worker.once('error', reject)
    worker.once('exit', (code) => (code === 0 ? resolve(result) : reject(new Error(`worker exited ${code}`))))
  })

const entries = {
  esm: `import(${JSON.stringify(new URL('../../dist/esm/index.js', import.meta.url).href)})`,
  commonjs: `Promise.resolve(require(${JSON.stringify(new URL('../../dist/commonjs/index.js', import.meta.url).pathname)}))`,
}

for (const [entry, load] of Object.entries(entries)) {
  test(`a worker loads the addon through the ${entry} entry and searches like the main thread`, async (t) => {
    const main = new Bm25Index()
    main.add(docs)
    const expected = main.search('w5 common', { topK: 5 })
    const result = await run(load)
    t.true(expected.length > 0)
    t.deepEqual(result.sync, expected)
    t.deepEqual(result.async, expected)
    t.deepEqual(result.vector, ['a', 'c'])
  })
}

test('workers come and go, concurrently, while the main thread keeps its indexes', async (t) => {
  const main = new Bm25Index()
  main.add(docs)
  const vectors = new VectorIndex({ dim: 4 })
  vectors.add(['x'], new Float32Array([0, 0, 1, 0]))
  const expected = main.search('w11', { topK: 3 })
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all([run(entries.esm), run(entries.commonjs), main.searchAsync('w11', { topK: 3 })])
    t.deepEqual(results[0].sync, results[1].sync)
    t.deepEqual(results[2], expected)
  }
  // The exited workers' environments were torn down; the main thread's objects are untouched.
  t.deepEqual(main.search('w11', { topK: 3 }), expected)
  t.is(vectors.search(new Float32Array([0, 0, 1, 0]), { topK: 1 })[0].id, 'x')
})
