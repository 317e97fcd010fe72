import test from 'ava'
import { createRequire } from 'node:module'
import { Bm25Index, RagrankError } from '../../dist/esm/index.js'

const docs = [
  { id: 'cat', text: 'The cat sat on the mat.' },
  { id: 'dog', text: 'A dog chased the cat around the yard.', meta: { kind: 'pet', n: 2 } },
  { id: 'ko', text: '학교에 가는 길에 고양이를 봤다', meta: { lang: 'ko' } },
  { id: 'ja', text: '東京タワーの近くで猫を見た', meta: { lang: 'ja' } },
]

function build(options) {
  const index = new Bm25Index(options)
  index.add(docs)
  return index
}

test('the CommonJS entry is its own build of the same API', (t) => {
  const cjs = createRequire(import.meta.url)('../..')
  t.not(cjs.Bm25Index, Bm25Index) // tshy's dist/commonjs and dist/esm, over the one native addon
  const index = new cjs.Bm25Index()
  index.add([{ id: 'a', text: 'the cat' }])
  t.is(index.search('cat')[0].id, 'a')
})

test('search ranks matching documents and returns fields', (t) => {
  const index = build()
  t.is(index.size, 4)
  const hits = index.search('cat')
  t.deepEqual(
    hits.map((h) => h.id),
    ['cat', 'dog'],
  )
  t.true(hits[0].score > hits[1].score)
  t.is(hits[1].text, docs[1].text)
  t.deepEqual(hits[1].meta, { kind: 'pet', n: 2 })
  t.deepEqual(index.search('cat', { includeFields: false })[1], { id: 'dog', score: hits[1].score })
})

test('Korean and Japanese match without a dictionary', (t) => {
  const index = build()
  t.deepEqual(
    index.search('학교').map((h) => h.id),
    ['ko'],
  )
  t.deepEqual(
    index.search('고양이는').map((h) => h.id),
    ['ko'],
  )
  t.deepEqual(
    index.search('東京').map((h) => h.id),
    ['ja'],
  )
  t.deepEqual(index.analyze('학교에'), ['학교', '교에'])
})

test('ties are ordered by insertion, deterministically', (t) => {
  const index = new Bm25Index()
  index.add(['z', 'a', 'm'].map((id) => ({ id, text: 'same text' })))
  t.deepEqual(
    index.search('text').map((h) => h.id),
    ['z', 'a', 'm'],
  )
  index.add([{ id: 'z', text: 'same text' }], { upsert: true })
  t.deepEqual(
    index.search('text').map((h) => h.id),
    ['a', 'm', 'z'],
  )
})

test('topK: 0, default and above the size', (t) => {
  const index = build()
  t.deepEqual(index.search('the', { topK: 0 }), [])
  t.is(index.search('the', { topK: 1_000_000 }).length, 2)
  const many = new Bm25Index()
  many.add(Array.from({ length: 30 }, (_, i) => ({ id: `d${i}`, text: `word ${i}` })))
  t.is(many.search('word').length, 10)
})

test('filters by id and by metadata inside the scan', (t) => {
  const index = build()
  t.deepEqual(
    index.search('cat', { filter: { ids: ['dog', 'missing'] } }).map((h) => h.id),
    ['dog'],
  )
  t.deepEqual(
    index.search('cat', { filter: { meta: { kind: 'pet' } } }).map((h) => h.id),
    ['dog'],
  )
  t.deepEqual(
    index.search('cat', { filter: { meta: { kind: ['x', 'pet'], n: 2 } } }).map((h) => h.id),
    ['dog'],
  )
  t.deepEqual(index.search('cat', { filter: { meta: { kind: 'other' } } }), [])
})

