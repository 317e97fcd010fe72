// The writer: POST /documents adds (or with upsert replaces) documents in both indexes, DELETE
// /documents/:id removes one (writes.mjs; a reader worker forwards them to the writer worker). Writes are
// not tied to the request's signal: a client that leaves after sending a write does not undo it.
import { localWrites } from '../writes.mjs'

export async function documentRoutes(app, { ready }) {
  const writes = (stack) => stack.writes ?? localWrites(stack)
  app.post('/documents', async (request, reply) => {
    const stack = ready()
    return reply.code(201).send(await writes(stack).add(request.body ?? {}))
  })

  app.delete('/documents/:id', async (request, reply) => {
    const stack = ready()
    return reply.send(await writes(stack).remove(request.params.id))
  })
}
