//! Restricting a search to some documents, checked inside the scan.
use rustc_hash::FxHashSet;

use super::store::Doc;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Allowed document slots, when restricted by id.
    pub slots: Option<FxHashSet<u32>>,
    /// Every `(field, values)` must hold: `meta[field]` equals one of `values`.
    pub meta: Vec<(String, Vec<serde_json::Value>)>,
}

impl Filter {
    pub fn allows(&self, slot: u32, doc: &Doc) -> bool {
        if let Some(slots) = &self.slots {
            if !slots.contains(&slot) {
                return false;
            }
        }
        self.meta.iter().all(|(field, values)| {
            let v = doc.meta.as_ref().and_then(|m| m.get(field));
            match v {
                Some(v) => values.iter().any(|want| want == v),
                None => false,
            }
        })
    }
}
