// An engine's error text is quoted in the message up to an excerpt; the whole body stays on error.body.
import test from 'ava'
import { ENGINE_MESSAGE_EXCERPT, statusError } from '../../dist/esm/engines/transport.js'

test('a huge error reason is cut to an excerpt in the message, whole on error.body', (t) => {
  const reason = 'x'.repeat(5_000_000)
  const body = { error: { type: 'search_phase_execution_exception', reason } }
  const err = statusError('Elasticsearch', 400, body, 'POST /idx/_search')
  t.is(err.code, 'ERR_ENGINE')
  t.true(err.message.length < ENGINE_MESSAGE_EXCERPT + 200, `message of ${err.message.length} characters`)
  t.regex(err.message, /more characters\)$/)
  t.is(err.body, body)
  // a short reason is quoted whole
  const short = statusError(
    'OpenSearch',
    404,
    { error: { type: 'index_not_found_exception', reason: 'no such index [a]' } },
    'GET /a',
  )
  t.is(short.message, 'OpenSearch GET /a failed (404): index_not_found_exception: no such index [a]')
})
