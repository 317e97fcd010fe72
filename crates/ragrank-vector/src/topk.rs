//! Bounded top-k selection: a min-heap of the k best hits, merged across threads.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A scored row. Ranks best first: higher score, then the earlier slot (earlier added),
/// so ties are deterministic.
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
    /// Score of the worst kept hit once full: the cheap first test of every offer.
    floor: f32,
}

impl TopK {
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
            floor: f32::NEG_INFINITY,
        }
    }

    /// Offers a hit. Most offers of a scan fail the first comparison.
    #[inline]
    pub fn push(&mut self, slot: u32, score: f32) {
        if self.heap.len() < self.k {
            self.heap.push(Worst(Hit { slot, score }));
            if self.heap.len() == self.k {
                self.floor = self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score);
            }
        } else if score >= self.floor {
            self.replace_worst(Hit { slot, score });
        }
    }

    /// Offers the consecutive slots `first..first + scores.len()`. Once the heap is full,
    /// a group of 16 scores is skipped by one vectorised test when none reaches the floor.
    pub fn push_run(&mut self, first: u32, scores: &[f32]) {
        for (g, group) in scores.chunks(16).enumerate() {
            let floor = self.floor;
            let full = self.heap.len() >= self.k;
            if full && !group.iter().fold(false, |any, &s| any | (s >= floor)) {
                continue;
            }
            let at = first + (g * 16) as u32;
            for (i, &s) in group.iter().enumerate() {
                self.push(at + i as u32, s);
            }
        }
    }

    #[cold]
    fn replace_worst(&mut self, hit: Hit) {
        let Some(mut worst) = self.heap.peek_mut() else {
            return;
        };
        if hit.rank_cmp(&worst.0) == Ordering::Less {
            *worst = Worst(hit);
        }
        drop(worst);
        self.floor = self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score);
    }

    /// Folds another partial result (e.g. another thread's share of the rows) into this one.
    pub fn merge(mut self, other: TopK) -> TopK {
        for w in other.heap {
            self.push(w.0.slot, w.0.score);
        }
        self
    }

    /// The kept hits, best first.
    pub fn into_sorted(self) -> Vec<Hit> {
        let mut v: Vec<Hit> = self.heap.into_iter().map(|w| w.0).collect();
        v.sort_unstable_by(Hit::rank_cmp);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_k_best_with_earlier_slot_winning_ties() {
        let mut t = TopK::new(3);
        for (slot, score) in [(5, 1.0), (1, 2.0), (2, 2.0), (9, 0.5), (0, 1.0), (3, 3.0), (4, 2.0)] {
            t.push(slot, score);
        }
        let got: Vec<u32> = t.into_sorted().iter().map(|h| h.slot).collect();
        assert_eq!(got, [3, 1, 2]);
    }

    #[test]
    fn merge_equals_one_heap_over_all() {
        let hits: Vec<(u32, f32)> = (0..200).map(|i| (i, ((i * 37) % 23) as f32)).collect();
        let mut all = TopK::new(10);
        let (mut a, mut b) = (TopK::new(10), TopK::new(10));
        for &(s, x) in &hits {
            all.push(s, x);
            if s % 3 == 0 {
                a.push(s, x)
            } else {
                b.push(s, x)
            }
        }
        assert_eq!(b.merge(a).into_sorted(), all.into_sorted());
    }

    #[test]
    fn push_run_equals_pushing_one_by_one() {
        for k in [0, 1, 5, 40] {
            let scores: Vec<f32> = (0..203).map(|i| ((i * 7919) % 101) as f32 / 7.0).collect();
            let (mut one, mut run) = (TopK::new(k), TopK::new(k));
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
    fn zero_k_keeps_nothing() {
        let mut t = TopK::new(0);
        t.push(1, 1.0);
        assert!(t.into_sorted().is_empty());
    }
}
