// What the server suite's writer (100 adds/s plus a remove per 10 adds) costs a server in CPU, with no
// other load: the server process's user+system seconds per wall second, idle and with the writer, and the
// benchmark process's own share (it runs the writer's client).
//   node bench/probes/writer-cost.mjs [--stack ragrank|js|orama] [--docs 100000] [--seconds 10]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { sleep } from '../lib/harness.mjs'
import { benchCorpus } from '../server/data.mjs'
import { startServer, startWriter } from '../server/load.mjs'

const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'ragrank' },
    docs: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
  },
})
const docs = Number(values.docs)
const seconds = Number(values.seconds)
const dim = 384
const tick = 100 // USER_HZ
const cpuOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(f[11]) + Number(f[12])) / tick
}
const server = await startServer({ stack: values.stack, docs, vectors: docs, dim, reranker: null })
const pid = server.pid
const { corpus } = benchCorpus({ docs, vectors: 0, dim })
async function window(label, run) {
  const c0 = cpuOf(pid)
  const b0 = process.cpuUsage()
  const t0 = performance.now()
  const extra = await run()
  const wall = (performance.now() - t0) / 1000
  const b = process.cpuUsage(b0)
  console.log(
    `${label}: server ${((cpuOf(pid) - c0) / wall).toFixed(3)} cores, bench process ${((b.user + b.system) / 1e6 / wall).toFixed(3)} cores over ${wall.toFixed(1)} s${extra ? ` ${JSON.stringify(extra)}` : ''}`,
  )
}
try {
  await sleep(2000)
  await window('idle', () => sleep(seconds * 1000))
  await window('writer', async () => {
    const w = startWriter(server.url, { corpus, dim, first: 0 })
    await sleep(seconds * 1000)
    const s = await w.stop()
    return { adds: s.adds, removes: s.removes, addsPerSecond: +s.addsPerSecond.toFixed(1), errors: s.errors }
  })
  await window('after', () => sleep(seconds * 1000))
} finally {
  await server.stop()
}
