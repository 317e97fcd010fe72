// The parameters of a request, from the query string (GET) or the JSON body (POST), in one shape. Values
// are passed on as given (a query-string number is converted): ragrank validates them, and a bad one
// becomes a 400 with its error code. A vector may also come as base64 of little-endian float32 values (the
// `encoding_format: "base64"` of embedding APIs): a 384-number JSON array costs the event loop about 60 us to
// parse, its 2 KB of base64 about 1 us.
import { HttpError } from '../errors.mjs'

/** { query, topK, vector } of a search request. */
export function searchParams(request) {
  if (request.method !== 'GET') {
    const b = request.body ?? {}
    return { query: b.query, topK: b.topK, vector: vectorParam(b.vector) }
  }
  const q = request.query
  return {
    query: q.q ?? q.query,
    topK: q.topK === undefined ? undefined : Number(q.topK),
    // ?vector=0.12,-0.5,... (a POST body is the better place for a vector)
    vector: q.vector === undefined ? undefined : String(q.vector).split(',').map(Number),
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** A request's vector: a base64 string becomes a Float32Array (a 400 unless whole float32 values); anything else
 * is passed on as given, for ragrank to validate. */
export function vectorParam(vector) {
  if (typeof vector !== 'string') return vector
  // Buffer.from skips characters outside the alphabet; a typo must not become a different vector.
  if (!BASE64.test(vector))
    throw new HttpError(400, 'ERR_INVALID_ARG', 'vector: a string must be base64 of float32 values')
  const bytes = Buffer.from(vector, 'base64')
  if (bytes.length === 0 || bytes.length % 4 !== 0)
    throw new HttpError(
      400,
      'ERR_INVALID_ARG',
      `vector: base64 of ${bytes.length} bytes is not a whole number of float32 values`,
    )
  // Copied into a buffer of its own: a decoded Buffer may sit at an offset that a Float32Array cannot view.
  return new Float32Array(new Uint8Array(bytes).buffer)
}

/** The base64 form of a vector (little-endian float32), as `vectorParam` reads it. */
export function vectorBase64(vector) {
  const f = Float32Array.from(vector)
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64')
}
