//! One-file persistence.
//!
//! Layout (little endian): `MAGIC`, format version `u32`, the payload, then a trailer of
//! payload length `u64` and CRC-32 of the payload `u32`. The payload holds the config as
//! JSON, the live vocabulary, and each live document (id, term frequencies, optional text
//! and metadata) in insertion order; impacts are rebuilt on load. Writes go to a temporary
//! file that is renamed over the target, so a crash never leaves a half-written index.
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::store::{AnalyzedBatch, AnalyzedDoc, DocStore};
use super::{Bm25Index, IndexConfig};
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 8] = b"RGRKBM25";
pub const FORMAT_VERSION: u32 = 1;
const TRAILER: usize = 12;

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
    fn u32(&mut self, v: u32) -> std::io::Result<()> {
        self.put(&v.to_le_bytes())
    }
    fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.u32(b.len() as u32)?;
        self.put(b)
    }
}

pub fn save(index: &Bm25Index, path: &Path) -> Result<()> {
    crate::atomic::write_atomically(path, |tmp| write_file(index, tmp))
}

fn write_file(index: &Bm25Index, tmp: &Path) -> Result<()> {
    let file = fs::File::create(tmp)?;
    let mut header = BufWriter::new(file);
    header.write_all(MAGIC)?;
    header.write_all(&FORMAT_VERSION.to_le_bytes())?;
    let mut w = CrcWriter {
        inner: header,
        crc: crc32fast::Hasher::new(),
        len: 0,
    };
    let store = index.store();
    let config = serde_json::to_vec(index.config()).map_err(|e| Error::invalid(e.to_string()))?;
    w.bytes(&config)?;
    // Only live terms are written; ids are renumbered densely.
    let mut remap = vec![u32::MAX; store.terms.len()];
    let live: Vec<usize> = (0..store.terms.len()).filter(|&t| store.df[t] > 0).collect();
    w.u32(live.len() as u32)?;
    for (new, &t) in live.iter().enumerate() {
        remap[t] = new as u32;
        w.bytes(store.terms[t].as_bytes())?;
    }
    w.u32(store.alive as u32)?;
    for doc in store.docs.iter().filter(|d| d.alive) {
        w.bytes(doc.id.as_bytes())?;
        w.u32(doc.terms.len() as u32)?;
        for &(t, tf) in doc.terms.iter() {
            w.u32(remap[t as usize])?;
            w.u32(tf)?;
        }
        let flags = doc.text.is_some() as u8 | (doc.meta.is_some() as u8) << 1;
        w.put(&[flags])?;
        if let Some(text) = &doc.text {
            w.bytes(text.as_bytes())?;
        }
        if let Some(meta) = &doc.meta {
            w.bytes(&serde_json::to_vec(meta).map_err(|e| Error::invalid(e.to_string()))?)?;
        }
    }
    let (len, crc) = (w.len, w.crc.finalize());
    let mut out = w.inner;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&crc.to_le_bytes())?;
    let file = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
    file.sync_all()?;
    Ok(())
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(truncated)?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn string(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| Error::corrupt("index file has invalid UTF-8"))
    }
}

fn truncated() -> Error {
    Error::corrupt("index file is truncated or damaged")
}

pub fn load(path: &Path) -> Result<Bm25Index> {
    let data = fs::read(path)?;
    from_bytes(&data)
}

pub fn from_bytes(data: &[u8]) -> Result<Bm25Index> {
    if data.len() < MAGIC.len() + 4 + TRAILER || &data[..8] != MAGIC {
        return Err(Error::corrupt("not a ragrank BM25 index file"));
    }
    let version = u32::from_le_bytes(data[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(Error::corrupt(format!(
            "index file format version {version} is not supported (this build reads version {FORMAT_VERSION})"
        )));
    }
    let payload = &data[12..data.len() - TRAILER];
    let trailer = &data[data.len() - TRAILER..];
    let len = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(trailer[8..].try_into().expect("4 bytes"));
    if len != payload.len() as u64 || crc32fast::hash(payload) != crc {
        return Err(truncated());
    }
    let mut r = Reader { buf: payload, pos: 0 };
    let config: IndexConfig =
        serde_json::from_slice(r.bytes()?).map_err(|e| Error::corrupt(format!("index file has a bad config: {e}")))?;
    let n_terms = r.u32()? as usize;
    let mut terms = Vec::with_capacity(n_terms.min(payload.len()));
    for _ in 0..n_terms {
        terms.push(r.string()?);
    }
    if terms.iter().collect::<rustc_hash::FxHashSet<_>>().len() != n_terms {
        return Err(Error::corrupt("index file repeats a term"));
    }
    // The file's vocabulary is one analysed batch: its term ids are the local ids.
    let mut batch = AnalyzedBatch::default();
    let mut ids = rustc_hash::FxHashSet::default();
    let n_docs = r.u32()? as usize;
    for _ in 0..n_docs {
        let id = r.string()?;
        let n = r.u32()? as usize;
        let mut counts = Vec::with_capacity(n.min(payload.len() / 8));
        let mut len: u64 = 0;
        let mut seen = rustc_hash::FxHashSet::default();
        for _ in 0..n {
            let t = r.u32()?;
            let tf = r.u32()?;
            if t as usize >= n_terms || tf == 0 || !seen.insert(t) {
                return Err(Error::corrupt("index file has a bad posting"));
            }
            len += tf as u64;
            counts.push((t, tf));
        }
        let flags = r.u8()?;
        let text = if flags & 1 != 0 { Some(r.string()?) } else { None };
        let meta = if flags & 2 != 0 {
            Some(serde_json::from_slice(r.bytes()?).map_err(|_| Error::corrupt("index file has bad metadata"))?)
        } else {
            None
        };
        if id.is_empty() || !ids.insert(id.clone()) || len > u32::MAX as u64 {
            return Err(Error::corrupt("index file has a bad or repeated document id"));
        }
        batch.docs.push(AnalyzedDoc {
            id,
            counts,
            len: len as u32,
            text,
            meta,
        });
    }
    if r.pos != payload.len() {
        return Err(Error::corrupt("index file has trailing bytes"));
    }
    batch.terms = terms.into_iter().map(String::into_boxed_str).collect();
    let mut store = DocStore::default();
    store.insert_batch(batch);
    Bm25Index::from_parts(config, store).map_err(|e| Error::corrupt(format!("index file has a bad config: {e}")))
}
