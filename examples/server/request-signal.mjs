// A request-scoped AbortSignal, `request.clientSignal`: it fires when the client goes away before the reply
// was sent, so every ragrank call made for that request (searchBatch, rerank, retrieve...) stops instead of
// finishing for nobody.
//
// Why not Fastify's own `request.signal` or `request.raw.on('close')`: since Node 16 an IncomingMessage
// emits 'close' as soon as its body has been read (autoDestroy). For a POST that is before the handler
// runs, so a signal tied to it is aborted on every POST with a body (measured with Fastify 5.12 on Node 20),
// and it never fires when the client leaves later. The response's 'close' fires when the reply is done
// or the socket is gone; `writableFinished` tells which.

/** Gives every request of a Fastify app a `request.clientSignal` (an AbortSignal). */
export function requestSignals(app) {
  app.decorateRequest('clientSignal', null)
  app.addHook('onRequest', async (request, reply) => {
    const controller = new AbortController()
    request.clientSignal = controller.signal
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort()
    })
  })
}
