// Strict TypeScript users of the LlamaIndex.TS and AI SDK adapters: fixtures/types/frameworks/consumer.mts
// assigns each adapter where the framework's own types expect one, under bundler and node16 resolution.
import test from 'ava'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const dir = new URL('../../fixtures/types/frameworks/', import.meta.url).pathname

/** The compiler's error lines for one tsconfig (none when it type-checks). */
async function typeErrors(config) {
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', `${dir}${config}`], { timeout: 110_000 })
    return []
  } catch (e) {
    if (typeof e.stdout !== 'string') throw e
    return e.stdout.split('\n').filter((l) => /error TS\d+/.test(l))
  }
}

test('bundler resolution: every adapter is assignable to the framework type it implements', async (t) => {
  t.deepEqual(await typeErrors('tsconfig.bundler.json'), [])
})

test('node16 resolution: every adapter is assignable to the framework type it implements', async (t) => {
  // The ESM build (tshy) makes node16 ESM users see ragrank's ESM declarations, which extend the ESM copy of
  // each framework's classes, so no dual-package error may remain.
  t.deepEqual(await typeErrors('tsconfig.node16.json'), [])
})
