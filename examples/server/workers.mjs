// Several workers of the server on one index directory (node:cluster, one shared port). The first worker is
// the directory's writer; the others are readers: they map the same segment files (one copy in the page
// cache for all), see the writer's commits within their refresh interval, and forward the writes they get
// to the writer through the primary (a reader's indexes take no writes).
import cluster from 'node:cluster'
import { errorReply, HttpError } from './errors.mjs'

/**
 * In the primary: forks the writer, then, once it has opened (and if need be built and committed) the
 * index, `workers - 1` readers; relays forwarded writes and their replies. A worker that dies is forked
 * again in its role. Resolves with { address, stop } once every worker listens and has its indexes open.
 */
export function superviseWorkers(workers, { log = console.error } = {}) {
  let writer
  let stopping = false
  let ready = 0
  let address
  let done
  cluster.on('listening', (_worker, a) => {
    address ??= a
  })
  const fork = (role) => {
    const worker = cluster.fork({ RAGRANK_ROLE: role })
    worker.on('message', (m) => {
      if (m?.type === 'ready') {
        worker.ready = true
        if (role === 'writer' && !writer.started) {
          writer.started = true
          for (let i = 1; i < workers; i++) fork('reader')
        }
        if (++ready === workers) done()
      } else if (m?.type === 'write') {
        if (writer?.isConnected()) writer.send({ ...m, from: worker.id })
        else
          worker.send({
            type: 'written',
            id: m.id,
            error: { status: 503, code: 'ERR_NOT_READY', message: 'the writer is restarting' },
          })
      } else if (m?.type === 'written') {
        cluster.workers[m.from]?.send(m)
      }
    })
    worker.on('exit', (code, signal) => {
      if (stopping) return
      if (!worker.ready) {
        // It never opened its indexes (a bad flag, a damaged directory): forking it again would fail again.
        log(`${role} worker ${worker.process.pid} exited (${signal ?? code}) before it was ready: stopping`)
        stop()
        process.exitCode = 1
        return
      }
      log(`${role} worker ${worker.process.pid} exited (${signal ?? code}): forking another`)
      const again = fork(role)
      if (role === 'writer') {
        again.started = true
        writer = again
      }
    })
    return worker
  }
  writer = fork('writer')
  const stop = () => {
    stopping = true
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM')
  }
  return new Promise((resolve) => {
    done = () => resolve({ address, stop })
  })
}

/** In a reader worker: `{ add(body), remove(id) }` that the writer worker carries out (see localWrites). */
export function forwardedWrites({ bm25, vectors }) {
  let next = 0
  const waiting = new Map()
  process.on('message', (m) => {
    if (m?.type !== 'written' || !waiting.has(m.id)) return
    const { resolve, reject } = waiting.get(m.id)
    waiting.delete(m.id)
    if (m.error) reject(new HttpError(m.error.status, m.error.code, m.error.message))
    else resolve(m.result)
  })
  const send = (op, arg) =>
    new Promise((resolve, reject) => {
      const id = ++next
      waiting.set(id, { resolve, reject })
      process.send({ type: 'write', id, op, arg })
    })
  return {
    async add(body) {
      const result = await send('add', body)
      // Read-your-writes on request: the writer committed before replying; read that commit here.
      if (body?.refresh === true) await Promise.all([bm25.refresh(), vectors.refresh()])
      return result
    },
    remove: (id) => send('remove', id),
  }
}

/** In the writer worker: carries out the writes readers forward, with `writes` (a refresh: true add commits first). */
export function serveForwardedWrites(writes, commit) {
  process.on('message', async (m) => {
    if (m?.type !== 'write') return
    try {
      const result = m.op === 'add' ? await writes.add(m.arg) : await writes.remove(m.arg)
      if (m.op === 'add' && m.arg?.refresh === true) await commit()
      process.send({ type: 'written', id: m.id, from: m.from, result })
    } catch (e) {
      const { status, body } = errorReply(e)
      process.send({
        type: 'written',
        id: m.id,
        from: m.from,
        error: { status, code: body.error, message: body.message },
      })
    }
  })
}
