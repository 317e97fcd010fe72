//! A chunk: an immutable run of rows (ids, row columns, fields) added together, or merged
//! from consecutive chunks. Chunks are shared by every snapshot that holds them (`Arc`), so
//! an add builds a chunk of its own rows only and never copies the index; removal is a
//! tombstone kept beside the chunk in the snapshot (see `index::Part`), never a change here.
use half::f16;
use rustc_hash::FxHashMap;

use crate::column::{Column, MappedFile};
use crate::config::{quantize_into, Config, Metric, Storage};
use crate::fields::Fields;
use crate::kernels::hamming::{sign_bits_into, words};
use crate::kernels::Kernels;
use crate::select::{MaskCache, RowMask};
use ragrank_core::fields::{FieldIndex, FieldSchema, SelectionCache};

#[derive(Default)]
pub struct Chunk {
    pub(crate) ids: Vec<Box<str>>,
    /// Row of each id in this chunk (a removed row keeps its entry: the tombstone decides).
    /// Built at the first lookup (`slot`): a search needs none, and a directory's open of a
    /// million-row chunk would spend most of its time building it.
    slots: std::sync::OnceLock<FxHashMap<Box<str>, u32>>,
    /// f32 rows (storage f32) or the int8/binary rescoring originals (not with BinaryInt8).
    pub(crate) f32s: Column<f32>,
    pub(crate) f16s: Column<f16>,
    /// int8 codes: scanned (storage int8) or rescored from (BinaryInt8).
    pub(crate) i8s: Column<i8>,
    /// Sign bits (the binary storages): `hamming::words(dim)` u64s per row.
    pub(crate) bits: Column<u64>,
    /// Per-row int8 scale: value = code * scale.
    pub(crate) scales: Column<f32>,
    /// Per-row squared norm of the scanned values (metric l2 only).
    pub(crate) sqnorms: Column<f32>,
    pub(crate) fields: Fields,
    /// Rows of recent metadata filters the field index cannot answer. The rows never
    /// change, so the masks never go stale.
    pub(crate) masks: MaskCache,
    /// The rows' metadata by field and value (`index_fields`), shared with BM25's segments.
    pub(crate) field_index: Option<FieldIndex>,
    /// Recent filters' rows, from `field_index`.
    pub(crate) selections: SelectionCache,
    /// Which write added the rows (`VectorIndex::add_with` numbers them from 1; 0: read from a
    /// file), as runs: `(first row, write)`, by first row. Tells a row matched in one snapshot
    /// from a row added under its id since (`VectorIndex::remove_matched`), through merges.
    pub(crate) added_by: Vec<(u32, u64)>,
    /// The segment file (`seg-<n>.vec`) holding this chunk, once a commit wrote it or an open
    /// read it (a directory-bound index; a merged chunk starts without one).
    pub(crate) number: std::sync::OnceLock<u64>,
}

impl Chunk {
    pub fn rows(&self) -> usize {
        self.ids.len()
    }

    pub fn is_mapped(&self) -> bool {
        self.f32s.is_mapped() || self.f16s.is_mapped() || self.i8s.is_mapped() || self.bits.is_mapped()
    }

    pub fn mapped_files(&self) -> impl Iterator<Item = &MappedFile> {
        [
            self.f32s.mapped_file(),
            self.f16s.mapped_file(),
            self.i8s.mapped_file(),
            self.bits.mapped_file(),
        ]
        .into_iter()
        .flatten()
    }

    /// The write that added row `r` (see `added_by`).
    pub(crate) fn added_by(&self, r: usize) -> u64 {
        match self.added_by.partition_point(|&(first, _)| first as usize <= r) {
            0 => 0,
            i => self.added_by[i - 1].1,
        }
    }

    /// Builds the field index of the rows' metadata, once the chunk's rows are in.
    pub(crate) fn index_fields(&mut self, schema: &FieldSchema) {
        let metas = (0..self.rows() as u32).map(|r| self.fields.meta(r));
        self.field_index = Some(FieldIndex::build(schema.clone(), metas));
    }

    /// Bytes a scan of this chunk reads.
    pub fn scan_bytes(&self, c: Config) -> usize {
        self.rows() * c.storage.row_bytes(c.dim)
    }

    /// The row of `id` in this chunk, removed or not.
    pub(crate) fn slot(&self, id: &str) -> Option<u32> {
        self.slots.get_or_init(|| self.id_rows()).get(id).copied()
    }

    fn id_rows(&self) -> FxHashMap<Box<str>, u32> {
        self.ids
            .iter()
            .enumerate()
            .map(|(s, id)| (id.clone(), s as u32))
            .collect()
    }

