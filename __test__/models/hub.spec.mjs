// Hub download + cache resolution against a local fake hub (never the real one).
import test from 'ava'
import { mkdtemp, mkdir, readFile, readdir, readlink, lstat, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { hubCacheDir, isHubId, resolveHubFiles } from '../../dist/esm/models/hub.js'
import { fakeCommit, gitBlobId, sha256, startHub } from '../../fixtures/hub-server.mjs'

const C1 = fakeCommit('one')
const C2 = fakeCommit('two')
const CONFIG = '{"model_type":"bert"}'
const TOKENIZER = '{"version":"1.0"}'
const MODEL = randomBytes(300_000)

// Tests pass `env` so that nothing of the real environment (HF_TOKEN, ~/.cache/huggingface) is read.
async function setup(t, repoOverrides = {}) {
  const hub = await startHub()
  t.teardown(() => hub.close())
  hub.repos.set('acme/tiny', {
    refs: { main: C1, v1: C1 },
    commits: { [C1]: { 'config.json': CONFIG, 'tokenizer.json': TOKENIZER, 'onnx/model.onnx': MODEL } },
    lfs: ['onnx/model.onnx'],
    ...repoOverrides,
  })
  const home = await mkdtemp(join(tmpdir(), 'ragrank-hub-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const cacheDir = join(home, 'hub')
  const env = { HF_HOME: home, HOME: home }
  const options = { endpoint: hub.url, cacheDir, env }
  return { hub, home, cacheDir, env, options, repoDir: join(cacheDir, 'models--acme--tiny') }
}

/** Every file under `dir` (recursively), relative, sorted. */
async function tree(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath ?? e.path, e.name).slice(dir.length + 1))
    .sort()
}

const FILES = ['config.json', 'onnx/model.onnx']

test('isHubId tells hub ids from paths', (t) => {
  t.true(isHubId('cross-encoder/ms-marco-MiniLM-L-6-v2'))
  t.true(isHubId('BAAI/bge-reranker-v2-m3'))
  t.true(isHubId('sentence-transformers/all-MiniLM-L6-v2'))
  for (const s of [
    './org/name',
    '/org/name',
    'name',
    'a/b/c',
    'org/',
    '/name',
    'org//name',
    '../x/y',
    'org/na me',
    'C:/x',
    'org\\name',
    'a--b/c',
    'a/.x',
    42,
    undefined,
  ]) {
    t.false(isHubId(s), String(s))
  }
})

test.serial('isHubId is false when a local path of that name exists', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ragrank-hubid-'))
  const cwd = process.cwd()
  t.teardown(async () => {
    process.chdir(cwd)
    await rm(dir, { recursive: true, force: true })
  })
  process.chdir(dir)
  t.true(isHubId('models/mini'))
  await mkdir(join(dir, 'models', 'mini'), { recursive: true })
  t.false(isHubId('models/mini'))
})

test('hubCacheDir follows huggingface_hub: HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, ~', (t) => {
  const HOME = '/home/u'
  t.is(hubCacheDir({ HOME }), join(HOME, '.cache', 'huggingface', 'hub'))
  t.is(hubCacheDir({ HOME, XDG_CACHE_HOME: '/xdg' }), join('/xdg', 'huggingface', 'hub'))
  t.is(hubCacheDir({ HOME, XDG_CACHE_HOME: '/xdg', HF_HOME: '/hf' }), join('/hf', 'hub'))
  t.is(hubCacheDir({ HOME, HF_HOME: '/hf', HUGGINGFACE_HUB_CACHE: '/legacy' }), '/legacy')
  t.is(hubCacheDir({ HOME, HF_HOME: '/hf', HUGGINGFACE_HUB_CACHE: '/legacy', HF_HUB_CACHE: '/new' }), '/new')
  t.is(hubCacheDir({ HOME, HF_HUB_CACHE: '~/models' }), join(HOME, 'models'))
  t.is(
    hubCacheDir({ HOME, HF_HOME: '' }),
    join(HOME, '.cache', 'huggingface', 'hub'),
    'an empty variable counts as unset',
  )
  t.is(typeof hubCacheDir(), 'string')
})

