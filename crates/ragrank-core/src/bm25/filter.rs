//! Restricting a search to some documents: by id, and by metadata through each segment's
//! field index (or, for fields it does not index, a test of each candidate's metadata).
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rustc_hash::FxHashSet;

use super::segment::DocRef;
use crate::filter::MetaFilter;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Allowed document slots of the snapshot searched (`Snapshot::slots_of`), when restricted by id.
    pub slots: Option<FxHashSet<u32>>,
    /// The compiled `meta` filter (see `crate::filter`), when restricted by metadata.
    pub meta: Option<MetaFilter>,
}

impl Filter {
    pub fn allows(&self, slot: u32, doc: &DocRef) -> bool {
        if let Some(slots) = &self.slots {
            if !slots.contains(&slot) {
                return false;
            }
        }
        self.meta.as_ref().is_none_or(|f| f.matches(doc.meta.as_deref()))
    }
}

/// Field names kept in `FilterUse::scanned_fields` (a bound on what a stat may hold).
const SCANNED_FIELDS_KEPT: usize = 64;

/// How an index's metadata filters were answered, for `stats()`.
#[derive(Debug, Default)]
pub(crate) struct FilterUse {
    filtered: AtomicU64,
    scanned: AtomicU64,
    scanned_fields: Mutex<BTreeSet<String>>,
}

impl FilterUse {
    /// Counts one filtered search; `unindexed` are the fields it read that a field index
    /// did not cover (empty when it was answered by field indexes alone).
    pub(crate) fn record(&self, unindexed: &[&str]) {
        self.filtered.fetch_add(1, Ordering::Relaxed);
        if unindexed.is_empty() {
            return;
        }
        self.scanned.fetch_add(1, Ordering::Relaxed);
        // Never waits: a name missed under contention comes again with the next such search.
        if let Ok(mut names) = self.scanned_fields.try_lock() {
            for f in unindexed {
                if names.len() < SCANNED_FIELDS_KEPT && !names.contains(*f) {
                    names.insert(f.to_string());
                }
            }
        }
    }

    /// (filtered searches, of which scanned, the fields they scanned for).
    pub(crate) fn report(&self) -> (u64, u64, Vec<String>) {
        let names = self
            .scanned_fields
            .lock()
            .map(|n| n.iter().cloned().collect())
            .unwrap_or_default();
        (
            self.filtered.load(Ordering::Relaxed),
            self.scanned.load(Ordering::Relaxed),
            names,
        )
    }
}
