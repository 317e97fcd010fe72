//! One-file persistence, readable in place through a memory map.
//!
//! Layout (little endian), every section starting at a multiple of 64 bytes so a mapped
//! file can be read as typed slices without copying:
//! - header (64 bytes): `MAGIC`, version `u32`, dim `u32`, metric `u8`, storage `u8`,
//!   fields flags `u8` (bit 0 metadata, bit 1 texts), a reserved byte, row count `u64`,
//!   id bytes `u64`, metadata bytes `u64`, text bytes `u64`, the shortlist of an int8 or
//!   binary index (`u32` per top-k, `u32` rows; zeros for the storage's default), zero padding;
//! - id end offsets (`u64` per row) and the ids' UTF-8, concatenated;
//! - the row columns the storage uses: f32 rows, f16 rows, int8 codes and scales, sign bits
//!   (`u64` words), and the squared norms for l2. Storage codes: 0 f32, 1 f16, 2 int8,
//!   3 binary (rescored from f32), 4 binary rescored from int8 (codes, scales, bits; no f32
//!   rows). Code 4 needs no new version: older files never hold it, and an older reader
//!   rejects it as an unknown storage;
//! - (version 2) when flagged, the metadata: end offsets (`u64` per row) and each row's
//!   JSON object, concatenated (empty: none); then the texts: one presence byte per row,
//!   end offsets and the UTF-8, concatenated. Metadata and texts are parsed into memory at
//!   load, even with a memory map;
//! - trailer: byte length `u64` and CRC-32 `u32` of everything between the version and
//!   the trailer.
//!
//! Version 1 files (no fields section; flags and the two lengths read as zero) still load.
//!
//! A save writes the live rows of one snapshot, chunk after chunk, so the file is the same
//! as that of one index holding those rows; a load makes one chunk (over the map with `mmap`).
//!
//! The magic, version and trailer are `ragrank_core::checksummed`'s envelope: writes go to
//! a temporary file renamed over the target, so readers (including other processes that
//! mapped the old file) never see a half-written index, and a cancelled save leaves the
//! target as it was.
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use bytemuck::Pod;
use ragrank_core::checksummed::{self, Format, PayloadWriter};
use ragrank_core::{check_cancel, Error, Result};

use crate::chunk::Chunk;
use crate::column::{Column, MappedFile};
use crate::config::{Config, Metric, Shortlist, Storage};
use crate::index::VectorIndex;
use crate::kernels::hamming::words;
use ragrank_core::fields::FieldSchema;

#[cfg(target_endian = "big")]
compile_error!("the vector index file format is little endian; big-endian targets are not supported");

pub const MAGIC: &[u8; 8] = b"RGRKVECT";
pub const FORMAT_VERSION: u32 = 3;
/// Version 3 adds the declared metadata fields; an index without declarations is written
/// as version 2, byte for byte as before, so older readers still read it.
const FORMAT: Format = Format::new(MAGIC, FORMAT_VERSION, "vector index");
const FORMAT_V2: Format = Format::new(MAGIC, 2, "vector index");
/// The format before metadata and texts, still read.
const FORMAT_V1: Format = Format::new(MAGIC, 1, "vector index");
const HAS_METAS: u8 = 1;
const HAS_TEXTS: u8 = 2;
const HAS_SCHEMA: u8 = 4;
/// The header: the envelope's magic and version, then this format's fields.
const HEADER: usize = 64;
const ALIGN: usize = 64;

fn metric_code(m: Metric) -> u8 {
    match m {
        Metric::Cosine => 0,
        Metric::Dot => 1,
        Metric::L2 => 2,
    }
}

fn storage_code(s: Storage) -> u8 {
    match s {
        Storage::F32 => 0,
        Storage::F16 => 1,
        Storage::Int8 => 2,
        Storage::Binary => 3,
        Storage::BinaryInt8 => 4,
    }
}

/// A section: its bytes, then zeros up to the next 64-byte boundary of the file.
fn section(w: &mut PayloadWriter, bytes: &[u8]) -> Result<()> {
    w.put(bytes)?;
    let pos = w.position() as usize;
    w.put(&[0u8; ALIGN][..pos.next_multiple_of(ALIGN) - pos])
}

/// Writes `index` to `path` atomically; once `cancel` is set the write stops with
/// `Error::aborted()`, and `path` is left as it was.
pub fn save(index: &VectorIndex, path: &Path, cancel: &AtomicBool) -> Result<()> {
    index.check_file()?;
    let format = if *index.field_schema() == FieldSchema::default() {
        &FORMAT_V2
    } else {
        &FORMAT
    };
    checksummed::write(path, format, cancel, |w| write_payload(index, w))
}

