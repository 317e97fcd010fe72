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

use super::dense::{self, DenseRows};
use super::scoring::TfPart;
use super::segment::Segment;
use crate::topk::{Hit, KBest};

/// The tf part of the posting at `at` (an index into the segment's posting arrays) of
/// document `doc`: computed on the fly, or read from values precomputed for the snapshot
/// (`Cached`), which are the same f32 operations on the same inputs, so both give
/// bit-identical scores.
pub trait Parts: Copy {
    fn part(&self, at: usize, doc: u32) -> f32;

    /// The dense score rows of the segment's most frequent terms, if precomputed.
    fn dense(&self) -> Option<&DenseRows> {
        None
    }
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
    pub dense: &'a DenseRows,
}

impl Parts for Cached<'_> {
    #[inline(always)]
    fn part(&self, at: usize, _doc: u32) -> f32 {
        self.parts[at]
    }

    fn dense(&self) -> Option<&DenseRows> {
        Some(self.dense)
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
/// query term", and the per-document "matched" bytes are not needed; a term with a dense
/// row (`Parts::dense`) is then added as a whole row. Hits carry local ids.
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
    if terms.is_empty() {
        return Vec::new();
    }
    SCRATCH.with(|cell| {
        let mut guard = cell.borrow_mut();
        let s = &mut *guard;
        // Positive scores are summed from the first term on, which either writes the whole
        // accumulator (a dense row) or clears it first: no clear here.
        if positive {
            s.acc.resize(n, 0.0);
        } else {
            s.acc.clear();
            s.acc.resize(n, 0.0);
        }
        s.seen.clear();
        if !positive {
            s.seen.resize(n, 0);
        }
        let (acc, seen) = (&mut s.acc[..n], &mut s.seen[..]);
        let dense = if positive { p.dense() } else { None };
        for (i, qt) in terms.iter().enumerate() {
            let start = seg.offsets[qt.local as usize];
            let (docs, _) = seg.postings(qt.local);
            if positive {
                match dense.and_then(|rows| rows.row(qt.local, docs.len())) {
                    Some(row) => dense::add_row(acc, row, qt.wi, i == 0),
                    None => {
                        if i == 0 {
                            acc.fill(0.0);
                        }
                        scatter_add(acc, docs, start, qt.wi, p);
                    }
                }
            } else {
                for (i, &d) in docs.iter().enumerate() {
                    acc[d as usize] += qt.wi * p.part(start + i, d);
                    seen[d as usize] = 1;
                }
            }
        }
        // Documents come in increasing order, so a score equal to the k-th best loses.
        if positive {
            let k = k.min(n);
            if k <= SMALL_K {
                let mut best = SmallBest::new(k);
                scan_positive(acc, floor.max(0.0), &mut best, allow);
                return best.into_sorted();
            }
            let mut best = KBest::new(k);
            scan_positive(acc, floor.max(0.0), &mut best, allow);
            best.into_sorted()
        } else {
            let mut best = KBest::new(k.min(n));
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
            best.into_sorted()
        }
    })
}

/// Scores only the documents of `docs` (ascending local ids: a selective filter's), each by
/// looking its postings up in the query terms' lists, which it walks forward by galloping.
/// Costs O(|docs| x terms x log gap) instead of every posting of every term, and gives the
/// hits of `exhaustive` with `allow` restricted to `docs`: a score is summed in query-term
/// order from 0 with the same parts, and ties go to the earlier document.
pub fn selected<P: Parts>(
    seg: &Segment,
    p: P,
    terms: &[SegTerm],
    k: usize,
    floor: f32,
    docs: impl Iterator<Item = u32>,
    allow: &dyn Fn(u32) -> bool,
) -> Vec<Hit> {
    let lists: Vec<(&[u32], usize)> = terms
        .iter()
        .map(|qt| (seg.postings(qt.local).0, seg.offsets[qt.local as usize]))
        .collect();
    let mut cursors = vec![0usize; lists.len()];
    let mut best = KBest::new(k.min(seg.len()));
    let mut threshold = floor;
    for d in docs {
        let mut score = 0f32;
        let mut matched = false;
        for ((qt, &(list, start)), cursor) in terms.iter().zip(&lists).zip(&mut cursors) {
            *cursor = gallop(list, *cursor, d);
            if list.get(*cursor) == Some(&d) {
                score += qt.wi * p.part(start + *cursor, d);
                matched = true;
            }
        }
        if matched && score > threshold && allow(d) {
            best.push(d, score);
            threshold = threshold.max(best.floor());
        }
    }
    best.into_sorted()
}

