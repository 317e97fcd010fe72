//! A segment's vocabulary: term strings by local id, and the lookup from a term to its id.
//! Built in memory it is a hash map over shared strings; mapped, the strings stay in the
//! file and the lookup is a binary search over the ids sorted by term (written with the
//! segment), so opening a file builds no map.
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
        /// The local ids in byte order of their terms.
        sorted: Column<u32>,
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
            Vocab::Mapped { terms, sorted } => terms.find(sorted, term.as_bytes()),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len() as u32).map(|t| self.get(t))
    }

    pub fn heap_bytes(&self) -> usize {
        match self {
            Vocab::Owned { terms, .. } => terms.iter().map(|t| t.len() * 2 + 56).sum(),
            Vocab::Mapped { terms, sorted } => terms.heap_bytes() + sorted.heap_bytes(),
        }
    }
}

/// The ids `0..n` sorted by `key(id)` (the sort permutations a segment file stores).
pub fn sorted_ids<'a>(n: usize, key: impl Fn(u32) -> &'a [u8] + Sync) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..n as u32).collect();
    ids.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
    ids
}
