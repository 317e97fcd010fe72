//! The rows, their ids, and the validation every change goes through before it touches
//! anything (a failed call leaves the index as it was).
//!
//! Rows live in immutable chunks (`chunk`) in insertion order; a snapshot (`VectorIndex`) is
//! a list of chunks with tombstones. Slots number the rows of all chunks in order, so slot
//! order is insertion order and the earlier-added row wins a score tie. The settings (metric,
//! storage, shortlist) are in `config`.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use half::f16;
use ragrank_core::fields::FieldSchema;
use ragrank_core::filter::MetaFilter;
use ragrank_core::{check_cancel, Error, ErrorKind, Result};
use rustc_hash::FxHashSet;

use crate::chunk::Chunk;
use crate::column::MappedFile;
use crate::config::dim_error;
// The settings live in `config`; they stay reachable here too (`index::Config`, ...).
pub use crate::config::{
    Config, Metric, Rescore, Shortlist, Storage, MAX_DIM, MAX_SHORTLIST_PER_TOP_K, MAX_SHORTLIST_ROWS,
};
use crate::select::RowMask;

/// Rows merged into one chunk by the writer itself: merging them costs well under a
/// millisecond. Larger merges run in the background (`shared`).
pub const INLINE_MERGE_BYTES: usize = 2 << 20;
pub const INLINE_MERGE_ROWS: usize = 8192;
/// A chunk is merged with the chunks after it once they hold at least 1 / MERGE_RATIO of its
/// live rows: every chunk then holds more than MERGE_RATIO times the rows of all later
/// chunks, so there are O(log n) chunks and a row is copied O(log n) times in all.
const MERGE_RATIO: usize = 2;

/// One chunk of a snapshot and its tombstones.
#[derive(Clone)]
pub(crate) struct Part {
    pub(crate) chunk: Arc<Chunk>,
    /// The live rows, or None when all are (copy-on-write: a remove copies this mask only).
    pub(crate) alive: Option<Arc<RowMask>>,
    /// Slot of the chunk's first row: slots number the rows of all chunks in order, removed
    /// ones included, so slot order is insertion order and ties go to the earlier-added row.
    pub(crate) base: usize,
}

impl Part {
    pub(crate) fn live(&self) -> usize {
        self.alive.as_ref().map_or(self.chunk.rows(), |m| m.count())
    }
    pub(crate) fn is_alive(&self, row: usize) -> bool {
        self.alive.as_ref().is_none_or(|m| m.contains(row))
    }
}

/// A snapshot of the index: chunks shared with other snapshots, plus tombstones. Cloning
/// costs O(chunks); a change (`add`, `remove`) applies to a clone, which is then published
/// whole (see `shared::SharedIndex`), so a reader never sees a change half made.
#[derive(Default, Clone)]
pub struct VectorIndex {
    pub(crate) config: Option<Config>,
    pub(crate) parts: Vec<Part>,
    /// Live rows in all.
    pub(crate) live: usize,
    /// The caller's shortlist for an approximate storage; None takes the storage's default.
    pub(crate) shortlist: Option<Shortlist>,
    /// What each chunk's field index covers (default: every top-level field, as it comes).
    pub(crate) schema: Arc<FieldSchema>,
    /// Adds made so far (`add_with` numbers each one's rows: `Chunk::added_by`).
    pub(crate) writes: u64,
}

/// A row a filter matched in one snapshot (`VectorIndex::matching`): its id and the write that
/// added it, which tell it from a row added under the same id later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedRow {
    pub id: Box<str>,
    added_by: u64,
}

/// Rows whose metadata `VectorIndex::matching` tests between two looks at the cancel flag,
/// when no field index answers a filter.
const MATCH_ROWS: usize = 1 << 16;

/// Optional metadata (a JSON object) and text per added row: each list empty or one per id.
#[derive(Debug, Default)]
pub struct NewFields {
    pub metas: Vec<Option<serde_json::Value>>,
    pub texts: Vec<Option<String>>,
}

/// Metadata and text by slot (see `VectorIndex::fields`).
pub struct FieldsView<'a>(&'a VectorIndex);

impl<'a> FieldsView<'a> {
    pub fn meta(&self, slot: u32) -> Option<&'a serde_json::Value> {
        let (p, r) = self.0.locate(slot);
        p.chunk.fields.meta(r as u32)
    }
    pub fn text(&self, slot: u32) -> Option<&'a str> {
        let (p, r) = self.0.locate(slot);
        p.chunk.fields.text(r as u32)
    }
    pub fn has_metas(&self) -> bool {
        self.0.parts.iter().any(|p| p.chunk.fields.has_metas())
    }
    pub fn has_texts(&self) -> bool {
        self.0.parts.iter().any(|p| p.chunk.fields.has_texts())
    }
}

