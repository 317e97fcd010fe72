//! The rows, their ids, and the validation every change goes through before it touches
//! anything (a failed call leaves the index as it was).
//!
//! Rows live in immutable chunks (`chunk`) in insertion order; a snapshot (`VectorIndex`) is
//! a list of chunks with tombstones. Slots number the rows of all chunks in order, so slot
//! order is insertion order and the earlier-added row wins a score tie. Storage:
//! - `f32`: 4 bytes per value.
//! - `f16`: 2 bytes per value; scores are computed in f32 from the stored halves.
//! - `int8`: 1 byte per value (symmetric per-row scale) scanned for a shortlist, plus the
//!   f32 originals (4 more bytes) that rescore the shortlist exactly. Memory is 5 bytes per
//!   value, but a scan reads only the int8 codes, and a memory-mapped index pages in only
//!   the originals of shortlisted rows.
//! - `binary`: one sign bit per value (Hamming distance, `kernels::hamming`) scanned for a
//!   shortlist, plus the f32 originals that rescore it exactly: 4.125 bytes per value in
//!   memory, 1/8 byte per value read by a scan. Approximate: a true top-k row whose signs
//!   disagree with the query's more than the shortlist's last row is missed (see
//!   `Shortlist`).
//! - `binary` rescored from int8 (`BinaryInt8`; the option `rescore: 'int8'`): the same sign
//!   bits, but the shortlist is rescored from int8 codes and a per-row scale instead of f32:
//!   1/8 + 1 + 4/dim bytes per value (1.135 at 384 dimensions), no f32 copy. Approximate in
//!   which rows come back (as `binary`) and in the scores returned (int8 dot products).
use std::sync::Arc;

use half::f16;
use ragrank_core::names::{by_name, name_of};
use ragrank_core::{Error, ErrorKind, Result};
use rustc_hash::FxHashSet;

use crate::chunk::Chunk;
use crate::column::MappedFile;
use crate::select::RowMask;

/// Largest dimension accepted (larger is almost surely a mistake in the call).
pub const MAX_DIM: usize = 1 << 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Metric {
    /// Vectors are normalised at add time and queries at search time; score = cosine.
    #[default]
    Cosine,
    /// Score = inner product.
    Dot,
    /// Score = minus the squared Euclidean distance (0 for an identical vector, higher is closer).
    L2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    #[default]
    F32,
    F16,
    Int8,
    /// One sign bit per value, rescored from the f32 originals.
    Binary,
    /// One sign bit per value, rescored from int8 codes (no f32 copy). Its public name is
    /// storage `binary` with `rescore: 'int8'`.
    BinaryInt8,
}

/// What the shortlist of an approximate storage is rescored from (the `rescore` option,
/// which only storage `binary` takes: int8 storage always rescores from f32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rescore {
    F32,
    Int8,
}

const RESCORES: [(&str, Rescore); 2] = [("f32", Rescore::F32), ("int8", Rescore::Int8)];

impl Rescore {
    pub fn parse(s: &str) -> Result<Rescore> {
        by_name("options.rescore", s, &RESCORES)
    }
    pub fn name(self) -> &'static str {
        name_of(&self, &RESCORES)
    }
}

/// How many rows an approximate scan (int8, binary) keeps for exact rescoring:
/// `max(per_top_k * k, rows)`, and never fewer than `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortlist {
    pub per_top_k: u32,
    pub rows: u32,
}

/// Bounds of `Shortlist`'s fields: past them a scan keeps so much that it is a mistake.
pub const MAX_SHORTLIST_PER_TOP_K: u32 = 10_000;
pub const MAX_SHORTLIST_ROWS: u32 = 1 << 20;

impl Shortlist {
    /// The binary storage's default, chosen by recall on real embeddings (docs/VECTOR-STORAGE.md):
    /// 57k all-MiniLM-L6-v2 sentences reach recall@10 0.993 against exact f32 with it (0.95 at
    /// 100 rows); the margin is for larger indexes, where a fixed shortlist loses recall.
    pub const BINARY_DEFAULT: Shortlist = Shortlist {
        per_top_k: 40,
        rows: 400,
    };

    pub fn len(self, k: usize) -> usize {
        (self.per_top_k as usize * k).max(self.rows as usize).max(k)
    }

