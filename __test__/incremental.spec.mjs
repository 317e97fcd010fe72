// After any sequence of adds and removes, results equal an index built from scratch.
import test from 'ava'
import { Bm25Index } from '../dist/index.mjs'

function rng(seed) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

for (const variant of ['lucene', 'robertson', 'atire', 'bm25l', 'bm25+']) {
  test(`${variant}: incremental equals rebuilt`, (t) => {
    const rand = rng(42)
    const word = () => `t${Math.floor(80 ** rand())}`
    const index = new Bm25Index({ variant })
    let live = []
    let next = 0
    for (let round = 0; round < 30; round++) {
      if (rand() < 0.6 || live.length === 0) {
        const batch = Array.from({ length: 1 + Math.floor(rand() * 15) }, () => ({
          id: `d${next++}`,
          text: Array.from({ length: Math.floor(rand() * 25) }, word).join(' '),
        }))
        index.add(batch)
        live.push(...batch)
      } else {
        const gone = live.filter(() => rand() < 0.3).map((d) => d.id)
        t.is(index.remove(gone), gone.length)
        live = live.filter((d) => !gone.includes(d.id))
      }
      const scratch = new Bm25Index({ variant })
      scratch.add(live)
      for (let q = 0; q < 4; q++) {
        const query = Array.from({ length: 1 + Math.floor(rand() * 4) }, word).join(' ')
        t.deepEqual(index.search(query, { topK: 10 }), scratch.search(query, { topK: 10 }), query)
      }
    }
  })
}