fn write_payload(index: &VectorIndex, w: &mut PayloadWriter) -> Result<()> {
    let c = index.config();
    let rows = || index.live_rows();
    let ids_bytes: usize = rows().map(|(ch, r)| ch.ids[r].len()).sum();
    let f = index.fields();
    let metas: Option<Vec<Vec<u8>>> = f.has_metas().then(|| {
        rows()
            .map(|(ch, r)| {
                ch.fields
                    .meta(r as u32)
                    .map_or_else(Vec::new, |m| m.to_string().into_bytes())
            })
            .collect()
    });
    let texts: Option<Vec<Option<&str>>> = f
        .has_texts()
        .then(|| rows().map(|(ch, r)| ch.fields.text(r as u32)).collect());
    let meta_bytes: usize = metas.iter().flatten().map(Vec::len).sum();
    let text_bytes: usize = texts.iter().flatten().map(|t| t.map_or(0, str::len)).sum();
    let schema = (*index.field_schema() != FieldSchema::default()).then(|| index.field_schema().to_json());
    let flags = if metas.is_some() { HAS_METAS } else { 0 }
        | if texts.is_some() { HAS_TEXTS } else { 0 }
        | if schema.is_some() { HAS_SCHEMA } else { 0 };
    let mut header = Vec::with_capacity(HEADER - checksummed::HEADER);
    header.extend_from_slice(&(c.dim as u32).to_le_bytes());
    header.push(metric_code(c.metric));
    header.push(storage_code(c.storage));
    header.extend_from_slice(&[flags, 0]);
    header.extend_from_slice(&(index.len() as u64).to_le_bytes());
    header.extend_from_slice(&(ids_bytes as u64).to_le_bytes());
    header.extend_from_slice(&(meta_bytes as u64).to_le_bytes());
    header.extend_from_slice(&(text_bytes as u64).to_le_bytes());
    let s = index.shortlist();
    header.extend_from_slice(&s.map_or(0, |s| s.per_top_k).to_le_bytes());
    header.extend_from_slice(&s.map_or(0, |s| s.rows).to_le_bytes());
    header.extend_from_slice(&(schema.as_ref().map_or(0, String::len) as u32).to_le_bytes());
    section(w, &header)?;
    strings(w, rows().map(|(ch, r)| ch.ids[r].as_bytes()))?;
    let d = c.dim;
    if c.storage.keeps_f32() {
        column(w, index, d, |ch| &ch.f32s)?;
    }
    if c.storage == Storage::F16 {
        column(w, index, d, |ch| &ch.f16s)?;
    }
    if c.storage.keeps_int8() {
        column(w, index, d, |ch| &ch.i8s)?;
        column(w, index, 1, |ch| &ch.scales)?;
    }
    if c.storage.keeps_bits() {
        column(w, index, words(d), |ch| &ch.bits)?;
    }
    if c.metric == Metric::L2 {
        column(w, index, 1, |ch| &ch.sqnorms)?;
    }
    if let Some(metas) = &metas {
        strings(w, metas.iter().map(Vec::as_slice))?;
    }
    if let Some(texts) = texts {
        let present: Vec<u8> = texts.iter().map(|t| u8::from(t.is_some())).collect();
        section(w, &present)?;
        strings(w, texts.iter().map(|t| t.unwrap_or("").as_bytes()))?;
    }
    if let Some(schema) = &schema {
        section(w, schema.as_bytes())?;
    }
    Ok(())
}

/// One row column (`width` values a row) of every live row, as one section: a chunk without
/// tombstones is written in one piece, others run by run of live rows.
fn column<T: Pod>(
    w: &mut PayloadWriter,
    index: &VectorIndex,
    width: usize,
    col: impl Fn(&Chunk) -> &Column<T>,
) -> Result<()> {
    for p in &index.parts {
        let values = col(&p.chunk).as_slice();
        let Some(alive) = &p.alive else {
            w.put(bytemuck::cast_slice(values))?;
            continue;
        };
        let mut r = 0;
        let rows = p.chunk.rows();
        while r < rows {
            if !alive.contains(r) {
                r += 1;
                continue;
            }
            let start = r;
            while r < rows && alive.contains(r) {
                r += 1;
            }
            w.put(bytemuck::cast_slice(&values[start * width..r * width]))?;
        }
    }
    section(w, &[])
}

/// Byte strings as two sections: their end offsets (`u64` each), then their bytes.
fn strings<'a>(w: &mut PayloadWriter, items: impl Iterator<Item = &'a [u8]> + Clone) -> Result<()> {
    let mut end = 0u64;
    let ends: Vec<u64> = items
        .clone()
        .map(|b| {
            end += b.len() as u64;
            end
        })
        .collect();
    section(w, bytemuck::cast_slice(&ends))?;
    let mut blob = Vec::with_capacity(end as usize);
    for b in items {
        blob.extend_from_slice(b);
    }
    section(w, &blob)
}

