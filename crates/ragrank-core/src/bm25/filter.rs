//! Restricting a search to some documents, checked inside the scan.
use rustc_hash::FxHashSet;

use super::segment::Doc;
use crate::filter::MetaFilter;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Allowed document slots of the snapshot searched (`Snapshot::slots_of`), when restricted by id.
    pub slots: Option<FxHashSet<u32>>,
    /// The compiled `meta` filter (see `crate::filter`), when restricted by metadata.
    pub meta: Option<MetaFilter>,
}

impl Filter {
    pub fn allows(&self, slot: u32, doc: &Doc) -> bool {
        if let Some(slots) = &self.slots {
            if !slots.contains(&slot) {
                return false;
            }
        }
        self.meta.as_ref().is_none_or(|f| f.matches(doc.meta.as_ref()))
    }
}
