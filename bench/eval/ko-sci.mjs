// The Korean science-QA corpus (ko/upstage_sci: 4,272 passages, 220 chat conversations as queries) for
// docs/HYBRID.md. It has no relevance judgements, so nothing here is a quality figure: it measures how far BM25,
// dense and hybrid retrieval agree, how the top-1 score of chit-chat differs from that of real questions, and what
// the earlier turns of a conversation change.
import fs from 'node:fs'
import path from 'node:path'
import { Bm25Index, VectorIndex, fuse } from '../../dist/esm/index.js'
import { dataRoot, loadKoSci } from '../lib/datasets.mjs'
import { describeModel, documentVectors, queryVectors } from './dense.mjs'

const K = 10
// Passages embedded: multilingual-e5 over all 4,272 takes most of an hour on a loaded 2-core machine, so by default
// the first 1,000 of documents.jsonl (file order) form the corpus of every retriever here; `--ko-sci-docs=all` (or a
// number) chooses.
const DOCS_ARG = process.argv.find((a) => a.startsWith('--ko-sci-docs='))?.slice(14) ?? '1000'
// Chit-chat conversations (greetings, feelings, questions about the assistant), labelled by hand by reading all 220
// conversations: no science question, nothing to retrieve.
export const CHIT_CHAT = new Set([
  2, 32, 57, 64, 67, 83, 90, 94, 103, 218, 220, 222, 227, 229, 245, 247, 261, 276, 283, 301,
])

/** Every conversation: `last` = its last user turn, `context` = all its turns joined (user and assistant). */
function conversations() {
  return fs
    .readFileSync(path.join(dataRoot(), 'ko/upstage_sci/eval.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const e = JSON.parse(l)
      const last = [...e.msg].reverse().find((m) => m.role === 'user')
      return {
        id: e.eval_id,
        turns: e.msg.length,
        last: last.content,
        context: e.msg.map((m) => m.content).join('\n'),
        chitChat: CHIT_CHAT.has(e.eval_id),
      }
    })
}

const ids = (hits) => hits.slice(0, K).map((h) => h.id)
const overlap = (a, b) => {
  const s = new Set(ids(a))
  return ids(b).filter((x) => s.has(x)).length / K
}
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]
}
/** P(a random real question's top-1 score > a random chit-chat one's), ties half: how well the score separates them. */
function auc(pos, neg) {
  let w = 0
  for (const p of pos) for (const n of neg) w += p > n ? 1 : p === n ? 0.5 : 0
  return w / (pos.length * neg.length)
}
const snippet = (s, n = 48) => ((t) => (t.length > n ? `${t.slice(0, n - 1)}…` : t))(s.replace(/\s+/g, ' '))
const cell = (s) => s.replace(/\|/g, '\\|')

/** Top-K of BM25, dense and RRF for the `last` and the `context` text of every conversation. */
async function runs(docs, convs, model) {
  const bm25 = new Bm25Index() // default analyzer: Hangul runs as character bigrams
  bm25.add(docs)
  let dense
  if (model) {
    dense = new VectorIndex({ dim: model.embedder.dim, metric: 'cosine' })
    dense.add(
      docs.map((d) => d.id),
      await documentVectors(
        model,
        'ko-sci',
        docs.map((d) => d.text),
      ),
    )
  }
  const out = {}
  for (const variant of ['last', 'context']) {
    const texts = convs.map((c) => c[variant])
    const sparse = await bm25.searchBatch(texts, { topK: 100, includeFields: false })
    const r = { BM25: sparse }
    if (dense) {
      const qv = await queryVectors(model, `ko-sci-${variant}`, texts)
      r.dense = await dense.searchBatch(qv, { topK: 100 })
      r.RRF = sparse.map((s, i) => fuse([s, r.dense[i]], { method: 'rrf' }))
    }
    out[variant] = r
  }
  return out
}

