// Loading a model by hub id goes through the Hugging Face cache, tested against a local
// server that speaks the hub's file protocol (the real hub is never contacted).
import test from 'ava'
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { CrossEncoder } from '../dist/index.mjs'
import { fakeCommit, startHub } from '../fixtures/hub-server.mjs'

const models = new URL('../fixtures/models/', import.meta.url).pathname

function filesOf(dir) {
  const out = {}
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p)
    }
  }
  walk(dir)
  return out
}

test('CrossEncoder.load(hub id) downloads into the HF cache, then loads offline from it', async (t) => {
  const hub = await startHub()
  const commit = fakeCommit('tiny-ce')
  hub.repos.set('acme/tiny-ce', {
    refs: { main: commit },
    commits: { [commit]: filesOf(join(models, 'tiny-cross-encoder')) },
    lfs: ['onnx/model.onnx'],
  })
  const cacheDir = mkdtempSync(join(tmpdir(), 'ragrank-hf-'))
  try {
    const online = await CrossEncoder.load('acme/tiny-ce', { endpoint: hub.url, cacheDir })
    t.true(online.files.model.startsWith(join(cacheDir, 'models--acme--tiny-ce', 'snapshots', commit)))
    const local = await CrossEncoder.load(join(models, 'tiny-cross-encoder'))
    const docs = ['Paris is the capital of France.', 'Berlin']
    t.deepEqual(await online.rerank('capital of France', docs), await local.rerank('capital of France', docs))
    hub.reset()
    const offline = await CrossEncoder.load('acme/tiny-ce', { cacheDir, offline: true })
    t.is(hub.count(), 0)
    t.deepEqual(await offline.rerank('capital of France', docs), await local.rerank('capital of France', docs))
    await t.throwsAsync(CrossEncoder.load('acme/missing', { cacheDir, offline: true }), { code: 'ERR_MODEL_NOT_FOUND' })
  } finally {
    await hub.close()
  }
})