/// Chunks to merge (consecutive, by position in the snapshot), and whether the writer may
/// do it inline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergePlan {
    pub parts: std::ops::Range<usize>,
    pub inline: bool,
}

/// A merge built from one snapshot, to be installed into a later one (`install_merge`).
pub struct Merged {
    sources: Vec<Part>,
    chunk: Chunk,
}

impl VectorIndex {
    pub fn new(config: Config) -> Result<VectorIndex> {
        if config.dim == 0 || config.dim > MAX_DIM {
            return Err(dim_error(config.dim));
        }
        Ok(VectorIndex {
            config: Some(config),
            ..Default::default()
        })
    }

    /// `new` with the metadata fields to index declared (see `ragrank_core::fields`).
    pub fn with_fields(config: Config, schema: FieldSchema) -> Result<VectorIndex> {
        Ok(VectorIndex {
            schema: Arc::new(schema),
            ..VectorIndex::new(config)?
        })
    }

    pub fn field_schema(&self) -> &FieldSchema {
        &self.schema
    }

    /// An index of one chunk (a load).
    pub(crate) fn of_chunk(config: Config, schema: FieldSchema, mut chunk: Chunk) -> VectorIndex {
        chunk.index_fields(&schema);
        let mut index = VectorIndex {
            config: Some(config),
            schema: Arc::new(schema),
            ..Default::default()
        };
        if chunk.rows() > 0 {
            index.live = chunk.rows();
            index.parts.push(Part {
                chunk: Arc::new(chunk),
                alive: None,
                base: 0,
            });
        }
        index
    }

    /// A snapshot of committed chunks and their live rows (a directory's open or reload).
    pub(crate) fn of_parts(
        config: Config,
        schema: Arc<FieldSchema>,
        shortlist: Option<Shortlist>,
        parts: Vec<(Arc<Chunk>, Option<Arc<RowMask>>)>,
    ) -> VectorIndex {
        let mut index = VectorIndex {
            config: Some(config),
            schema,
            shortlist,
            ..Default::default()
        };
        for (chunk, alive) in parts {
            let part = Part { chunk, alive, base: 0 };
            if part.live() > 0 {
                index.live += part.live();
                index.parts.push(part);
            }
        }
        index.rebase();
        index
    }

    /// The ids `remove_matched` would remove (see there).
    pub fn still_matched(&self, rows: &[MatchedRow]) -> Vec<Box<str>> {
        rows.iter()
            .filter(|m| {
                self.find(&m.id)
                    .is_some_and(|(i, r)| self.parts[i].chunk.added_by(r) == m.added_by)
            })
            .map(|m| m.id.clone())
            .collect()
    }

    pub fn config(&self) -> Config {
        self.config.expect("constructed with a config")
    }

    /// The caller's shortlist (None: the storage's default).
    pub fn shortlist(&self) -> Option<Shortlist> {
        self.shortlist
    }

    /// Sets the shortlist of an int8 or binary index; the exact storages have none to set.
    pub fn set_shortlist(&mut self, shortlist: Option<Shortlist>) -> Result<()> {
        let storage = self.config().storage;
        if shortlist.is_some() && !storage.is_approximate() {
            return Err(Error::invalid(format!(
                "options.shortlist applies to storage 'int8' or 'binary' only, not {:?}",
                storage.name()
            )));
        }
        self.shortlist = shortlist;
        Ok(())
    }