export async function koSciSection(loaded) {
  const all = loadKoSci().docs
  const docs = DOCS_ARG === 'all' ? all : all.slice(0, Number(DOCS_ARG))
  const text = new Map(docs.map((d) => [d.id, d.text]))
  const convs = conversations()
  const model = loaded.find((m) => m.key === 'e5')
  const r = await runs(docs, convs, model)
  const names = Object.keys(r.last)
  const where = (pred) => convs.flatMap((c, i) => (pred(c) ? [i] : []))
  const real = where((c) => !c.chitChat)
  const chat = where((c) => c.chitChat)
  const multi = where((c) => c.turns > 1)
  const f2 = (x) => x.toFixed(2)
  const f3 = (x) => x.toFixed(3)

  const md = [
    `## Korean science QA (\`ko/upstage_sci\`: ${docs.length.toLocaleString('en-US')} of its ${all.length.toLocaleString('en-US')} passages, ${convs.length} conversations)`,
    '',
    '**No relevance judgements are published for this corpus, so nothing below is a quality figure.** What can be measured without them: how far the retrievers agree, whether the top-1 score tells the chit-chat conversations from the questions, and what the earlier turns of a conversation change.',
    '',
    `- Queries: each conversation of \`eval.jsonl\`; *last turn* = its last user message, *with earlier turns* = every message of the conversation (user and assistant) joined by newlines. ${multi.length} conversations have earlier turns. ${chat.length} are chit-chat (greetings, feelings, questions about the assistant: ids ${[...CHIT_CHAT].sort((a, b) => a - b).join(', ')}), labelled by hand by reading the 220 conversations (\`bench/eval/ko-sci.mjs\`); the other ${real.length} are questions.`,
    `- Corpus: ${docs.length === all.length ? 'all passages' : `the first ${docs.length.toLocaleString('en-US')} passages of \`documents.jsonl\` (file order), for every retriever: embedding all ${all.length.toLocaleString('en-US')} with multilingual-e5 takes most of an hour on this loaded 2-core machine (\`--ko-sci-docs=all\` uses all)`}.`,
    `- BM25: default analyzer (Hangul as character bigrams). ${model ? `Dense: ${describeModel('e5').text()}; documents through \`embedDocuments\`, queries through \`embedQuery\`. RRF (k = 60) over the two top-100 lists.` : 'Dense and hybrid: multilingual-e5-small is not set up on this machine (`npm run setup:models`), so BM25 only.'}`,
    '',
    `Agreement on the ${real.length} questions (last turn): mean share of the top ${K} that two retrievers have in common, and how often their top-1 is the same passage.`,
    '',
    `| retrievers | overlap@${K} (last turn) | same top-1 (last turn) | overlap@${K} (with earlier turns) | same top-1 (with earlier turns) |`,
    '|---|---:|---:|---:|---:|',
  ]
  for (let a = 0; a < names.length; a++)
    for (let b = a + 1; b < names.length; b++) {
      const [x, y] = [names[a], names[b]]
      const cols = ['last', 'context'].flatMap((v) => [
        f2(mean(real.map((i) => overlap(r[v][x][i], r[v][y][i])))),
        `${Math.round((100 * real.filter((i) => r[v][x][i][0]?.id === r[v][y][i][0]?.id).length) / real.length)}%`,
      ])
      md.push(`| ${x} vs ${y} | ${cols.join(' | ')} |`)
    }
  if (names.length < 2) md.push('| (one retriever only) | - | - | - | - |')
  md.push('')
  md.push(
    `Top-1 score of the ${real.length} questions against the ${chat.length} chit-chat conversations (last turn): median (10th-90th percentile); AUC = how often a random question scores above a random chit-chat conversation (1 = the score separates them perfectly, 0.5 = not at all); flagged = chit-chat conversations below the 5th percentile of the questions (a threshold that would drop 5% of the questions).`,
  )
  md.push('')
  md.push('| retriever | questions: top-1 score | chit-chat: top-1 score | AUC | chit-chat flagged at 5% |')
  md.push('|---|---:|---:|---:|---:|')
  for (const x of names.filter((n) => n !== 'RRF')) {
    const top = (i) => r.last[x][i][0]?.score ?? 0
    const q = real.map(top)
    const c = chat.map(top)
    const dist = (xs) => `${f3(quantile(xs, 0.5))} (${f3(quantile(xs, 0.1))}-${f3(quantile(xs, 0.9))})`
    const cut = quantile(q, 0.05)
    md.push(`| ${x} | ${dist(q)} | ${dist(c)} | ${f3(auc(q, c))} | ${c.filter((s) => s < cut).length} of ${c.length} |`)
  }
  md.push('(RRF scores are rank-based, 1/(60 + rank) summed, and say nothing about a match, so they are left out.)')
  md.push('')
  md.push(
    `What the earlier turns change, on the ${multi.length} conversations that have them: overlap@${K} between the last-turn and the with-earlier-turns results of the same retriever, and how many top-1 passages change.`,
  )
  md.push('')
  md.push(`| retriever | overlap@${K}, last turn vs with earlier turns | top-1 changed |`)
  md.push('|---|---:|---:|')
  for (const x of names)
    md.push(
      `| ${x} | ${f2(mean(multi.map((i) => overlap(r.last[x][i], r.context[x][i]))))} | ${multi.filter((i) => r.last[x][i][0]?.id !== r.context[x][i][0]?.id).length} of ${multi.length} |`,
    )
  md.push('')
  const top1 = (v, x, i) => {
    const h = r[v][x][i][0]
    return h ? cell(snippet(text.get(h.id))) : '-'
  }
  const examples = [
    ...real.filter((i) => convs[i].turns === 1).slice(0, 3),
    ...multi.filter((i) => !convs[i].chitChat).slice(0, 2),
    chat[0],
  ]
  md.push('Examples (top-1 passage of each retriever, first 48 characters):')
  md.push('')
  md.push(`| conversation | query | ${names.join(' | ')} |`)
  md.push(`|---|---|${names.map(() => '---').join('|')}|`)
  for (const i of examples) {
    const c = convs[i]
    const kind = c.chitChat ? 'chit-chat' : c.turns > 1 ? `${c.turns} turns, last turn` : 'question'
    md.push(
      `| ${c.id} (${kind}) | ${cell(snippet(c.last, 60))} | ${names.map((x) => top1('last', x, i)).join(' | ')} |`,
    )
    if (c.turns > 1)
      md.push(
        `| ${c.id} (with earlier turns) | ${cell(snippet(c.context, 60))} | ${names.map((x) => top1('context', x, i)).join(' | ')} |`,
      )
  }
  return md
}
