// Known failures of the current code, found by `run.mjs --count` (see FINDINGS.md). The fuzz
// tests tolerate a finding's classes on its targets, so CI stays green while it is open; each
// finding has a minimal case that fuzz.spec.mjs replays under `test.failing` (a racy one is
// replayed up to `repeat` times). When a fix lands, its `test.failing` starts passing, which ava
// reports as an error: then delete the finding here, and the fuzz test guards the fix.
import { h } from './hostile.mjs'

const CONVERT = /^error: TypeError without code: Cannot convert (object to primitive value|a Symbol value to a string)/

export const FINDINGS = [
  {
    id: 'F17',
    title: 'unknown or misspelled option keys (limit, offset, topN, ...) are silently ignored by every function that takes options',
    match: { 'unknown option keys': /^accepted an unknown option key/ },
    target: 'unknown option keys',
    args: ['Bm25Index.search', 'limit', 3],
  },
]

/** Whether failure class `cls` on `target` is finding `f`. */
export const isFinding = (f, target, cls) => Object.entries(f.match).some(([t, re]) => (t === '*' || t === target) && re.test(cls))

export const knownFinding = (target, cls) => FINDINGS.some((f) => isFinding(f, target, cls))