/// The first index at or after `from` whose document is at least `d` (`list` ascending).
#[inline]
fn gallop(list: &[u32], from: usize, d: u32) -> usize {
    let mut step = 1;
    let mut lo = from;
    let mut hi = from;
    while hi < list.len() && list[hi] < d {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|&x| x < d)
}

/// Where the scan keeps its candidates: `push` gets a document above `floor`.
trait Keep {
    fn push(&mut self, slot: u32, score: f32);
    fn floor(&self) -> f32;

    /// The k to seed the threshold with before the scan (`lane_floor`), 0 for none.
    fn seed_k(&self) -> usize {
        0
    }
}

impl Keep for KBest {
    #[inline]
    fn push(&mut self, slot: u32, score: f32) {
        KBest::push(self, slot, score)
    }

    #[inline]
    fn floor(&self) -> f32 {
        KBest::floor(self)
    }
}

/// Up to this `k` the scan keeps its hits in a sorted array.
const SMALL_K: usize = 16;

/// The k best so far, best first, for a small k: once full, its floor is the k-th score at
/// once (a `KBest` raises it only when its buffer of 64 is cut, so many more documents pass
/// the scan's test and the cuts' selections cost more than the insertions). An insertion
/// walks up from the bottom, where most newcomers stay, in a fixed array (no memmove call).
struct SmallBest {
    k: usize,
    len: usize,
    floor: f32,
    hits: [Hit; SMALL_K],
}

impl SmallBest {
    fn new(k: usize) -> Self {
        debug_assert!(k <= SMALL_K);
        SmallBest {
            k,
            len: 0,
            floor: if k == 0 { f32::INFINITY } else { f32::NEG_INFINITY },
            hits: [Hit { slot: 0, score: 0.0 }; SMALL_K],
        }
    }

    fn into_sorted(self) -> Vec<Hit> {
        self.hits[..self.len].to_vec()
    }
}

impl Keep for SmallBest {
    /// Documents come in increasing order, so a later one goes after equal scores and
    /// must beat the k-th to enter: the order `Hit::rank_cmp` gives.
    #[inline]
    fn push(&mut self, slot: u32, score: f32) {
        let mut at = if self.len < self.k {
            self.len += 1;
            self.len - 1
        } else if score > self.floor {
            self.k - 1 // the k-th makes room
        } else {
            return;
        };
        while at > 0 && self.hits[at - 1].score < score {
            self.hits[at] = self.hits[at - 1];
            at -= 1;
        }
        self.hits[at] = Hit { slot, score };
        if self.len == self.k {
            self.floor = self.hits[self.k - 1].score;
        }
    }

    #[inline]
    fn floor(&self) -> f32 {
        self.floor
    }

    fn seed_k(&self) -> usize {
        self.k
    }
}

/// Offers every document scoring above `threshold` (raised as `best` fills), in document
/// order. Groups of 16 are compared with the threshold at once into a bit mask, then only
/// the documents that pass are visited: a test and branch per document mispredicts
/// whenever about half the documents hold a query term.
fn scan_positive<B: Keep>(acc: &[f32], threshold: f32, best: &mut B, allow: &dyn Fn(u32) -> bool) {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the feature was just detected.
        return unsafe { scan_positive_avx512(acc, threshold, best, allow) };
    }
    scan_groups(acc, threshold, best, allow, above_sse)
}

/// The AVX-512 build of the scan: one compare gives the mask of 16 scores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn scan_positive_avx512<B: Keep>(acc: &[f32], threshold: f32, best: &mut B, allow: &dyn Fn(u32) -> bool) {
    use std::arch::x86_64::*;
    scan_groups(acc, threshold, best, allow, |g, t| {
        // SAFETY: `g` is 16 floats; avx512f is enabled for this function.
        unsafe {
            u32::from(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(
                _mm512_loadu_ps(g.as_ptr()),
                _mm512_set1_ps(t),
            ))
        }
    })
}

