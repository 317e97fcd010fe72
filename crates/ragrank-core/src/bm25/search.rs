//! Query evaluation over precomputed impacts.
//!
//! Two strategies return identical hits (same scores to the bit, same order):
//! - `exhaustive`: term-at-a-time accumulation into a dense per-thread array, then a
//!   bounded heap over the touched documents. Best for small and mid-sized collections.
//! - `maxscore`: document-at-a-time MaxScore (Turtle & Flood 1995). Terms whose summed
//!   upper bounds cannot lift a document over the current k-th score are only probed,
//!   never iterated, so the cost grows sublinearly with the collection.
//!
//! A document's score is summed in query-term order from 0 in both, which is what makes
//! them bit-identical.
use std::cell::RefCell;

use super::impacts::Impacts;
use crate::topk::{Hit, KBest, TopK};

/// A query term with its weight (its multiplicity in the query).
#[derive(Debug, Clone, Copy)]
pub struct QueryTerm {
    pub term: u32,
    pub weight: f32,
}

#[derive(Default)]
struct Scratch {
    acc: Vec<f32>,
    seen: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Dense accumulation: branch-free adds into a per-thread array of one float per
/// document, then one scan with a cheap threshold test. `positive` says every impact is
/// above 0 (all variants but Robertson and ATIRE, whose idf can be 0): then a score of 0
/// means "no query term", and the per-document "matched" bytes are not needed.
pub fn exhaustive(
    impacts: &Impacts,
    n_slots: usize,
    terms: &[QueryTerm],
    k: usize,
    positive: bool,
    allow: &dyn Fn(u32) -> bool,
) -> Vec<Hit> {
    SCRATCH.with(|cell| {
        let mut guard = cell.borrow_mut();
        let s = &mut *guard;
        s.acc.clear();
        s.acc.resize(n_slots, 0.0);
        s.seen.clear();
        if !positive {
            s.seen.resize(n_slots, 0);
        }
        let (acc, seen) = (&mut s.acc[..], &mut s.seen[..]);
        for qt in terms {
            let (docs, scores) = impacts.postings(qt.term);
            if positive {
                match impacts.dense_row(qt.term, n_slots) {
                    // Adding the row's zeros leaves other sums bit-identical.
                    Some(row) => acc.iter_mut().zip(row).for_each(|(a, &v)| *a += qt.weight * v),
                    None => scatter_add(acc, docs, scores, qt.weight),
                }
            } else {
                for (&d, &v) in docs.iter().zip(scores) {
                    acc[d as usize] += qt.weight * v;
                    seen[d as usize] = 1;
                }
            }
        }
        // Slots come in increasing order, so a score equal to the k-th best loses.
        let mut threshold = if positive { 0.0 } else { f32::NEG_INFINITY };
        let mut best = KBest::new(k.min(n_slots));
        for (d, &score) in acc.iter().enumerate() {
            if score <= threshold || (!positive && seen[d] == 0) {
                continue;
            }
            if allow(d as u32) {
                best.push(d as u32, score);
                threshold = threshold.max(best.floor());
            }
        }
        best.into_sorted()
    })
}

/// `acc[docs[i]] += weight * scores[i]`, the hot loop of exhaustive search. Postings hold
/// each slot once and in increasing order (built so), so checking the last slot bounds
/// them all; the loop then runs without a bounds check per posting, four at a time.
#[inline]
fn scatter_add(acc: &mut [f32], docs: &[u32], scores: &[f32], weight: f32) {
    let Some(&last) = docs.last() else { return };
    assert!((last as usize) < acc.len() && docs.len() == scores.len());
    debug_assert!(docs.windows(2).all(|w| w[0] < w[1]));
    let mut d4 = docs.chunks_exact(4);
    let mut s4 = scores.chunks_exact(4);
    for (d, s) in (&mut d4).zip(&mut s4) {
        // SAFETY: every slot is <= `last` < acc.len() (increasing order, asserted above).
        unsafe {
            *acc.get_unchecked_mut(d[0] as usize) += weight * s[0];
            *acc.get_unchecked_mut(d[1] as usize) += weight * s[1];
            *acc.get_unchecked_mut(d[2] as usize) += weight * s[2];
            *acc.get_unchecked_mut(d[3] as usize) += weight * s[3];
        }
    }
    for (&d, &s) in d4.remainder().iter().zip(s4.remainder()) {
        // SAFETY: as above.
        unsafe { *acc.get_unchecked_mut(d as usize) += weight * s };
    }
}

struct Cursor<'a> {
    docs: &'a [u32],
    scores: &'a [f32],
    pos: usize,
    /// Upper bound of this term's contribution.
    bound: f32,
    weight: f32,
    /// Position of the term in the query.
    q: usize,
}

