import test from 'ava'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { HierarchicalSplitter, NodeTree } from '../../dist/esm/index.js'

const MONARCH = 'The monarch of the wild blue yonder rises from the eastern side of the horizon.'
const TOKENIZER = fileURLToPath(new URL('../../fixtures/models/tiny-cross-encoder/tokenizer.json', import.meta.url))

const split = (text, options, meta) => new HierarchicalSplitter(options).split([{ id: 'd', text, meta }])
const texts = (nodes) => nodes.map((n) => n.text)
const leaves = (nodes) => nodes.filter((n) => n.childrenIds.length === 0)

/** Every node's text is its slice of the document, and non-overlapping children rebuild their parent. */
function assertWellFormed(t, text, nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  for (const n of nodes) {
    t.is(text.slice(n.start, n.end), n.text)
    if (n.childrenIds.length > 0) {
      const kids = n.childrenIds.map((id) => byId.get(id))
      t.true(kids.every((k) => k.parentId === n.id && k.level === n.level + 1))
      t.is(kids[0].start, n.start)
      t.is(kids.at(-1).end, n.end)
    }
  }
}

test('monarch: the documented 9-node tree, ids by path, the root keeps the input id', (t) => {
  const nodes = split(MONARCH, { blockSizes: [10, 3] })
  t.deepEqual(
    nodes.map((n) => [n.id, n.level, n.blockSize, n.parentId]),
    [
      ['d', 0, 0, null],
      ['d#0', 1, 10, 'd'],
      ['d#1', 1, 10, 'd'],
      ['d#0.0', 2, 3, 'd#0'],
      ['d#0.1', 2, 3, 'd#0'],
      ['d#0.2', 2, 3, 'd#0'],
      ['d#0.3', 2, 3, 'd#0'],
      ['d#1.0', 2, 3, 'd#1'],
      ['d#1.1', 2, 3, 'd#1'],
    ],
  )
  t.deepEqual(nodes[0].childrenIds, ['d#0', 'd#1'])
  t.is(nodes[6].text, 'the ')
  t.true(nodes.every((n) => n.sourceId === 'd'))
  assertWellFormed(t, MONARCH, nodes)
})

test('ids are deterministic: the same input gives the same ids, order of blockSizes does not matter', (t) => {
  const a = split(MONARCH, { blockSizes: [10, 3] })
  const b = split(MONARCH, { blockSizes: new Set([3, 10, 3]) })
  t.deepEqual(a, b)
})

test('meta is the input meta; several documents keep input order', (t) => {
  const meta = { file: 'a.txt' }
  const nodes = new HierarchicalSplitter({ blockSizes: [2] }).split([
    { id: 'x', text: 'a b c', meta },
    { id: 'y', text: 'd e f' },
  ])
  t.deepEqual(texts(nodes), ['a b c', 'a b ', 'c', 'd e f', 'd e ', 'f'])
  t.is(nodes[1].meta, meta)
  t.deepEqual(nodes[4].meta, {})
  t.deepEqual(meta, { file: 'a.txt' }, 'the input meta is not changed')
})

test('offsets are UTF-16 code units of the original string (emoji, Hangul, lone surrogates)', (t) => {
  const text = '😀 한국어 \uD800 x 👍🏽 y'
  const nodes = split(text, { blockSizes: [2, 1] })
  assertWellFormed(t, text, nodes)
  t.deepEqual(texts(leaves(nodes)), ['😀 ', '한국어 ', '\uD800 ', 'x ', '👍🏽 ', 'y'])
  t.is(leaves(nodes)[2].text, '\uD800 ', 'the lone surrogate survives')
})

