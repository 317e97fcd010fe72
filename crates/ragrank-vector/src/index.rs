//! The rows, their ids, and the validation every change goes through before it touches
//! anything (a failed call leaves the index as it was).
//!
//! Rows are kept in insertion order (slot order); removal compacts, so slot order stays
//! insertion order and the earlier-added row wins a score tie. Storage:
//! - `f32`: 4 bytes per value.
//! - `f16`: 2 bytes per value; scores are computed in f32 from the stored halves.
//! - `int8`: 1 byte per value (symmetric per-row scale) scanned for a shortlist, plus the
//!   f32 originals (4 more bytes) that rescore the shortlist exactly. Memory is 5 bytes per
//!   value, but a scan reads only the int8 codes, and a memory-mapped index pages in only
//!   the originals of shortlisted rows.
use half::f16;
use ragrank_core::names::{by_name, name_of};
use ragrank_core::{Error, ErrorKind, Result};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::column::{Column, MappedFile};
use crate::fields::Fields;
use crate::kernels::Kernels;
use crate::select::MaskCache;

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
}

/// The `metric` option's names.
const METRICS: [(&str, Metric); 3] = [("cosine", Metric::Cosine), ("dot", Metric::Dot), ("l2", Metric::L2)];
/// The `storage` option's names.
const STORAGES: [(&str, Storage); 3] = [("f32", Storage::F32), ("f16", Storage::F16), ("int8", Storage::Int8)];

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
    pub fn name(self) -> &'static str {
        name_of(&self, &STORAGES)
    }
    /// Bytes a scan reads per value.
    pub fn bytes_per_value(self) -> usize {
        match self {
            Storage::F32 => 4,
            Storage::F16 => 2,
            Storage::Int8 => 1,
        }
    }
    /// Whether the f32 originals are kept (the f32 rows, or the int8 rescoring copy).
    pub fn keeps_f32(self) -> bool {
        matches!(self, Storage::F32 | Storage::Int8)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub dim: usize,
    pub metric: Metric,
    pub storage: Storage,
}

impl Config {
    /// Caller options by name; an absent metric or storage takes its default (cosine, f32).
    /// `dim` is signed so a negative one gets the range message.
    pub fn from_options(dim: i64, metric: Option<&str>, storage: Option<&str>) -> Result<Config> {
        let dim = usize::try_from(dim)
            .ok()
            .filter(|d| (1..=MAX_DIM).contains(d))
            .ok_or_else(|| dim_error(dim))?;
        Ok(Config {
            dim,
            metric: metric.map(Metric::parse).transpose()?.unwrap_or_default(),
            storage: storage.map(Storage::parse).transpose()?.unwrap_or_default(),
        })
    }
}

fn dim_error(dim: impl std::fmt::Display) -> Error {
    Error::invalid(format!("options.dim must be in [1, {MAX_DIM}], got {dim}"))
}

#[derive(Default)]
pub struct VectorIndex {
    pub(crate) config: Option<Config>,
    pub(crate) ids: Vec<Box<str>>,
    pub(crate) slots: FxHashMap<Box<str>, u32>,
    /// f32 rows (storage f32) or the int8 rescoring originals.
    pub(crate) f32s: Column<f32>,
    pub(crate) f16s: Column<f16>,
    pub(crate) i8s: Column<i8>,
    /// Per-row int8 scale: value = code * scale.
    pub(crate) scales: Column<f32>,
    /// Per-row squared norm of the scanned values (metric l2 only).
    pub(crate) sqnorms: Column<f32>,
    /// Optional metadata and text per row.
    pub(crate) fields: Fields,
    /// Rows of recent metadata filters; emptied by every change.
    pub(crate) masks: MaskCache,
}

/// Optional metadata (a JSON object) and text per added row: each list empty or one per id.
#[derive(Debug, Default)]
pub struct NewFields {
    pub metas: Vec<Option<serde_json::Value>>,
    pub texts: Vec<Option<String>>,
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

    pub fn config(&self) -> Config {
        self.config.expect("constructed with a config")
    }

    pub fn dim(&self) -> usize {
        self.config().dim
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.slots.contains_key(id)
    }

    pub fn id(&self, slot: u32) -> &str {
        &self.ids[slot as usize]
    }