test('pre-tokenized documents and queries, and a JS tokenizer', (t) => {
  const index = new Bm25Index()
  index.add([
    { id: 'a', tokens: ['Foo', 'bar'] },
    { id: 'b', tokens: ['foo'] },
  ])
  t.deepEqual(
    index.search(['Foo']).map((h) => h.id),
    ['a'],
  )
  // A text query is analysed (lowercased) while pre-tokenized documents are not.
  t.deepEqual(
    index.search('Foo').map((h) => h.id),
    ['b'],
  )
  const custom = new Bm25Index({ tokenizer: (s) => s.split('|') })
  custom.add([
    { id: 'x', text: 'a b|c' },
    { id: 'y', text: 'c|d' },
  ])
  t.deepEqual(
    custom.search('a b').map((h) => h.id),
    ['x'],
  )
  t.deepEqual(custom.analyze('p|q'), ['p', 'q'])
  t.throws(() => new Bm25Index({ tokenizer: () => 'nope' }).add([{ id: 'z', text: 'x' }]), { instanceOf: TypeError })
})

test('the bm25s preset stems and drops stopwords', (t) => {
  const index = new Bm25Index({ analyzer: 'bm25s' })
  t.deepEqual(index.analyze("The runner's flows are running a x"), ['runner', 'flow', 'run'])
})

test('remove keeps statistics exact and ignores unknown ids', (t) => {
  const index = build()
  t.is(index.remove(['dog', 'nope']), 1)
  t.is(index.size, 3)
  t.false(index.has('dog'))
  const fresh = new Bm25Index()
  fresh.add(docs.filter((d) => d.id !== 'dog'))
  t.deepEqual(index.search('cat the mat'), fresh.search('cat the mat'))
})

test('duplicate ids: rejected, index unchanged; upsert replaces', (t) => {
  const index = build()
  const error = t.throws(
    () =>
      index.add([
        { id: 'new', text: 'fresh words' },
        { id: 'cat', text: 'x' },
      ]),
    {
      instanceOf: RagrankError,
    },
  )
  t.is(error.code, 'ERR_DUPLICATE_ID')
  t.is(index.size, 4)
  t.deepEqual(index.search('fresh'), [])
  t.throws(
    () =>
      index.add(
        [
          { id: 'n', text: 'a' },
          { id: 'n', text: 'b' },
        ],
        { upsert: true },
      ),
    { code: 'ERR_DUPLICATE_ID' },
  )
  index.add([{ id: 'cat', text: 'a bird' }], { upsert: true })
  t.is(index.size, 4)
  t.deepEqual(
    index.search('bird').map((h) => h.id),
    ['cat'],
  )
  t.deepEqual(index.search('mat'), [])
})

test('empty, whitespace, unknown and surrogate queries', (t) => {
  const index = build()
  t.deepEqual(index.search(''), [])
  t.deepEqual(index.search('   \n\t'), [])
  t.deepEqual(index.search('zebra'), [])
  t.deepEqual(index.search([]), [])
  t.deepEqual(
    index.search('cat\uD800').map((h) => h.id),
    ['cat', 'dog'],
  )
  t.deepEqual(new Bm25Index().search('cat'), [])
})

test('empty, whitespace-only, lone-surrogate and 10 MB documents', (t) => {
  const index = new Bm25Index()
  const big = 'lorem ipsum dolor '.repeat(600_000) // ~10.8 MB
  index.add([
    { id: 'empty', text: '' },
    { id: 'ws', text: ' \n\t ' },
    { id: 'sur', text: 'a\uDC00b lone' },
    { id: 'big', text: big },
  ])
  t.is(index.size, 4)
  t.deepEqual(
    index.search('lone').map((h) => h.id),
    ['sur'],
  )
  t.deepEqual(
    index.search('b').map((h) => h.id),
    ['sur'],
  )
  t.deepEqual(
    index.search('ipsum').map((h) => h.id),
    ['big'],
  )
  t.is(index.stats().documents, 4)
  t.throws(() => index.add([{ id: 'x\uD800', text: 'a' }]), { instanceOf: RangeError, code: 'ERR_INVALID_ARG' })
})

