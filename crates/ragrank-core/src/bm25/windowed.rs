//! Windowed (bulk) MaxScore: the pruned search of large segments.
//!
//! Document-at-a-time MaxScore pays bookkeeping per candidate (every iterated cursor
//! compared, advanced and re-minimised), and on large corpora nearly every candidate is
//! then pruned by its bounds. Here the documents are cut into windows of `WINDOW` ids
//! (the idea of Lucene's bulk MaxScore scorer); per window:
//! - each term's bound is the maximum of its blocks inside the window, so a term that is
//!   rare or weak there stops being iterated, and a window whose bounds cannot beat the
//!   k-th score is skipped whole;
//! - the terms whose window bounds together can beat it (the essential ones) are added
//!   term-at-a-time into a dense window buffer, with a bit per document that any of them
//!   holds: a branch-free scatter, no cursor compared per document;
//! - the documents of the buffer are then tested with `buffer + bounds of the others`,
//!   and only the few that pass probe the other terms, in decreasing bound order, with
//!   their block maxima per 64 documents as the bounds.
//!
//! Pruning starts from `known_kth` (k contributions of the strongest term), so the first
//! window does not iterate every list while the top k fills.
//!
//! The buffer sums terms in bound order, so it only decides pruning (with `SLACK`). A
//! document that survives every bound is scored again in query-term order from 0, the
//! order exhaustive search adds in, so hits and scores are bit-identical to it.
use std::cell::RefCell;

use super::search::{Blocks, Parts, SegTerm, SLACK};
use super::segment::{Segment, BLOCK};
use crate::topk::{Hit, TopK};

/// Documents per window: a power of two and a multiple of 64 (the match bits are words).
/// Smaller windows bound tighter, larger ones amortise the per-window work (stepping every
/// list to the window's end, which reads postings of lists that are otherwise only
/// probed). On the 1M Zipf corpus 2^16 (a 256 KiB buffer, in L2) beat 2^10..2^14 and
/// 2^17..2^18 (timed with `examples/zipf_ab.rs`).
pub const WINDOW: usize = 1 << 16;

/// One query term's postings, walked window by window. Long lists are stepped over by
/// their blocks (`BLOCK` postings: the block maxima's and the segment's packed last
/// documents), so a window reads only the postings it scatters or probes.
struct List<'a> {
    docs: &'a [u32],
    /// The segment's last document per block (`Segment::block_last`).
    lasts: &'a [u32],
    /// Index of the term's first posting in the segment's arrays.
    start: usize,
    /// The first posting of the current window (of the next one between windows).
    pos: usize,
    /// One past the current window's last posting.
    end: usize,
    /// During a window's probes (non-essential lists): the block of the last probe, and
    /// its position (the first posting >= the probed document).
    probe_blk: usize,
    probe: usize,
    wi: f32,
    bound: f32,
    /// The most this term adds to a document of the current window.
    win_bound: f32,
}