test('downloads into the Python cache layout; a second call uses the cache (one HEAD, no GET)', async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const r = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.is(r.commit, C1)
  t.is(r.dir, join(repoDir, 'snapshots', C1))
  t.deepEqual(Object.keys(r.files), FILES)
  t.is(r.files['config.json'], join(r.dir, 'config.json'))
  t.is(r.files['onnx/model.onnx'], join(r.dir, 'onnx', 'model.onnx'))
  t.is(await readFile(r.files['config.json'], 'utf8'), CONFIG)
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))

  // refs/main holds the commit; snapshot entries are relative symlinks into blobs/{etag}.
  t.is(await readFile(join(repoDir, 'refs', 'main'), 'utf8'), C1)
  const configEtag = gitBlobId(Buffer.from(CONFIG))
  t.is(await readlink(r.files['config.json']), join('..', '..', 'blobs', configEtag))
  t.is(await readlink(r.files['onnx/model.onnx']), join('..', '..', '..', 'blobs', sha256(MODEL)))
  t.deepEqual(await tree(join(repoDir, 'blobs')), [configEtag, sha256(MODEL)].sort())

  t.is(hub.count('GET'), 2, 'config from the hub, the model from the CDN')
  t.is(hub.cdnRequests.filter((r) => r.method === 'GET').length, 1)
  hub.reset()
  const again = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.deepEqual(again, r)
  t.is(hub.count('GET'), 0)
  t.is(hub.count('HEAD'), 1, 'one HEAD learns the current commit of main')
})

test('the token goes to the hub, never to the CDN it redirects to', async (t) => {
  const { hub, options } = await setup(t, { private: true })
  await resolveHubFiles('acme/tiny', FILES, [], { ...options, token: hub.token })
  t.true(hub.requests.length > 0)
  t.true(hub.requests.every((r) => r.auth === `Bearer ${hub.token}`))
  t.true(hub.cdnRequests.length > 0)
  t.true(hub.cdnRequests.every((r) => r.auth === undefined))
})

test('an LFS redirect to the same origin is followed for the bytes, metadata from the hub response', async (t) => {
  const { hub, options, repoDir } = await setup(t, { sameOriginCdn: true })
  const r = await resolveHubFiles('acme/tiny', ['onnx/model.onnx'], [], options)
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(await tree(join(repoDir, 'blobs')), [sha256(MODEL)])
  t.true(hub.requests.some((r) => r.url.startsWith('/cdn/') && r.method === 'GET'))
  t.is(hub.cdnRequests.length, 0)
})

test('a renamed repo (307 to a relative location) is followed; the cache keeps the requested id', async (t) => {
  const { hub, options, cacheDir } = await setup(t)
  hub.repos.set('old-org/tiny', { movedTo: 'acme/tiny' })
  const r = await resolveHubFiles('old-org/tiny', FILES, [], options)
  t.is(r.dir, join(cacheDir, 'models--old-org--tiny', 'snapshots', C1))
  t.is(await readFile(r.files['config.json'], 'utf8'), CONFIG)
  t.true(hub.requests.some((q) => q.url.startsWith('/acme/tiny/resolve/')))
})

test('offline: a cached model resolves without any request (options.offline and HF_HUB_OFFLINE)', async (t) => {
  const { hub, options, env } = await setup(t)
  const online = await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], options)
  hub.reset()
  t.deepEqual(await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], { ...options, offline: true }), online)
  for (const value of ['1', 'true', 'YES', 'on']) {
    t.deepEqual(
      await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], {
        ...options,
        env: { ...env, HF_HUB_OFFLINE: value },
      }),
      online,
    )
  }
  t.deepEqual(
    await resolveHubFiles('acme/tiny', FILES, [], { ...options, env: { ...env, TRANSFORMERS_OFFLINE: '1' } }).then(
      (r) => r.commit,
    ),
    C1,
  )
  t.is(hub.requests.length, 0)
  // options.offline: false wins over the environment.
  await resolveHubFiles('acme/tiny', FILES, [], { ...options, offline: false, env: { ...env, HF_HUB_OFFLINE: '1' } })
  t.is(hub.count('HEAD'), 1)
})

