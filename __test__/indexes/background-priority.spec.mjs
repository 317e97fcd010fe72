// Maintenance (addAsync, merges, saves, frees) runs on threads niced below the caller's, so it
// yields the cores to the event loop, and under SCHED_BATCH, so a thread the loop wakes does not
// preempt it. Checked on Linux through /proc: each thread's name, nice value (field 19 of its stat
// line) and scheduling policy (field 41).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import { Bm25Index, VectorIndex } from '../../dist/esm/index.js'

const linux = process.platform === 'linux'
const dir = mkdtempSync(join(tmpdir(), 'ragrank-nice-'))
test.after.always(() => rmSync(dir, { recursive: true, force: true }))

const SCHED_OTHER = 0
const SCHED_BATCH = 3

/** [name, nice, policy] of this process's threads. */
function threads() {
  const out = []
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      // Fields after the parenthesised name; nice is field 19 (index 16 after the name).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.push([name, Number(fields[16]), Number(fields[38])])
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out
}

const comm = readFileSync('/proc/self/comm', 'utf8').trim()
/** The nice values of Node's own threads (the event loop, libuv's pool, V8's): named as the process. */
const nodeNices = () => [
  ...new Set(
    threads()
      .filter(([name]) => name === comm)
      .map(([, nice]) => nice),
  ),
]

;(linux ? test : test.skip)(
  'addAsync, merges and saves run on niced threads; the caller keeps its priority',
  async (t) => {
    const [before, ...others] = nodeNices()
    t.deepEqual(others, [], 'Node threads start with one nice value')
    const index = new Bm25Index()
    const docs = Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, text: `alpha beta w${i % 97} z${i}` }))
    for (let i = 0; i < 3000; i += 100) await index.addAsync(docs.slice(i, i + 100))
    await index.merge()
    await index.save(join(dir, 'bm25.idx'))
    const vectors = new VectorIndex({ dim: 4 })
    vectors.add(['a', 'b'], new Float32Array([1, 0, 0, 0, 0, 1, 0, 0]))
    await vectors.save(join(dir, 'vectors.idx'))

    const seen = threads()
    const background = seen.filter(([name]) => name.startsWith('ragrank-bg-'))
    t.true(background.length > 0, `background pool threads: ${seen.map(([name]) => name).join(', ')}`)
    for (const [name, nice, policy] of background) {
      t.true(nice >= 10 && nice >= before, `${name} nice ${nice}`)
      t.is(policy, SCHED_BATCH, `${name} policy`)
    }
    const worker = seen.find(([name]) => name === 'ragrank-bm25')?.[1]
    t.not(worker, undefined, 'the BM25 maintenance thread runs')
    t.true(worker >= 10, `ragrank-bm25 nice ${worker}`)
    t.deepEqual(nodeNices(), [before], "the event loop's and libuv's threads are left as they were")
    t.deepEqual(
      [
        ...new Set(
          threads()
            .filter(([name]) => name === comm)
            .map(([, , policy]) => policy),
        ),
      ],
      [SCHED_OTHER],
      'and keep their scheduling policy',
    )
    t.is(index.search('alpha', { topK: 1 }).length, 1)
  },
)