    /// Metadata and texts of the rows.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// Slots of the known ids, sorted and deduplicated (unknown ids are skipped).
    pub fn slots_of<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let mut v: Vec<u32> = ids.into_iter().filter_map(|id| self.slots.get(id).copied()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether the rows are read from a memory map (until the first change copies them).
    pub fn is_mapped(&self) -> bool {
        self.f32s.is_mapped() || self.f16s.is_mapped() || self.i8s.is_mapped()
    }

    /// `ERR_INDEX_CHANGED` if the rows are read from a mapped file that was changed in place
    /// since the load (see `MappedFile`). Every call that reads the rows checks this first.
    pub fn check_file(&self) -> Result<()> {
        [self.f32s.mapped_file(), self.f16s.mapped_file(), self.i8s.mapped_file()]
            .into_iter()
            .flatten()
            .try_for_each(MappedFile::check_unchanged)
    }

    /// Adds rows (`vectors` is ids.len() x dim, row-major) and returns how many. An id already
    /// present is an error unless `upsert`, which replaces the row (it then counts as newly
    /// added for tie order). Everything is validated before the index changes.
    pub fn add(&mut self, ids: &[String], vectors: &[f32], upsert: bool) -> Result<usize> {
        self.add_with(ids, vectors, NewFields::default(), upsert)
    }

    /// `add` with metadata and text per row (see `NewFields`).
    pub fn add_with(&mut self, ids: &[String], vectors: &[f32], fields: NewFields, upsert: bool) -> Result<usize> {
        self.check_file()?;
        let Config { dim, metric, storage } = self.config();
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
        if upsert {
            self.remove(ids);
        }
        self.masks.clear();
        let values = ids.len() * dim;
        match storage {
            Storage::F32 => self.f32s.reserve(values),
            Storage::F16 => self.f16s.reserve(values),
            Storage::Int8 => {
                self.f32s.reserve(values);
                self.i8s.reserve(values);
            }
        }
        let k = Kernels::best();
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
            match storage {
                Storage::F32 => self.f32s.to_mut().extend_from_slice(v),
                Storage::F16 => self.f16s.to_mut().extend(v.iter().map(|&x| f16::from_f32(x))),
                Storage::Int8 => {
                    self.f32s.to_mut().extend_from_slice(v);
                    let scale = quantize_into(v, self.i8s.to_mut());
                    self.scales.to_mut().push(scale);
                }
            }
            if metric == Metric::L2 {
                let sq = match storage {
                    Storage::F16 => {
                        let h = &self.f16s.as_slice()[self.f16s.as_slice().len() - dim..];
                        h.iter().map(|x| x.to_f32() * x.to_f32()).sum()
                    }
                    _ => (k.dot_f32)(v, v),
                };
                self.sqnorms.to_mut().push(sq);
            }
            let (meta, text) = (metas.next().flatten(), texts.next().flatten());
            self.fields.push(self.ids.len(), meta, text.map(String::into_boxed_str));
            let id: Box<str> = id.as_str().into();
            self.slots.insert(id.clone(), self.ids.len() as u32);
            self.ids.push(id);
        }
        Ok(ids.len())
    }

    /// Removes rows by id and returns how many were present; unknown ids are ignored.
    /// O(rows): the remaining rows are compacted so slot order stays insertion order.
    pub fn remove<S: AsRef<str>>(&mut self, ids: &[S]) -> usize {
        let mut keep = vec![true; self.len()];
        let mut removed = 0;
        for id in ids {
            if let Some(&s) = self.slots.get(id.as_ref()) {
                if keep[s as usize] {
                    keep[s as usize] = false;
                    removed += 1;
                }
            }
        }
        if removed == 0 {
            return 0;
        }
        self.masks.clear();
        let dim = self.dim();
        self.f32s.retain_rows(dim, &keep);
        self.f16s.retain_rows(dim, &keep);
        self.i8s.retain_rows(dim, &keep);
        self.scales.retain_rows(1, &keep);
        self.sqnorms.retain_rows(1, &keep);
        self.fields.retain(&keep);
        let mut flags = keep.iter();
        self.ids.retain(|_| *flags.next().expect("one flag per id"));
        self.rebuild_slots();
        removed
    }

    pub(crate) fn rebuild_slots(&mut self) {
        self.slots = self
            .ids
            .iter()
            .enumerate()
            .map(|(s, id)| (id.clone(), s as u32))
            .collect();
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
        let c = Config::from_options(3, None, None).unwrap();
        assert_eq!((c.dim, c.metric, c.storage), (3, Metric::Cosine, Storage::F32));
        let c = Config::from_options(65536, Some("l2"), Some("int8")).unwrap();
        assert_eq!((c.dim, c.metric, c.storage), (65536, Metric::L2, Storage::Int8));
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
            let e = Config::from_options(dim, metric, storage).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidArg);
            assert!(e.message.starts_with(option), "{}", e.message);
        }
    }
}