impl Cursor<'_> {
    #[inline]
    fn doc(&self) -> u32 {
        self.docs.get(self.pos).copied().unwrap_or(u32::MAX)
    }

    /// Moves to the first posting with doc >= target: galloping, then binary search.
    fn advance_to(&mut self, target: u32) {
        if self.doc() >= target {
            return;
        }
        let mut lo = self.pos;
        let mut step = 1;
        let mut hi = lo + step;
        while hi < self.docs.len() && self.docs[hi] < target {
            lo = hi;
            step *= 2;
            hi = lo + step;
        }
        let hi = hi.min(self.docs.len());
        self.pos = lo + self.docs[lo..hi].partition_point(|&d| d < target);
    }
}

/// Relative slack on upper bounds, far above f32 rounding of a few sums: pruning is
/// never wrong, only occasionally less aggressive.
const SLACK: f32 = 1.0 + 1e-5;

pub fn maxscore(impacts: &Impacts, terms: &[QueryTerm], k: usize, allow: &dyn Fn(u32) -> bool) -> Vec<Hit> {
    let mut top = TopK::new(k);
    if k == 0 {
        return Vec::new();
    }
    let mut cursors: Vec<Cursor> = terms
        .iter()
        .enumerate()
        .filter_map(|(q, qt)| {
            let (docs, scores) = impacts.postings(qt.term);
            (!docs.is_empty()).then(|| Cursor {
                docs,
                scores,
                pos: 0,
                bound: qt.weight * impacts.max[qt.term as usize],
                weight: qt.weight,
                q,
            })
        })
        .collect();
    cursors.sort_by(|a, b| a.bound.total_cmp(&b.bound));
    // prefix[i]: the most cursors[0..=i] can add together.
    let prefix: Vec<f32> = cursors
        .iter()
        .scan(0f32, |acc, c| {
            *acc += c.bound;
            Some(*acc)
        })
        .collect();
    let mut contrib = vec![0f32; terms.len()];
    let mut matched: Vec<usize> = Vec::with_capacity(terms.len());
    let mut first_essential = 0;
    loop {
        let theta = top.threshold();
        while first_essential < cursors.len() && prefix[first_essential] * SLACK < theta {
            first_essential += 1;
        }
        let Some(d) = cursors[first_essential..].iter().map(Cursor::doc).min() else {
            break;
        };
        if d == u32::MAX {
            break;
        }
        matched.clear();
        let mut partial = 0f32;
        for c in cursors[first_essential..].iter_mut() {
            if c.doc() == d {
                let v = c.weight * c.scores[c.pos];
                contrib[c.q] = v;
                matched.push(c.q);
                partial += v;
                c.pos += 1;
            }
        }
        let mut pruned = false;
        for i in (0..first_essential).rev() {
            if (partial + prefix[i]) * SLACK < theta {
                pruned = true;
                break;
            }
            let c = &mut cursors[i];
            c.advance_to(d);
            if c.doc() == d {
                let v = c.weight * c.scores[c.pos];
                contrib[c.q] = v;
                matched.push(c.q);
                partial += v;
            }
        }
        if !pruned {
            matched.sort_unstable();
            let score = matched.iter().fold(0f32, |acc, &q| acc + contrib[q]);
            let hit = Hit { slot: d, score };
            if top.admits(&hit) && allow(d) {
                top.push(hit);
            }
        }
    }
    top.into_sorted()
}
