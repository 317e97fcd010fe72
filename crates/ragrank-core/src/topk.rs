//! Top-k selection shared by BM25 and vector search, never a full sort.
//!
//! - `TopK`: a bounded min-heap that always knows the exact k-th score, for searches that
//!   prune with it at every step (MaxScore).
//! - `KBest`: a buffer cut back by partial selection, for scans that offer every slot;
//!   fewer comparisons per candidate than a heap, and runs of scores are tested 16 at a time.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A scored document slot. Orders best first: higher score, then earlier slot
/// (earlier insertion), so ties are deterministic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub slot: u32,
    pub score: f32,
}

impl Hit {
    /// `Ordering::Less` when `self` ranks before `other`.
    pub fn rank_cmp(&self, other: &Hit) -> Ordering {
        other.score.total_cmp(&self.score).then(self.slot.cmp(&other.slot))
    }
}

/// Heap entry whose maximum is the worst kept hit.
#[derive(Clone, Copy, PartialEq)]
struct Worst(Hit);

impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.rank_cmp(&other.0)
    }
}

pub struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
        }
    }

    pub fn is_full(&self) -> bool {
        self.heap.len() >= self.k
    }

    /// The score a new hit must beat once the heap is full (ties lose to earlier slots,
    /// and slots are offered in increasing order by the pruned search).
    pub fn threshold(&self) -> f32 {
        if self.is_full() {
            self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score)
        } else {
            f32::NEG_INFINITY
        }
    }

    /// Whether `hit` would enter the heap.
    #[inline]
    pub fn admits(&self, hit: &Hit) -> bool {
        if self.k == 0 {
            return false;
        }
        match self.heap.peek() {
            Some(w) if self.is_full() => hit.rank_cmp(&w.0) == Ordering::Less,
            _ => true,
        }
    }

    #[inline]
    pub fn push(&mut self, hit: Hit) {
        if !self.admits(&hit) {
            return;
        }
        if self.is_full() {
            self.heap.pop();
        }
        self.heap.push(Worst(hit));
    }

    /// The kept hits, best first.
    pub fn into_sorted(self) -> Vec<Hit> {
        let mut v: Vec<Hit> = self.heap.into_iter().map(|w| w.0).collect();
        v.sort_unstable_by(Hit::rank_cmp);
        v
    }
}

/// Top-k for a scan: candidates at or above the floor gather in a buffer of a few k; a
/// full buffer is cut back to its k best by partial selection, which raises the floor.
pub struct KBest {
    k: usize,
    cap: usize,
    buf: Vec<Hit>,
    /// The k-th best score at the last cut: nothing below it can still enter.
    floor: f32,
}

impl KBest {
    pub fn new(k: usize) -> Self {
        let cap = (4 * k).max(64);
        KBest {
            k,
            cap,
            buf: Vec::with_capacity(cap.min(4096)),
            floor: if k == 0 { f32::INFINITY } else { f32::NEG_INFINITY },
        }
    }

    /// The score a candidate must reach to be kept (ties are kept: ranks decide them).
    #[inline]
    pub fn floor(&self) -> f32 {
        self.floor
    }

    #[inline]
    pub fn push(&mut self, slot: u32, score: f32) {
        if score >= self.floor {
            self.buf.push(Hit { slot, score });
            if self.buf.len() >= self.cap {
                self.cut();
            }
        }
    }

    /// Offers the consecutive slots `first..first + scores.len()`. Once the floor has risen
    /// most runs hold no candidate, and one vectorised test against the floor skips them;
    /// otherwise a group of 16 is compared with the floor at once and only the scores that
    /// reach it are pushed.
    pub fn push_run(&mut self, first: u32, scores: &[f32]) {
        // A comparison OR-folded over the run vectorises on the baseline ISA; a maximum does not
        // (f32::max's NaN rule keeps it scalar), and this test runs on every block of a scan.
        let floor = self.floor;
        if !scores.iter().fold(false, |any, &s| any | (s >= floor)) {
            return;
        }
        let mut groups = scores.chunks_exact(16);
        let mut at = first;
        for group in &mut groups {
            let group: &[f32; 16] = group.try_into().expect("chunks of 16");
            let floor = self.floor;
            let mut mask = 0u32;
            for (i, &s) in group.iter().enumerate() {
                mask |= u32::from(s >= floor) << i;
            }
            while mask != 0 {
                let i = mask.trailing_zeros();
                self.push(at + i, group[i as usize]);
                mask &= mask - 1;
            }
            at += 16;
        }
        for (i, &s) in groups.remainder().iter().enumerate() {
            self.push(at + i as u32, s);
        }
    }

