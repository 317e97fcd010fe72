// How errors become HTTP statuses. ragrank's errors carry a stable `code` (docs: ErrorCode):
//   400  bad input: ragrank's TypeError / RangeError (code ERR_INVALID_ARG), ERR_DUPLICATE_ID, and Fastify's
//        own body or JSON errors (their 4xx statusCode is kept). A TypeError without a code is a bug in the
//        server, not bad input: 500.
//   499  the request was aborted (ABORT_ERR: the client went away, so nobody reads this reply)
//   503  the indexes or models are not loaded yet (ERR_NOT_READY, this server's own code)
//   500  anything else (ERR_INFERENCE, ERR_IO, a bug...), with the code when there is one

const BAD_INPUT = new Set(['ERR_INVALID_ARG', 'ERR_DUPLICATE_ID'])

/** An error that carries its own HTTP status (the server's own conditions: not ready, not found). */
export class HttpError extends Error {
  constructor(statusCode, code, message) {
    super(message)
    this.statusCode = statusCode
    this.code = code
  }
}

/** { status, body } of an error thrown while handling a request. */
export function errorReply(error) {
  const code = typeof error?.code === 'string' ? error.code : undefined
  const message = String(error?.message ?? error)
  if (error instanceof HttpError) return { status: error.statusCode, body: { error: code, message } }
  if (code === 'ABORT_ERR' || error?.name === 'AbortError')
    return { status: 499, body: { error: 'ABORT_ERR', message } }
  if (BAD_INPUT.has(code)) return { status: 400, body: { error: code, message } }
  // Fastify's errors (invalid JSON, unsupported media type, body too large) say their own 4xx status.
  const status = error?.statusCode
  if (Number.isInteger(status) && status >= 400 && status < 500) return { status, body: { error: code, message } }
  return { status: 500, body: { error: code ?? 'ERR_INTERNAL', message } }
}

/** Installs errorReply as the app's error handler; 5xx errors are logged, client errors are not. */
export function replyWithErrors(app) {
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = errorReply(error)
    if (status >= 500) request.log.error(error)
    // The client of an aborted request is gone; the status still shows in the access log.
    return reply.code(status).send(body)
  })
}