impl List<'_> {
    /// The first document at or after `pos`, `u32::MAX` when done.
    fn next_doc(&self) -> u32 {
        self.docs.get(self.pos).copied().unwrap_or(u32::MAX)
    }

    /// The segment block holding the list's posting `at`.
    #[inline]
    fn block_of(&self, at: usize) -> usize {
        (self.start + at) / BLOCK
    }

    /// The list's postings in block `b`: `first..end` (list positions).
    #[inline]
    fn block_span(&self, b: usize) -> (usize, usize) {
        let first = (b * BLOCK).saturating_sub(self.start);
        (first, ((b + 1) * BLOCK - self.start).min(self.docs.len()))
    }

    /// Whether block `b` ends inside the list: then its packed last document is this term's.
    #[inline]
    fn ends_inside(&self, b: usize) -> bool {
        (b + 1) * BLOCK - self.start < self.docs.len()
    }

    #[inline]
    fn block_bound(&self, b: usize, blocks: &Blocks) -> f32 {
        (self.wi * blocks.max[b] * blocks.scale).min(self.bound)
    }

    /// Sets the window's posting range `pos..end` (documents below `hi`) and its bound,
    /// the largest bound of the blocks holding that range.
    fn enter(&mut self, hi: u32, blocks: &Blocks) {
        self.probe = self.pos;
        self.probe_blk = self.block_of(self.pos);
        self.end = self.pos;
        self.win_bound = 0.0;
        if self.pos >= self.docs.len() {
            return;
        }
        let mut b = self.block_of(self.pos);
        let mut max = 0f32;
        while self.ends_inside(b) && self.lasts[b] < hi {
            max = max.max(blocks.max[b]);
            b += 1;
        }
        let (first, stop) = self.block_span(b);
        let from = first.max(self.pos);
        self.end = from + count_below(&self.docs[from..stop], hi);
        if self.end > from {
            max = max.max(blocks.max[b]);
        }
        if self.end > self.pos {
            self.win_bound = (self.wi * max * blocks.scale).min(self.bound);
        }
    }

    /// Moves the probe to the first posting >= `d` inside the window; whether it holds `d`.
    /// Probed documents increase within a window, so the probe only moves forward: over
    /// whole blocks by their packed last documents, then from where it stands in
    /// `PROBE_CHUNK`s of postings. Between two probes a dense list has a few postings, so
    /// this usually reads one chunk of lines the previous probe already brought in, not the
    /// whole block from its start.
    #[inline]
    fn probe_to(&mut self, d: u32) -> bool {
        let mut at = self.probe;
        let mut b = self.probe_blk;
        if self.block_span(b).1 < self.end && self.lasts[b] < d {
            b += 1;
            while self.block_span(b).1 < self.end && self.lasts[b] < d {
                b += 1;
            }
            self.probe_blk = b;
            at = self.block_span(b).0;
        }
        let stop = self.block_span(b).1.min(self.end);
        while at < stop {
            let chunk = &self.docs[at..(at + PROBE_CHUNK).min(stop)];
            let below = count_below(chunk, d);
            at += below;
            if below < chunk.len() {
                break;
            }
        }
        self.probe = at;
        at < self.end && self.docs[at] == d
    }

    /// The largest block bound of the term over each 64-document word of the window
    /// starting at `lo` (0 where none of its blocks reaches), into `out` (zeroed).
    fn word_bounds(&self, lo: u32, blocks: &Blocks, out: &mut [f32]) {
        if self.end == self.pos {
            return;
        }
        let (b0, b1) = (self.block_of(self.pos), self.block_of(self.end - 1));
        for b in b0..=b1 {
            // Blocks before `b1` end inside the list (it goes on), so their packed last
            // documents are this term's; a block starts after the previous one's last.
            let first = if b == b0 {
                self.docs[self.pos]
            } else {
                self.lasts[b - 1] + 1
            };
            let last = if b == b1 {
                self.docs[self.end - 1]
            } else {
                self.lasts[b]
            };
            let bound = self.block_bound(b, blocks);
            for m in &mut out[(first - lo) as usize / 64..=(last - lo) as usize / 64] {
                *m = m.max(bound);
            }
        }
    }
}

/// Postings a probe counts at a time from where it stands: two SSE2 compares' worth.
const PROBE_CHUNK: usize = 8;

/// How many of the (increasing) documents are below `target`: the index of the first
/// one at or above it, counted without a branch per document (in u32 lanes: four per
/// SSE2 compare instead of two in usize lanes).
#[inline]
fn count_below(docs: &[u32], target: u32) -> usize {
    docs.iter().map(|&x| u32::from(x < target)).sum::<u32>() as usize
}

/// The window buffer: a sum and a match bit per document of the window. All zero between
/// windows (the scan clears what the scatter set).
struct Window {
    acc: Vec<f32>,
    seen: Vec<u64>,
    /// Per probed term (in probe order), its bound in each 64-document word of the window.
    word_bounds: Vec<f32>,
    /// One word's running sums of `word_bounds`.
    rest: Vec<f32>,
}

thread_local! {
    static WINDOWS: RefCell<Window> = RefCell::new(Window {
        acc: vec![0.0; WINDOW],
        seen: vec![0; WINDOW / 64],
        word_bounds: Vec::new(),
        rest: Vec::new(),
    });
}

