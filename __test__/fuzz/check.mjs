// Runs one fuzz case against one entry point and says what went wrong, if anything.
// A case passes when the call returns or throws an API error (TypeError, RangeError or
// RagrankError with a documented code, or the caller's own error passed through), nothing
// escapes as an unhandled rejection or uncaught exception (also after pending signals fire),
// and a failed call left its object as it was.
import { createRequire } from 'node:module'
import { build, HostileError, newCaseState } from './hostile.mjs'

const require = createRequire(import.meta.url)
const { RagrankError } = require('../../dist/commonjs/index.js')

/** lib/errors.ts ErrorCode. */
export const ERROR_CODES = new Set([
  'ERR_INVALID_ARG',
  'ERR_DUPLICATE_ID',
  'ERR_CORRUPT_INDEX',
  'ERR_IO',
  'ERR_INTERNAL',
  'ERR_ORT_NOT_FOUND',
  'ERR_MODEL_NOT_FOUND',
  'ERR_MODEL_LOAD',
  'ERR_INFERENCE',
  'ERR_DISPOSED',
  'ERR_UNAUTHORIZED',
  'ERR_NETWORK',
  'ERR_MISSING_NODE',
  'ERR_LLM',
  'ERR_LLM_REPLY',
  'ERR_CALLBACK',
  'ERR_ALL_SOURCES_FAILED',
  'ABORT_ERR',
])

// generous: a 1 MiB text takes seconds to tokenize on a loaded 2-core machine (a rerank query about 3.3 ms a KiB
// with the tiny models, a document or an embedded text 1.6 ms: linear, not a hang)
const CASE_TIMEOUT_MS = 20_000

// Escapes are collected by listeners installed once; each case looks at what arrived during it.
const escaped = []
let installed = false
export function installEscapeListeners() {
  if (installed) return
  installed = true
  process.on('unhandledRejection', (reason) => escaped.push({ kind: 'unhandled-rejection', error: reason }))
  process.on('uncaughtException', (error) => escaped.push({ kind: 'uncaught-exception', error }))
  process.on('warning', () => {}) // LLM fallbacks warn by default; keep stderr quiet
}

const tick = () => new Promise((r) => setImmediate(r))

/** The stable part of a message: quoted text, numbers and long tails dropped, so one cause is one class. */
export function messageShape(e) {
  if (!(e instanceof Error) || typeof e.message !== 'string') return ''
  return e.message
    .split('\n')[0]
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '…')
    .replace(/\[\d+\]/g, '[i]')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .slice(0, 70)
}

/** The class of a thrown value: `null` when it is an acceptable API error. */
export function errorClass(e) {
  const c = rawErrorClass(e)
  return c && e instanceof Error ? `${c}: ${messageShape(e)}` : c
}

function rawErrorClass(e) {
  if (e instanceof HostileError) return null // the caller's own getter or callback failed: passing it on is right
  if (e instanceof RagrankError) return ERROR_CODES.has(e.code) ? null : `RagrankError code ${String(e.code)}`
  if (e instanceof TypeError || e instanceof RangeError) {
    if (e.code === undefined) return `${e.constructor.name} without code`
    return ERROR_CODES.has(e.code) ? null : `${e.constructor.name} code ${String(e.code)}`
  }
  // a composite whose every source failed: the standard carrier of several errors, with a code
  if (e instanceof AggregateError && ERROR_CODES.has(e.code)) return null
  if (e instanceof Error) return `${e.constructor.name}${e.code === undefined ? '' : ` code ${String(e.code)}`}`
  return `non-Error thrown (${e === null ? 'null' : typeof e})`
}

function describe(e) {
  if (e instanceof Error)
    return `${e.constructor.name}${e.code === undefined ? '' : ` [${e.code}]`}: ${e.message.slice(0, 160)}`
  try {
    return `${typeof e}: ${String(e).slice(0, 80)}`
  } catch {
    return typeof e
  }
}

/**
 * Runs `target.call(subject, ...args)` on a fresh subject and returns `{ ok: true }` or
 * `{ ok: false, cls, detail, all }`: the first failure's class and detail, and every failure.
 * A rejection that surfaces later than the ticks waited here is charged to a later case.
 */
export async function runCase(target, argsSpec) {
  installEscapeListeners()
  escaped.length = 0
  const subject = target.setup ? await target.setup() : undefined
  const state = newCaseState()
  const args = build(argsSpec, state)
  const before = target.snapshot ? await target.snapshot(subject) : undefined
  let threw = false
  let error
  let timer
  let wasAborted = false
  try {
    const given = target.signalOf ? signalGiven(target.signalOf, args) : undefined
    wasAborted = given?.aborted === true
    let r = target.call(subject, ...args)
    for (const { controller, when } of state.soon) {
      const fire = () => controller.abort()
      if (when === 'micro') queueMicrotask(fire)
      else if (when === 'turn') setImmediate(fire)
      else setTimeout(fire, 1)
    }
    if (r && typeof r.then === 'function') {
      r = await Promise.race([
        r,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(TIMEOUT), CASE_TIMEOUT_MS)
        }),
      ])
    }
    if (target.consume) await target.consume(r)
  } catch (e) {
    threw = true
    error = e
  } finally {
    clearTimeout(timer)
  }
  // late listeners: fire what is still pending, then give rejections a chance to surface
  await tick()
  for (const c of state.later) c.abort()
  for (const { controller } of state.soon) controller.abort()
  await tick()
  await tick()
  if (state.soon.length && target.snapshot) await new Promise((r) => setTimeout(r, 20)) // native work still finishing
  const failures = []
  if (threw && error === TIMEOUT) failures.push({ cls: 'hang (no settle within 20 s)', detail: '' })
  else if (threw) {
    const cls = errorClass(error)
    if (cls) failures.push({ cls: `error: ${cls}`, detail: describe(error) })
  }
  if (target.mustThrow && !threw) failures.push({ cls: 'accepted an unknown option key', detail: '' })
  if (wasAborted && !threw) failures.push({ cls: 'already-aborted signal ignored (the call completed)', detail: '' })
  for (const x of escaped)
    failures.push({
      cls: `${x.kind}: ${errorClass(x.error) ?? describe(x.error).split(':')[0]}`,
      detail: describe(x.error),
    })
  if (threw && target.snapshot) {
    const after = await target.snapshot(subject)
    if (after !== before)
      failures.push({
        cls: 'failed call changed the object',
        detail: `${describe(error)}\n  before ${before}\n  after  ${after}`,
      })
  }
  if (target.teardown) await target.teardown(subject)
  return failures.length === 0 ? { ok: true } : { ok: false, ...failures[0], all: failures }
}

const TIMEOUT = Symbol('timeout')

/** The AbortSignal a call was given by contract (its options.signal), if it is a real one. */
function signalGiven(signalOf, args) {
  try {
    const s = signalOf(args)
    return s instanceof AbortSignal ? s : undefined
  } catch {
    return undefined // a hostile options object: nothing to check
  }
}
