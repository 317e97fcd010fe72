//! Which rows a filtered search may return, decided once per call before the scan, so a
//! filter never shrinks a top-k: rows outside it are never offered to the selection.
use ragrank_core::filter::MetaFilter;
use rayon::prelude::*;

use crate::fields::Fields;

/// Rows (as 64-row words) evaluated per parallel task when building a mask.
const MASK_WORDS_PER_TASK: usize = 64;

/// One bit per row: set when the row may be returned.
#[derive(Debug, Clone)]
pub struct RowMask {
    words: Vec<u64>,
    count: usize,
}

impl RowMask {
    /// Rows `0..n` that pass `filter` (evaluated in parallel, 64 rows per word).
    pub fn of_filter(n: usize, fields: &Fields, filter: &MetaFilter) -> RowMask {
        let mut words = vec![0u64; n.div_ceil(64)];
        if !fields.has_metas() {
            // Every row has no metadata: one evaluation decides them all.
            if filter.matches(None) {
                words.iter_mut().for_each(|w| *w = u64::MAX);
                if !n.is_multiple_of(64) {
                    *words.last_mut().expect("n > 0") = (1u64 << (n % 64)) - 1;
                }
            }
        } else {
            words
                .par_iter_mut()
                .with_min_len(MASK_WORDS_PER_TASK)
                .enumerate()
                .for_each(|(w, word)| {
                    for b in 0..64.min(n - w * 64) {
                        let slot = (w * 64 + b) as u32;
                        *word |= u64::from(filter.matches(fields.meta(slot))) << b;
                    }
                });
        }
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        RowMask { words, count }
    }

    /// A mask of sorted slots below `n`.
    pub fn of_slots(n: usize, slots: &[u32]) -> RowMask {
        let mut words = vec![0u64; n.div_ceil(64)];
        for &s in slots {
            words[s as usize / 64] |= 1 << (s % 64);
        }
        RowMask {
            words,
            count: slots.len(),
        }
    }

    /// How many rows are set.
    pub fn count(&self) -> usize {
        self.count
    }

    #[inline]
    pub fn contains(&self, slot: usize) -> bool {
        self.words[slot / 64] >> (slot % 64) & 1 == 1
    }

    /// Bits of rows `start..start + n` (n <= 64), row `start` in bit 0.
    #[inline]
    pub fn bits(&self, start: usize, n: usize) -> u64 {
        debug_assert!(n <= 64 && n > 0);
        let (w, b) = (start / 64, start % 64);
        let mut bits = self.words[w] >> b;
        if b != 0 && b + n > 64 {
            bits |= self.words[w + 1] << (64 - b);
        }
        if n < 64 {
            bits &= (1u64 << n) - 1;
        }
        bits
    }

    /// Whether any row of `start..end` is set.
    pub fn any(&self, start: usize, end: usize) -> bool {
        (start..end).step_by(64).any(|s| self.bits(s, 64.min(end - s)) != 0)
    }
}

/// The rows a scan visits.
#[derive(Debug, Clone)]
pub enum Selection {
    All,
    /// Sorted, unique slots (a filter by id: usually few rows, scored one by one).
    Only(Vec<u32>),
    /// A metadata filter's rows.
    Mask(RowMask),
}

impl Selection {
    /// From an id filter (sorted, unique slots) and a metadata filter, either optional.
    pub fn new(n: usize, slots: Option<&[u32]>, meta: Option<&MetaFilter>, fields: &Fields) -> Selection {
        match (slots, meta) {
            (None, None) => Selection::All,
            (Some(s), None) => Selection::Only(s.to_vec()),
            (Some(s), Some(f)) => Selection::Only(s.iter().copied().filter(|&x| f.matches(fields.meta(x))).collect()),
            (None, Some(f)) => Selection::Mask(RowMask::of_filter(n, fields, f)),
        }
    }

    /// How many rows may be returned.
    pub fn count(&self, n: usize) -> usize {
        match self {
            Selection::All => n,
            Selection::Only(s) => s.len(),
            Selection::Mask(m) => m.count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_read_across_words_and_stop_at_n() {
        let slots: Vec<u32> = (0..200).filter(|i| i % 3 == 0).collect();
        let m = RowMask::of_slots(200, &slots);
        assert_eq!(m.count(), slots.len());
        for start in [0, 1, 60, 63, 64, 100, 150] {
            for n in [1, 5, 40, 64] {
                if start + n > 200 {
                    continue;
                }
                let bits = m.bits(start, n);
                for i in 0..n {
                    assert_eq!(bits >> i & 1 == 1, (start + i) % 3 == 0, "start {start} n {n} i {i}");
                }
                assert!(n == 64 || bits >> n == 0, "no bits past n");
            }
        }
        assert!(m.any(1, 4) && !m.any(1, 3) && m.any(190, 200));
    }
}