test('offline: a cache miss is ERR_MODEL_NOT_FOUND saying how to get the model, with no request', async (t) => {
  const { hub, options } = await setup(t)
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, offline: true }), {
    code: 'ERR_MODEL_NOT_FOUND',
  })
  t.regex(err.message, /acme\/tiny/)
  t.regex(err.message, /not in the Hugging Face cache/)
  t.regex(err.message, /HF_HUB_OFFLINE/)
  t.regex(err.message, /local model folder/)

  // Cached, but one required file is not.
  await resolveHubFiles('acme/tiny', ['config.json'], [], options)
  hub.reset()
  const partial = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, offline: true }), {
    code: 'ERR_MODEL_NOT_FOUND',
  })
  t.regex(partial.message, /onnx\/model\.onnx/)
  const opt = await resolveHubFiles('acme/tiny', ['config.json'], ['onnx/model.onnx'], { ...options, offline: true })
  t.is(opt.files['onnx/model.onnx'], undefined)
  t.is(hub.requests.length, 0)
})

test("a cache written by Python's huggingface_hub (refs + relative symlinks to blobs) is found", async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const configEtag = gitBlobId(Buffer.from(CONFIG))
  await mkdir(join(repoDir, 'blobs'), { recursive: true })
  await mkdir(join(repoDir, 'refs'), { recursive: true })
  await mkdir(join(repoDir, 'snapshots', C1, 'onnx'), { recursive: true })
  await writeFile(join(repoDir, 'blobs', configEtag), CONFIG)
  await writeFile(join(repoDir, 'blobs', sha256(MODEL)), MODEL)
  await writeFile(join(repoDir, 'refs', 'main'), C1)
  await symlink(join('..', '..', 'blobs', configEtag), join(repoDir, 'snapshots', C1, 'config.json'))
  await symlink(join('..', '..', '..', 'blobs', sha256(MODEL)), join(repoDir, 'snapshots', C1, 'onnx', 'model.onnx'))

  const offline = await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], { ...options, offline: true })
  t.is(offline.commit, C1)
  t.is(await readFile(offline.files['config.json'], 'utf8'), CONFIG)
  t.true((await readFile(offline.files['onnx/model.onnx'])).equals(MODEL))
  t.is(offline.files['tokenizer.json'], undefined)
  t.is(hub.requests.length, 0)

  // Online, main still points at C1: nothing to download except the file not in the cache.
  const online = await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], options)
  t.is(online.files['config.json'], offline.files['config.json'])
  t.deepEqual(
    hub.requests.filter((r) => r.method === 'GET').map((r) => r.url),
    [`/acme/tiny/resolve/${C1}/tokenizer.json`],
  )
})

test('a commit-hash revision maps to snapshots/{hash}; once cached it needs no request at all', async (t) => {
  const { hub, options, repoDir } = await setup(t, {
    refs: { main: C2 },
    commits: {
      [C1]: { 'config.json': CONFIG, 'onnx/model.onnx': MODEL },
      [C2]: { 'config.json': '{"v":2}', 'onnx/model.onnx': MODEL },
    },
  })
  const r = await resolveHubFiles('acme/tiny', FILES, [], { ...options, revision: C1 })
  t.is(r.commit, C1)
  t.is(r.dir, join(repoDir, 'snapshots', C1))
  t.is(await readFile(r.files['config.json'], 'utf8'), CONFIG)
  t.true(hub.requests.every((q) => q.url.includes(`/resolve/${C1}/`)))
  t.deepEqual(await readdir(join(repoDir, 'refs')).catch(() => []), [], 'no ref is written for a commit hash')
  hub.reset()
  t.deepEqual(await resolveHubFiles('acme/tiny', FILES, [], { ...options, revision: C1 }), r)
  t.deepEqual(await resolveHubFiles('acme/tiny', FILES, [], { ...options, revision: C1, offline: true }), r)
  t.is(hub.requests.length, 0)

  // main is another commit: its own snapshot; the unchanged model blob is not downloaded again.
  const main = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.is(main.commit, C2)
  t.is(await readFile(main.files['config.json'], 'utf8'), '{"v":2}')
  t.is(hub.count('GET'), 1, 'only the changed config.json')
  t.is(await readFile(join(repoDir, 'refs', 'main'), 'utf8'), C2)
})

