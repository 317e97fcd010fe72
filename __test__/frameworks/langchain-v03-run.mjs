// Runs langchain-checks.mjs and prints one JSON line per check. The spec copies both files
// into a folder whose node_modules/@langchain/core is the 0.3 line and runs this there.
import { checks, coreVersion } from './langchain-checks.mjs'

for (const [name, check] of Object.entries(checks)) {
  try {
    await check()
    console.log(JSON.stringify({ name, coreVersion, ok: true }))
  } catch (e) {
    console.log(JSON.stringify({ name, coreVersion, ok: false, error: String(e?.stack ?? e) }))
  }
}
