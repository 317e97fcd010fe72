//! One BM25 segment as its own file (`seg-<n>.bm25` in a directory, docs/STORAGE.md), in the
//! checksummed envelope (magic `RGRKSEGB`). The payload is a run of sections, each a byte
//! length `u64` and its bytes starting at a multiple of 8 in the file, so a memory map can
//! read the arrays as typed slices in place. In order: a JSON header (counts and the build's
//! average length), the document lengths `u32`, flags `u8` (bit 0 text, bit 1 metadata),
//! then ids, texts and metadata (JSON) each as end offsets `u64` and the bytes, the terms
//! (end offsets and UTF-8, in local id order), the posting offsets `u64`, posting documents
//! and term frequencies `u32`, the forward offsets `u64` and pairs `u32`, and the MaxScore
//! bounds (per term and per block `f32`, each block's last document `u32`). Everything is
//! written once, when a segment is first committed; the field index is rebuilt from the
//! metadata as the segment is read.
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::segment::{Doc, Segment};
use crate::checksummed::{self, Format, PayloadWriter, HEADER};
use crate::error::{check_cancel, Error, Result};
use crate::fields::FieldSchema;

const FORMAT: Format = Format::new(b"RGRKSEGB", 1, "BM25 segment");

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    docs: usize,
    terms: usize,
    postings: usize,
    pairs: usize,
    blocks: usize,
    build_avgdl: f64,
}

/// Writes `seg` to `path` (atomically, fsync'd).
pub fn write(seg: &Segment, path: &Path, cancel: &AtomicBool) -> Result<()> {
    checksummed::write(path, &FORMAT, cancel, |w| {
        let counts = Counts {
            docs: seg.len(),
            terms: seg.terms.len(),
            postings: seg.post_docs.len(),
            pairs: seg.fwd.len(),
            blocks: seg.block_max.len(),
            build_avgdl: seg.build_avgdl,
        };
        section(
            w,
            &serde_json::to_vec(&counts).map_err(|e| Error::invalid(e.to_string()))?,
        )?;
        u32s(w, seg.lens.iter().copied())?;
        let flags: Vec<u8> = seg
            .docs
            .iter()
            .map(|d| d.text.is_some() as u8 | (d.meta.is_some() as u8) << 1)
            .collect();
        section(w, &flags)?;
        strings(w, seg.docs.iter().map(|d| d.id.as_bytes().to_vec()))?;
        strings(
            w,
            seg.docs
                .iter()
                .map(|d| d.text.as_deref().unwrap_or("").as_bytes().to_vec()),
        )?;
        let metas: Result<Vec<Vec<u8>>> = seg
            .docs
            .iter()
            .map(|d| {
                d.meta.as_ref().map_or(Ok(Vec::new()), |m| {
                    serde_json::to_vec(m).map_err(|e| Error::invalid(e.to_string()))
                })
            })
            .collect();
        strings(w, metas?.into_iter())?;
        check_cancel(cancel)?;
        strings(w, seg.terms.iter().map(|t| t.as_bytes().to_vec()))?;
        u64s(w, seg.offsets.iter().map(|&o| o as u64))?;
        u32s(w, seg.post_docs.iter().copied())?;
        u32s(w, seg.post_tfs.iter().copied())?;
        u64s(w, seg.fwd_offsets.iter().map(|&o| o as u64))?;
        u32s(w, seg.fwd.iter().flat_map(|&(t, tf)| [t, tf]))?;
        u32s(w, seg.max_tf_part.iter().map(|f| f.to_bits()))?;
        u32s(w, seg.block_max.iter().map(|f| f.to_bits()))?;
        u32s(w, seg.block_last.iter().copied())
    })
}

fn section(w: &mut PayloadWriter, bytes: &[u8]) -> Result<()> {
    w.put(&(bytes.len() as u64).to_le_bytes())?;
    let pad = (8 - w.position() % 8) % 8;
    w.put(&[0; 8][..pad as usize])?;
    w.put(bytes)
}

fn u32s(w: &mut PayloadWriter, values: impl Iterator<Item = u32>) -> Result<()> {
    section(w, &values.flat_map(u32::to_le_bytes).collect::<Vec<u8>>())
}

fn u64s(w: &mut PayloadWriter, values: impl Iterator<Item = u64>) -> Result<()> {
    section(w, &values.flat_map(u64::to_le_bytes).collect::<Vec<u8>>())
}