test('a tag resolves and is recorded under refs/{tag}; a moved branch is followed', async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const v1 = await resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, revision: 'v1' })
  t.is(v1.commit, C1)
  t.is(await readFile(join(repoDir, 'refs', 'v1'), 'utf8'), C1)

  await resolveHubFiles('acme/tiny', ['config.json'], [], options)
  const repo = hub.repos.get('acme/tiny')
  repo.commits[C2] = { 'config.json': '{"v":2}' }
  repo.refs.main = C2
  const moved = await resolveHubFiles('acme/tiny', ['config.json'], [], options)
  t.is(moved.commit, C2)
  t.is(await readFile(moved.files['config.json'], 'utf8'), '{"v":2}')
  t.is(await readFile(join(repoDir, 'refs', 'main'), 'utf8'), C2)
  // The old snapshot stays for whoever pinned it.
  t.is(await readFile(join(repoDir, 'snapshots', C1, 'config.json'), 'utf8'), CONFIG)
})

test('a missing optional file is undefined and remembered in .no_exist (no request next time)', async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const r = await resolveHubFiles('acme/tiny', ['config.json'], ['tokenizer.json', 'special_tokens_map.json'], options)
  t.is(r.files['special_tokens_map.json'], undefined)
  t.true('special_tokens_map.json' in r.files)
  t.is(await readFile(r.files['tokenizer.json'], 'utf8'), TOKENIZER)
  t.is(await readFile(join(repoDir, '.no_exist', C1, 'special_tokens_map.json'), 'utf8'), '')
  hub.reset()
  t.deepEqual(
    await resolveHubFiles('acme/tiny', ['config.json'], ['tokenizer.json', 'special_tokens_map.json'], options),
    r,
  )
  t.is(hub.requests.length, 1, 'the HEAD of config.json only')
  // Only optional files: a missing first one still tells the commit.
  const onlyOptional = await resolveHubFiles('acme/tiny', [], ['nope.json', 'config.json'], options)
  t.is(onlyOptional.commit, C1)
  t.is(onlyOptional.files['nope.json'], undefined)
})

test('a missing required file is ERR_MODEL_NOT_FOUND naming repo, file and revision', async (t) => {
  const { options, repoDir } = await setup(t)
  const err = await t.throwsAsync(
    resolveHubFiles('acme/tiny', ['config.json', 'onnx/model_quantized.onnx'], [], options),
    {
      code: 'ERR_MODEL_NOT_FOUND',
    },
  )
  t.is(err.name, 'RagrankError')
  t.is(err.status, 404)
  t.regex(err.message, /onnx\/model_quantized\.onnx/)
  t.regex(err.message, /acme\/tiny/)
  t.regex(err.message, /"main"/)
  t.deepEqual(await readdir(join(repoDir, 'refs')).catch(() => []), [], 'refs are written only on success')

  const rev = await t.throwsAsync(
    resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, revision: 'no-such-branch' }),
    {
      code: 'ERR_MODEL_NOT_FOUND',
    },
  )
  t.regex(rev.message, /no-such-branch/)
  const repo = await t.throwsAsync(resolveHubFiles('acme/nothing', ['config.json'], ['a.json'], options), {
    code: 'ERR_MODEL_NOT_FOUND',
  })
  t.regex(repo.message, /acme\/nothing/)
  t.regex(repo.message, /HF_TOKEN/)
})