test('bad arguments throw TypeError or RangeError, never crash', (t) => {
  const index = build()
  for (const opts of [{ k1: NaN }, { k1: -1 }, { b: 2 }, { delta: -0.5 }, { k1: Infinity }]) {
    t.throws(() => new Bm25Index(opts), { code: 'ERR_INVALID_ARG' }, JSON.stringify(opts))
  }
  t.throws(() => new Bm25Index({ k1: '1' }), { instanceOf: TypeError })
  t.throws(() => new Bm25Index({ variant: 'bm26' }), { instanceOf: RangeError })
  t.throws(() => new Bm25Index({ analyzer: { stemmer: 'klingon' } }), {
    instanceOf: RangeError,
    code: 'ERR_INVALID_ARG',
  })
  t.throws(() => new Bm25Index({ analyzer: { cjk: 'trigram' } }), { instanceOf: RangeError })
  t.throws(() => index.search('cat', { topK: -1 }), { instanceOf: RangeError })
  t.throws(() => index.search('cat', { topK: 1.5 }), { instanceOf: TypeError })
  t.throws(() => index.search(42), { instanceOf: TypeError })
  t.throws(() => index.add('nope'), { instanceOf: TypeError })
  t.throws(() => index.add([{ id: '', text: 'x' }]), { instanceOf: TypeError })
  t.throws(() => index.add([{ id: 'x' }]), { instanceOf: TypeError })
  t.throws(() => index.add([{ id: 'x', text: 5 }]), { instanceOf: TypeError })
  t.throws(() => index.add([{ id: 'x', tokens: [1] }]), { instanceOf: TypeError })
  t.throws(() => index.add([{ id: 'x', tokens: ['a\0b'] }]), { instanceOf: RangeError })
  t.throws(() => index.add([{ id: 'x', text: 'y', meta: 'z' }]), { instanceOf: TypeError })
  t.throws(() => index.remove('cat'), { instanceOf: TypeError })
  t.is(index.size, 4)
})

test('bad option values are RangeErrors from Rust that name the option', (t) => {
  const cases = [
    [{ k1: -1 }, /^options\.k1 /],
    [{ k1: NaN }, /^options\.k1 /],
    [{ k1: Infinity }, /^options\.k1 /],
    [{ b: 2 }, /^options\.b /],
    [{ delta: -0.5 }, /^options\.delta /],
    [
      { variant: 'bm26' },
      /^options\.variant must be one of 'lucene', 'robertson', 'atire', 'bm25l', 'bm25l-lvzhai', 'bm25\+', 'bm25plus', got "bm26"/,
    ],
    [{ analyzer: { segmentation: 'words' } }, /^options\.analyzer\.segmentation /],
    [{ analyzer: { cjk: 'trigram' } }, /^options\.analyzer\.cjk /],
    [{ analyzer: { stopwords: 'fr' } }, /^options\.analyzer\.stopwords /],
    [{ analyzer: { stemmer: 'klingon' } }, /^options\.analyzer\.stemmer /],
    [{ analyzer: { minTokenLength: -1 } }, /^options\.analyzer\.minTokenLength /],
    [{ analyzer: { minTokenLength: 5000 } }, /^options\.analyzer\.minTokenLength /],
    [{ analyzer: 'lucene' }, /^options\.analyzer /],
  ]
  for (const [opts, message] of cases) {
    t.throws(
      () => new Bm25Index(opts),
      { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message },
      JSON.stringify(opts),
    )
  }
  for (const opts of [
    { variant: 42 },
    { b: '1' },
    { analyzer: { cjk: 1 } },
    { analyzer: { minTokenLength: 1.5 } },
    { analyzer: { stopwords: [1] } },
  ]) {
    t.throws(() => new Bm25Index(opts), { instanceOf: TypeError, code: 'ERR_INVALID_ARG' }, JSON.stringify(opts))
  }
})