fn damaged() -> Error {
    FORMAT.damaged()
}

/// Reads an index written by `save`. With `mmap` the rows stay in the (shared, read-only)
/// page cache and are copied into memory only if the index is changed later; every call
/// that reads them first checks that the file was not changed in place (`MappedFile`).
/// Only regular files are read. Once `cancel` is set the read stops with `Error::aborted()`.
pub fn load(path: &Path, mmap: bool, cancel: &AtomicBool) -> Result<VectorIndex> {
    load_with(path, mmap, true, cancel)
}

/// A directory's committed chunk file, mapped: as `load`, but neither the whole file's CRC nor
/// the id lookup is made here (a commit wrote the file from an index whose ids were unique):
/// the lookup is built at its first use, and `verify_committed` checks the CRC.
pub fn load_committed(path: &Path, cancel: &AtomicBool) -> Result<VectorIndex> {
    load_with(path, true, false, cancel)
}

/// The whole-file CRC of a committed chunk file (`load_committed` skips it).
pub fn verify_committed(path: &Path, cancel: &AtomicBool) -> Result<()> {
    let map = MappedFile::new(checksummed::open_regular(path)?)?;
    let data: &[u8] = &map;
    let format = match data
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4 bytes")))
    {
        Some(1) => &FORMAT_V1,
        Some(2) => &FORMAT_V2,
        _ => &FORMAT,
    };
    checksummed::check_crc(data, format, cancel)
}

fn load_with(path: &Path, mmap: bool, index_ids: bool, cancel: &AtomicBool) -> Result<VectorIndex> {
    check_cancel(cancel)?;
    let map = Arc::new(MappedFile::new(checksummed::open_regular(path)?)?);
    let index = from_map(map.clone(), mmap, index_ids, cancel)?;
    // A copy made while the file changed in place may mix old and new bytes.
    map.check_unchanged()?;
    Ok(index)
}

fn from_map(map: Arc<MappedFile>, keep_mapped: bool, index_ids: bool, cancel: &AtomicBool) -> Result<VectorIndex> {
    let data: &[u8] = &map;
    let version = data
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4 bytes")));
    let format = match version {
        Some(1) => &FORMAT_V1,
        Some(2) => &FORMAT_V2,
        _ => &FORMAT,
    };
    // A committed chunk's CRC is not checked here: at 1.5 GB it is most of an open (about 100 ms); the
    // envelope and every section's bounds are, and a read never leaves the map (docs/STORAGE.md).
    let payload = match index_ids {
        true => checksummed::payload(data, format, cancel)?,
        false => checksummed::unverified_payload(data, format)?,
    };
    let body_end = checksummed::HEADER + payload.len();
    if body_end < HEADER {
        return Err(damaged());
    }
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().expect("8 bytes"));
    let dim = u32_at(12) as usize;
    let metric = [Metric::Cosine, Metric::Dot, Metric::L2]
        .into_iter()
        .find(|&m| metric_code(m) == data[16]);
    let storage = [
        Storage::F32,
        Storage::F16,
        Storage::Int8,
        Storage::Binary,
        Storage::BinaryInt8,
    ]
    .into_iter()
    .find(|&s| storage_code(s) == data[17]);
    let (Some(metric), Some(storage)) = (metric, storage) else {
        return Err(Error::corrupt("vector index file has an unknown metric or storage"));
    };
    let config = Config { dim, metric, storage };
    VectorIndex::new(config).map_err(|e| Error::corrupt(format!("vector index file: {e}")))?;
    let mut chunk = Chunk::default();
    let count = usize::try_from(u64_at(20)).map_err(|_| damaged())?;
    let ids_bytes = usize::try_from(u64_at(28)).map_err(|_| damaged())?;
    let flags = data[18];
    let known = if format.version >= 3 {
        HAS_METAS | HAS_TEXTS | HAS_SCHEMA
    } else {
        HAS_METAS | HAS_TEXTS
    };
    if flags & !known != 0 {
        return Err(Error::corrupt("vector index file has unknown section flags"));
    }
    let meta_bytes = usize::try_from(u64_at(36)).map_err(|_| damaged())?;
    let text_bytes = usize::try_from(u64_at(44)).map_err(|_| damaged())?;
    // Zeros in files from before the shortlist option (and in exact storages).
    let shortlist = match (u32_at(52), u32_at(56)) {
        (0, 0) => None,
        (per_top_k, rows) => Some(
            Shortlist::new(Some(per_top_k.into()), Some(rows.into()))
                .map_err(|e| Error::corrupt(format!("vector index file: {}", e.message)))?,
        ),
    };

    let mut sections = Sections {
        pos: HEADER,
        end: body_end,
    };
    // `strings` checks `count` against the file before anything is reserved for it.
    let ids = sections.strings(data, count, ids_bytes)?;
    chunk.ids.reserve(count);
    for id in ids {
        if id.is_empty() {
            return Err(Error::corrupt("vector index file has an empty id"));
        }
        chunk.ids.push(utf8(id)?.into());
    }
    if index_ids && !chunk.index_ids() {
        return Err(Error::corrupt("vector index file repeats an id"));
    }
    let rows = count.checked_mul(dim).ok_or_else(damaged)?;
    if storage.keeps_f32() {
        chunk.f32s = sections.column(&map, rows, keep_mapped)?;
    }
    if storage == Storage::F16 {
        chunk.f16s = sections.column(&map, rows, keep_mapped)?;
    }
    if storage.keeps_int8() {
        chunk.i8s = sections.column(&map, rows, keep_mapped)?;
        chunk.scales = sections.column(&map, count, keep_mapped)?;
    }
    if storage.keeps_bits() {
        let words = count.checked_mul(words(dim)).ok_or_else(damaged)?;
        chunk.bits = sections.column(&map, words, keep_mapped)?;
    }
    if metric == Metric::L2 {
        chunk.sqnorms = sections.column(&map, count, keep_mapped)?;
    }
    if flags & HAS_METAS != 0 {
        chunk.fields.metas = sections
            .strings(data, count, meta_bytes)?
            .map(|m| match m {
                [] => Ok(None),
                m => match serde_json::from_slice(m) {
                    Ok(v @ serde_json::Value::Object(_)) => Ok(Some(v)),
                    _ => Err(Error::corrupt(
                        "vector index file has metadata that is not a JSON object",
                    )),
                },
            })
            .collect::<Result<_>>()?;
    }
    if flags & HAS_TEXTS != 0 {
        let present = sections.take(data, count, 1)?;
        chunk.fields.texts = sections
            .strings(data, count, text_bytes)?
            .zip(present)
            .map(|(t, &p)| Ok((p != 0).then(|| utf8(t)).transpose()?.map(Box::from)))
            .collect::<Result<_>>()?;
    }
    let schema = if flags & HAS_SCHEMA != 0 {
        let bytes = sections.take(data, u32_at(60) as usize, 1)?;
        FieldSchema::from_json(bytes).map_err(|e| Error::corrupt(format!("vector index file: {}", e.message)))?
    } else {
        FieldSchema::default()
    };
    if sections.pos != body_end {
        return Err(Error::corrupt("vector index file has trailing bytes"));
    }
    check_cancel(cancel)?;
    let mut index = VectorIndex::of_chunk(config, schema, chunk);
    index
        .set_shortlist(shortlist)
        .map_err(|e| Error::corrupt(format!("vector index file: {}", e.message)))?;
    Ok(index)
}

