//! A segment's stored documents: shared `Doc`s for a segment built in memory, or the id,
//! text and metadata areas of a mapped segment file, read on access (a text is borrowed
//! from the map, metadata is parsed when asked for). Opening a file therefore allocates
//! nothing per document.
use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::column::{Column, Strings};

/// One stored document, as a segment built in memory holds it.
#[derive(Debug)]
pub struct Doc {
    /// Shared with the id maps of the segments holding it.
    pub id: Arc<str>,
    /// Number of tokens (the BM25 document length).
    pub len: u32,
    pub text: Option<Box<str>>,
    pub meta: Option<serde_json::Value>,
    /// The mapped document this one was copied from by a merge: it stays the same document.
    origin: Option<DocKey>,
}

impl Doc {
    pub fn new(id: Arc<str>, len: u32, text: Option<Box<str>>, meta: Option<Value>) -> Doc {
        Doc {
            id,
            len,
            text,
            meta,
            origin: None,
        }
    }
}

/// One stored document as read: borrowed from the segment (or its map), metadata parsed
/// from a mapped segment.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRef<'a> {
    pub id: &'a str,
    pub len: u32,
    pub text: Option<&'a str>,
    pub meta: Option<Cow<'a, Value>>,
}

/// What makes a stored document the same one across snapshots (merges included), so a
/// removal decided on an older snapshot can tell it from one added or replaced since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocKey {
    /// A `Doc` in memory, by address (kept alive by the `Matched` holding it).
    Heap(usize),
    /// A document of a mapped segment file: its number and local id.
    Stored { segment: u64, local: u32 },
}

/// A document `Snapshot::matching` found.
#[derive(Debug, Clone)]
pub struct Matched {
    pub id: Arc<str>,
    pub(crate) key: DocKey,
    /// Holds a heap document so its address is not reused while this lives.
    _hold: Option<Arc<Doc>>,
}

/// Flag bits of a stored document (`flags` section).
pub const HAS_TEXT: u8 = 1;
pub const HAS_META: u8 = 2;

/// The documents of a mapped segment file.
pub struct StoredDocs {
    pub lens: Column<u32>,
    pub flags: Column<u8>,
    pub ids: Strings,
    pub texts: Strings,
    pub metas: Strings,
    /// The locals in byte order of their ids: the id lookup is a binary search, not a
    /// hash map built at open.
    pub by_id: Column<u32>,
    /// The segment's file number (`DocKey::Stored`).
    pub segment: u64,
}

pub enum Docs {
    Owned {
        docs: Vec<Arc<Doc>>,
        local_of: FxHashMap<Arc<str>, u32>,
    },
    Mapped(Box<StoredDocs>),
}

impl Docs {
    pub fn len(&self) -> usize {
        match self {
            Docs::Owned { docs, .. } => docs.len(),
            Docs::Mapped(m) => m.flags.len(),
        }
    }

    pub fn local_of(&self, id: &str) -> Option<u32> {
        match self {
            Docs::Owned { local_of, .. } => local_of.get(id).copied(),
            Docs::Mapped(m) => m.ids.find(&m.by_id, id.as_bytes()),
        }
    }

    pub fn get(&self, local: u32) -> DocRef<'_> {
        let l = local as usize;
        match self {
            Docs::Owned { docs, .. } => {
                let d = &docs[l];
                DocRef {
                    id: &d.id,
                    len: d.len,
                    text: d.text.as_deref(),
                    meta: d.meta.as_ref().map(Cow::Borrowed),
                }
            }
            Docs::Mapped(m) => DocRef {
                id: m.ids.str(l).unwrap_or_default(),
                len: m.lens[l],
                text: m.text(l),
                meta: m.meta(l).map(Cow::Owned),
            },
        }
    }

    pub fn id(&self, local: u32) -> &str {
        match self {
            Docs::Owned { docs, .. } => &docs[local as usize].id,
            Docs::Mapped(m) => m.ids.str(local as usize).unwrap_or_default(),
        }
    }

    /// The document's metadata, parsed if the segment is mapped.
    pub fn meta(&self, local: u32) -> Option<Cow<'_, Value>> {
        match self {
            Docs::Owned { docs, .. } => docs[local as usize].meta.as_ref().map(Cow::Borrowed),
            Docs::Mapped(m) => m.meta(local as usize).map(Cow::Owned),
        }
    }

    pub fn has_fields(&self) -> bool {
        match self {
            Docs::Owned { docs, .. } => docs.iter().any(|d| d.text.is_some() || d.meta.is_some()),
            Docs::Mapped(m) => m.flags.iter().any(|&f| f & (HAS_TEXT | HAS_META) != 0),
        }
    }

    pub fn key(&self, local: u32) -> DocKey {
        match self {
            Docs::Owned { docs, .. } => {
                let d = &docs[local as usize];
                d.origin.unwrap_or(DocKey::Heap(Arc::as_ptr(d) as usize))
            }
            Docs::Mapped(m) => DocKey::Stored {
                segment: m.segment,
                local,
            },
        }
    }

    pub fn matched(&self, local: u32) -> Matched {
        match self {
            Docs::Owned { docs, .. } => {
                let d = &docs[local as usize];
                Matched {
                    id: d.id.clone(),
                    key: self.key(local),
                    _hold: Some(d.clone()),
                }
            }
            Docs::Mapped(_) => Matched {
                id: self.id(local).into(),
                key: self.key(local),
                _hold: None,
            },
        }
    }

    /// The document as a `Doc` a segment built in memory can hold (a merge's): shared if it
    /// is one, else copied from the map and marked as the same document.
    pub fn to_doc(&self, local: u32) -> Arc<Doc> {
        match self {
            Docs::Owned { docs, .. } => docs[local as usize].clone(),
            Docs::Mapped(m) => {
                let l = local as usize;
                Arc::new(Doc {
                    id: self.id(local).into(),
                    len: m.lens[l],
                    text: m.text(l).map(Box::from),
                    meta: m.meta(l),
                    origin: Some(self.key(local)),
                })
            }
        }
    }

    /// Heap bytes held besides the shared documents' own.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Docs::Owned { docs, .. } => docs
                .iter()
                .map(|d| d.id.len() * 2 + 72 + d.text.as_ref().map_or(0, |t| t.len()))
                .sum(),
            Docs::Mapped(m) => {
                m.lens.heap_bytes()
                    + m.flags.heap_bytes()
                    + m.ids.heap_bytes()
                    + m.texts.heap_bytes()
                    + m.metas.heap_bytes()
                    + m.by_id.heap_bytes()
            }
        }
    }
}

impl StoredDocs {
    fn text(&self, l: usize) -> Option<&str> {
        (self.flags[l] & HAS_TEXT != 0).then(|| self.texts.str(l)).flatten()
    }

    /// Metadata that does not parse (damage open did not check, see docs/STORAGE.md) reads
    /// as none; `Snapshot::verify` finds it.
    fn meta(&self, l: usize) -> Option<Value> {
        if self.flags[l] & HAS_META == 0 {
            return None;
        }
        serde_json::from_slice(self.metas.get(l)).ok()
    }
}
