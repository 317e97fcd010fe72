// A/B of two ragrank addons in one process: same corpus, interleaved timing (CPU and wall).
import { createRequire } from 'node:module'
import { generateZipf } from '../../lib/zipf.mjs'
const require = createRequire(import.meta.url)
const n = Number(process.env.N ?? 1_000_000)
const addons = process.argv.slice(2).map((f) => [f.split('/').pop(), require(f)])
const z = generateZipf({ nDocs: n })
const docs = []
for (let i = 0; i < z.nDocs; i++) docs.push({ id: z.docId(i), tokens: z.docTokens(i).join('\0') })
const queries = z.queries.map((q) => z.queryTokens(q).join('\0'))
const cfg = JSON.stringify({ storeText: false })
const idx = addons.map(([name, m]) => { const x = new m.NativeBm25Index(cfg); x.add(docs, false); return [name, x] })
await new Promise((r) => setTimeout(r, 4000))
const out = new Float64Array(1 + 2 * 10)
const res = Object.fromEntries(idx.map(([n]) => [n, { cpu: [], wall: [] }]))
for (let round = 0; round < 5; round++) {
  for (const [name, x] of idx) {
    const c0 = process.cpuUsage(), t0 = performance.now()
    for (const q of queries) x.search(q, true, 10, null, out)
    const wall = (performance.now() - t0) / 1e3, c = process.cpuUsage(c0), cpu = (c.user + c.system) / 1e6
    res[name].cpu.push(Math.round(queries.length / cpu)); res[name].wall.push(Math.round(queries.length / wall))
  }
}
for (const [name, r] of Object.entries(res)) console.log(name, 'q/s by CPU', r.cpu.join(' '), '| by wall', r.wall.join(' '))
