import test from 'ava'
import { execFileSync } from 'node:child_process'

// Each framework adapter entry loads its own framework and no other; `ragrank` alone loads none.
const FRAMEWORKS = {
  llamaindex: 'node_modules/(@llamaindex|llamaindex)/',
  ai: 'node_modules/(ai|@ai-sdk)/',
  langchain: 'node_modules/@langchain/',
}

/** The frameworks with files in the require cache once `code` ran. */
function loaded(code) {
  const report = `const files = Object.keys(require.cache);
    console.log(JSON.stringify(Object.entries(${JSON.stringify(FRAMEWORKS)})
      .filter(([, re]) => files.some((f) => new RegExp(re).test(f))).map(([name]) => name)))`
  const out = execFileSync('node', ['-e', `${code}; ${report}`], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').pop())
}

test('ragrank alone loads no framework', (t) => {
  t.deepEqual(loaded("require('ragrank')"), [])
})

test('ragrank/llamaindex loads LlamaIndex only, ragrank/ai-sdk the AI SDK only', (t) => {
  t.deepEqual(loaded("require('ragrank/llamaindex')"), ['llamaindex'])
  t.deepEqual(loaded("require('ragrank/ai-sdk')"), ['ai'])
  t.deepEqual(loaded("require('ragrank/langchain')"), ['langchain'])
})
