// Parity with Haystack 3.4.1 HierarchicalDocumentSplitter on fixtures made by
// scripts/fixtures/make_haystack_splits.py (contents, levels, block sizes, parent/child structure).
import test from 'ava'
import { readFileSync } from 'node:fs'

import { HierarchicalSplitter } from '../../dist/esm/index.js'

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/haystack-splits.json', import.meta.url), 'utf8'))

test('the fixture covers every Haystack character mode and the monarch example', (t) => {
  const modes = new Set(fixture.cases.map((c) => c.splitBy))
  t.deepEqual([...modes].sort(), ['line', 'page', 'passage', 'period', 'word'])
  const monarch = fixture.cases.find((c) => c.name === 'monarch/word/10-3/o0')
  t.is(monarch.nodes.length, 9)
  t.is(monarch.nodes[6].text, 'the ')
})

for (const c of fixture.cases) {
  test(`same tree as Haystack: ${c.name}`, (t) => {
    const splitter = new HierarchicalSplitter({ blockSizes: c.blockSizes, overlap: c.overlap, splitBy: c.splitBy })
    const nodes = splitter.split([{ id: 'doc', text: c.text }])
    const index = new Map(nodes.map((n, i) => [n.id, i]))
    const got = nodes.map((n) => ({
      text: n.text,
      level: n.level,
      blockSize: n.blockSize,
      parent: n.parentId === null ? null : index.get(n.parentId),
      children: n.childrenIds.map((id) => index.get(id)),
    }))
    t.deepEqual(got, c.nodes)
    for (const n of nodes) t.is(c.text.slice(n.start, n.end), n.text)
  })
}
