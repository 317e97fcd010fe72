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
//!   and only the few that pass probe the other terms, in decreasing bound order.
//!
//! The buffer sums terms in bound order, so it only decides pruning (with `SLACK`). A
//! document that survives every bound is scored again in query-term order from 0, the
//! order exhaustive search adds in, so hits and scores are bit-identical to it.
use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

use super::search::{Blocks, Parts, SegTerm, SLACK};
use super::segment::{Segment, BLOCK};
use crate::topk::{Hit, TopK};

/// Documents per window: a power of two and a multiple of 64 (the match bits are words).
/// The buffer (16 KiB) and its bits stay in L1; smaller windows bound tighter, larger ones
/// amortise the per-window partition over more postings.
pub const WINDOW: usize = 1 << 12;

/// A/B switch while the windowed search is measured: true routes to the old
/// document-at-a-time `search::maxscore`. Temporary.
#[doc(hidden)]
pub static USE_DAAT: AtomicBool = AtomicBool::new(false);

/// Temporary counters: windows, windows evaluated, postings scattered, buffered documents,
/// documents past the first bound, survivors.
#[doc(hidden)]
pub static COUNTS: [std::sync::atomic::AtomicU64; 6] = [const { std::sync::atomic::AtomicU64::new(0) }; 6];
const COUNTING: bool = true;
fn count(i: usize, n: u64) {
    if COUNTING {
        COUNTS[i].fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
}

/// One query term's postings, walked window by window.
struct List<'a> {
    docs: &'a [u32],
    /// Index of the term's first posting in the segment's arrays.
    start: usize,
    /// The first posting of the current window (of the next one between windows).
    pos: usize,
    /// One past the current window's last posting.
    end: usize,
    /// During a window's probes (non-essential lists): the first posting not yet passed.
    probe: usize,
    wi: f32,
    bound: f32,
    /// The most this term adds to a document of the current window.
    win_bound: f32,
    /// Whether the current window adds this term into the buffer (else it is probed).
    scattered: bool,
}

impl List<'_> {
    /// The first document at or after `pos`, `u32::MAX` when done.
    fn next_doc(&self) -> u32 {
        self.docs.get(self.pos).copied().unwrap_or(u32::MAX)
    }

    /// Sets the window's posting range `pos..end` (documents below `hi`) and its bound:
    /// the largest block maximum over that range, never above the term's own bound.
    fn enter(&mut self, hi: u32, blocks: &Blocks) {
        self.end = gallop(self.docs, self.pos, hi);
        self.probe = self.pos;
        self.win_bound = if self.end == self.pos {
            0.0
        } else {
            let (b0, b1) = ((self.start + self.pos) / BLOCK, (self.start + self.end - 1) / BLOCK);
            let max = blocks.max[b0..=b1].iter().fold(0f32, |m, &x| m.max(x));
            (self.wi * max * blocks.scale).min(self.bound)
        };
    }

    /// Moves the probe to the first posting >= `d` inside the window; whether it holds `d`.
    /// Steps over runs of 64 postings by their last document, then counts the postings
    /// below `d` in the run that holds it: a vectorised count, no branch per posting.
    #[inline]
    fn probe_to(&mut self, d: u32) -> bool {
        let docs = &self.docs[..self.end];
        let mut at = self.probe;
        while at + RUN <= docs.len() && docs[at + RUN - 1] < d {
            at += RUN;
        }
        let run = &docs[at..(at + RUN).min(docs.len())];
        at += run.iter().map(|&x| usize::from(x < d)).sum::<usize>();
        self.probe = at;
        at < docs.len() && docs[at] == d
    }
}

/// Postings a probe counts through at once.
const RUN: usize = 64;