    /// A caller's shortlist, checked (`options.shortlist.*` in errors).
    pub fn new(per_top_k: Option<u32>, rows: Option<u32>) -> Result<Shortlist> {
        let per_top_k = per_top_k.unwrap_or(1);
        let rows = rows.unwrap_or(0);
        if !(1..=MAX_SHORTLIST_PER_TOP_K).contains(&per_top_k) {
            return Err(Error::invalid(format!(
                "options.shortlist.perTopK must be in [1, {MAX_SHORTLIST_PER_TOP_K}], got {per_top_k}"
            )));
        }
        if rows > MAX_SHORTLIST_ROWS {
            return Err(Error::invalid(format!(
                "options.shortlist.rows must be in [0, {MAX_SHORTLIST_ROWS}], got {rows}"
            )));
        }
        Ok(Shortlist { per_top_k, rows })
    }
}

/// The `metric` option's names.
const METRICS: [(&str, Metric); 3] = [("cosine", Metric::Cosine), ("dot", Metric::Dot), ("l2", Metric::L2)];
/// The `storage` option's names.
const STORAGES: [(&str, Storage); 4] = [
    ("f32", Storage::F32),
    ("f16", Storage::F16),
    ("int8", Storage::Int8),
    ("binary", Storage::Binary),
];

impl Metric {
    pub fn parse(s: &str) -> Result<Metric> {
        by_name("options.metric", s, &METRICS)
    }
    pub fn name(self) -> &'static str {
        name_of(&self, &METRICS)
    }
}

impl Storage {
    pub fn parse(s: &str) -> Result<Storage> {
        by_name("options.storage", s, &STORAGES)
    }
    /// The `storage` option's name (`binary` for both rescorings: see `rescore`).
    pub fn name(self) -> &'static str {
        match self {
            Storage::BinaryInt8 => "binary",
            s => name_of(&s, &STORAGES),
        }
    }
    /// What the shortlist is rescored from; None for the exact storages.
    pub fn rescore(self) -> Option<Rescore> {
        match self {
            Storage::F32 | Storage::F16 => None,
            Storage::Int8 | Storage::Binary => Some(Rescore::F32),
            Storage::BinaryInt8 => Some(Rescore::Int8),
        }
    }
    /// `self` rescored from `rescore`: only `binary` takes the option (`options.rescore` in errors).
    pub fn with_rescore(self, rescore: Rescore) -> Result<Storage> {
        match (self, rescore) {
            (Storage::Binary | Storage::BinaryInt8, Rescore::F32) => Ok(Storage::Binary),
            (Storage::Binary | Storage::BinaryInt8, Rescore::Int8) => Ok(Storage::BinaryInt8),
            (s, _) => Err(Error::invalid(format!(
                "options.rescore applies to storage 'binary' only; this storage is {:?}",
                s.name()
            ))),
        }
    }
    /// Bytes a scan reads per row of `dim` values.
    pub fn row_bytes(self, dim: usize) -> usize {
        match self {
            Storage::F32 => 4 * dim,
            Storage::F16 => 2 * dim,
            Storage::Int8 => dim,
            Storage::Binary | Storage::BinaryInt8 => 8 * crate::kernels::hamming::words(dim),
        }
    }
    /// Bytes held in memory per row of `dim` values (ids, fields and l2's norms aside).
    pub fn held_bytes(self, dim: usize) -> usize {
        match self {
            Storage::F32 => 4 * dim,
            Storage::F16 => 2 * dim,
            Storage::Int8 => 5 * dim + 4,
            Storage::Binary => self.row_bytes(dim) + 4 * dim,
            Storage::BinaryInt8 => self.row_bytes(dim) + dim + 4,
        }
    }
    /// Whether the f32 originals are kept (the f32 rows, or the int8/binary rescoring copy).
    pub fn keeps_f32(self) -> bool {
        matches!(self, Storage::F32 | Storage::Int8 | Storage::Binary)
    }
    /// Whether int8 codes and per-row scales are kept (scanned by int8, rescored from by BinaryInt8).
    pub fn keeps_int8(self) -> bool {
        matches!(self, Storage::Int8 | Storage::BinaryInt8)
    }
    /// Whether sign bits are kept (what the binary storages scan).
    pub fn keeps_bits(self) -> bool {
        matches!(self, Storage::Binary | Storage::BinaryInt8)
    }
    /// Whether a scan ranks by approximate scores and rescores a shortlist.
    pub fn is_approximate(self) -> bool {
        self.rescore().is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub dim: usize,
    pub metric: Metric,
    pub storage: Storage,
}

impl Config {
    /// Caller options by name; an absent metric or storage takes its default (cosine, f32),
    /// an absent rescore the storage's own (f32). `dim` is signed so a negative one gets the
    /// range message.
    pub fn from_options(
        dim: i64,
        metric: Option<&str>,
        storage: Option<&str>,
        rescore: Option<&str>,
    ) -> Result<Config> {
        let dim = usize::try_from(dim)
            .ok()
            .filter(|d| (1..=MAX_DIM).contains(d))
            .ok_or_else(|| dim_error(dim))?;
        let metric = metric.map(Metric::parse).transpose()?.unwrap_or_default();
        let mut storage = storage.map(Storage::parse).transpose()?.unwrap_or_default();
        if let Some(r) = rescore {
            storage = storage.with_rescore(Rescore::parse(r)?)?;
        }
        Ok(Config { dim, metric, storage })
    }
}