test('defaults are the documented ones', (t) => {
  const explicit = new Bm25Index({
    variant: 'lucene',
    k1: 1.5,
    b: 0.75,
    delta: 0.5,
    storeText: true,
    analyzer: {
      segmentation: 'unicode',
      lowercase: true,
      stopwords: null,
      stemmer: null,
      cjk: 'bigram',
      minTokenLength: 1,
    },
  })
  explicit.add(docs)
  const index = build()
  for (const q of ['the cat', '학교에', '東京', 'dog yard']) t.deepEqual(index.search(q), explicit.search(q), q)
  t.is(index.search('mat')[0].text, docs[0].text, 'storeText defaults to true')
  t.deepEqual(index.analyze('The A 학교에'), ['the', 'a', '학교', '교에'])
  // Regex words default to two characters at least and no CJK bigrams (as bm25s).
  const regex = new Bm25Index({ analyzer: { segmentation: 'regex' } })
  t.deepEqual(regex.analyze('a bb 학교에'), ['bb', '학교에'])
  t.deepEqual(
    regex.analyze('a bb 학교에'),
    new Bm25Index({ analyzer: { segmentation: 'regex', minTokenLength: 2, cjk: 'none' } }).analyze('a bb 학교에'),
  )
  t.deepEqual(new Bm25Index({ analyzer: { stopwords: 'en' } }).analyze('the cat and a dog'), ['cat', 'dog'])
})

test('stats report postings and memory', (t) => {
  const index = build()
  index.search('cat')
  const s = index.stats()
  t.is(s.documents, 4)
  t.true(s.postings > 20)
  // 8 B postings (doc, tf) + 8 B forward (term, tf) per posting, plus a 4 B MaxScore bound
  // per term and 8 B per block of 64 postings of the one segment (its bound and the document of
  // its last posting); no dense rows yet (they come with the precomputed parts of a quiet index, below).
  t.is(s.segments, 1)
  t.is(s.deletedDocs, 0)
  t.is(s.denseTerms, 0)
  t.is(s.bytesPerPosting, 16 + (4 * s.terms + 8 * Math.ceil(s.postings / 64)) / s.postings)
  t.true(s.memoryBytes > 0)
})

