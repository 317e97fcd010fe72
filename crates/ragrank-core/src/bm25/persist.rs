//! One-file persistence, in the checksummed envelope of `crate::checksummed` (magic,
//! version, payload, length and CRC-32; atomic, cancellable writes).
//!
//! The payload (little endian) holds the config as JSON, the live vocabulary, and each
//! live document (id, term frequencies, optional text and metadata) in insertion order.
//! A save writes one snapshot, which is immutable: it takes no lock and sees a point in
//! time however the index changes meanwhile. A load builds one segment.
use std::path::Path;
use std::sync::atomic::AtomicBool;

use std::sync::Arc;

use super::segment::{AnalyzedBatch, AnalyzedDoc, Deleted, SegmentBuilder};
use super::snapshot::{SegRef, Snapshot};
use super::{Bm25Index, IndexConfig};
use crate::analysis::Analyzer;
use crate::checksummed::{self, Format, PayloadWriter};
use crate::error::{check_cancel, Error, Result};

pub const MAGIC: &[u8; 8] = b"RGRKBM25";
pub const FORMAT_VERSION: u32 = 1;
const FORMAT: Format = Format::new(MAGIC, FORMAT_VERSION, "BM25 index");

/// Writes `snapshot` to `path` atomically; once `cancel` is set the write stops with
/// `Error::aborted()`, and `path` is left as it was.
pub fn save(snapshot: &Snapshot, path: &Path, cancel: &AtomicBool) -> Result<()> {
    checksummed::write(path, &FORMAT, cancel, |w| write_payload(snapshot, w, cancel))
}

fn write_payload(snap: &Snapshot, w: &mut PayloadWriter, cancel: &AtomicBool) -> Result<()> {
    let config = serde_json::to_vec(snap.config()).map_err(|e| Error::invalid(e.to_string()))?;
    w.bytes(&config)?;
    // The file's vocabulary: terms of live documents, numbered in (segment, local term)
    // order (so a loaded file saves back identically).
    let mut file_ids: Vec<Vec<u32>> = Vec::with_capacity(snap.segs.len());
    let mut vocab: Vec<&str> = Vec::new();
    let mut id_of: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    for s in &snap.segs {
        let seg = &s.seg;
        let mut used = vec![false; seg.terms.len()];
        for local in 0..seg.len() as u32 {
            if !s.deleted.contains(local) {
                seg.doc_terms(local).iter().for_each(|&(t, _)| used[t as usize] = true);
            }
        }
        let ids = (0..seg.terms.len())
            .map(|t| {
                if !used[t] {
                    return u32::MAX;
                }
                let term = seg.terms.get(t as u32);
                *id_of.entry(term).or_insert_with(|| {
                    vocab.push(term);
                    (vocab.len() - 1) as u32
                })
            })
            .collect();
        file_ids.push(ids);
        check_cancel(cancel)?;
    }
    w.u32(vocab.len() as u32)?;
    for term in &vocab {
        w.bytes(term.as_bytes())?;
    }
    w.u32(snap.len() as u32)?;
    for (s, ids) in snap.segs.iter().zip(&file_ids) {
        for local in 0..s.seg.len() {
            if s.deleted.contains(local as u32) {
                continue;
            }
            let doc = s.seg.doc(local as u32);
            let terms = s.seg.doc_terms(local as u32);
            w.bytes(doc.id.as_bytes())?;
            w.u32(terms.len() as u32)?;
            for &(t, tf) in terms {
                w.u32(ids[t as usize])?;
                w.u32(tf)?;
            }
            let flags = doc.text.is_some() as u8 | (doc.meta.is_some() as u8) << 1;
            w.put(&[flags])?;
            if let Some(text) = doc.text {
                w.bytes(text.as_bytes())?;
            }
            if let Some(meta) = &doc.meta {
                w.bytes(&serde_json::to_vec(meta).map_err(|e| Error::invalid(e.to_string()))?)?;
            }
        }
    }
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
    FORMAT.damaged()
}

/// Reads an index written by `save`; once `cancel` is set the read stops with
/// `Error::aborted()`.
pub fn load(path: &Path, cancel: &AtomicBool) -> Result<Bm25Index> {
    let data = checksummed::read_file(path, cancel)?;
    from_bytes(&data, cancel)
}

pub fn from_bytes(data: &[u8], cancel: &AtomicBool) -> Result<Bm25Index> {
    let payload = checksummed::payload(data, &FORMAT, cancel)?;
    let mut r = Reader { buf: payload, pos: 0 };
    let config: IndexConfig =
        serde_json::from_slice(r.bytes()?).map_err(|e| Error::corrupt(format!("index file has a bad config: {e}")))?;
    let n_terms = r.u32()? as usize;
    // Capacities are bounded by what the payload can hold (4 bytes a term at least), so a
    // corrupt count cannot reserve more than the file's size.
    let mut terms = Vec::with_capacity(n_terms.min(payload.len() / 4));
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
        let id: Arc<str> = r.string()?.into();
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
    check_cancel(cancel)?;
    let bad_config = |e: Error| Error::corrupt(format!("index file has a bad config: {e}"));
    config.params.validate().map_err(bad_config)?;
    let analyzer = Arc::new(Analyzer::new(config.analyzer.clone()).map_err(bad_config)?);
    batch.terms = terms.into_iter().map(String::into_boxed_str).collect();
    // The file's term ids become the segment's (terms used by no document are left out).
    let mut builder = SegmentBuilder::new();
    let mut used = vec![false; batch.terms.len()];
    batch
        .docs
        .iter()
        .flat_map(|d| &d.counts)
        .for_each(|&(t, _)| used[t as usize] = true);
    for (term, _) in batch.terms.iter().zip(&used).filter(|(_, &u)| u) {
        builder.intern(&Arc::from(&**term));
    }
    let mut snapshot = Snapshot::empty(Arc::new(config), analyzer);
    snapshot.live = batch.docs.len();
    snapshot.total_len = batch.docs.iter().map(|d| d.len as u64).sum();
    builder.push_batch(batch, |_| true);
    let mut seg = builder.finish_on(&snapshot.config.params, snapshot.avg_len(), super::analysis_threads());
    seg.index_fields(&snapshot.config.field_schema());
    let state = snapshot.df_state_mut();
    for t in 0..seg.terms.len() {
        let n = (seg.offsets[t + 1] - seg.offsets[t]) as u32;
        state.map.insert(seg.terms.shared(t as u32), n);
        state.term_bytes += seg.terms.get(t as u32).len();
    }
    snapshot.postings = seg.post_docs.len();
    let deleted = Arc::new(Deleted::new(seg.len()));
    snapshot.set_segments(vec![SegRef::new(Arc::new(seg), deleted)]);
    // A loaded index is usually searched before it is written: precompute now, on the
    // loading thread, rather than a second after.
    snapshot.precompute();
    Ok(Bm25Index::from_snapshot(snapshot))
}