/// End offsets, then the bytes.
fn strings(w: &mut PayloadWriter, values: impl Iterator<Item = Vec<u8>>) -> Result<()> {
    let mut ends = Vec::new();
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend_from_slice(&v);
        ends.push(bytes.len() as u64);
    }
    u64s(w, ends.into_iter())?;
    section(w, &bytes)
}

struct Sections<'a> {
    payload: &'a [u8],
    pos: usize,
    damaged: &'a dyn Fn(&str) -> Error,
}

impl<'a> Sections<'a> {
    fn next(&mut self) -> Result<&'a [u8]> {
        let bad = || (self.damaged)("truncated section");
        let len = self.payload.get(self.pos..self.pos + 8).ok_or_else(bad)?;
        let len = u64::from_le_bytes(len.try_into().expect("8 bytes")) as usize;
        self.pos += 8;
        self.pos += (8 - (HEADER + self.pos) % 8) % 8;
        let end = self
            .pos
            .checked_add(len)
            .filter(|&e| e <= self.payload.len())
            .ok_or_else(bad)?;
        let s = &self.payload[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>> {
        let s = self.next()?;
        if s.len() != n * 4 {
            return Err((self.damaged)("an array of the wrong length"));
        }
        Ok(s.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    /// `n` increasing offsets ending at most at `limit`.
    fn offsets(&mut self, n: usize, limit: usize) -> Result<Vec<usize>> {
        let s = self.next()?;
        if s.len() != n * 8 {
            return Err((self.damaged)("an array of the wrong length"));
        }
        let v: Vec<usize> = s
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")) as usize)
            .collect();
        if v.windows(2).any(|w| w[0] > w[1]) || v.last().is_some_and(|&l| l > limit) {
            return Err((self.damaged)("offsets out of order"));
        }
        Ok(v)
    }

    fn strings(&mut self, n: usize) -> Result<Vec<&'a str>> {
        let ends = self.next()?;
        let bytes = self.next()?;
        if ends.len() != n * 8 {
            return Err((self.damaged)("an array of the wrong length"));
        }
        let mut start = 0usize;
        let mut out = Vec::with_capacity(n);
        for c in ends.chunks_exact(8) {
            let end = u64::from_le_bytes(c.try_into().expect("8 bytes")) as usize;
            let s = bytes
                .get(start..end)
                .ok_or_else(|| (self.damaged)("offsets out of order"))?;
            out.push(std::str::from_utf8(s).map_err(|_| (self.damaged)("invalid UTF-8"))?);
            start = end;
        }
        Ok(out)
    }
}

/// Reads a segment written by `write`, and builds its field index for `schema`. Any damage
/// is `ERR_CORRUPT_INDEX` naming the file.
pub fn read(path: &Path, schema: &FieldSchema, cancel: &AtomicBool) -> Result<Segment> {
    let named = |e: Error| Error::new(e.kind, format!("{}: {}", path.display(), e.message));
    let data = checksummed::read_file(path, cancel).map_err(named)?;
    let payload = checksummed::payload(&data, &FORMAT, cancel).map_err(named)?;
    let damaged = |what: &str| Error::corrupt(format!("{}: damaged BM25 segment ({what})", path.display()));
    let mut s = Sections {
        payload,
        pos: 0,
        damaged: &damaged,
    };
    let c: Counts = serde_json::from_slice(s.next()?).map_err(|_| damaged("bad header"))?;
    // Every count is bounded by the payload's size before anything is allocated by it.
    if [c.docs, c.terms, c.postings, c.pairs, c.blocks]
        .iter()
        .any(|&n| n > payload.len())
    {
        return Err(damaged("bad header"));
    }
    let lens = s.u32s(c.docs)?;
    let flags = s.next()?;
    if flags.len() != c.docs {
        return Err(damaged("an array of the wrong length"));
    }
    let ids = s.strings(c.docs)?;
    let texts = s.strings(c.docs)?;
    let metas = s.strings(c.docs)?;
    check_cancel(cancel)?;
    let mut docs = Vec::with_capacity(c.docs);
    for i in 0..c.docs {
        let meta = if flags[i] & 2 != 0 {
            Some(serde_json::from_str(metas[i]).map_err(|_| damaged("bad metadata"))?)
        } else {
            None
        };
        docs.push(Arc::new(Doc {
            id: ids[i].into(),
            len: lens[i],
            text: (flags[i] & 1 != 0).then(|| texts[i].into()),
            meta,
        }));
    }
    let terms: Vec<Arc<str>> = s.strings(c.terms)?.into_iter().map(Arc::from).collect();
    let offsets = s.offsets(c.terms + 1, c.postings)?;
    let post_docs = s.u32s(c.postings)?;
    let post_tfs = s.u32s(c.postings)?;
    let fwd_offsets = s.offsets(c.docs + 1, c.pairs)?;
    let fwd_flat = s.u32s(c.pairs * 2)?;
    let max_tf_part: Vec<f32> = s.u32s(c.terms)?.into_iter().map(f32::from_bits).collect();
    let block_max: Vec<f32> = s.u32s(c.blocks)?.into_iter().map(f32::from_bits).collect();
    let block_last = s.u32s(c.blocks)?;
    if s.pos != payload.len()
        || offsets.last() != Some(&c.postings)
        || fwd_offsets.last() != Some(&c.pairs)
        || post_docs.iter().any(|&d| d as usize >= c.docs)
        || fwd_flat.chunks_exact(2).any(|p| p[0] as usize >= c.terms || p[1] == 0)
    {
        return Err(damaged("inconsistent arrays"));
    }
    let fwd = fwd_flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let vocab: FxHashMap<Arc<str>, u32> = terms.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
    let local_of: FxHashMap<Arc<str>, u32> = docs.iter().enumerate().map(|(i, d)| (d.id.clone(), i as u32)).collect();
    if vocab.len() != c.terms || local_of.len() != c.docs {
        return Err(damaged("a repeated term or id"));
    }
    let mut seg = Segment::from_parts(super::segment::Parts {
        docs,
        lens,
        local_of,
        vocab,
        terms,
        fwd_offsets,
        fwd,
        offsets,
        post_docs,
        post_tfs,
        max_tf_part,
        block_max,
        block_last,
        build_avgdl: c.build_avgdl,
    });
    seg.index_fields(schema);
    Ok(seg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bm25::{Bm25Index, IndexConfig, NewDoc};
    use crate::ErrorKind;

    fn index() -> Bm25Index {
        let index = Bm25Index::new(IndexConfig::default()).unwrap();
        let docs = (0..300)
            .map(|i| NewDoc {
                id: format!("doc-{i}"),
                text: Some(format!("alpha beta{} gamma{} word{} 한국어 문서", i % 7, i % 13, i)),
                meta: (i % 3 != 0).then(|| serde_json::json!({ "tenant": format!("t{}", i % 5), "n": i })),
                ..Default::default()
            })
            .collect();
        index.add(docs, false).unwrap();
        index
    }

    #[test]
    fn a_segment_reads_back_as_the_segment_written() {
        let index = index();
        let snap = index.snapshot();
        let seg = &snap.segs[0].seg;
        let dir = std::env::temp_dir().join(format!("ragrank-segfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("seg-1.bm25");
        let never = AtomicBool::new(false);
        write(seg, &path, &never).unwrap();
        let back = read(&path, &snap.config.field_schema(), &never).unwrap();
        assert_eq!(back.offsets, seg.offsets);
        assert_eq!(back.post_docs, seg.post_docs);
        assert_eq!(back.post_tfs, seg.post_tfs);
        assert_eq!(back.fwd, seg.fwd);
        assert_eq!(back.fwd_offsets, seg.fwd_offsets);
        assert_eq!(back.max_tf_part, seg.max_tf_part);
        assert_eq!(back.block_max, seg.block_max);
        assert_eq!(back.block_last, seg.block_last);
        assert_eq!(back.terms, seg.terms);
        assert_eq!(back.bytes(), seg.bytes());
        for (a, b) in back.docs.iter().zip(&seg.docs) {
            assert_eq!((&a.id, a.len, &a.text, &a.meta), (&b.id, b.len, &b.text, &b.meta));
        }
        assert!(back.fields.is_some());
        // A flipped byte anywhere is reported with the file's name.
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
        let err = read(&path, &snap.config.field_schema(), &never).err().unwrap();
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
        assert!(err.message.contains("seg-1.bm25"), "{}", err.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
