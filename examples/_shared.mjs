// Helpers shared by the examples: where the data lives, skipping when it is absent, and a
// chat generator that is OpenAI when OPENAI_API_KEY is set and a local scripted
// chat-completions server otherwise (so every example runs offline).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { OpenAIChatGenerator } from 'ragrank'
import { startChatServer } from '../fixtures/chat-server.mjs'

export const DATA = process.env.RAGRANK_DATA ?? new URL('../../shared/data/', import.meta.url).pathname

export function needPath(path, what) {
  if (existsSync(path)) return path
  console.log(`skipped: ${what} not found at ${path} (set RAGRANK_DATA to the data folder)`)
  process.exit(0)
}

/** BBC News articles: [{ id: 'tech/001', category, title, paragraphs }]. */
export function loadBbc() {
  const root = needPath(join(DATA, 'splitting', 'bbc'), 'BBC News (splitting/bbc)')
  const out = []
  for (const category of readdirSync(root).sort()) {
    const dir = join(root, category)
    if (!statSync(dir).isDirectory()) continue
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .sort()) {
      const raw = readFileSync(join(dir, file), 'latin1') // one file is latin-1; the rest is ASCII
      const [title, ...rest] = raw.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim())
      out.push({ id: `${category}/${file.replace('.txt', '')}`, category, title, paragraphs: rest.filter(Boolean) })
    }
  }
  return out
}

/**
 * OpenAI (or OPENAI_BASE_URL) when a key is set; otherwise a scripted server on localhost
 * that answers with `stand_in(body)`, a deliberately simple heuristic, clearly not a model.
 */
export async function chatGenerator(standIn) {
  if (process.env.OPENAI_API_KEY) {
    console.log(`LLM: ${process.env.OPENAI_BASE_URL ?? 'OpenAI'} (OPENAI_API_KEY is set)`)
    return { generator: new OpenAIChatGenerator(), close: async () => {}, scripted: false }
  }
  const server = await startChatServer({ route: async (body) => standIn(body) })
  console.log('LLM: local scripted server (no OPENAI_API_KEY): its replies come from a heuristic, not a model')
  return { generator: new OpenAIChatGenerator({ baseURL: server.baseURL }), close: server.close, scripted: true }
}

/** The numbered documents of an LLMRanker prompt: [{ n, text }]. */
export const promptDocuments = (prompt) =>
  [...prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2] }))
export const promptQuery = (prompt) => /Query:\n(.*)\n/.exec(prompt)?.[1] ?? ''

export const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/**
 * An offline stand-in for an LLM ranker (not a model): the documents that share words of four or
 * more letters with the query, ordered by the share of such words in the passage.
 */
export function wordShareRanking(body) {
  const prompt = body.messages.at(-1).content
  const q = new Set(words(promptQuery(prompt)).filter((w) => w.length > 3))
  const scored = promptDocuments(prompt).map((d) => ({
    n: d.n,
    s: words(d.text).filter((w) => q.has(w)).length / Math.sqrt(words(d.text).length + 1),
  }))
  return JSON.stringify({
    documents: scored
      .filter((d) => d.s > 0)
      .sort((a, b) => b.s - a.s || a.n - b.n)
      .map((d) => ({ index: d.n })),
  })
}