test('bad options: clear TypeError/RangeError', (t) => {
  t.throws(() => new HierarchicalSplitter({ blockSizes: [] }), { instanceOf: RangeError, message: /must not be empty/ })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3, 0] }), { instanceOf: RangeError, message: /at least 1/ })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [2.5] }), { instanceOf: TypeError })
  t.throws(() => new HierarchicalSplitter({ blockSizes: 3 }), { instanceOf: TypeError })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [5, 3], overlap: 3 }), {
    instanceOf: RangeError,
    message: /overlap \(3\) must be smaller than the smallest block size \(3\)/,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3], splitBy: 'function' }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
    message:
      /^options\.splitBy must be one of word, sentence, passage, page, line, period, token, char; got "function"/,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3], splitBy: 7 }), { instanceOf: TypeError })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3, 0] }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
    message: /^options\.blockSizes\[1\] /,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [-4] }), {
    instanceOf: RangeError,
    message: /^options\.blockSizes\[0\] /,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [2 ** 40] }), {
    instanceOf: RangeError,
    message: /^options\.blockSizes\[0\] /,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3], overlap: -1 }), {
    instanceOf: RangeError,
    message: /^options\.overlap /,
  })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3], overlap: 0.5 }), { instanceOf: TypeError })
  t.throws(() => new HierarchicalSplitter({ blockSizes: [3], splitBy: 'token' }), { message: /tokenizer/ })
  const err = t.throws(() => new HierarchicalSplitter({ blockSizes: [3], splitBy: 'token', tokenizer: '/nope.json' }))
  t.is(err.code, 'ERR_MODEL_NOT_FOUND')
})