fn dim_error(dim: impl std::fmt::Display) -> Error {
    Error::invalid(format!("options.dim must be in [1, {MAX_DIM}], got {dim}"))
}

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
}

/// Optional metadata (a JSON object) and text per added row: each list empty or one per id.
#[derive(Debug, Default)]
pub struct NewFields {
    pub metas: Vec<Option<serde_json::Value>>,
    pub texts: Vec<Option<String>>,
}

/// Metadata and text by slot (see `VectorIndex::fields`).
pub struct FieldsView<'a>(&'a VectorIndex);

impl FieldsView<'_> {
    pub fn meta(&self, slot: u32) -> Option<&serde_json::Value> {
        let (p, r) = self.0.locate(slot);
        p.chunk.fields.meta(r as u32)
    }
    pub fn text(&self, slot: u32) -> Option<&str> {
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

    /// An index of one chunk (a load).
    pub(crate) fn of_chunk(config: Config, chunk: Chunk) -> VectorIndex {
        let mut index = VectorIndex {
            config: Some(config),
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
                "options.shortlist applies to storage 'int8' or 'binary' only; this index's storage is {:?}",
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
            let r = *p.chunk.slots.get(id)? as usize;
            p.is_alive(r).then_some((i, r))
        })
    }

    pub fn contains(&self, id: &str) -> bool {
        self.find(id).is_some()
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
        let chunk = Chunk::merged(self.config(), sources.iter().map(|p| (&*p.chunk, p.alive.as_deref())));
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

/// Symmetric int8 codes of `v` appended to `out`; returns the scale (value = code * scale).
pub(crate) fn quantize_into(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let amax = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if amax == 0.0 {
        out.resize(out.len() + v.len(), 0);
        return 0.0;
    }
    let scale = amax / 127.0;
    let inv = 127.0 / amax;
    out.extend(v.iter().map(|&x| (x * inv).round().clamp(-127.0, 127.0) as i8));
    scale
}

#[cfg(test)]
mod config_tests {
    use super::*;

    #[test]
    fn absent_metric_and_storage_take_the_defaults() {
        let c = Config::from_options(3, None, None, None).unwrap();
        assert_eq!((c.dim, c.metric, c.storage), (3, Metric::Cosine, Storage::F32));
        let c = Config::from_options(65536, Some("l2"), Some("int8"), None).unwrap();
        assert_eq!((c.dim, c.metric, c.storage), (65536, Metric::L2, Storage::Int8));
    }

    #[test]
    fn rescore_picks_what_binary_rescores_from_and_only_binary_takes_it() {
        let storage = |rescore| Config::from_options(8, None, Some("binary"), rescore).unwrap().storage;
        assert_eq!(storage(None), Storage::Binary);
        assert_eq!(storage(Some("f32")), Storage::Binary);
        assert_eq!(storage(Some("int8")), Storage::BinaryInt8);
        assert_eq!(Storage::BinaryInt8.name(), "binary");
        assert_eq!(Storage::BinaryInt8.rescore(), Some(Rescore::Int8));
        assert_eq!(Storage::Binary.rescore(), Some(Rescore::F32));
        assert_eq!(Storage::F32.rescore(), None);
        // 384 dims: 48 B of bits + 384 B of codes + a 4 B scale, against 1,584 B with the f32 copy.
        assert_eq!(Storage::BinaryInt8.held_bytes(384), 436);
        assert_eq!(Storage::Binary.held_bytes(384), 1584);
        for (storage, rescore) in [
            (None, "int8"),
            (Some("int8"), "int8"),
            (Some("f16"), "f32"),
            (Some("binary"), "f16"),
        ] {
            let e = Config::from_options(8, None, storage, Some(rescore)).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidArg);
            assert!(e.message.starts_with("options.rescore"), "{}", e.message);
        }
    }

    #[test]
    fn bad_values_name_the_option() {
        for (dim, metric, storage, option) in [
            (0, None, None, "options.dim"),
            (-1, None, None, "options.dim"),
            (65537, None, None, "options.dim"),
            (3, Some("manhattan"), None, "options.metric"),
            (3, None, Some("int4"), "options.storage"),
        ] {
            let e = Config::from_options(dim, metric, storage, None).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidArg);
            assert!(e.message.starts_with(option), "{}", e.message);
        }
    }
}
