// Seed scenario 3: the Korean science-QA competition pipeline. Multi-turn chat queries are
// rewritten into standalone queries (chit-chat gets no retrieval), expanded into variants,
// and run through a hybrid of two BM25 views (words, and Hangul character bigrams, which
// cope with particles: 학교에 / 학교는) fused with RRF, top 3 per query.
//
//   node examples/03-korean-conversational-hybrid.mjs
//   OPENAI_API_KEY=sk-... RAGRANK_KO_LIMIT=40 node examples/03-korean-conversational-hybrid.mjs
//   RAGRANK_KO_QRELS=qrels.json ...   # { "<eval_id>": ["<docid>", ...] } to get MAP@3 and MRR
//
// The corpus ships without judgements, so MAP@3 and MRR are printed only with your own qrels
// (competition rule: a chit-chat query with nothing retrieved counts as a hit).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bm25Index, HybridRetriever, MultiQueryRetriever, QueryRewriter, evaluate } from 'ragrank'
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
const hybrid = new HybridRetriever({ retrievers: [byWord, byBigram] })
const multi = new MultiQueryRetriever({ retriever: hybrid })

// Offline stand-in for the model (not a model): small talk is spotted by a few phrases; the
// standalone query is the user turns joined, which carries the context of earlier turns.
const SMALL_TALK = /^(안녕|고마워|감사|반가워|잘 ?지내|너는? (누구|뭐)|힘들|기분|심심|좋아|싫어|ㅋ|ㅎ|응|아니)/
function standIn(body) {
  const transcript = body.messages.at(-1).content.replace(/^Conversation:\n/, '')
  const users = transcript
    .split('\n')
    .filter((l) => l.startsWith('user: '))
    .map((l) => l.slice(6))
  const last = users.at(-1) ?? ''
  const chitChat = SMALL_TALK.test(last.trim()) || /(요즘|너무) (힘들|우울|신나)/.test(last)
  return JSON.stringify({
    needs_retrieval: !chitChat,
    standalone_query: chitChat ? '' : users.join(' '),
    language: 'ko',
    variants: [],
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
  `\n${conversations.length} conversations in ${((Date.now() - started) / 1000).toFixed(1)} s; ${chitChat.length} judged small talk (no retrieval): ${chitChat.slice(0, 12).join(', ')}${chitChat.length > 12 ? ', …' : ''}`,
)
if (llm.scripted) console.log('(small talk spotted by the stand-in heuristic; with OPENAI_API_KEY the model decides)')

if (process.env.RAGRANK_KO_QRELS) {
  const given = JSON.parse(readFileSync(process.env.RAGRANK_KO_QRELS, 'utf8'))
  const qrels = {}
  const judged = {}
  let smallTalkHits = 0
  let smallTalkJudged = 0
  for (const [id, rel] of Object.entries(given)) {
    if (!(id in run)) continue
    const ids = Array.isArray(rel) ? rel : Object.keys(rel)
    if (ids.length === 0) {
      smallTalkJudged++ // no relevant document: right only if nothing was retrieved
      if (run[id].length === 0) smallTalkHits++
      continue
    }
    qrels[id] = Object.fromEntries(ids.map((d) => [d, 1]))
    judged[id] = run[id]
  }
  const n = Object.keys(qrels).length
  const { mean } = evaluate(judged, qrels, ['map@3', 'mrr@3'])
  const total = n + smallTalkJudged
  const map3 = (mean['map@3'] * n + smallTalkHits) / total
  const mrr = (mean['mrr@3'] * n + smallTalkHits) / total
  console.log(
    `MAP@3 ${map3.toFixed(4)}  MRR@3 ${mrr.toFixed(4)} over ${total} judged conversations (${smallTalkJudged} small talk)`,
  )
} else {
  console.log(
    'MAP@3 / MRR: the corpus has no published judgements; set RAGRANK_KO_QRELS to a { eval_id: [docid] } file to compute them',
  )
}
