// Embeds cases [{ text, kind }] read from stdin with `Embedder.load(folder)` (no options: the folder's own
// sentence-transformers files decide pooling, normalisation, max length and prompts); prints the vectors as JSON.
// kind: 'query' -> embedQuery, 'passage' -> embedDocuments, 'raw' -> embed.
import { readFileSync } from 'node:fs'
import { Embedder } from '../../../dist/esm/index.js'

const cases = JSON.parse(readFileSync(0, 'utf8'))
const embedder = await Embedder.load(process.argv[2])
const vectors = []
for (const { text, kind } of cases) {
  if (kind === 'query') vectors.push(Array.from(await embedder.embedQuery(text)))
  else {
    const { data } = kind === 'passage' ? await embedder.embedDocuments([text]) : await embedder.embed([text])
    vectors.push(Array.from(data))
  }
}
embedder.dispose()
process.stdout.write(JSON.stringify(vectors))
