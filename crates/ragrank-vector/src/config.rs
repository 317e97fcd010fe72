//! The index's settings: dimension, metric, storage and its rescoring, the shortlist of an
//! approximate scan, and the int8 quantization every storage that keeps codes shares. Both
//! a snapshot (`index`) and its chunks (`chunk`) read them, so they live apart from both.
//!
//! Storage:
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
use ragrank_core::names::{by_name, name_of};
use ragrank_core::{Error, Result};

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

    /// A caller's shortlist, checked (`options.shortlist.*` in errors). Signed and wide, so
    /// a negative count or one past u32 gets the range message instead of a wrapped value.
    pub fn new(per_top_k: Option<i64>, rows: Option<i64>) -> Result<Shortlist> {
        let per_top_k = per_top_k.unwrap_or(1);
        let rows = rows.unwrap_or(0);
        let per_top_k = u32::try_from(per_top_k)
            .ok()
            .filter(|p| (1..=MAX_SHORTLIST_PER_TOP_K).contains(p))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "options.shortlist.perTopK must be in [1, {MAX_SHORTLIST_PER_TOP_K}], got {per_top_k}"
                ))
            })?;
        let rows = u32::try_from(rows)
            .ok()
            .filter(|r| *r <= MAX_SHORTLIST_ROWS)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "options.shortlist.rows must be in [0, {MAX_SHORTLIST_ROWS}], got {rows}"
                ))
            })?;
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
                "options.rescore applies to storage 'binary' only, not {:?}",
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

pub(crate) fn dim_error(dim: impl std::fmt::Display) -> Error {
    Error::invalid(format!("options.dim must be in [1, {MAX_DIM}], got {dim}"))
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
mod tests {
    use super::*;
    use ragrank_core::ErrorKind;

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