    pub fn dim(&self) -> usize {
        self.config().dim
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// How many chunks hold the rows.
    pub fn chunks(&self) -> usize {
        self.parts.len()
    }

    /// One past the last slot (removed rows still hold theirs until a merge).
    pub fn slot_span(&self) -> usize {
        self.parts.last().map_or(0, |p| p.base + p.chunk.rows())
    }

    /// The part and row of a live id.
    fn find(&self, id: &str) -> Option<(usize, usize)> {
        self.parts.iter().enumerate().rev().find_map(|(i, p)| {
            let r = p.chunk.slot(id)? as usize;
            p.is_alive(r).then_some((i, r))
        })
    }

    pub fn contains(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// The slot of the live row `id` (for `id`, `fields`), if any.
    pub fn slot_of(&self, id: &str) -> Option<u32> {
        self.find(id).map(|(i, r)| (self.parts[i].base + r) as u32)
    }

    /// The part holding `slot`, and the row in its chunk.
    pub(crate) fn locate(&self, slot: u32) -> (&Part, usize) {
        let slot = slot as usize;
        let i = self.parts.partition_point(|p| p.base <= slot) - 1;
        let p = &self.parts[i];
        (p, slot - p.base)
    }

    pub fn id(&self, slot: u32) -> &str {
        let (p, r) = self.locate(slot);
        &p.chunk.ids[r]
    }

    /// Metadata and texts of the rows, by slot.
    pub fn fields(&self) -> FieldsView<'_> {
        FieldsView(self)
    }

    /// Slots of the known ids, sorted and deduplicated (unknown ids are skipped).
    pub fn slots_of<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let mut v: Vec<u32> = ids
            .into_iter()
            .filter_map(|id| self.find(id).map(|(i, r)| (self.parts[i].base + r) as u32))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether rows are read from a memory map (the chunk a load mapped, until a merge copies it).
    pub fn is_mapped(&self) -> bool {
        self.parts.iter().any(|p| p.chunk.is_mapped())
    }

    /// `ERR_INDEX_CHANGED` if the rows are read from a mapped file that was changed in place
    /// since the load (see `MappedFile`). Every call that reads the rows checks this first.
    pub fn check_file(&self) -> Result<()> {
        self.parts
            .iter()
            .flat_map(|p| p.chunk.mapped_files())
            .try_for_each(MappedFile::check_unchanged)
    }

    /// Adds rows (`vectors` is ids.len() x dim, row-major) and returns how many. An id already
    /// present is an error unless `upsert`, which replaces the row (it then counts as newly
    /// added for tie order). Everything is validated before the index changes.
    pub fn add(&mut self, ids: &[String], vectors: &[f32], upsert: bool) -> Result<usize> {
        self.add_with(ids, vectors, NewFields::default(), upsert)
    }

    /// `add` with metadata and text per row (see `NewFields`). The rows become one new
    /// chunk (O(batch)); tiny trailing chunks are then merged inline (`merge_inline`).
    pub fn add_with(&mut self, ids: &[String], vectors: &[f32], fields: NewFields, upsert: bool) -> Result<usize> {
        self.check_file()?;
        let config = self.config();
        let Config { dim, metric, storage } = config;
        for (name, len) in [("metas", fields.metas.len()), ("texts", fields.texts.len())] {
            if len != 0 && len != ids.len() {
                return Err(Error::invalid(format!(
                    "{name} has {len} entries for {} ids",
                    ids.len()
                )));
            }
        }
        if let Some(r) = fields
            .metas
            .iter()
            .position(|m| m.as_ref().is_some_and(|m| !m.is_object()))
        {
            return Err(Error::invalid(format!(
                "meta of vector {r} (id {:?}) must be an object",
                ids[r]
            )));
        }
        for (r, meta) in fields.metas.iter().enumerate() {
            self.schema
                .check(meta.as_ref())
                .map_err(|e| Error::invalid(format!("meta of vector {r} (id {:?}): {}", ids[r], e.message)))?;
        }
        if vectors.len() != ids.len() * dim {
            return Err(Error::invalid(format!(
                "vectors has {} values but {} ids x dim {dim} need {}",
                vectors.len(),
                ids.len(),
                ids.len() * dim
            )));
        }
        let mut seen = FxHashSet::default();
        for id in ids {
            if id.is_empty() {
                return Err(Error::invalid("ids must be non-empty strings"));
            }
            if !seen.insert(id.as_str()) {
                return Err(Error::new(
                    ErrorKind::DuplicateId,
                    format!("id {id:?} appears more than once in this call"),
                ));
            }
            if !upsert && self.contains(id) {
                return Err(Error::new(
                    ErrorKind::DuplicateId,
                    format!("id {id:?} is already in the index (pass {{ upsert: true }} to replace it)"),
                ));
            }
        }
        let mut norms = Vec::with_capacity(ids.len());
        for (r, row) in vectors.chunks_exact(dim).enumerate() {
            norms.push(
                check_row(row, metric, storage)
                    .map_err(|why| Error::invalid(format!("vector {r} (id {:?}) {why}", ids[r])))?,
            );
        }
        if ids.is_empty() {
            return Ok(0);
        }
        if upsert {
            self.remove(ids);
        }
        let mut chunk = Chunk::default();
        chunk.reserve(config, ids.len());
        let mut normalised = vec![0f32; dim];
        let mut metas = fields.metas.into_iter();
        let mut texts = fields.texts.into_iter();
        for ((id, row), norm) in ids.iter().zip(vectors.chunks_exact(dim)).zip(norms) {
            let v: &[f32] = if metric == Metric::Cosine {
                for (o, &x) in normalised.iter_mut().zip(row) {
                    *o = (x as f64 / norm) as f32;
                }
                &normalised
            } else {
                row
            };
            let (meta, text) = (metas.next().flatten(), texts.next().flatten());
            chunk.push_row(config, id.as_str().into(), v, meta, text.map(String::into_boxed_str));
        }
        chunk.index_fields(&self.schema);
        self.writes += 1;
        chunk.added_by.push((0, self.writes));
        self.live += chunk.rows();
        self.parts.push(Part {
            chunk: Arc::new(chunk),
            alive: None,
            base: self.slot_span(),
        });
        self.merge_inline();
        Ok(ids.len())
    }

    /// Removes rows by id and returns how many were present; unknown ids are ignored.
    /// Costs a copy of the tombstones of the chunks touched (one bit a row), not of rows;
    /// a chunk left without live rows is dropped at once, others are reclaimed by merges.
    pub fn remove<S: AsRef<str>>(&mut self, ids: &[S]) -> usize {
        let mut removed = 0;
        for id in ids {
            if let Some((i, r)) = self.find(id.as_ref()) {
                let p = &mut self.parts[i];
                let rows = p.chunk.rows();
                let alive = p.alive.get_or_insert_with(|| Arc::new(RowMask::full(rows)));
                if Arc::make_mut(alive).unset(r) {
                    removed += 1;
                }
            }
        }
        if removed > 0 {
            self.live -= removed;
            let before = self.parts.len();
            self.parts.retain(|p| p.live() > 0);
            if self.parts.len() != before {
                self.rebase();
            }
            self.merge_inline();
        }
        removed
    }

    /// The live rows whose metadata passes `filter`, in slot order, decided as a search's
    /// filter is: by a chunk's field index when it covers the filter (bitmap algebra, no look
    /// at any row's JSON), else by testing each row's metadata (in parallel, on the calling
    /// thread's rayon pool). `unindexed` gets the fields that made some chunk scan. Checks
    /// `cancel` between chunks and between runs of scanned rows, and then fails with
    /// `Error::aborted()`.
    pub fn matching<'f>(
        &self,
        filter: &'f MetaFilter,
        cancel: &AtomicBool,
        unindexed: &mut Vec<&'f str>,
    ) -> Result<Vec<MatchedRow>> {
        let mut out = Vec::new();
        for p in &self.parts {
            check_cancel(cancel)?;
            let ch = &*p.chunk;
            let mut push = |r: usize| {
                if p.is_alive(r) {
                    out.push(MatchedRow {
                        id: ch.ids[r].clone(),
                        added_by: ch.added_by(r),
                    });
                }
            };
            match ch.field_index.as_ref().and_then(|fi| fi.select(filter)) {
                Some(rows) => rows.iter().for_each(|r| push(r as usize)),
                None => {
                    match &ch.field_index {
                        Some(fi) => fi.uncovered(filter, unindexed),
                        None => unindexed.push("(chunk without field index)"),
                    }
                    // Not through the chunk's mask cache: a removal's filter is seldom searched.
                    for start in (0..ch.rows()).step_by(MATCH_ROWS) {
                        check_cancel(cancel)?;
                        let n = MATCH_ROWS.min(ch.rows() - start);
                        let mask = RowMask::of_filter_from(start, n, &ch.fields, filter);
                        (0..n).filter(|&r| mask.contains(r)).for_each(|r| push(start + r));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The ids of the live rows `filter` passes, in slot order (see `matching`).
    pub fn matching_ids(&self, filter: &MetaFilter) -> Vec<String> {
        let rows = self
            .matching(filter, &AtomicBool::new(false), &mut Vec::new())
            .unwrap_or_default();
        rows.into_iter().map(|r| r.id.into()).collect()
    }

    /// Removes, as `remove` does, the rows of an earlier snapshot's `matching` that are still
    /// live as they were then, and returns how many: a row removed since, or replaced under its
    /// id (an upsert), is left as it is, so a row added after that snapshot is never removed.
    pub fn remove_matched(&mut self, rows: &[MatchedRow]) -> usize {
        let same = self.still_matched(rows);
        self.remove(&same)
    }

    /// Recomputes every part's first slot after the parts changed.
    fn rebase(&mut self) {
        let mut base = 0;
        for p in &mut self.parts {
            p.base = base;
            base += p.chunk.rows();
        }
    }

    /// The next merge worth doing: a chunk at least half removed is rewritten alone (its
    /// memory reclaimed); otherwise the trailing chunks that together hold 1 / MERGE_RATIO
    /// of the live rows of the chunk before them are merged with it (see `MERGE_RATIO`).
    pub fn merge_plan(&self) -> Option<MergePlan> {
        let c = self.config?;
        let n = self.parts.len();
        let plan = |parts: std::ops::Range<usize>| {
            let ps = &self.parts[parts.clone()];
            let rows: usize = ps.iter().map(Part::live).sum();
            let bytes: usize = ps.iter().map(|p| p.chunk.scan_bytes(c)).sum();
            let mapped = ps.iter().any(|p| p.chunk.is_mapped());
            MergePlan {
                inline: !mapped && rows <= INLINE_MERGE_ROWS && bytes <= INLINE_MERGE_BYTES,
                parts,
            }
        };
        if let Some(i) = self.parts.iter().position(|p| 2 * p.live() <= p.chunk.rows()) {
            return Some(plan(i..i + 1));
        }
        let mut first = n;
        let mut later = 0;
        while first > 0 {
            let before = self.parts[first - 1].live();
            if first < n && before > MERGE_RATIO * later {
                break;
            }
            later += before;
            first -= 1;
        }
        (n - first >= 2).then(|| plan(first..n))
    }

    /// Runs the merges small enough for the writer (bounded by `INLINE_MERGE_BYTES`).
    pub fn merge_inline(&mut self) {
        while let Some(plan) = self.merge_plan().filter(|p| p.inline) {
            let merged = self.build_merge(&plan);
            let installed = self.install_merge(merged);
            debug_assert!(installed, "built from this very snapshot");
        }
    }

    /// The merged chunk of `plan`'s parts, built from this snapshot (e.g. in the background
    /// while writers go on).
    pub fn build_merge(&self, plan: &MergePlan) -> Merged {
        let sources = self.parts[plan.parts.clone()].to_vec();
        let mut chunk = Chunk::merged(self.config(), sources.iter().map(|p| (&*p.chunk, p.alive.as_deref())));
        chunk.index_fields(&self.schema);
        Merged { sources, chunk }
    }

    /// Replaces the merged chunks with their merge, if they are still here in a row; rows
    /// removed since the merge was built are removed from it. Returns whether it did.
    pub fn install_merge(&mut self, merged: Merged) -> bool {
        let Merged { sources, chunk } = merged;
        let Some(first) = self.parts.iter().position(|p| Arc::ptr_eq(&p.chunk, &sources[0].chunk)) else {
            return false;
        };
        let now = match self.parts.get(first..first + sources.len()) {
            Some(now) if now.iter().zip(&sources).all(|(a, b)| Arc::ptr_eq(&a.chunk, &b.chunk)) => now,
            _ => return false,
        };
        // The merged chunk holds the rows live when it was built; drop those removed since.
        let mut alive = RowMask::full(chunk.rows());
        let mut row = 0;
        for (then, now) in sources.iter().zip(now) {
            for r in (0..then.chunk.rows()).filter(|&r| then.is_alive(r)) {
                if !now.is_alive(r) {
                    alive.unset(row);
                }
                row += 1;
            }
        }
        let live = alive.count();
        let part = Part {
            chunk: Arc::new(chunk),
            alive: (live < row).then(|| Arc::new(alive)),
            base: 0,
        };
        let parts = first..first + sources.len();
        if live == 0 {
            self.parts.drain(parts);
        } else {
            self.parts.splice(parts, [part]);
        }
        self.rebase();
        true
    }

    /// The live rows in slot order: their chunk and row.
    pub(crate) fn live_rows(&self) -> impl Iterator<Item = (&Chunk, usize)> + Clone {
        self.parts.iter().flat_map(|p| {
            (0..p.chunk.rows())
                .filter(move |&r| p.is_alive(r))
                .map(move |r| (&*p.chunk, r))
        })
    }
}

/// Checks one row; returns its Euclidean norm (f64, for normalising).
pub(crate) fn check_row(row: &[f32], metric: Metric, storage: Storage) -> std::result::Result<f64, String> {
    if let Some(c) = row.iter().position(|x| !x.is_finite()) {
        return Err(format!("has a non-finite value ({}) at index {c}", row[c]));
    }
    if storage == Storage::F16 && metric != Metric::Cosine {
        if let Some(c) = row.iter().position(|x| x.abs() > f16::MAX.to_f32()) {
            return Err(format!(
                "has a value ({}) at index {c} beyond the f16 range (65504)",
                row[c]
            ));
        }
    }
    let sq: f64 = row.iter().map(|&x| x as f64 * x as f64).sum();
    if sq > f32::MAX as f64 {
        return Err("has a squared norm beyond the f32 range".into());
    }
    if metric == Metric::Cosine && sq == 0.0 {
        return Err("is all zeros; cosine similarity needs a non-zero vector".into());
    }
    Ok(sq.sqrt())
}