test('private and gated repos: 401 mentions HF_TOKEN; the token comes from options, HF_TOKEN or the saved token file', async (t) => {
  const { hub, options, env, home } = await setup(t, { private: true })
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], options), { code: 'ERR_MODEL_NOT_FOUND' })
  t.regex(err.message, /HF_TOKEN/)
  t.is(err.status, 401)

  const viaOption = await resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, token: hub.token })
  t.is(await readFile(viaOption.files['config.json'], 'utf8'), CONFIG)

  hub.repos.get('acme/tiny').refs.main = C2
  hub.repos.get('acme/tiny').commits[C2] = { 'config.json': '{"v":2}' }
  hub.reset()
  const viaEnv = await resolveHubFiles('acme/tiny', ['config.json'], [], {
    ...options,
    env: { ...env, HF_TOKEN: hub.token },
  })
  t.is(viaEnv.commit, C2)
  t.true(hub.requests.every((r) => r.auth === `Bearer ${hub.token}`))

  await writeFile(join(home, 'token'), `${hub.token}\n`)
  t.is((await resolveHubFiles('acme/tiny', ['config.json'], [], options)).commit, C2)
  await t.throwsAsync(
    resolveHubFiles('acme/tiny', ['config.json'], [], {
      ...options,
      env: { ...env, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' },
    }),
    {
      code: 'ERR_MODEL_NOT_FOUND',
    },
  )

  hub.repos.get('acme/tiny').private = false
  hub.repos.get('acme/tiny').gated = true
  const gated = await t.throwsAsync(
    resolveHubFiles('acme/tiny', ['config.json'], [], {
      ...options,
      revision: 'v1',
      env: { ...env, HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' },
    }),
    {
      code: 'ERR_UNAUTHORIZED',
    },
  )
  t.regex(gated.message, /gated/)
  t.regex(gated.message, /HF_TOKEN/)
})

test('environment variables: HF_ENDPOINT, HF_HUB_CACHE, HF_TOKEN', async (t) => {
  const { hub, home } = await setup(t, { private: true })
  const cache = join(home, 'from-env')
  const env = {
    HOME: home,
    HF_HOME: join(home, 'unused'),
    HF_ENDPOINT: `${hub.url}/`,
    HF_HUB_CACHE: cache,
    HF_TOKEN: hub.token,
  }
  const r = await resolveHubFiles('acme/tiny', FILES, [], { env })
  t.is(r.dir, join(cache, 'models--acme--tiny', 'snapshots', C1))
  t.is(await readFile(r.files['config.json'], 'utf8'), CONFIG)
  t.true(hub.requests.every((q) => q.auth === `Bearer ${hub.token}`))
  // Explicit options win over the environment.
  const other = join(home, 'explicit')
  const r2 = await resolveHubFiles('acme/tiny', ['config.json'], [], {
    env: { ...env, HF_ENDPOINT: 'http://127.0.0.1:9' },
    endpoint: hub.url,
    cacheDir: other,
  })
  t.is(r2.dir, join(other, 'models--acme--tiny', 'snapshots', C1))
})

test('an unreachable hub is ERR_NETWORK naming the endpoint, unless the model is cached', async (t) => {
  const { options } = await setup(t)
  const dead = 'http://127.0.0.1:9' // discard port: connection refused
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, endpoint: dead }), {
    code: 'ERR_NETWORK',
  })
  t.regex(err.message, /127\.0\.0\.1:9/)
  t.regex(err.message, /not fully in the Hugging Face cache/)

  const cached = await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], options)
  t.deepEqual(await resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], { ...options, endpoint: dead }), cached)
  // A commit-hash revision whose files are not cached has no fallback.
  await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, endpoint: dead, revision: C2 }), {
    code: 'ERR_NETWORK',
  })
})

test('a 5xx falls back to the cache; without one it is ERR_NETWORK with the status', async (t) => {
  const { hub, options } = await setup(t)
  const cached = await resolveHubFiles('acme/tiny', FILES, [], options)
  hub.repos.get('acme/tiny').status = 503
  t.deepEqual(await resolveHubFiles('acme/tiny', FILES, [], options), cached)
  const err = await t.throwsAsync(
    resolveHubFiles('acme/tiny', FILES, [], { ...options, revision: 'v1', cacheDir: join(options.cacheDir, 'x') }),
    {
      code: 'ERR_NETWORK',
    },
  )
  t.is(err.status, 503)
  t.regex(err.message, /503/)
})

test('an endpoint that is not a hub (no x-repo-commit) is ERR_NETWORK', async (t) => {
  const { options } = await setup(t, { noCommitHeader: true })
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], options), { code: 'ERR_NETWORK' })
  t.regex(err.message, /x-repo-commit/)
})

