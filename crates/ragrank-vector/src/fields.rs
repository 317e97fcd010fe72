//! Optional metadata and text per row, kept beside the rows in slot order. A column stays
//! empty (no memory per row) until a row with a value is added.
use serde_json::Value;

#[derive(Debug, Default, Clone)]
pub struct Fields {
    /// Empty, or one entry per row.
    pub(crate) metas: Vec<Option<Value>>,
    /// Empty, or one entry per row.
    pub(crate) texts: Vec<Option<Box<str>>>,
}

/// Appends `v` for row `rows_before`, filling the column with `None` the first time a value comes.
fn push_lazy<T>(col: &mut Vec<Option<T>>, rows_before: usize, v: Option<T>) {
    if col.is_empty() {
        if v.is_none() {
            return;
        }
        col.resize_with(rows_before, || None);
    }
    col.push(v);
}

impl Fields {
    pub fn meta(&self, slot: u32) -> Option<&Value> {
        self.metas.get(slot as usize).and_then(Option::as_ref)
    }

    pub fn text(&self, slot: u32) -> Option<&str> {
        self.texts.get(slot as usize).and_then(|t| t.as_deref())
    }

    /// Whether any row has metadata.
    pub fn has_metas(&self) -> bool {
        !self.metas.is_empty()
    }

    /// Whether any row has text.
    pub fn has_texts(&self) -> bool {
        !self.texts.is_empty()
    }

    pub(crate) fn push(&mut self, rows_before: usize, meta: Option<Value>, text: Option<Box<str>>) {
        push_lazy(&mut self.metas, rows_before, meta);
        push_lazy(&mut self.texts, rows_before, text);
    }
}