/// The first index >= `from` whose document is >= `target` (or `docs.len()`): galloping,
/// then binary search, so a near target costs a few comparisons.
#[inline]
fn gallop(docs: &[u32], from: usize, target: u32) -> usize {
    if from >= docs.len() || docs[from] >= target {
        return from;
    }
    let (mut lo, mut step) = (from, 1);
    while lo + step < docs.len() && docs[lo + step] < target {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step + 1).min(docs.len());
    lo + docs[lo..hi].partition_point(|&d| d < target)
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
                start: seg.offsets[qt.local as usize],
                pos: 0,
                end: 0,
                probe: 0,
                wi: qt.wi,
                bound: qt.bound,
                win_bound: 0.0,
                scattered: true,
            })
        })
        .collect();
    debug_assert!(terms.windows(2).all(|w| w[0].q < w[1].q));
    let mut top = TopK::new(k);
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
            let theta = top.threshold().max(floor);
            let mut total = 0f32;
            for l in lists.iter_mut() {
                l.enter(hi, &blocks);
                total += l.win_bound;
            }
            count(0, 1);
            if total * SLACK >= theta {
                count(1, 1);
                let ctx = Ctx {
                    p,
                    blocks: &blocks,
                    allow,
                    floor,
                    lo,
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

/// What one window's evaluation reads besides the lists.
struct Ctx<'a, P> {
    p: P,
    blocks: &'a Blocks<'a>,
    allow: &'a dyn Fn(u32) -> bool,
    floor: f32,
    /// The window's first document.
    lo: u32,
}

impl<P: Parts> Ctx<'_, P> {
    fn window(&self, win: &mut Window, lists: &mut [List], order: &mut [usize], rest: &mut [f32], top: &mut TopK) {
        let theta = top.threshold().max(self.floor);
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
        for &l in probed {
            lists[l].scattered = false;
        }
        for &l in essential {
            lists[l].scattered = true;
            self.scatter(win, &lists[l]);
            count(2, (lists[l].end - lists[l].pos) as u64);
        }
        // Tighter than the window bounds: each probed term's block maxima per word.
        let words = WINDOW / 64;
        win.word_bounds.clear();
        win.word_bounds.resize(n_probed * words, 0.0);
        for (j, &l) in probed.iter().enumerate() {
            self.word_bounds(&lists[l], &mut win.word_bounds[j * words..(j + 1) * words]);
        }
        win.rest.resize(n_probed, 0.0);
        let mut theta = theta;
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
            // The documents that pass the bound with the buffer's sum, gathered without a
            // branch per document (about half pass on large corpora: a branch mispredicts).
            let (mut pass, mut sums) = ([0u8; 64], [0f32; 64]);
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
                count(3, 1);
            }
            for (&i, &partial) in pass[..n].iter().zip(&sums[..n]) {
                let d = self.lo + (base + i as usize) as u32;
                count(4, 1);
                if self.survives(d, partial, lists, probed, &win.rest, theta) {
                    count(5, 1);
                    let hit = Hit {
                        slot: d,
                        score: self.exact(d, lists),
                    };
                    if hit.score > self.floor && top.admits(&hit) && (self.allow)(d) {
                        top.push(hit);
                        theta = top.threshold().max(self.floor);
                    }
                }
            }
        }
    }

    /// The largest block bound of a term over each 64-document word of the window (0
    /// where none of its blocks reaches), into `out` (zeroed, one per word).
    fn word_bounds(&self, l: &List, out: &mut [f32]) {
        let mut at = l.pos;
        while at < l.end {
            let b = (l.start + at) / BLOCK;
            let blk_end = ((b + 1) * BLOCK - l.start).min(l.end);
            let bound = (l.wi * self.blocks.max[b] * self.blocks.scale).min(l.bound);
            let w0 = (l.docs[at] - self.lo) as usize / 64;
            let w1 = (l.docs[blk_end - 1] - self.lo) as usize / 64;
            for m in &mut out[w0..=w1] {
                *m = m.max(bound);
            }
            at = blk_end;
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
    /// what the remaining ones can add still reaches theta.
    fn survives(&self, d: u32, mut partial: f32, lists: &mut [List], probed: &[usize], rest: &[f32], theta: f32) -> bool {
        for (i, &l) in probed.iter().enumerate().rev() {
            if (partial + rest[i]) * SLACK < theta {
                return false;
            }
            let l = &mut lists[l];
            if l.probe_to(d) {
                partial += l.wi * self.p.part(l.start + l.probe, d);
            }
        }
        true
    }

    /// `d`'s score summed in query-term order from 0, as exhaustive search sums it. The
    /// probed lists stand at `d` or past it; the scattered ones are searched in the window.
    fn exact(&self, d: u32, lists: &[List]) -> f32 {
        let mut score = 0f32;
        for l in lists {
            let at = if l.scattered {
                l.pos + l.docs[l.pos..l.end].partition_point(|&x| x < d)
            } else {
                l.probe
            };
            if at < l.end && l.docs[at] == d {
                score += l.wi * self.p.part(l.start + at, d);
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::gallop;

    #[test]
    fn gallop_finds_the_first_document_at_or_after_the_target() {
        let docs = [1, 3, 5, 7, 9, 200, 4096, 4097];
        for from in 0..=docs.len() {
            for target in 0..4100 {
                let want = from + docs[from..].partition_point(|&d| d < target);
                assert_eq!(gallop(&docs, from, target), want, "from {from} target {target}");
            }
        }
    }
}
