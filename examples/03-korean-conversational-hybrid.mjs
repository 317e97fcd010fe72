// Seed scenario 3: the Korean science-QA competition pipeline. Multi-turn chat queries are
// rewritten into standalone queries (chit-chat gets no retrieval) and expanded into variants;
// each variant takes the top 10 of a sparse hybrid (two BM25 views, words and Hangul character
// bigrams, which cope with particles: 학교에 / 학교는), rescored 0.4 * sparse + 0.6 * dense on those
// candidates only (RescoringRetriever); the variants are merged by best score, top 3 per query.
// Offline every step runs: the scripted chat server answers with rewrites and variants, and the
// dense side is a hashed character-trigram embedding (a stand-in, not a model).
//
//   node examples/03-korean-conversational-hybrid.mjs
//   OPENAI_API_KEY=sk-... RAGRANK_KO_LIMIT=40 node examples/03-korean-conversational-hybrid.mjs
//   RAGRANK_KO_QRELS=qrels.json ...   # { "<eval_id>": ["<docid>", ...] } to get MAP@3 and MRR
//
// The corpus ships without judgements, so MAP@3 and MRR are printed only with your own qrels,
// under both conventions: trec_eval's and the competition's (a chit-chat query with nothing
// retrieved counts as a hit, and MAP divides by the hits found).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  Bm25Index,
  HybridRetriever,
  MultiQueryRetriever,
  QueryRewriter,
  RescoringRetriever,
  VectorIndex,
  VectorRetriever,
  evaluate,
} from 'ragrank'
import { DATA, chatGenerator, needPath } from './_shared.mjs'

const dir = needPath(join(DATA, 'ko', 'upstage_sci'), 'the Korean competition corpus (ko/upstage_sci)')
const jsonl = (f) =>
  readFileSync(join(dir, f), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const documents = jsonl('documents.jsonl')
let conversations = jsonl('eval.jsonl')
if (process.env.RAGRANK_KO_LIMIT) conversations = conversations.slice(0, Number(process.env.RAGRANK_KO_LIMIT))

/** Words, plus the character bigrams of every word that contains Hangul. */
function bigramTokens(text) {
  const out = []
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    out.push(w)
    if (/\p{Script=Hangul}/u.test(w)) for (let i = 0; i + 1 < w.length; i++) out.push(w.slice(i, i + 2))
  }
  return out
}
const byWord = new Bm25Index()
const byBigram = new Bm25Index({ tokenizer: bigramTokens })
for (const index of [byWord, byBigram])
  index.add(documents.map((d) => ({ id: d.docid, text: d.content, meta: { src: d.src } })))
const sparse = new HybridRetriever({ retrievers: [byWord, byBigram] })

// The dense side. A stand-in (not a model): character trigrams hashed into 256 dimensions, so
// the example runs offline; put an `Embedder` (a real sentence-embedding model) in its place.
const DIM = 256
function trigramVector(text) {
  const v = new Float32Array(DIM)
  const s = ` ${text.toLowerCase().replace(/\s+/g, ' ')} `
  for (let i = 0; i + 3 <= s.length; i++) {
    let h = 2166136261
    for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 16777619)
    v[(h >>> 0) % DIM] += 1
  }
  return v
}
const vectors = new VectorIndex({ dim: DIM })
vectors.add(documents.map((d) => ({ id: d.docid, vector: trigramVector(d.content) })))
const dense = new VectorRetriever({ index: vectors, embed: async (text) => trigramVector(text) })

// The competition's composition: BM25's top 10, rescored on those ids only, 0.4 sparse + 0.6 dense;
// the rewrites' lists merged by best score.
const rescored = new RescoringRetriever({
  candidates: { retriever: sparse, topK: 10, weight: 0.4 },
  rescorers: [{ retriever: dense, weight: 0.6 }],
})
const multi = new MultiQueryRetriever({ retriever: rescored, merge: 'max' })

