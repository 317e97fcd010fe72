//! One-file persistence, readable in place through a memory map.
//!
//! Layout (little endian), every section starting at a multiple of 64 bytes so a mapped
//! file can be read as typed slices without copying:
//! - header (64 bytes): `MAGIC`, version `u32`, dim `u32`, metric `u8`, storage `u8`,
//!   2 reserved bytes, row count `u64`, id bytes `u64`, zero padding;
//! - id end offsets (`u64` per row) and the ids' UTF-8, concatenated;
//! - the row columns the storage uses: f32 rows, f16 rows, int8 codes and scales, and the
//!   squared norms for l2;
//! - trailer: byte length `u64` and CRC-32 `u32` of everything between the version and
//!   the trailer.
//!
//! Writes go to a temporary file renamed over the target, so readers (including other
//! processes that mapped the old file) never see a half-written index.
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;
use ragrank_core::{Error, Result};

use crate::column::Column;
use crate::index::{Config, Metric, Storage, VectorIndex};

#[cfg(target_endian = "big")]
compile_error!("the vector index file format is little endian; big-endian targets are not supported");

pub const MAGIC: &[u8; 8] = b"RGRKVECT";
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 64;
const TRAILER: usize = 12;
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
    }
}

struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.len += bytes.len() as u64;
        self.inner.write_all(bytes)
    }
    /// A section: its bytes, then zeros up to the next 64-byte boundary of the file.
    fn section(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.put(bytes)?;
        let pos = 12 + self.len as usize;
        self.put(&[0u8; ALIGN][..pos.next_multiple_of(ALIGN) - pos])
    }
}

pub fn save(index: &VectorIndex, path: &Path) -> Result<()> {
    ragrank_core::atomic::write_atomically(path, |tmp| write_file(index, tmp))
}

fn write_file(index: &VectorIndex, tmp: &Path) -> Result<()> {
    let c = index.config();
    let mut out = BufWriter::with_capacity(1 << 20, fs::File::create(tmp)?);
    out.write_all(MAGIC)?;
    out.write_all(&FORMAT_VERSION.to_le_bytes())?;
    let mut w = CrcWriter {
        inner: out,
        crc: crc32fast::Hasher::new(),
        len: 0,
    };
    let ids_bytes: usize = index.ids.iter().map(|s| s.len()).sum();
    let mut header = Vec::with_capacity(HEADER - 12);
    header.extend_from_slice(&(c.dim as u32).to_le_bytes());
    header.push(metric_code(c.metric));
    header.push(storage_code(c.storage));
    header.extend_from_slice(&[0, 0]);
    header.extend_from_slice(&(index.len() as u64).to_le_bytes());
    header.extend_from_slice(&(ids_bytes as u64).to_le_bytes());
    w.section(&header)?;
    let mut end = 0u64;
    let ends: Vec<u64> = index
        .ids
        .iter()
        .map(|id| {
            end += id.len() as u64;
            end
        })
        .collect();
    w.section(bytemuck::cast_slice(&ends))?;
    let mut blob = Vec::with_capacity(ids_bytes);
    for id in &index.ids {
        blob.extend_from_slice(id.as_bytes());
    }
    w.section(&blob)?;
    for bytes in columns(index) {
        w.section(bytes)?;
    }
    let (len, crc) = (w.len, w.crc.finalize());
    let mut out = w.inner;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&crc.to_le_bytes())?;
    let file = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
    file.sync_all()?;
    Ok(())
}

/// The row columns a storage and metric use, in file order.
fn columns(index: &VectorIndex) -> Vec<&[u8]> {
    let c = index.config();
    let mut v: Vec<&[u8]> = Vec::new();
    if c.storage.keeps_f32() {
        v.push(bytemuck::cast_slice(index.f32s.as_slice()));
    }
    if c.storage == Storage::F16 {
        v.push(bytemuck::cast_slice(index.f16s.as_slice()));
    }
    if c.storage == Storage::Int8 {
        v.push(bytemuck::cast_slice(index.i8s.as_slice()));
        v.push(bytemuck::cast_slice(index.scales.as_slice()));
    }
    if c.metric == Metric::L2 {
        v.push(bytemuck::cast_slice(index.sqnorms.as_slice()));
    }
    v
}