    #[cold]
    fn cut(&mut self) {
        let k = self.k;
        if k == 0 {
            self.buf.clear();
            return;
        }
        self.buf.select_nth_unstable_by(k - 1, Hit::rank_cmp);
        self.buf.truncate(k);
        self.floor = self.buf[k - 1].score;
    }

    /// Folds another partial result (e.g. another thread's share of the rows) into this one.
    pub fn merge(mut self, other: KBest) -> KBest {
        for h in other.buf {
            self.push(h.slot, h.score);
        }
        self
    }

    /// The kept hits, best first.
    pub fn into_sorted(mut self) -> Vec<Hit> {
        // Cut to k first: sorting only the k kept is cheaper than sorting the whole buffer.
        if self.buf.len() > self.k {
            self.cut();
        }
        self.buf.sort_unstable_by(Hit::rank_cmp);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_k_best_with_slot_tie_order() {
        let mut t = TopK::new(3);
        for (slot, score) in [(5, 1.0), (1, 2.0), (2, 2.0), (9, 0.5), (0, 1.0), (3, 3.0)] {
            t.push(Hit { slot, score });
        }
        let got: Vec<u32> = t.into_sorted().iter().map(|h| h.slot).collect();
        assert_eq!(got, [3, 1, 2]);
    }

    #[test]
    fn zero_k_keeps_nothing() {
        let mut t = TopK::new(0);
        t.push(Hit { slot: 1, score: 1.0 });
        assert!(t.into_sorted().is_empty());
    }

    /// The k best by a full sort: what every selection must return.
    fn sorted_prefix(hits: &[(u32, f32)], k: usize) -> Vec<Hit> {
        let mut all: Vec<Hit> = hits.iter().map(|&(slot, score)| Hit { slot, score }).collect();
        all.sort_by(Hit::rank_cmp);
        all.truncate(k);
        all
    }

    /// Scores with many ties, offered in a shuffled slot order.
    fn tied_hits(n: u32) -> Vec<(u32, f32)> {
        (0..n).map(|i| ((i * 7919) % n, ((i * 37) % 23) as f32 / 3.0)).collect()
    }

    #[test]
    fn kbest_equals_a_full_sort_for_every_k() {
        let hits = tied_hits(997);
        for k in [0, 1, 2, 10, 15, 16, 17, 63, 64, 65, 300, 997, 2000] {
            let mut best = KBest::new(k);
            for &(slot, score) in &hits {
                best.push(slot, score);
            }
            assert_eq!(best.into_sorted(), sorted_prefix(&hits, k), "k={k}");
        }
    }

    #[test]
    fn kbest_push_run_equals_pushing_one_by_one() {
        for k in [0, 1, 5, 40] {
            let scores: Vec<f32> = (0..203).map(|i| ((i * 7919) % 101) as f32 / 7.0).collect();
            let (mut one, mut run) = (KBest::new(k), KBest::new(k));
            for (i, &x) in scores.iter().enumerate() {
                one.push(1000 + i as u32, x);
            }
            for (c, chunk) in scores.chunks(37).enumerate() {
                run.push_run(1000 + (c * 37) as u32, chunk);
            }
            assert_eq!(run.into_sorted(), one.into_sorted(), "k={k}");
        }
    }

    #[test]
    fn kbest_merge_equals_one_selection_over_all() {
        let hits = tied_hits(500);
        for k in [1, 10, 100] {
            let (mut all, mut a, mut b) = (KBest::new(k), KBest::new(k), KBest::new(k));
            for &(s, x) in &hits {
                all.push(s, x);
                if s % 3 == 0 {
                    a.push(s, x)
                } else {
                    b.push(s, x)
                }
            }
            assert_eq!(b.merge(a).into_sorted(), all.into_sorted(), "k={k}");
        }
    }

    #[test]
    fn kbest_floor_rises_only_after_a_cut() {
        let mut best = KBest::new(2);
        assert_eq!(best.floor(), f32::NEG_INFINITY);
        for i in 0..64 {
            best.push(i, i as f32);
        }
        assert_eq!(best.floor(), 62.0);
        best.push(100, 1.0); // below the floor: ignored
        assert_eq!(
            best.into_sorted(),
            [Hit { slot: 63, score: 63.0 }, Hit { slot: 62, score: 62.0 }]
        );
    }
}