fn utf8(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|_| Error::corrupt("vector index file has invalid UTF-8"))
}

/// Walks the 64-byte aligned sections of a mapped file.
struct Sections {
    pos: usize,
    end: usize,
}

impl Sections {
    fn take<'a>(&mut self, data: &'a [u8], n: usize, size: usize) -> Result<&'a [u8]> {
        let len = n.checked_mul(size).ok_or_else(damaged)?;
        let stop = self
            .pos
            .checked_add(len)
            .filter(|&s| s <= self.end)
            .ok_or_else(damaged)?;
        let bytes = &data[self.pos..stop];
        self.pos = stop.next_multiple_of(ALIGN);
        if self.pos > self.end {
            return Err(damaged());
        }
        Ok(bytes)
    }

    /// `n` byte strings written by `strings`, `bytes` long in all.
    fn strings<'a>(&mut self, data: &'a [u8], n: usize, bytes: usize) -> Result<impl Iterator<Item = &'a [u8]>> {
        let ends: &[u64] = bytemuck::try_cast_slice(self.take(data, n, 8)?).map_err(|_| damaged())?;
        let blob = self.take(data, bytes, 1)?;
        let mut start = 0usize;
        let mut spans = Vec::with_capacity(n);
        for &e in ends {
            let e = usize::try_from(e).ok().filter(|&e| e >= start && e <= blob.len());
            let e = e.ok_or_else(|| Error::corrupt("vector index file has an out-of-range string offset"))?;
            spans.push(&blob[start..e]);
            start = e;
        }
        Ok(spans.into_iter())
    }

    fn column<T: Pod>(&mut self, map: &Arc<MappedFile>, n: usize, keep_mapped: bool) -> Result<Column<T>> {
        let offset = self.pos;
        let bytes = self.take(map, n, std::mem::size_of::<T>())?;
        let values: &[T] = bytemuck::try_cast_slice(bytes).map_err(|_| damaged())?;
        Ok(if keep_mapped {
            Column::Mapped {
                map: map.clone(),
                offset,
                len: n,
                _t: std::marker::PhantomData,
            }
        } else {
            Column::copied(values)
        })
    }
}
