// A fake Hugging Face hub on 127.0.0.1 for the hub download tests: serves
// /{org}/{name}/resolve/{revision}/{path} (GET and HEAD) with the hub's headers
// (x-repo-commit, etag, x-linked-etag / x-linked-size with a 302 to a CDN for LFS files,
// x-error-code on errors), and a CDN on a second port (another origin).
import http from 'node:http'
import { createHash } from 'node:crypto'

export const sha256 = (buf) => createHash('sha256').update(buf).digest('hex')
/** Git's blob id, the hub's etag of a regular (non-LFS) file. */
export const gitBlobId = (buf) => createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex')
export const fakeCommit = (seed) => createHash('sha1').update(String(seed)).digest('hex')

/**
 * A repo: {
 *   refs: { main: commit, ... },            branches and tags
 *   commits: { [commit]: { [path]: string | Buffer } },
 *   lfs: [paths]                            served by a 302 to the CDN (x-linked-etag = sha256)
 *   sameOriginCdn: bool                     the LFS redirect goes to /cdn/... on the hub's own origin
 *   private: bool | gated: bool             needs `Authorization: Bearer <token>` (401 RepoNotFound / 401 GatedRepo)
 *   movedTo: 'org/name'                     every request answers 307 to the new id (a renamed repo)
 *   status: number                          every request answers this status (e.g. 503)
 *   noCommitHeader: bool                    responses lack x-repo-commit (not a hub)
 *   noEtag: bool                            regular files are served without an etag
 *   slow: [paths]                           GET sends 1 KiB then stalls until the client goes away
 *   corrupt: [paths]                        GET sends bytes that do not match the etag
 * }
 */
export async function startHub({ token = 'hf_test_token' } = {}) {
  const repos = new Map()
  const requests = []
  const cdnRequests = []
  const open = new Set()
  const slowStarted = []
  let slowWaiters = []

  const blobBySha = () => {
    const m = new Map()
    for (const repo of repos.values()) {
      for (const files of Object.values(repo.commits ?? {})) {
        for (const [path, content] of Object.entries(files)) {
          const buf = Buffer.from(content)
          m.set(sha256(buf), { buf, slow: repo.slow?.includes(path), corrupt: repo.corrupt?.includes(path) })
        }
      }
    }
    return m
  }

  const send = (req, res, status, headers, buf = Buffer.alloc(0), { slow = false, corrupt = false } = {}) => {
    const body = corrupt ? Buffer.from(buf.map((b, i) => (i === 0 ? b ^ 0xff : b))) : buf
    res.writeHead(status, { 'content-length': String(body.length), ...headers })
    if (req.method === 'HEAD') return res.end()
    if (slow) {
      open.add(res)
      res.write(body.subarray(0, 1024))
      slowStarted.push(req.url)
      for (const w of slowWaiters) w(req.url)
      slowWaiters = []
      res.on('close', () => open.delete(res))
      return
    }
    res.end(body)
  }

  const serveCdn = (req, res, log) => {
    const m = /^\/cdn\/([0-9a-f]{64})$/.exec(req.url)
    log.push({ method: req.method, url: req.url, auth: req.headers.authorization })
    const blob = m && blobBySha().get(m[1])
    if (!blob) return send(req, res, 404, {})
    send(req, res, 200, { etag: `"cdn-${m[1].slice(0, 8)}"` }, blob.buf, blob)
  }

  let cdnOrigin = ''
  const hub = http.createServer((req, res) => {
    if (req.url.startsWith('/cdn/')) return serveCdn(req, res, requests)
    requests.push({ method: req.method, url: req.url, auth: req.headers.authorization })
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(req.url.split('?')[0])
    if (!m) return send(req, res, 404, {})
    const [, org, name, revRaw, pathRaw] = m
    const repo = repos.get(`${org}/${name}`)
    const authorized = req.headers.authorization === `Bearer ${token}`
    if (!repo || (repo.private && !authorized)) {
      return send(req, res, 401, { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Repository not found' })
    }
    if (repo.gated && !authorized) {
      return send(req, res, 401, { 'x-error-code': 'GatedRepo', 'x-error-message': 'Access to this model is restricted.' })
    }
    if (repo.movedTo) return send(req, res, 307, { location: `/${repo.movedTo}/resolve/${revRaw}/${pathRaw}` })
    if (repo.status) return send(req, res, repo.status, {})
    const rev = decodeURIComponent(revRaw)
    const commit = repo.refs?.[rev] ?? (repo.commits?.[rev] ? rev : undefined)
    if (!commit) return send(req, res, 404, { 'x-error-code': 'RevisionNotFound', 'x-error-message': 'Invalid rev id' })
    const path = pathRaw.split('/').map(decodeURIComponent).join('/')
    const commitHeader = repo.noCommitHeader ? {} : { 'x-repo-commit': commit }
    const content = repo.commits[commit][path]
    if (content === undefined) {
      return send(req, res, 404, { ...commitHeader, 'x-error-code': 'EntryNotFound', 'x-error-message': 'Entry not found' })
    }
    const buf = Buffer.from(content)
    if (repo.lfs?.includes(path)) {
      const sha = sha256(buf)
      return send(req, res, 302, {
        ...commitHeader,
        location: `${repo.sameOriginCdn ? '' : cdnOrigin}/cdn/${sha}`,
        'x-linked-etag': `"${sha}"`,
        'x-linked-size': String(buf.length),
        etag: '"not-the-file-etag"',
      })
    }
    send(req, res, 200, { ...commitHeader, ...(repo.noEtag ? {} : { etag: `W/"${gitBlobId(buf)}"` }) }, buf, {
      slow: repo.slow?.includes(path),
      corrupt: repo.corrupt?.includes(path),
    })
  })
  const cdn = http.createServer((req, res) => serveCdn(req, res, cdnRequests))

  const listen = (server) => new Promise((done) => server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${server.address().port}`)))
  const url = await listen(hub)
  cdnOrigin = await listen(cdn)

  const count = (log, method) => log.filter((r) => !method || r.method === method).length
  return {
    url,
    cdnUrl: cdnOrigin,
    token,
    repos,
    requests,
    cdnRequests,
    /** Requests to the hub (and the CDN), optionally only of one method. */
    count: (method) => count(requests, method) + count(cdnRequests, method),
    reset: () => {
      requests.length = 0
      cdnRequests.length = 0
    },
    /** Resolves when a slow response has started sending. */
    slowStart: () => (slowStarted.length ? Promise.resolve(slowStarted.at(-1)) : new Promise((r) => slowWaiters.push(r))),
    close: async () => {
      for (const res of open) res.destroy()
      for (const server of [hub, cdn]) {
        server.closeAllConnections()
        await new Promise((done) => server.close(done))
      }
    },
  }
}
