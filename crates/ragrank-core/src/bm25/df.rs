//! The df of every term over a snapshot's live documents.
//!
//! A snapshot built in memory keeps the map up to date as documents come and go (`live`).
//! One read from a directory starts without it: a segment's df of a term is its posting
//! count (`offsets[t + 1] - offsets[t]`, in the file), so a query term's df is the sum over
//! the segments less what the removed documents held (`removed`, counted from their forward
//! lists alone), and the whole map is built only when something needs it (a write, `stats`,
//! a change of segments), from the same counts: never a walk over the postings.
use std::sync::{Arc, OnceLock};

use rustc_hash::{FxBuildHasher, FxHashMap};

use super::snapshot::SegRef;

/// Live documents containing each term; a term leaves it when its df reaches 0.
/// Keys are the segments' shared term strings: copying a map node on write copies pointers.
pub type DfMap = imbl::GenericHashMap<Arc<str>, u32, FxBuildHasher, imbl::shared_ptr::DefaultSharedPtr>;

#[derive(Clone, Default)]
pub(crate) struct DfState {
    pub map: DfMap,
    /// Bytes of the terms in `map`, kept up to date as terms come and go (for `stats`).
    pub term_bytes: usize,
}

#[derive(Clone)]
pub(crate) struct GlobalDf {
    built: OnceLock<DfState>,
    /// Per term, the removed documents holding it (of segments with a live document).
    removed: Arc<FxHashMap<Arc<str>, u32>>,
}

impl Default for GlobalDf {
    fn default() -> Self {
        GlobalDf {
            built: OnceLock::from(DfState::default()),
            removed: Arc::default(),
        }
    }
}

impl GlobalDf {
    /// A df to build from the segments when needed; `removed` as `removed_terms` counts it.
    pub fn deferred(removed: FxHashMap<Arc<str>, u32>) -> Self {
        GlobalDf {
            built: OnceLock::new(),
            removed: Arc::new(removed),
        }
    }

    /// The map, built now from `segs` (the snapshot's) if it was deferred.
    pub fn get(&self, segs: &[SegRef]) -> &DfState {
        self.built.get_or_init(|| {
            let mut counts: FxHashMap<Arc<str>, u32> = FxHashMap::default();
            for s in segs {
                for t in 0..s.seg.terms.len() as u32 {
                    let n = (s.seg.offsets[t as usize + 1] - s.seg.offsets[t as usize]) as u32;
                    match counts.get_mut(s.seg.terms.get(t)) {
                        Some(c) => *c += n,
                        None => {
                            counts.insert(s.seg.terms.shared(t), n);
                        }
                    }
                }
            }
            for (term, n) in self.removed.iter() {
                if let Some(c) = counts.get_mut(term) {
                    *c = c.saturating_sub(*n);
                }
            }
            counts.retain(|_, &mut n| n > 0);
            DfState {
                term_bytes: counts.keys().map(|t| t.len()).sum(),
                map: counts.into_iter().collect(),
            }
        })
    }

    pub fn get_mut(&mut self, segs: &[SegRef]) -> &mut DfState {
        self.get(segs);
        self.built.get_mut().expect("built above")
    }

    /// The df of `term` and the snapshot's copy of it, without building the map.
    pub fn lookup<'s>(&'s self, segs: &'s [SegRef], term: &str) -> Option<(&'s str, u32)> {
        if let Some(state) = self.built.get() {
            return state.map.get_key_value(term).map(|(t, &n)| (&**t, n));
        }
        let mut df = 0u32;
        let mut key = None;
        for s in segs {
            if let Some(t) = s.seg.term(term) {
                df += (s.seg.offsets[t as usize + 1] - s.seg.offsets[t as usize]) as u32;
                key.get_or_insert(s.seg.terms.get(t));
            }
        }
        df = df.saturating_sub(self.removed.get(term).copied().unwrap_or(0));
        key.filter(|_| df > 0).map(|k| (k, df))
    }
}

/// Per term, how many of `s`'s removed documents hold it, added to `out`.
pub(crate) fn removed_terms(s: &SegRef, out: &mut FxHashMap<Arc<str>, u32>) {
    let mut local = vec![0u32; s.seg.terms.len()];
    for d in s.deleted.added_since(&Default::default()) {
        s.seg.doc_terms(d).iter().for_each(|&(t, _)| local[t as usize] += 1);
    }
    for (t, &n) in local.iter().enumerate().filter(|(_, &n)| n > 0) {
        *out.entry(s.seg.terms.shared(t as u32)).or_insert(0) += n;
    }
}
