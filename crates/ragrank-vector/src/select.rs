//! Which rows a filtered search may return, decided once per call before the scan, so a
//! filter never shrinks a top-k: rows outside it are never offered to the selection.
use std::sync::{Arc, Mutex};

use ragrank_core::fields::DocSet;
use ragrank_core::filter::MetaFilter;
use rayon::prelude::*;

use crate::fields::Fields;

/// Rows (as 64-row words) evaluated per parallel task when building a mask.
const MASK_WORDS_PER_TASK: usize = 64;
/// Masks of the most recent distinct filters kept per chunk (n / 8 bytes each).
const CACHED_MASKS: usize = 8;

/// One bit per row: set when the row may be returned.
#[derive(Debug, Clone)]
pub struct RowMask {
    words: Vec<u64>,
    count: usize,
}

impl RowMask {
    /// Rows `0..n` that pass `filter` (evaluated in parallel, 64 rows per word).
    pub fn of_filter(n: usize, fields: &Fields, filter: &MetaFilter) -> RowMask {
        RowMask::of_filter_from(0, n, fields, filter)
    }

    /// Of rows `start..start + n`, those that pass `filter`: row `start + i` in bit `i`.
    pub fn of_filter_from(start: usize, n: usize, fields: &Fields, filter: &MetaFilter) -> RowMask {
        let mut words = vec![0u64; n.div_ceil(64)];
        if !fields.has_metas() {
            // Every row has no metadata: one evaluation decides them all.
            if filter.matches(None) {
                return RowMask::full(n);
            }
        } else {
            words
                .par_iter_mut()
                .with_min_len(MASK_WORDS_PER_TASK)
                .enumerate()
                .for_each(|(w, word)| {
                    for b in 0..64.min(n - w * 64) {
                        let slot = (start + w * 64 + b) as u32;
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

    /// Every row of `0..n` set.
    pub fn full(n: usize) -> RowMask {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            *words.last_mut().expect("n > 0") = (1u64 << (n % 64)) - 1;
        }
        RowMask { words, count: n }
    }

    /// The mask's words (row `i` in bit `i % 64` of word `i / 64`).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The mask of `n` rows held by `words` (no bits past `n`: the caller checked).
    pub fn from_words(words: Vec<u64>) -> RowMask {
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        RowMask { words, count }
    }

    /// Unsets `slot`; returns whether it was set.
    pub fn unset(&mut self, slot: usize) -> bool {
        let (w, b) = (slot / 64, 1u64 << (slot % 64));
        let was = self.words[w] & b != 0;
        self.words[w] &= !b;
        self.count -= usize::from(was);
        was
    }

    /// The rows set in both masks (of the same length).
    pub fn and(&self, other: &RowMask) -> RowMask {
        let words: Vec<u64> = self.words.iter().zip(&other.words).map(|(a, b)| a & b).collect();
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        RowMask { words, count }
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

/// The masks of recent metadata filters: evaluating a filter costs a walk of every row's
/// metadata (pointer chasing, 40-180 ns a row), while a server repeats the same few
/// filters (one per tenant). One cache per chunk, whose rows never change: an add or a
/// remove never invalidates it (tombstones are applied to the mask per search).
#[derive(Debug, Default)]
pub struct MaskCache(Mutex<Vec<(String, Arc<RowMask>)>>);

impl MaskCache {
    /// The mask of `filter` over `0..n`, built at most once between changes.
    pub fn get(&self, n: usize, fields: &Fields, filter: &MetaFilter) -> Arc<RowMask> {
        // The compiled filter's Debug form is canonical: object keys come sorted.
        let key = format!("{filter:?}");
        let lock = || self.0.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut cache = lock();
            if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
                // Most recently used last.
                let hit = cache.remove(i);
                let mask = hit.1.clone();
                cache.push(hit);
                return mask;
            }
        }
        // Built outside the lock, so other searches are not held up (two may build the same).
        let mask = Arc::new(RowMask::of_filter(n, fields, filter));
        let mut cache = lock();
        if !cache.iter().any(|(k, _)| *k == key) {
            if cache.len() == CACHED_MASKS {
                cache.remove(0);
            }
            cache.push((key, mask.clone()));
        }
        mask
    }
}

/// The rows a scan visits.
#[derive(Debug, Clone)]
pub enum Selection {
    All,
    /// Sorted, unique slots (a filter by id: usually few rows, scored one by one).
    Only(Vec<u32>),
    /// A metadata filter's rows.
    Mask(Arc<RowMask>),
}

/// A filter whose rows are fewer than one in this many is scored row by row (`Only`) rather
/// than scanned through a mask.
const ONLY_BELOW: u64 = 64;

impl Selection {
    /// The live rows (`alive` None: all) of a field index's answer over rows `0..n`.
    pub fn of_rows(n: usize, rows: &DocSet, alive: Option<&RowMask>) -> Selection {
        let live = |r: &u32| alive.is_none_or(|m| m.contains(*r as usize));
        if rows.len() * ONLY_BELOW < n as u64 {
            return Selection::Only(rows.bitmap().iter().filter(live).collect());
        }
        let mut words = match rows.words() {
            Some(w) => w.to_vec(),
            None => {
                let mut words = vec![0u64; n.div_ceil(64)];
                for r in rows.bitmap() {
                    words[r as usize / 64] |= 1 << (r % 64);
                }
                words
            }
        };
        if let Some(alive) = alive {
            words.iter_mut().zip(&alive.words).for_each(|(w, a)| *w &= a);
        }
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        Selection::Mask(Arc::new(RowMask { words, count }))
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
    fn the_cache_keeps_recent_filters() {
        let mut fields = Fields::default();
        for i in 0..100 {
            fields.push(i, Some(serde_json::json!({ "k": i % 4 })), None);
        }
        let f = |k: usize| MetaFilter::compile(&serde_json::json!({ "k": k }), "f").unwrap();
        let cache = MaskCache::default();
        let first = cache.get(100, &fields, &f(1));
        assert_eq!(first.count(), 25);
        assert!(Arc::ptr_eq(&first, &cache.get(100, &fields, &f(1))));
        for k in 0..CACHED_MASKS + 1 {
            cache.get(100, &fields, &f(k + 10));
        }
        assert!(!Arc::ptr_eq(&first, &cache.get(100, &fields, &f(1))), "evicted");
    }

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