/// Block-max MaxScore evaluated in windows of documents; the hits of `exhaustive`
/// exactly (same `floor`, `allow` and tie rule). Hits carry local ids.
pub fn maxscore<P: Parts>(
    seg: &Segment,
    p: P,
    blocks: Blocks,
    terms: &[SegTerm],
    k: usize,
    floor: f32,
    allow: &dyn Fn(u32) -> bool,
) -> Vec<Hit> {
    if k == 0 {
        return Vec::new();
    }
    // In query order, as `terms` is: the exact score sums them in this order.
    let mut lists: Vec<List> = terms
        .iter()
        .filter_map(|qt| {
            let (docs, _) = seg.postings(qt.local);
            (!docs.is_empty()).then_some(List {
                docs,
                lasts: &seg.block_last,
                start: seg.offsets[qt.local as usize],
                pos: 0,
                end: 0,
                probe: 0,
                probe_blk: 0,
                wi: qt.wi,
                bound: qt.bound,
                win_bound: 0.0,
            })
        })
        .collect();
    debug_assert!(terms.windows(2).all(|w| w[0].q < w[1].q));
    let mut top = TopK::new(k);
    // Pruning starts from a score k documents are known to reach, not from nothing.
    let prune_floor = floor.max(known_kth(&lists, p, k, allow));
    // Reordering a sum of n terms >= 0 moves it by at most (n - 1) units in the last place
    // of each partial sum: a relative (n - 1) * 2^-24, below n * EPSILON.
    let sum_slack = SLACK.max(1.0 + lists.len() as f32 * f32::EPSILON);
    // Per window: list indices by increasing window bound, and rest[i], the most
    // order[0..=i] add together.
    let mut order: Vec<usize> = (0..lists.len()).collect();
    let mut rest = vec![0f32; lists.len()];
    WINDOWS.with(|cell| {
        let mut guard = cell.borrow_mut();
        let win = &mut *guard;
        loop {
            let lo = lists.iter().map(List::next_doc).min().unwrap_or(u32::MAX);
            if lo == u32::MAX {
                break;
            }
            let hi = lo.saturating_add(WINDOW as u32);
            let theta = top.threshold().max(prune_floor);
            let mut total = 0f32;
            for l in lists.iter_mut() {
                l.enter(hi, &blocks);
                total += l.win_bound;
            }
            if total * SLACK >= theta {
                let ctx = Ctx {
                    p,
                    blocks: &blocks,
                    allow,
                    floor,
                    prune_floor,
                    lo,
                    sum_slack,
                };
                ctx.window(win, &mut lists, &mut order, &mut rest, &mut top);
            }
            for l in lists.iter_mut() {
                l.pos = l.end;
            }
        }
    });
    top.into_sorted()
}

/// The k-th largest contribution of the strongest term over the first allowed documents
/// of its list (a few times k of them), `-inf` when there are fewer than k. Contributions
/// are >= 0 and adding one never lowers an f32 sum, so k allowed documents score at least
/// this much: a document whose bound is below it cannot be a hit. The first windows then
/// iterate only the terms that can matter, instead of every list until k hits are found.
fn known_kth<P: Parts>(lists: &[List], p: P, k: usize, allow: &dyn Fn(u32) -> bool) -> f32 {
    let none = f32::NEG_INFINITY;
    let Some(l) = lists.iter().max_by(|a, b| a.bound.total_cmp(&b.bound)) else {
        return none;
    };
    let n = l.docs.len().min((16 * k).max(256));
    if n < k {
        return none;
    }
    let mut scores: Vec<f32> = (0..n)
        .filter(|&i| allow(l.docs[i]))
        .map(|i| l.wi * p.part(l.start + i, l.docs[i]))
        .collect();
    if scores.len() < k || scores.iter().any(|s| s.is_nan() || *s < 0.0) {
        return none;
    }
    *scores.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a)).1
}

/// What one window's evaluation reads besides the lists.
struct Ctx<'a, P> {
    p: P,
    blocks: &'a Blocks<'a>,
    allow: &'a dyn Fn(u32) -> bool,
    floor: f32,
    /// What pruning compares bounds with besides the k-th score so far: `floor` or the
    /// `known_kth` estimate, whichever is higher.
    prune_floor: f32,
    /// The window's first document.
    lo: u32,
    /// Covers the rounding of a sum of the query's terms in another order than the exact
    /// one: `SLACK`, or more for queries long enough to need it.
    sum_slack: f32,
}