test('a file served without an etag is stored under its sha256', async (t) => {
  const { options, repoDir } = await setup(t, { noEtag: true })
  const r = await resolveHubFiles('acme/tiny', ['config.json'], [], options)
  t.is(await readlink(r.files['config.json']), join('..', '..', 'blobs', sha256(Buffer.from(CONFIG))))
  t.deepEqual(await tree(join(repoDir, 'blobs')), [sha256(Buffer.from(CONFIG))])
})

test('aborting mid-download rejects with AbortError, keeps the partial file, and the next call resumes it', async (t) => {
  const { hub, options, repoDir } = await setup(t, { slow: ['onnx/model.onnx'], lfs: [] })
  const controller = new AbortController()
  const pending = resolveHubFiles('acme/tiny', FILES, [], { ...options, signal: controller.signal })
  pending.catch(() => {})
  await hub.slowStart()
  const modelEtag = gitBlobId(MODEL)
  let during = []
  for (let i = 0; i < 200 && !during.includes(`${modelEtag}.incomplete`); i++) {
    await new Promise((r) => setTimeout(r, 10))
    during = await tree(join(repoDir, 'blobs'))
  }
  t.true(during.includes(`${modelEtag}.incomplete`), during.join(','))
  controller.abort()
  await t.throwsAsync(pending, { name: 'AbortError', code: 'ABORT_ERR' })
  // Only the finished config.json is in the snapshot; the model's 1 KiB waits as {etag}.incomplete.
  t.deepEqual(await tree(join(repoDir, 'blobs')), [gitBlobId(Buffer.from(CONFIG)), `${modelEtag}.incomplete`].sort())
  t.deepEqual(await tree(join(repoDir, 'snapshots')), [join(C1, 'config.json')])
  t.deepEqual(await readdir(join(repoDir, 'refs')).catch(() => []), [])
  hub.repos.get('acme/tiny').slow = []
  hub.reset()
  const r = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(hub.rangeRequests, ['bytes=1024-'])
  t.deepEqual(await tree(join(repoDir, 'blobs')), [gitBlobId(Buffer.from(CONFIG)), modelEtag].sort())
})

test('an already aborted signal rejects before any request', async (t) => {
  const { hub, options } = await setup(t)
  await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, signal: AbortSignal.abort() }), {
    name: 'AbortError',
  })
  t.is(hub.requests.length, 0)
})

test('a stalled download times out (HF_HUB_DOWNLOAD_TIMEOUT) as ERR_NETWORK, keeping what arrived to resume', async (t) => {
  const { options, env, repoDir } = await setup(t, { slow: ['onnx/model.onnx'] })
  const err = await t.throwsAsync(
    resolveHubFiles('acme/tiny', ['onnx/model.onnx'], [], {
      ...options,
      env: { ...env, HF_HUB_DOWNLOAD_TIMEOUT: '0.3' },
    }),
    { code: 'ERR_NETWORK' },
  )
  t.regex(err.message, /Timed out after 0\.3s/)
  t.deepEqual(await tree(join(repoDir, 'blobs')), [`${sha256(MODEL)}.incomplete`])
  t.is((await lstat(join(repoDir, 'blobs', `${sha256(MODEL)}.incomplete`))).size, 1024)
})

test('a dropped connection is ERR_NETWORK; the next call resumes with a Range request and reports progress from there', async (t) => {
  const { hub, options, repoDir } = await setup(t, { drop: { 'onnx/model.onnx': 100_000 } })
  const partial = join(repoDir, 'blobs', `${sha256(MODEL)}.incomplete`)
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], options), { code: 'ERR_NETWORK' })
  t.regex(err.message, /onnx\/model\.onnx|incomplete|reach/)
  t.is((await lstat(partial)).size, 100_000)
  hub.reset()
  const seen = []
  const r = await resolveHubFiles('acme/tiny', FILES, [], { ...options, onProgress: (p) => seen.push(p) })
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(hub.rangeRequests, ['bytes=100000-'], 'the CDN was asked for the rest only')
  t.deepEqual(seen[0], { file: 'onnx/model.onnx', loaded: 100_000, total: MODEL.length })
  t.deepEqual(seen.at(-1), { file: 'onnx/model.onnx', loaded: MODEL.length, total: MODEL.length })
  t.false(
    seen.some((p) => p.file === 'config.json'),
    'config.json was cached: no progress for it',
  )
  t.deepEqual(await tree(join(repoDir, 'blobs')), [gitBlobId(Buffer.from(CONFIG)), sha256(MODEL)].sort())
})

