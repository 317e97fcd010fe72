//! A segment's vocabulary: term strings by local id, and the lookup from a term to its id.
//! Built in memory it is a hash map over shared strings; mapped, the strings stay in the
//! file and so does the lookup: a hash table of term ids written with the segment
//! (`hash_slots`), so opening a file builds no map and a query term costs one probe or two,
//! as the in-memory map does (a binary search over 10^5 terms cost a mapped search ~15%).
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::column::{Column, Strings};

pub enum Vocab {
    Owned {
        /// Shared with the snapshots' df maps and the segments merged from this one.
        terms: Vec<Arc<str>>,
        ids: FxHashMap<Arc<str>, u32>,
    },
    Mapped {
        terms: Strings,
        /// `hash_slots` of the terms.
        slots: Column<u32>,
    },
}

impl Vocab {
    pub fn len(&self) -> usize {
        match self {
            Vocab::Owned { terms, .. } => terms.len(),
            Vocab::Mapped { terms, .. } => terms.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Term `t` (empty if a mapped file holds invalid UTF-8 there).
    pub fn get(&self, t: u32) -> &str {
        match self {
            Vocab::Owned { terms, .. } => &terms[t as usize],
            Vocab::Mapped { terms, .. } => terms.str(t as usize).unwrap_or_default(),
        }
    }

    /// Term `t` as a shared string (allocated once per call for a mapped segment).
    pub fn shared(&self, t: u32) -> Arc<str> {
        match self {
            Vocab::Owned { terms, .. } => terms[t as usize].clone(),
            Vocab::Mapped { .. } => self.get(t).into(),
        }
    }

    pub fn lookup(&self, term: &str) -> Option<u32> {
        match self {
            Vocab::Owned { ids, .. } => ids.get(term).copied(),
            Vocab::Mapped { terms, slots } => probe(slots, term.as_bytes(), |t| terms.get(t as usize)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len() as u32).map(|t| self.get(t))
    }

    pub fn heap_bytes(&self) -> usize {
        match self {
            Vocab::Owned { terms, .. } => terms.iter().map(|t| t.len() * 2 + 56).sum(),
            Vocab::Mapped { terms, slots } => terms.heap_bytes() + slots.heap_bytes(),
        }
    }
}

/// The ids `0..n` sorted by `key(id)` (the sort permutations a segment file stores).
pub fn sorted_ids<'a>(n: usize, key: impl Fn(u32) -> &'a [u8] + Sync) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..n as u32).collect();
    ids.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
    ids
}

/// A free slot of `hash_slots`.
const EMPTY: u32 = u32::MAX;

/// FNV-1a, 64 bits: part of the file format (a hash of the standard library or of a crate
/// may change between versions; this one must not).
pub fn term_hash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
        (h ^ c as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The slots of an open-addressing table of the ids `0..n` keyed by `key(id)` (linear
/// probing, a power of two at least twice `n` slots, `EMPTY` where free).
pub fn hash_slots<'a>(n: usize, key: impl Fn(u32) -> &'a [u8]) -> Vec<u32> {
    let mut slots = vec![EMPTY; (2 * n).next_power_of_two().max(2)];
    let mask = slots.len() - 1;
    for id in 0..n as u32 {
        let mut i = term_hash(key(id)) as usize & mask;
        while slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        slots[i] = id;
    }
    slots
}

/// The id whose key is `wanted` in `slots` (`hash_slots`). Stops after one pass over the
/// slots, so a damaged table cannot loop.
pub fn probe<'a>(slots: &[u32], wanted: &[u8], key: impl Fn(u32) -> &'a [u8]) -> Option<u32> {
    if !slots.len().is_power_of_two() {
        return None;
    }
    let mask = slots.len() - 1;
    let mut i = term_hash(wanted) as usize & mask;
    for _ in 0..slots.len() {
        match slots[i] {
            EMPTY => return None,
            id if key(id) == wanted => return Some(id),
            _ => i = (i + 1) & mask,
        }
    }
    None
}