test('the tokenizer must be a regular file: a FIFO, a device or a folder is ERR_MODEL_LOAD naming what it is', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ragrank-split-tok-'))
  try {
    const fifo = join(dir, 'fifo.json')
    execFileSync('mkfifo', [fifo])
    const zero = join(dir, 'zero.json')
    symlinkSync('/dev/zero', zero)
    for (const [path, what] of [
      [fifo, /a FIFO/],
      [zero, /a character device/],
      [dir, /a directory/],
    ]) {
      const err = t.throws(() => new HierarchicalSplitter({ blockSizes: [3], splitBy: 'token', tokenizer: path }))
      t.is(err.code, 'ERR_MODEL_LOAD', path)
      t.regex(err.message, what)
      t.true(err.message.includes(path))
    }
    // A symlink to a real tokenizer is followed.
    const link = join(dir, 'tokenizer.json')
    symlinkSync(TOKENIZER, link)
    t.true(
      new HierarchicalSplitter({ blockSizes: [3], splitBy: 'token', tokenizer: link }).split([{ id: 'd', text: 'a b' }])
        .length > 0,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('duplicate block sizes collapse, largest first', (t) => {
  const s = new HierarchicalSplitter({ blockSizes: [3, 10, 3, 10] })
  t.deepEqual(s.blockSizes, [10, 3])
})

test('overlap defaults to 0 and splitBy to word', (t) => {
  const s = new HierarchicalSplitter({ blockSizes: new Set([2]) })
  t.is(s.overlap, 0)
  t.is(s.splitBy, 'word')
  t.deepEqual(texts(leaves(s.split([{ id: 'd', text: 'a b c d e' }]))), ['a b ', 'c d ', 'e'])
  const sentences = new HierarchicalSplitter({ blockSizes: [1], overlap: 0, splitBy: 'sentence' })
  t.is(sentences.splitBy, 'sentence')
})

test('bad documents: clear errors', (t) => {
  const s = new HierarchicalSplitter({ blockSizes: [3] })
  t.throws(() => s.split('text'), { instanceOf: TypeError })
  t.throws(() => s.split([{ id: 'a', text: 1 }]), { instanceOf: TypeError })
  t.throws(() => s.split([{ id: '', text: 'x' }]), { instanceOf: TypeError })
  const dup = t.throws(() =>
    s.split([
      { id: 'a', text: 'x' },
      { id: 'a', text: 'y' },
    ]),
  )
  t.is(dup.code, 'ERR_DUPLICATE_ID')
})

test('empty documents, one word, only separators: defined trees', (t) => {
  t.deepEqual(texts(split('', { blockSizes: [3, 1] })), [''])
  t.deepEqual(split('', { blockSizes: [3, 1] })[0].childrenIds, [])
  t.deepEqual(texts(split('word', { blockSizes: [3, 1] })), ['word'], 'one chunk at every size: the root is a leaf')
  // Haystack word units of "    " are four single spaces plus one empty unit.
  const spaces = split('    ', { blockSizes: [2] })
  t.deepEqual(texts(spaces), ['    ', '  ', '  '])
  const newlines = split('\n\n\n\n\n', { blockSizes: [1], splitBy: 'passage' })
  t.deepEqual(texts(newlines), ['\n\n\n\n\n', '\n\n', '\n\n', '\n'])
})

test('\\r\\n line endings: line units keep the \\r; passages need a real blank line "\\n\\n"', (t) => {
  const text = 'one\r\ntwo\r\n\r\nthree'
  t.deepEqual(texts(leaves(split(text, { blockSizes: [1], splitBy: 'line' }))), ['one\r\n', 'two\r\n', '\r\n', 'three'])
  t.deepEqual(texts(split(text, { blockSizes: [1], splitBy: 'passage' })), [text], 'as in Haystack: no "\\n\\n" here')
})

test('sentence mode: UAX #29, abbreviations, CJK and Korean endings, whitespace kept', (t) => {
  const text = 'Dr. Smith went to Washington.  He met Mr. J. Jones! 날씨가 좋다. 비가 온다.今天很好。明天下雨！'
  const nodes = split(text, { blockSizes: [1], splitBy: 'sentence' })
  assertWellFormed(t, text, nodes)
  t.deepEqual(texts(leaves(nodes)), [
    'Dr. Smith went to Washington.  ',
    'He met Mr. J. Jones! ',
    '날씨가 좋다. ',
    '비가 온다.',
    '今天很好。',
    '明天下雨！',
  ])
})

test('char mode counts grapheme clusters', (t) => {
  const nodes = split('ab👍🏽c한', { blockSizes: [2], splitBy: 'char' })
  t.deepEqual(texts(leaves(nodes)), ['ab', '👍🏽c', '한'])
})

test('token mode counts tokens of a tokenizer.json, whitespace attached', (t) => {
  const text = 'Paris is the capital of France. Berlin'
  const nodes = split(text, { blockSizes: [3], splitBy: 'token', tokenizer: TOKENIZER })
  t.deepEqual(texts(leaves(nodes)), ['Paris is the ', 'capital of France', '. Berlin'])
})

test('overlap: neighbours share units; a window that adds no new text is skipped (Haystack 3.x)', (t) => {
  const nodes = split('a b c d e f g', { blockSizes: [4, 2], overlap: 1 })
  t.deepEqual(texts(nodes.filter((n) => n.level === 1)), ['a b c d ', 'd e f g'])
  // 'a b c d ' ends with a separator: its last window would be 'd ' (overlap) plus an empty unit.
  t.deepEqual(texts(nodes.filter((n) => n.parentId === 'd#0')), ['a b ', 'b c ', 'c d '])
  t.deepEqual(texts(split('a b c ', { blockSizes: [2], overlap: 1 }).slice(1)), ['a b ', 'b c '])
  t.deepEqual(texts(split('a b c', { blockSizes: [2], overlap: 1 }).slice(1)), ['a b ', 'b c'])
})

test('splitAsync equals split, and an aborted signal rejects', async (t) => {
  const s = new HierarchicalSplitter({ blockSizes: [10, 3] })
  const docs = [{ id: 'm', text: MONARCH }]
  t.deepEqual(await s.splitAsync(docs), s.split(docs))
  const ac = new AbortController()
  ac.abort()
  await t.throwsAsync(s.splitAsync(docs, { signal: ac.signal }), { code: 'ABORT_ERR' })
})

test('a 50 MB document splits (async) into a consistent tree', async (t) => {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do '
  const text = words.repeat(Math.ceil((50 * 1024 * 1024) / words.length))
  const nodes = await new HierarchicalSplitter({ blockSizes: [512, 32] }).splitAsync([{ id: 'big', text }])
  const total = text.split(' ').length
  t.is(nodes.filter((n) => n.level === 1).length, Math.ceil(total / 512))
  const lastLeaf = nodes.at(-1)
  t.is(lastLeaf.end, text.length)
  t.is(text.slice(lastLeaf.start, lastLeaf.end), lastLeaf.text)
})

test('NodeTree: children, ancestors, leaves, get', async (t) => {
  const nodes = split(MONARCH, { blockSizes: [10, 3] })
  const tree = new NodeTree(nodes)
  t.deepEqual(texts(tree.children('d#1')), ['eastern side of ', 'the horizon.'])
  t.deepEqual(
    tree.ancestors('d#1.1').map((n) => n.id),
    ['d#1', 'd'],
  )
  t.deepEqual(
    tree.leaves('d').map((n) => n.id),
    ['d#0.0', 'd#0.1', 'd#0.2', 'd#0.3', 'd#1.0', 'd#1.1'],
  )
  t.deepEqual(tree.leaves().length, 6)
  t.deepEqual(
    (await tree.get(['d#0', 'nope'])).map((n) => n?.id),
    ['d#0', undefined],
  )
  t.throws(() => tree.children('nope'), { instanceOf: RangeError })
})
