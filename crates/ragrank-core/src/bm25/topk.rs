//! Bounded top-k selection: a min-heap of the k best hits, never a full sort.
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
}