fn damaged() -> Error {
    Error::corrupt("vector index file is truncated or damaged")
}

/// Reads an index written by `save`. With `mmap` the rows stay in the (shared, read-only)
/// page cache and are copied into memory only if the index is changed later.
pub fn load(path: &Path, mmap: bool) -> Result<VectorIndex> {
    let file = fs::File::open(path)?;
    // SAFETY: the file is only read; `save` replaces files by rename, never in place.
    let map = Arc::new(unsafe { Mmap::map(&file)? });
    from_map(map, mmap)
}

fn from_map(map: Arc<Mmap>, keep_mapped: bool) -> Result<VectorIndex> {
    let data: &[u8] = &map;
    if data.len() < HEADER + TRAILER || &data[..8] != MAGIC {
        return Err(Error::corrupt("not a ragrank vector index file"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().expect("8 bytes"));
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(Error::corrupt(format!(
            "vector index file format version {version} is not supported (this build reads version {FORMAT_VERSION})"
        )));
    }
    let body_end = data.len() - TRAILER;
    if u64_at(body_end) != (body_end - 12) as u64 || crc32fast::hash(&data[12..body_end]) != u32_at(body_end + 8) {
        return Err(damaged());
    }
    let dim = u32_at(12) as usize;
    let metric = [Metric::Cosine, Metric::Dot, Metric::L2]
        .into_iter()
        .find(|&m| metric_code(m) == data[16]);
    let storage = [Storage::F32, Storage::F16, Storage::Int8]
        .into_iter()
        .find(|&s| storage_code(s) == data[17]);
    let (Some(metric), Some(storage)) = (metric, storage) else {
        return Err(Error::corrupt("vector index file has an unknown metric or storage"));
    };
    let config = Config { dim, metric, storage };
    let mut index = VectorIndex::new(config).map_err(|e| Error::corrupt(format!("vector index file: {e}")))?;
    let count = usize::try_from(u64_at(20)).map_err(|_| damaged())?;
    let ids_bytes = usize::try_from(u64_at(28)).map_err(|_| damaged())?;

    let mut sections = Sections {
        pos: HEADER,
        end: body_end,
    };
    let ends: &[u64] = bytemuck::try_cast_slice(sections.take(data, count, 8)?).map_err(|_| damaged())?;
    let blob = sections.take(data, ids_bytes, 1)?;
    let mut start = 0usize;
    index.ids.reserve(count);
    for &e in ends {
        let e = usize::try_from(e).map_err(|_| damaged())?;
        if e <= start || e > blob.len() {
            return Err(Error::corrupt("vector index file has an empty or out-of-range id"));
        }
        let id =
            std::str::from_utf8(&blob[start..e]).map_err(|_| Error::corrupt("vector index file has invalid UTF-8"))?;
        index.ids.push(id.into());
        start = e;
    }
    index.rebuild_slots();
    if index.slots.len() != count {
        return Err(Error::corrupt("vector index file repeats an id"));
    }
    let rows = count.checked_mul(dim).ok_or_else(damaged)?;
    if storage.keeps_f32() {
        index.f32s = sections.column(&map, rows, keep_mapped)?;
    }
    if storage == Storage::F16 {
        index.f16s = sections.column(&map, rows, keep_mapped)?;
    }
    if storage == Storage::Int8 {
        index.i8s = sections.column(&map, rows, keep_mapped)?;
        index.scales = sections.column(&map, count, keep_mapped)?;
    }
    if metric == Metric::L2 {
        index.sqnorms = sections.column(&map, count, keep_mapped)?;
    }
    if sections.pos != body_end {
        return Err(Error::corrupt("vector index file has trailing bytes"));
    }
    Ok(index)
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

    fn column<T: Pod>(&mut self, map: &Arc<Mmap>, n: usize, keep_mapped: bool) -> Result<Column<T>> {
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
