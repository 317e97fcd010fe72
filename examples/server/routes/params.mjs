// The parameters of a request, from the query string (GET) or the JSON body (POST), in one shape. Values
// are passed on as given (a query-string number is converted): ragrank validates them, and a bad one
// becomes a 400 with its error code.

/** { query, topK, vector } of a search request. */
export function searchParams(request) {
  if (request.method !== 'GET') {
    const b = request.body ?? {}
    return { query: b.query, topK: b.topK, vector: b.vector }
  }
  const q = request.query
  return {
    query: q.q ?? q.query,
    topK: q.topK === undefined ? undefined : Number(q.topK),
    // ?vector=0.12,-0.5,... (a POST body is the better place for a vector)
    vector: q.vector === undefined ? undefined : String(q.vector).split(',').map(Number),
  }
}
