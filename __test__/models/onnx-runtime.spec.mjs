// Runs in its own process: the runtime library loads once per process.
import test from 'ava'
import { CrossEncoder, ensureOnnxRuntime, onnxRuntimePath } from '../../dist/esm/index.js'

const model = new URL('../../fixtures/models/tiny-cross-encoder', import.meta.url).pathname

test.serial('a missing runtime library gives ERR_ORT_NOT_FOUND with how to get one', async (t) => {
  t.is(onnxRuntimePath(), undefined)
  const error = await t.throwsAsync(CrossEncoder.load(model, { ortLibrary: '/nonexistent/libonnxruntime.so' }), {
    code: 'ERR_ORT_NOT_FOUND',
  })
  t.regex(error.message, /onnxruntime-node/)
  t.regex(error.message, /ORT_DYLIB_PATH/)
  t.is(onnxRuntimePath(), undefined)
})

test.serial('the runtime is then found at ORT_DYLIB_PATH, else in onnxruntime-node, and loaded once', async (t) => {
  const path = ensureOnnxRuntime()
  // scripts/ort-matrix.sh runs this spec with ORT_DYLIB_PATH at another runtime.
  if (process.env.ORT_DYLIB_PATH) t.is(path, process.env.ORT_DYLIB_PATH)
  else t.regex(path, /onnxruntime-node.*libonnxruntime|onnxruntime\.dll|dylib/)
  t.is(ensureOnnxRuntime('/ignored/once/loaded.so'), path)
  const ce = await CrossEncoder.load(model)
  t.is((await ce.rerank('q', ['a'])).length, 1)
})