test('a quiet index keeps its most frequent terms as dense rows: counted in stats, same hits', async (t) => {
  const index = new Bm25Index({ refreshInterval: 0 })
  // "common" in every document, "half" in 3 of 5, the numbered words in few.
  index.add(
    Array.from({ length: 300 }, (_, i) => ({
      id: `d${i}`,
      text: `common ${i % 5 < 3 ? 'half' : ''} w${i % 7} w${i % 11} ${i % 13 === 0 ? 'common' : ''}`,
    })),
  )
  const queries = ['common', 'half common', 'w3 common', 'w3 w5', 'half half w1']
  const before = queries.map((q) => index.search(q, { topK: 7 }))
  const fresh = index.stats()
  t.is(fresh.denseTerms, 0)
  // The background thread precomputes the parts once the snapshot has stood a second.
  const deadline = Date.now() + 5000
  while (index.stats().denseTerms === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  const quiet = index.stats()
  t.is(quiet.denseTerms, 2)
  t.true(quiet.memoryBytes >= fresh.memoryBytes + 2 * 300 * 4)
  t.is(quiet.bytesPerPosting, fresh.bytesPerPosting)
  t.deepEqual(
    queries.map((q) => index.search(q, { topK: 7 })),
    before,
  )
})

test('U+0000 inside a token fails the whole add, sync or async, naming the document', async (t) => {
  const index = new Bm25Index()
  index.add([{ id: 'a', tokens: ['cat'] }])
  const bad = [
    { id: 'b', tokens: ['dog', ''] },
    { id: 'c', tokens: ['x', 'y\0z'] },
  ]
  t.throws(() => index.add(bad), { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message: /^docs\[1\]: .*U\+0000/ })
  await t.throwsAsync(index.addAsync(bad), { instanceOf: RangeError, code: 'ERR_INVALID_ARG', message: /^docs\[1\]/ })
  t.throws(() => index.add([{ id: 'd', tokens: ['\0'] }]), { instanceOf: RangeError })
  t.is(index.size, 1)
  t.false(index.has('b'))
  // Empty token lists and empty tokens are not U+0000: they still index.
  t.is(
    index.add([
      { id: 'e', tokens: [] },
      { id: 'f', tokens: ['', 'dog', ''] },
    ]),
    2,
  )
  t.is(await index.addAsync([{ id: 'g', tokens: ['dog', 'dog'] }]), 1)
  t.deepEqual(
    index.search(['dog']).map((h) => h.id),
    ['g', 'f'],
  )
})

test('stored texts and ids in any script come back intact from every search path', async (t) => {
  // Non-ASCII strings cross as UTF-16 and ASCII ones as bytes: each hit must get its own text, exactly.
  const stored = [
    { id: '학교#1', text: `학교 고양이 ${'가나다라 '.repeat(200)}`, meta: { n: 1 } },
    { id: 'emoji', text: 'cat 😺 and a 𝒳 outside the BMP, 고양이' },
    { id: 'latin', text: 'café crème, cat' },
    { id: 'ascii', text: 'plain cat text' },
    { id: 'bare', tokens: ['cat', '고양'] },
  ]
  const index = new Bm25Index()
  index.add(stored)
  const want = new Map(stored.map((d) => [d.id, d.text]))
  const check = (hits, label) => {
    t.is(hits.length, stored.length, label)
    for (const h of hits) t.is(h.text, want.get(h.id), `${label}: ${h.id}`)
  }
  const query = ['cat', '고양']
  check(index.search(query, { topK: 10 }), 'search')
  check((await index.searchBatch([query, query], { topK: 10 }))[1], 'searchBatch')
  check(await index.searchAsync(query, { topK: 10 }), 'searchAsync')
  t.deepEqual(index.search(query, { topK: 10 }).find((h) => h.id === '학교#1').meta, { n: 1 })
})

test('a big add crosses in parts: the same index as small adds, and a failure in any part adds nothing', (t) => {
  // 70,000 documents: over the parted-add threshold (65,536), so cut into parts analysed apart.
  const n = 70_000
  const words = ['ash', 'birch', 'cedar', 'deodar', 'elm', 'fir', 'gum', 'hazel', 'ilex', 'juniper', 'kauri']
  const docs = Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    tokens: [words[i % 11], words[(i * 7) % 11], words[(i * 13) % 11], `u${i % 997}`, `v${i % 4999}`],
  }))
  const whole = new Bm25Index()
  t.is(whole.add(docs), n)
  const pieces = new Bm25Index()
  for (let i = 0; i < n; i += 10_000) pieces.add(docs.slice(i, i + 10_000))
  t.is(whole.size, n)
  for (const q of [['ash', 'u5'], ['v4998'], ['kauri', 'v17', 'u996'], ['elm', 'fir', 'gum']]) {
    const a = whole.search(q, { topK: 20 })
    t.true(a.length > 0)
    t.deepEqual(a, pieces.search(q, { topK: 20 }), `query ${q}`)
  }

  const index = new Bm25Index()
  index.add([{ id: 'kept', tokens: ['ash'] }])
  const late = (i, patch) => docs.map((d, k) => (k === i ? { ...d, ...patch } : d))
  // Checked in JS, in a late part: names the document.
  t.throws(() => index.add(late(n - 1, { tokens: ['ok', 7] })), {
    instanceOf: TypeError,
    message: /docs\[69999\]\.tokens/,
  })
  // Checked in Rust, in a late part: still names its place in the call.
  t.throws(() => index.add(late(n - 2, { tokens: ['a\0b'] })), {
    instanceOf: RangeError,
    message: /^docs\[69998\]: .*U\+0000/,
  })
  // The same id in two parts, and an id already in the index.
  t.throws(() => index.add(late(n - 1, { id: 'd0' })), { code: 'ERR_DUPLICATE_ID', message: /"d0" appears twice/ })
  t.throws(() => index.add(late(n - 1, { id: 'kept' })), { code: 'ERR_DUPLICATE_ID', message: /"kept"/ })
  t.is(index.size, 1)
  t.false(index.has('d0'))
  t.deepEqual(
    index.search(['ash']).map((h) => h.id),
    ['kept'],
  )
  // And upsert replaces across parts like a small add.
  t.is(index.add(late(n - 1, { id: 'kept' }), { upsert: true }), n)
  t.is(index.size, n)
})
