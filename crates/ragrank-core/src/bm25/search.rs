//! Query evaluation over one segment, scoring each posting at query time.
//!
//! Two strategies return identical hits (same scores to the bit, same order):
//! - `exhaustive` (here): term-at-a-time accumulation into a dense per-thread array sized
//!   to the segment, then a bounded selection over the touched documents.
//! - `windowed::maxscore`: block-max MaxScore (Turtle & Flood 1995; Ding & Suel 2011)
//!   evaluated in windows of documents: terms whose summed upper bounds cannot lift a
//!   document over the current k-th score are only probed, never iterated, so the cost
//!   grows sublinearly with the collection.
//!
//! A posting adds `wi * tf_part(tf, dl)` (`wi` = query weight times idf, both fixed per
//! snapshot) and a document's score is summed in query-term order from 0 in both, so
//! the result does not depend on the strategy or on how the index is cut into segments.
//! `floor` is the k-th score of earlier segments: a document here must beat it (a tie
//! goes to the earlier document, which is always in an earlier segment).
use std::cell::RefCell;

use super::scoring::TfPart;
use super::segment::Segment;
use crate::topk::{Hit, KBest};

/// The tf part of the posting at `at` (an index into the segment's posting arrays) of
/// document `doc`: computed on the fly, or read from values precomputed for the snapshot
/// (`Cached`), which are the same f32 operations on the same inputs, so both give
/// bit-identical scores.
pub trait Parts: Copy {
    fn part(&self, at: usize, doc: u32) -> f32;
}

#[derive(Clone, Copy)]
pub struct OnTheFly<'a, F> {
    pub f: F,
    pub tfs: &'a [u32],
    pub lens: &'a [u32],
}

impl<F: TfPart> Parts for OnTheFly<'_, F> {
    #[inline(always)]
    fn part(&self, at: usize, doc: u32) -> f32 {
        self.f.eval(self.tfs[at] as f32, self.lens[doc as usize] as f32)
    }
}

#[derive(Clone, Copy)]
pub struct Cached<'a> {
    pub parts: &'a [f32],
}

impl Parts for Cached<'_> {
    #[inline(always)]
    fn part(&self, at: usize, _doc: u32) -> f32 {
        self.parts[at]
    }
}

/// Upper bounds of the tf part per block of `BLOCK` postings of the segment's arrays:
/// posting `at` scores at most `wi * max[at / BLOCK] * scale`.
#[derive(Clone, Copy)]
pub struct Blocks<'a> {
    pub max: &'a [f32],
    /// Lifts bounds computed at another average length (`Segment::bound_growth`) and
    /// covers f32 rounding.
    pub scale: f32,
}

/// A query term as one segment knows it.
#[derive(Debug, Clone, Copy)]
pub struct SegTerm {
    /// The segment's local term id.
    pub local: u32,
    /// Query weight times idf.
    pub wi: f32,
    /// Upper bound of the term's contribution in this segment.
    pub bound: f32,
    /// Position of the term in the query.
    pub q: usize,
}

#[derive(Default)]
struct Scratch {
    acc: Vec<f32>,
    seen: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Dense accumulation: adds into a per-thread array of one float per document, then one
/// scan with a cheap threshold test. `positive` says every contribution is above 0 (all
/// variants but Robertson and ATIRE, whose idf can be 0): then a score of 0 means "no
/// query term", and the per-document "matched" bytes are not needed. Hits carry local ids.
pub fn exhaustive<P: Parts>(
    seg: &Segment,
    p: P,
    terms: &[SegTerm],
    k: usize,
    positive: bool,
    floor: f32,
    allow: &dyn Fn(u32) -> bool,
) -> Vec<Hit> {
    let n = seg.len();
    SCRATCH.with(|cell| {
        let mut guard = cell.borrow_mut();
        let s = &mut *guard;
        s.acc.clear();
        s.acc.resize(n, 0.0);
        s.seen.clear();
        if !positive {
            s.seen.resize(n, 0);
        }
        let (acc, seen) = (&mut s.acc[..], &mut s.seen[..]);
        for qt in terms {
            let start = seg.offsets[qt.local as usize];
            let (docs, _) = seg.postings(qt.local);
            if positive {
                scatter_add(acc, docs, start, qt.wi, p);
            } else {
                for (i, &d) in docs.iter().enumerate() {
                    acc[d as usize] += qt.wi * p.part(start + i, d);
                    seen[d as usize] = 1;
                }
            }
        }
        // Documents come in increasing order, so a score equal to the k-th best loses.
        let mut best = KBest::new(k.min(n));
        if positive {
            scan_positive(acc, floor.max(0.0), &mut best, allow);
        } else {
            let mut threshold = floor;
            for (d, &score) in acc.iter().enumerate() {
                if score <= threshold || seen[d] == 0 {
                    continue;
                }
                if allow(d as u32) {
                    best.push(d as u32, score);
                    threshold = threshold.max(best.floor());
                }
            }
        }
        best.into_sorted()
    })
}

/// Offers every document scoring above `threshold` (raised as `best` fills), in document
/// order. Groups of 16 are compared with the threshold at once (a vectorised compare and a
/// bit mask), then only the documents that pass are visited: a test and branch per
/// document mispredicts whenever about half the documents hold a query term.
fn scan_positive(acc: &[f32], mut threshold: f32, best: &mut KBest, allow: &dyn Fn(u32) -> bool) {
    let mut offer = |d: u32, score: f32, threshold: &mut f32| {
        // The threshold may have risen since the group's mask was made.
        if score > *threshold && allow(d) {
            best.push(d, score);
            *threshold = threshold.max(best.floor());
        }
    };
    let mut groups = acc.chunks_exact(16);
    let mut at = 0u32;
    for group in &mut groups {
        let group: &[f32; 16] = group.try_into().expect("chunks of 16");
        let mut mask = 0u32;
        for (i, &s) in group.iter().enumerate() {
            mask |= u32::from(s > threshold) << i;
        }
        while mask != 0 {
            let i = mask.trailing_zeros();
            offer(at + i, group[i as usize], &mut threshold);
            mask &= mask - 1;
        }
        at += 16;
    }
    for (i, &s) in groups.remainder().iter().enumerate() {
        offer(at + i as u32, s, &mut threshold);
    }
}

/// `acc[d] += wi * part` over a term's postings (`start`: the first one's index in the
/// segment's arrays), the hot loop of exhaustive search. Postings hold each document once
/// and in increasing order (built so), so checking the last one bounds them all; the
/// accumulator is then written without a bounds check per posting.
#[inline]
fn scatter_add<P: Parts>(acc: &mut [f32], docs: &[u32], start: usize, wi: f32, p: P) {
    let Some(&last) = docs.last() else { return };
    assert!((last as usize) < acc.len());
    debug_assert!(docs.windows(2).all(|w| w[0] < w[1]));
    for (i, &d) in docs.iter().enumerate() {
        let v = wi * p.part(start + i, d);
        // SAFETY: every document is <= `last` < acc.len() (asserted above).
        unsafe { *acc.get_unchecked_mut(d as usize) += v };
    }
}

/// Relative slack on upper bounds, far above f32 rounding of a few sums: pruning is
/// never wrong, only occasionally less aggressive.
pub const SLACK: f32 = 1.0 + 1e-5;