/// The bits of the scores of `g` above `t` (false for NaN, as `>`), four at a time with the
/// baseline x86-64 vectors (the compiler turns the plain loop into scalar compares).
#[inline(always)]
fn above_sse(g: &[f32; 16], t: f32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE is part of x86-64; the four loads stay inside `g`.
        unsafe {
            let (p, t) = (g.as_ptr(), _mm_set1_ps(t));
            let m = |i: usize| _mm_cmpgt_ps(_mm_loadu_ps(p.add(4 * i)), t);
            let (m0, m1, m2, m3) = (m(0), m(1), m(2), m(3));
            if _mm_movemask_ps(_mm_or_ps(_mm_or_ps(m0, m1), _mm_or_ps(m2, m3))) == 0 {
                return 0;
            }
            let bits = |v| _mm_movemask_ps(v) as u32;
            bits(m0) | bits(m1) << 4 | bits(m2) << 8 | bits(m3) << 12
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    g.iter()
        .enumerate()
        .fold(0, |mask, (i, &s)| mask | u32::from(s > t) << i)
}

#[inline(always)]
fn scan_groups<B: Keep>(
    acc: &[f32],
    mut threshold: f32,
    best: &mut B,
    allow: &dyn Fn(u32) -> bool,
    above: impl Fn(&[f32; 16], f32) -> u32,
) {
    let k = best.seed_k();
    if k > 0 {
        threshold = threshold.max(lane_floor(acc, k, allow));
    }
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
        let mut mask = above(group, threshold);
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

/// A threshold below which no document can be among the k best, from one branch-free pass
/// of vector maxima (k <= 16): lane `i` keeps the best score of the documents `16g + i` and
/// the group `g` it came from, so the 16 lanes are the best of 16 disjoint sets. The k-th
/// best lane whose document the filter allows is a score that k documents reach; admitting
/// only scores at or above it loses no hit (ties included) and lets few documents reach the
/// top list at all. Scores are >= 0 here, so lanes start at 0 and a lane still 0 is unused.
#[inline(always)]
fn lane_floor(acc: &[f32], k: usize, allow: &dyn Fn(u32) -> bool) -> f32 {
    let mut max = [0f32; 16];
    let mut group_of = [0u32; 16];
    let mut groups = acc.chunks_exact(16);
    for (g, group) in (&mut groups).enumerate() {
        for i in 0..16 {
            let better = group[i] > max[i];
            max[i] = if better { group[i] } else { max[i] };
            group_of[i] = if better { g as u32 } else { group_of[i] };
        }
    }
    let tail = (acc.len() / 16) as u32;
    for (i, &s) in groups.remainder().iter().enumerate() {
        if s > max[i] {
            max[i] = s;
            group_of[i] = tail;
        }
    }
    let mut lanes = [0f32; 16];
    let mut m = 0;
    for i in 0..16 {
        if max[i] > 0.0 && allow(group_of[i] * 16 + i as u32) {
            lanes[m] = max[i];
            m += 1;
        }
    }
    if m < k || k == 0 {
        return f32::NEG_INFINITY;
    }
    lanes[..m].sort_unstable_by(|a, b| b.total_cmp(a));
    // The largest float below the k-th lane (> 0): `score >` it means `score >=` the lane.
    f32::from_bits(lanes[k - 1].to_bits() - 1)
}

/// `acc[d] += wi * part` over a term's postings (`start`: the first one's index in the
/// segment's arrays), the hot loop of exhaustive search. Each write is bounds-checked: a
/// mapped segment's postings are not checked at open (docs/STORAGE.md), so their order
/// cannot stand in for the check (the branch is never taken, and `part` reads the lengths
/// checked anyway).
#[inline]
fn scatter_add<P: Parts>(acc: &mut [f32], docs: &[u32], start: usize, wi: f32, p: P) {
    debug_assert!(docs.windows(2).all(|w| w[0] < w[1]));
    for (i, &d) in docs.iter().enumerate() {
        let v = wi * p.part(start + i, d);
        acc[d as usize] += v;
    }
}

/// Relative slack on upper bounds, far above f32 rounding of a few sums: pruning is
/// never wrong, only occasionally less aggressive.
pub const SLACK: f32 = 1.0 + 1e-5;
