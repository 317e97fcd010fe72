// Known failures of the current code, found by `run.mjs --count` (a survey). The fuzz
// tests tolerate a finding's classes on its targets, so CI stays green while it is open; each
// finding has a minimal case that fuzz.spec.mjs replays under `test.failing` (a racy one is
// replayed up to `repeat` times). When a fix lands, its `test.failing` starts passing, which ava
// reports as an error: then delete the finding here, and the fuzz test guards the fix.
export const FINDINGS = []

/** Whether failure class `cls` on `target` is finding `f`. */
export const isFinding = (f, target, cls) =>
  Object.entries(f.match).some(([t, re]) => (t === '*' || t === target) && re.test(cls))

export const knownFinding = (target, cls) => FINDINGS.some((f) => isFinding(f, target, cls))