// Offline stand-in for the model (not a model): small talk is spotted by a few phrases; the
// standalone query is the last user turn, with the earlier turns' words appended when the last
// turn leans on them (it is short); the variants drop the short words, and add the earlier turns.
const PARTICLE = /(은|는|이|가|을|를|에|의|에서|으로|로|와|과|도|란|이란)$/
const ASKING = /^(뭐|뭐야|무엇|무엇인가요|무엇인지|어떻게|왜|알려줘|알려줄래|설명해줘|설명해|궁금해|대해|대해서)$/
const SMALL_TALK = /^(안녕|고마워|감사|반가워|잘 ?지내|너는? (누구|뭐)|힘들|기분|심심|좋아|싫어|ㅋ|ㅎ|응|아니)/
function standIn(body) {
  const transcript = body.messages.at(-1).content.replace(/^Conversation:\n/, '')
  const users = transcript
    .split('\n')
    .filter((l) => l.startsWith('user: '))
    .map((l) => l.slice(6).trim())
  const last = users.at(-1) ?? ''
  const earlier = users.slice(0, -1).join(' ')
  const chitChat = SMALL_TALK.test(last) || /(요즘|너무) (힘들|우울|신나)/.test(last)
  const leansOnEarlier = earlier !== '' && last.split(/\s+/).length <= 4
  const standalone = leansOnEarlier ? `${earlier} ${last}` : last
  // Variant 1: the content words (particles and the asking words dropped); 2: the earlier turns too.
  const keywords = standalone
    .replace(/[?？!.]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !ASKING.test(w))
    .map((w) => (w.length > 2 ? w.replace(PARTICLE, '') : w))
    .join(' ')
  const variants = chitChat ? [] : [keywords, ...(earlier && !leansOnEarlier ? [`${last} ${earlier}`] : [])]
  return JSON.stringify({
    needs_retrieval: !chitChat,
    standalone_query: chitChat ? '' : standalone,
    language: 'ko',
    variants,
  })
}

const llm = await chatGenerator(standIn)
const rewriter = new QueryRewriter({
  chatGenerator: llm.generator,
  variants: 2,
  strategies: ['synonyms', 'cause-effect'],
})
const run = {}
const chitChat = []
let withVariants = 0
const started = Date.now()
try {
  let next = 0
  const worker = async () => {
    while (next < conversations.length) {
      const i = next++
      const { eval_id: id, msg } = conversations[i]
      const r = await rewriter.rewrite(msg)
      if (!r.needsRetrieval) {
        chitChat.push(id)
        run[id] = []
        continue
      }
      run[id] = await multi.retrieve(r.query, { topK: 3, queries: r.variants.map((v) => v.query) })
      if (r.variants.length > 0) withVariants++
      if (i < 3)
        console.log(
          `\n#${id} ${msg.at(-1).content}\n  → ${r.query}${r.variants.length ? ` | ${r.variants.map((v) => v.query).join(' | ')}` : ''}\n  ${run[id].map((d) => documents.find((x) => x.docid === d.id).content.slice(0, 60)).join('\n  ')}`,
        )
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker))
} finally {
  await llm.close()
}
console.log(
  `\n${conversations.length} conversations in ${((Date.now() - started) / 1000).toFixed(1)} s; ${withVariants} retrieved with rewrites (multi-query, merged by best score); ${chitChat.length} judged small talk (no retrieval): ${chitChat.slice(0, 12).join(', ')}${chitChat.length > 12 ? ', …' : ''}`,
)
if (llm.scripted) console.log('(small talk spotted by the stand-in heuristic; with OPENAI_API_KEY the model decides)')

if (process.env.RAGRANK_KO_QRELS) {
  const given = JSON.parse(readFileSync(process.env.RAGRANK_KO_QRELS, 'utf8'))
  // { eval_id: [docid] } or { eval_id: { docid: grade } }; an empty list marks small talk (nothing to find).
  const qrels = {}
  for (const [id, rel] of Object.entries(given)) {
    if (!(id in run)) continue
    const ids = Array.isArray(rel) ? rel : Object.keys(rel).filter((d) => rel[d] > 0)
    qrels[id] = Object.fromEntries(ids.map((d) => [d, 1]))
  }
  const judged = Object.keys(qrels).length
  const smallTalk = Object.values(qrels).filter((r) => Object.keys(r).length === 0).length
  for (const convention of ['trec_eval', 'competition']) {
    const { mean, perQuery } = evaluate(run, qrels, ['map@3', 'mrr@3'], { convention })
    console.log(
      `${convention.padEnd(11)}  MAP@3 ${mean['map@3'].toFixed(4)}  MRR@3 ${mean['mrr@3'].toFixed(4)} over ${Object.keys(perQuery).length} of ${judged} judged conversations${convention === 'trec_eval' ? ` (the ${smallTalk} small-talk ones left out)` : ' (small talk: 1 when nothing was retrieved)'}`,
    )
  }
} else {
  console.log(
    'MAP@3 / MRR: the corpus has no published judgements; set RAGRANK_KO_QRELS to a { eval_id: [docid] } file to compute them',
  )
}