test('a server that ignores Range restarts the download cleanly', async (t) => {
  const { hub, options, repoDir } = await setup(t, { noRange: true })
  // What an interrupted download leaves: the first 50,000 bytes in the blob's .incomplete file.
  await mkdir(join(repoDir, 'blobs'), { recursive: true })
  await writeFile(join(repoDir, 'blobs', `${sha256(MODEL)}.incomplete`), MODEL.subarray(0, 50_000))
  const r = await resolveHubFiles('acme/tiny', ['onnx/model.onnx'], [], options)
  t.deepEqual(hub.rangeRequests, ['bytes=50000-'])
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL), 'the 200 replaced the partial file, not appended')
  t.deepEqual(await tree(join(repoDir, 'blobs')), [sha256(MODEL)])
})

test('a partial file that does not match fails the sha256 check, is removed, and the next call starts over', async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const partial = join(repoDir, 'blobs', `${sha256(MODEL)}.incomplete`)
  await mkdir(join(repoDir, 'blobs'), { recursive: true })
  await writeFile(partial, randomBytes(4096))
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], options), { code: 'ERR_NETWORK' })
  t.regex(err.message, /sha256/)
  t.deepEqual(await tree(join(repoDir, 'blobs')), [gitBlobId(Buffer.from(CONFIG))])
  hub.reset()
  const r = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(hub.rangeRequests, [null])
})

test('a partial file held by another live process is left alone: this one downloads a private copy', async (t) => {
  const { options, repoDir } = await setup(t)
  const blobs = join(repoDir, 'blobs')
  await mkdir(blobs, { recursive: true })
  await writeFile(join(blobs, `${sha256(MODEL)}.lock`), String(process.ppid))
  await writeFile(join(blobs, `${sha256(MODEL)}.incomplete`), MODEL.subarray(0, 10))
  const r = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.true((await readFile(r.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(
    await tree(blobs),
    [gitBlobId(Buffer.from(CONFIG)), sha256(MODEL), `${sha256(MODEL)}.incomplete`, `${sha256(MODEL)}.lock`].sort(),
  )
  // A lock left by a process that is gone is taken over (and removed once done).
  await rm(join(blobs, sha256(MODEL)))
  await writeFile(join(blobs, `${sha256(MODEL)}.lock`), '2147483646')
  await rm(join(repoDir, 'snapshots'), { recursive: true })
  const again = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.true((await readFile(again.files['onnx/model.onnx'])).equals(MODEL))
  t.deepEqual(await tree(blobs), [gitBlobId(Buffer.from(CONFIG)), sha256(MODEL)].sort())
})

test('onProgress: reports each downloaded file up to its size; a throwing callback is ERR_CALLBACK', async (t) => {
  const { options } = await setup(t)
  const seen = []
  await resolveHubFiles('acme/tiny', FILES, [], { ...options, onProgress: (p) => seen.push(p) })
  const model = seen.filter((p) => p.file === 'onnx/model.onnx')
  t.deepEqual(model[0], { file: 'onnx/model.onnx', loaded: 0, total: MODEL.length })
  t.deepEqual(model.at(-1), { file: 'onnx/model.onnx', loaded: MODEL.length, total: MODEL.length })
  t.true(model.every((p, i) => i === 0 || p.loaded >= model[i - 1].loaded))
  t.deepEqual(seen.filter((p) => p.file === 'config.json').at(-1), {
    file: 'config.json',
    loaded: CONFIG.length,
    total: CONFIG.length,
  })
  const other = await setup(t)
  const err = await t.throwsAsync(
    resolveHubFiles('acme/tiny', FILES, [], {
      ...other.options,
      onProgress: () => {
        throw new Error('boom')
      },
    }),
    { code: 'ERR_CALLBACK' },
  )
  t.is(err.cause.message, 'boom')
  await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], { ...options, onProgress: 1 }), {
    code: 'ERR_INVALID_ARG',
  })
})

