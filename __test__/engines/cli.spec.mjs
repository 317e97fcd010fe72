import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import test from 'ava'
import { deleteElasticsearchIndex, ElasticsearchRetriever } from '../../dist/esm/engines/elasticsearch.js'
import { ES_URL, engineReachable, esClient, probeEs, uniqueName } from './env.mjs'

const cli = (args) =>
  promisify(execFile)('node', ['bin/ragrank.mjs', ...args], { cwd: new URL('../..', import.meta.url) }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  )

if (await engineReachable(test, 'Elasticsearch', probeEs)) {
  const client = esClient()
  const index = uniqueName('ragrank_cli')
  test.after.always(() => deleteElasticsearchIndex({ client, index }))

  test('ragrank ingest: indexes a JSONL file into Elasticsearch, lists refused documents and exits 1 for them', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ragrank-ingest-'))
    const file = join(dir, 'docs.jsonl')
    const lines = [
      { id: 'k1', text: '대한민국의 수도는 서울이다', meta: { year: 2020 } },
      { id: 'k2', text: '부산은 항구 도시이다', meta: { year: 2021 } },
      { id: 'k3', text: '잘못된 문서', meta: { note: 'x'.repeat(40_000) } },
    ]
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    const r = await cli([
      'ingest',
      file,
      '--engine',
      'elasticsearch',
      '--url',
      ES_URL,
      '--index',
      index,
      '--analysis',
      'unicode',
    ])
    t.is(r.code, 1, r.stderr)
    t.regex(r.stdout, /2 indexed from 3 documents/)
    t.regex(r.stderr, /refused k3: 400/)
    // The Korean documents are searchable through ragrank's tokens.
    const hits = await new ElasticsearchRetriever({ client, index, analysis: {} }).retrieve('서울', { topK: 1 })
    t.is(hits[0].id, 'k1')
    const usage = await cli(['ingest', file, '--engine', 'solr', '--url', ES_URL, '--index', index])
    t.is(usage.code, 2)
  })
}