impl<P: Parts> Ctx<'_, P> {
    fn window(&self, win: &mut Window, lists: &mut [List], order: &mut [usize], rest: &mut [f32], top: &mut TopK) {
        let theta = top.threshold().max(self.prune_floor);
        order.sort_unstable_by(|&a, &b| lists[a].win_bound.total_cmp(&lists[b].win_bound));
        // The non-essential terms: the longest prefix of `order` that cannot lift a
        // document over theta on its own; the others are scattered.
        let mut sum = 0f32;
        for (i, &l) in order.iter().enumerate() {
            sum += lists[l].win_bound;
            rest[i] = sum;
        }
        // Bounds are >= 0, so `rest` only grows and the prefix ends at the first miss.
        let n_probed = rest.partition_point(|&r| r * SLACK < theta);
        let (probed, essential) = order.split_at(n_probed);
        for &l in essential {
            self.scatter(win, &lists[l]);
        }
        // Tighter than the window bounds: each probed term's block maxima per word.
        let words = WINDOW / 64;
        win.word_bounds.clear();
        win.word_bounds.resize(n_probed * words, 0.0);
        for (j, &l) in probed.iter().enumerate() {
            lists[l].word_bounds(self.lo, self.blocks, &mut win.word_bounds[j * words..(j + 1) * words]);
        }
        win.rest.resize(n_probed, 0.0);
        let mut theta = theta;
        // The documents of one word that pass the bound with the buffer's sum (only the
        // first `n` are read, so they need no clearing between words).
        let (mut pass, mut sums) = ([0u8; 64], [0f32; 64]);
        for w in 0..words {
            let mut bits = win.seen[w];
            if bits == 0 {
                continue;
            }
            win.seen[w] = 0;
            let mut sum = 0f32;
            for j in 0..n_probed {
                sum += win.word_bounds[j * words + w];
                win.rest[j] = sum;
            }
            let probed_bound = sum;
            // Gathered without a branch per document (about a quarter pass on large
            // corpora: a branch mispredicts).
            let mut n = 0;
            let base = w * 64;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let sum = win.acc[base + i];
                win.acc[base + i] = 0.0;
                pass[n] = i as u8;
                sums[n] = sum;
                n += usize::from((sum + probed_bound) * SLACK >= theta);
            }
            for (&i, &partial) in pass[..n].iter().zip(&sums[..n]) {
                let d = self.lo + (base + i as usize) as u32;
                if self.survives(d, partial, lists, probed, &win.rest, theta) {
                    let hit = Hit {
                        slot: d,
                        score: self.exact(d, lists),
                    };
                    if hit.score > self.floor && top.admits(&hit) && (self.allow)(d) {
                        top.push(hit);
                        theta = top.threshold().max(self.prune_floor);
                    }
                }
            }
        }
    }

    /// Adds a term's window postings into the buffer and marks their documents.
    #[inline]
    fn scatter(&self, win: &mut Window, l: &List) {
        let docs = &l.docs[l.pos..l.end];
        let (acc, seen) = (&mut win.acc[..WINDOW], &mut win.seen[..WINDOW / 64]);
        for (j, &d) in docs.iter().enumerate() {
            let r = (d - self.lo) as usize & (WINDOW - 1);
            acc[r] += l.wi * self.p.part(l.start + l.pos + j, d);
            seen[r / 64] |= 1 << (r % 64);
        }
    }

    /// Probes the non-essential terms for `d`, strongest first, while the partial sum plus
    /// what the remaining ones can add still reaches theta; then whether the whole sum does.
    /// That last test matters: on Zipf data most candidates miss the last (densest) probed
    /// list, and without it each would be scored again for nothing (about 20x the hits).
    /// The sum is in bound order, not query order, so it is compared with `sum_slack`.
    fn survives(
        &self,
        d: u32,
        mut partial: f32,
        lists: &mut [List],
        probed: &[usize],
        rest: &[f32],
        theta: f32,
    ) -> bool {
        for (i, &l) in probed.iter().enumerate().rev() {
            if (partial + rest[i]) * SLACK < theta {
                return false;
            }
            let l = &mut lists[l];
            if l.probe_to(d) {
                partial += l.wi * self.p.part(l.start + l.probe, d);
            }
        }
        partial * self.sum_slack >= theta
    }

    /// `d`'s score summed in query-term order from 0, as exhaustive search sums it. The
    /// probed lists stand at `d` or past it; the scattered ones are probed here (survivors
    /// increase within a window, so their probes move forward too).
    fn exact(&self, d: u32, lists: &mut [List]) -> f32 {
        let mut score = 0f32;
        for l in lists {
            if l.probe_to(d) {
                score += l.wi * self.p.part(l.start + l.probe, d);
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::scoring::{Params, TfForm};
    use super::super::search::{exhaustive, OnTheFly};
    use super::super::segment::{Doc, Segment, SegmentBuilder};
    use super::*;

    /// 150k documents (three windows) of 1-4 terms drawn from 40 with skewed frequencies.
    fn segment() -> Segment {
        let mut b = SegmentBuilder::new();
        let terms: Vec<Arc<str>> = (0..40).map(|t| Arc::from(format!("t{t}"))).collect();
        let ids: Vec<u32> = terms.iter().map(|t| b.intern(t)).collect();
        let mut x = 0x2545_f491_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..150_000u32 {
            let mut doc: Vec<(u32, u32)> = (0..1 + next() % 4)
                .map(|_| {
                    let r = next();
                    // Term t with probability ~ 1/(t+1); tf mostly 1.
                    let t = ((r % 1000) as f64 / 1000.0 * 3.7).exp() as usize - 1;
                    (ids[t.min(39)], 1 + u32::from(r % 23 == 0) * (1 + (r % 5) as u32))
                })
                .collect();
            doc.sort_unstable();
            doc.dedup_by_key(|p| p.0);
            let len = doc.iter().map(|p| p.1).sum::<u32>() + (next() % 20) as u32;
            let d = Doc::new(Arc::from(format!("d{i}")), len, None, None);
            b.push(Arc::new(d), doc);
        }
        b.finish(&Params::default(), 12.0)
    }

    /// Windowed MaxScore against exhaustive search for queries of 2-4 terms, with the
    /// bounds scaled by `lower` (1: exact); how many queries differ.
    fn differing<F: super::super::scoring::TfPart>(seg: &Segment, f: F, lower: f32) -> usize {
        let p = OnTheFly {
            f,
            tfs: &seg.post_tfs,
            lens: &seg.lens,
        };
        let blocks = Blocks {
            max: &seg.block_max,
            scale: SLACK * lower,
        };
        let mut differ = 0;
        for first in 0..20u32 {
            for len in 2..5u32 {
                let terms: Vec<SegTerm> = (0..len)
                    .map(|j| {
                        let local = (first + 7 * j) % 40;
                        let wi = 1.0 + (local % 9) as f32 * 0.7;
                        SegTerm {
                            local,
                            wi,
                            bound: wi * seg.max_tf_part[local as usize] * SLACK * lower,
                            q: j as usize,
                        }
                    })
                    .collect();
                let mut terms = terms;
                terms.dedup_by_key(|t| t.local);
                let all = |_: u32| true;
                let want = exhaustive(seg, p, &terms, 10, true, f32::NEG_INFINITY, &all);
                let got = maxscore(seg, p, blocks, &terms, 10, f32::NEG_INFINITY, &all);
                differ += usize::from(want != got);
            }
        }
        differ
    }

    /// The pruning is exact with true bounds and is what the result depends on: bounds
    /// 20% too low must lose hits (else the bounds would not be tested at all).
    #[test]
    fn bounds_decide_pruning_and_exact_bounds_lose_nothing() {
        let seg = segment();
        let TfForm::Saturation(f) = Params::default().tf_form(12.0) else {
            panic!("Lucene is a saturation form");
        };
        assert_eq!(differing(&seg, f, 1.0), 0);
        assert!(differing(&seg, f, 0.8) > 0);
    }

    #[test]
    fn count_below_is_the_first_index_at_or_above() {
        let docs = [1, 3, 5, 7, 9, 200, 4096, 4097];
        for target in 0..4100 {
            assert_eq!(count_below(&docs, target), docs.partition_point(|&d| d < target));
        }
    }
}