test('a corrupted download (sha256 differs from the LFS etag) is rejected and not cached', async (t) => {
  const { options, repoDir } = await setup(t, { corrupt: ['onnx/model.onnx'] })
  const err = await t.throwsAsync(resolveHubFiles('acme/tiny', FILES, [], options), { code: 'ERR_NETWORK' })
  t.regex(err.message, /sha256/)
  t.deepEqual(await tree(join(repoDir, 'blobs')), [gitBlobId(Buffer.from(CONFIG))])
})

test('concurrent resolves of the same files share one valid cache entry', async (t) => {
  const { hub, options, repoDir } = await setup(t)
  const results = await Promise.all(
    Array.from({ length: 8 }, () => resolveHubFiles('acme/tiny', FILES, ['tokenizer.json'], options)),
  )
  for (const r of results) t.deepEqual(r, results[0])
  t.true((await readFile(results[0].files['onnx/model.onnx'])).equals(MODEL))
  t.is(await readFile(results[0].files['config.json'], 'utf8'), CONFIG)
  t.deepEqual(
    await tree(join(repoDir, 'blobs')),
    [gitBlobId(Buffer.from(CONFIG)), gitBlobId(Buffer.from(TOKENIZER)), sha256(MODEL)].sort(),
  )
  t.deepEqual(await tree(join(repoDir, 'snapshots')), [
    join(C1, 'config.json'),
    join(C1, 'onnx', 'model.onnx'),
    join(C1, 'tokenizer.json'),
  ])
  t.true((await lstat(results[0].files['onnx/model.onnx'])).isSymbolicLink())
  t.true(hub.count('GET') >= 3)
})

test('a broken snapshot symlink is repaired by downloading again', async (t) => {
  const { options, repoDir } = await setup(t)
  const r = await resolveHubFiles('acme/tiny', FILES, [], options)
  await rm(join(repoDir, 'blobs', sha256(MODEL)))
  const again = await resolveHubFiles('acme/tiny', FILES, [], options)
  t.deepEqual(again, r)
  t.true((await readFile(again.files['onnx/model.onnx'])).equals(MODEL))
})

test('options.fetch is used for every request', async (t) => {
  const { options } = await setup(t)
  const seen = []
  const r = await resolveHubFiles('acme/tiny', FILES, [], {
    ...options,
    fetch: (url, init) => {
      seen.push(`${init?.method ?? 'GET'} ${new URL(url).pathname}`)
      return fetch(url, init)
    },
  })
  t.is(r.commit, C1)
  t.deepEqual(seen, [
    'HEAD /acme/tiny/resolve/main/config.json',
    `GET /acme/tiny/resolve/${C1}/config.json`,
    `HEAD /acme/tiny/resolve/${C1}/onnx/model.onnx`,
    `GET /cdn/${sha256(MODEL)}`,
  ])
})

test('arguments are validated (ERR_INVALID_ARG)', async (t) => {
  const { options } = await setup(t)
  const bad = [
    ['../evil', ['config.json']],
    ['a/b/c', ['config.json']],
    ['acme/tiny', ['../config.json']],
    ['acme/tiny', ['/etc/passwd']],
    ['acme/tiny', ['a//b']],
    ['acme/tiny', 'config.json'],
    ['acme/tiny', []],
  ]
  for (const [id, files] of bad) {
    await t.throwsAsync(resolveHubFiles(id, files, [], options), { code: 'ERR_INVALID_ARG' }, `${id} ${files}`)
  }
  await t.throwsAsync(resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, revision: '../../x' }), {
    code: 'ERR_INVALID_ARG',
  })
  await t.throwsAsync(resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, endpoint: 'ftp://x' }), {
    code: 'ERR_INVALID_ARG',
  })
  await t.throwsAsync(resolveHubFiles('acme/tiny', ['config.json'], [], { ...options, signal: {} }), {
    code: 'ERR_INVALID_ARG',
  })
})