    /// Builds the id lookup now, failing if an id repeats (a file's chunk).
    pub(crate) fn index_ids(&mut self) -> bool {
        let rows = self.id_rows();
        let unique = rows.len() == self.ids.len();
        self.slots = rows.into();
        unique
    }

    /// Drops the id lookup (rebuilt at the next `slot`).
    pub(crate) fn forget_slots(&mut self) {
        self.slots = std::sync::OnceLock::new();
    }

    /// Room for `rows` more rows in the columns `c` uses.
    pub(crate) fn reserve(&mut self, c: Config, rows: usize) {
        let values = rows * c.dim;
        let s = c.storage;
        if s.keeps_f32() {
            self.f32s.reserve(values);
        }
        if s == Storage::F16 {
            self.f16s.reserve(values);
        }
        if s.keeps_int8() {
            self.i8s.reserve(values);
            self.scales.reserve(rows);
        }
        if s.keeps_bits() {
            self.bits.reserve(rows * words(c.dim));
        }
        self.ids.reserve(rows);
    }

    /// Appends one checked row (already normalised for cosine) while the chunk is built.
    pub(crate) fn push_row(
        &mut self,
        c: Config,
        id: Box<str>,
        v: &[f32],
        meta: Option<serde_json::Value>,
        text: Option<Box<str>>,
    ) {
        let s = c.storage;
        if s.keeps_f32() {
            self.f32s.to_mut().extend_from_slice(v);
        }
        if s == Storage::F16 {
            self.f16s.to_mut().extend(v.iter().map(|&x| f16::from_f32(x)));
        }
        if s.keeps_int8() {
            let scale = quantize_into(v, self.i8s.to_mut());
            self.scales.to_mut().push(scale);
        }
        if s.keeps_bits() {
            sign_bits_into(v, self.bits.to_mut());
        }
        if c.metric == Metric::L2 {
            let sq = match c.storage {
                Storage::F16 => {
                    let h = &self.f16s.as_slice()[self.f16s.as_slice().len() - c.dim..];
                    h.iter().map(|x| x.to_f32() * x.to_f32()).sum()
                }
                _ => (Kernels::best().dot_f32)(v, v),
            };
            self.sqnorms.to_mut().push(sq);
        }
        self.fields.push(self.ids.len(), meta, text);
        if let Some(slots) = self.slots.get_mut() {
            slots.insert(id.clone(), self.ids.len() as u32);
        }
        self.ids.push(id);
    }

    /// The live rows of `parts` (chunks with their tombstones: `alive` None means all),
    /// copied in order into one new chunk. Stored values are copied as they are, so scores
    /// do not change.
    pub(crate) fn merged<'a>(
        c: Config,
        parts: impl Iterator<Item = (&'a Chunk, Option<&'a RowMask>)> + Clone,
    ) -> Chunk {
        let rows = parts
            .clone()
            .map(|(ch, alive)| alive.map_or(ch.rows(), RowMask::count))
            .sum();
        let mut out = Chunk::default();
        out.reserve(c, rows);
        let d = c.dim;
        for (ch, alive) in parts {
            for r in (0..ch.rows()).filter(|&r| alive.is_none_or(|m| m.contains(r))) {
                let span = r * d..(r + 1) * d;
                let s = c.storage;
                if s.keeps_f32() {
                    out.f32s.to_mut().extend_from_slice(&ch.f32s.as_slice()[span.clone()]);
                }
                if s == Storage::F16 {
                    out.f16s.to_mut().extend_from_slice(&ch.f16s.as_slice()[span.clone()]);
                }
                if s.keeps_int8() {
                    out.i8s.to_mut().extend_from_slice(&ch.i8s.as_slice()[span]);
                    out.scales.to_mut().push(ch.scales.as_slice()[r]);
                }
                if s.keeps_bits() {
                    let w = words(d);
                    out.bits
                        .to_mut()
                        .extend_from_slice(&ch.bits.as_slice()[r * w..(r + 1) * w]);
                }
                if c.metric == Metric::L2 {
                    out.sqnorms.to_mut().push(ch.sqnorms.as_slice()[r]);
                }
                let write = ch.added_by(r);
                if out.added_by.last().is_none_or(|&(_, w)| w != write) {
                    out.added_by.push((out.ids.len() as u32, write));
                }
                let r32 = r as u32;
                out.fields.push(
                    out.ids.len(),
                    ch.fields.meta(r32).cloned(),
                    ch.fields.text(r32).map(Box::from),
                );
                out.ids.push(ch.ids[r].clone());
            }
        }
        out.forget_slots();
        out
    }
}
