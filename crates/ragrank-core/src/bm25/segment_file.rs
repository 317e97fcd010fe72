//! One BM25 segment as its own file (`seg-<n>.bm25` in a directory, docs/STORAGE.md), in the
//! checksummed envelope (magic `RGRKSEGB`, version 2). The payload is a run of sections, each
//! a byte length `u64` and its bytes starting at a multiple of 8 in the file, so a memory map
//! reads the arrays as typed slices in place (`Column`). In order: a JSON header (counts, the
//! build's average length, the documents' total length), the document lengths `u32`, flags
//! `u8` (bit 0 text, bit 1 metadata), then ids, texts and metadata (JSON) each as end offsets
//! `u64` and the bytes, the terms (end offsets and UTF-8, in local id order), the posting
//! offsets `u64`, posting documents and term frequencies `u32`, the forward offsets `u64` and
//! pairs `u32`, the MaxScore bounds (per term and per block `f32`, each block's last document
//! `u32`), the locals sorted by id `u32` (the id lookup, by binary search), the term lookup
//! (`vocab::hash_slots`, `u32`), and last the CRC-32 `u32` of each section before it.
//!
//! `read` maps the file and checks, besides magic, version and length, every section's size
//! against the header's counts and the CRCs of the header and of the sections that are a few
//! bytes per document or per term (`CHECKED_AT_OPEN`); the big ones (postings, forward pairs,
//! bounds, text and metadata bytes) are checked by the whole-file CRC in `verify`, not at open.
//! Everything a search reads is bounds-checked, so damage there gives wrong results or a panic,
//! never a read outside the map. Version 1 files are refused (no release wrote them).
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

use super::column::{Column, Plain, Strings};
use super::docs::{Docs, StoredDocs, HAS_META, HAS_TEXT};
use super::segment::{Parts, Segment};
use super::vocab::{hash_slots, sorted_ids, Vocab};
use crate::checksummed::{self, Format, PayloadWriter, HEADER};
use crate::error::{check_cancel, Error, Result};
use crate::fields::FieldSchema;

const FORMAT: Format = Format::new(b"RGRKSEGB", 2, "BM25 segment");

/// Sections, in file order.
const SECTIONS: usize = 22;
const S_HEADER: usize = 0;
const S_LENS: usize = 1;
const S_FLAGS: usize = 2;
const S_IDS: usize = 3; // ends, then bytes
const S_TEXTS: usize = 5;
const S_METAS: usize = 7;
const S_TERMS: usize = 9;
const S_OFFSETS: usize = 11;
const S_POST_DOCS: usize = 12;
const S_POST_TFS: usize = 13;
const S_FWD_OFFSETS: usize = 14;
const S_FWD: usize = 15;
const S_MAX_TF: usize = 16;
const S_BLOCK_MAX: usize = 17;
const S_BLOCK_LAST: usize = 18;
const S_BY_ID: usize = 19;
const S_TERM_SLOTS: usize = 20;
const S_CRCS: usize = 21;

/// The sections whose CRC open checks: the header and those of a few bytes per document or
/// per term (about 50 bytes a document in all), read to answer the first query or an id lookup.
const CHECKED_AT_OPEN: [usize; 12] = [
    S_HEADER,
    S_LENS,
    S_FLAGS,
    S_IDS,
    S_IDS + 1,
    S_TEXTS,
    S_METAS,
    S_TERMS,
    S_TERMS + 1,
    S_OFFSETS,
    S_FWD_OFFSETS,
    S_TERM_SLOTS,
];

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    docs: usize,
    terms: usize,
    postings: usize,
    pairs: usize,
    blocks: usize,
    build_avgdl: f64,
    total_len: u64,
}

struct Writer<'a, 'w> {
    w: &'a mut PayloadWriter<'w>,
    crcs: Vec<u32>,
}

impl Writer<'_, '_> {
    fn section(&mut self, bytes: &[u8]) -> Result<()> {
        self.w.put(&(bytes.len() as u64).to_le_bytes())?;
        let pad = (8 - self.w.position() % 8) % 8;
        self.w.put(&[0; 8][..pad as usize])?;
        self.crcs.push(crc32fast::hash(bytes));
        self.w.put(bytes)
    }

    fn u32s(&mut self, values: impl Iterator<Item = u32>) -> Result<()> {
        self.section(&values.flat_map(u32::to_le_bytes).collect::<Vec<u8>>())
    }

    fn u64s(&mut self, values: impl Iterator<Item = u64>) -> Result<()> {
        self.section(&values.flat_map(u64::to_le_bytes).collect::<Vec<u8>>())
    }

    /// End offsets, then the bytes.
    fn strings<B: AsRef<[u8]>>(&mut self, values: impl Iterator<Item = B>) -> Result<()> {
        let mut ends = Vec::new();
        let mut bytes = Vec::new();
        for v in values {
            bytes.extend_from_slice(v.as_ref());
            ends.push(bytes.len() as u64);
        }
        self.u64s(ends.into_iter())?;
        self.section(&bytes)
    }
}

/// Writes `seg` to `path` (atomically, fsync'd).
pub fn write(seg: &Segment, path: &Path, cancel: &AtomicBool) -> Result<()> {
    let n = seg.len() as u32;
    let json = |v: &serde_json::Value| serde_json::to_vec(v).map_err(|e| Error::invalid(e.to_string()));
    checksummed::write(path, &FORMAT, cancel, |w| {
        let mut w = Writer { w, crcs: Vec::new() };
        let counts = Counts {
            docs: seg.len(),
            terms: seg.terms.len(),
            postings: seg.post_docs.len(),
            pairs: seg.fwd.len(),
            blocks: seg.block_max.len(),
            build_avgdl: seg.build_avgdl,
            total_len: seg.total_len,
        };
        w.section(&serde_json::to_vec(&counts).map_err(|e| Error::invalid(e.to_string()))?)?;
        w.u32s(seg.lens.iter().copied())?;
        let flags: Vec<u8> = (0..n)
            .map(|l| {
                let d = seg.doc(l);
                (d.text.is_some() as u8 * HAS_TEXT) | (d.meta.is_some() as u8 * HAS_META)
            })
            .collect();
        w.section(&flags)?;
        w.strings((0..n).map(|l| seg.docs.id(l)))?;
        w.strings((0..n).map(|l| seg.doc(l).text.unwrap_or_default()))?;
        let metas: Result<Vec<Vec<u8>>> = (0..n)
            .map(|l| seg.docs.meta(l).map_or(Ok(Vec::new()), |m| json(&m)))
            .collect();
        w.strings(metas?.iter())?;
        check_cancel(cancel)?;
        w.strings(seg.terms.iter())?;
        w.u64s(seg.offsets.iter().map(|&o| o as u64))?;
        w.u32s(seg.post_docs.iter().copied())?;
        w.u32s(seg.post_tfs.iter().copied())?;
        w.u64s(seg.fwd_offsets.iter().map(|&o| o as u64))?;
        w.u32s(seg.fwd.iter().flat_map(|&(t, tf)| [t, tf]))?;
        w.u32s(seg.max_tf_part.iter().map(|f| f.to_bits()))?;
        w.u32s(seg.block_max.iter().map(|f| f.to_bits()))?;
        w.u32s(seg.block_last.iter().copied())?;
        check_cancel(cancel)?;
        w.u32s(sorted_ids(seg.len(), |l| seg.docs.id(l).as_bytes()).into_iter())?;
        w.u32s(hash_slots(seg.terms.len(), |t| seg.terms.get(t).as_bytes()).into_iter())?;
        let crcs = std::mem::take(&mut w.crcs);
        w.u32s(crcs.into_iter())
    })
}

/// Where each section lies in the map: (offset, length in bytes).
fn layout(map: &Mmap, payload_len: usize, damaged: &dyn Fn(&str) -> Error) -> Result<Vec<(usize, usize)>> {
    let end = HEADER + payload_len;
    let mut pos = HEADER;
    let mut out = Vec::with_capacity(SECTIONS);
    for _ in 0..SECTIONS {
        let len = map.get(pos..pos + 8).ok_or_else(|| damaged("truncated section"))?;
        let len = u64::from_le_bytes(len.try_into().expect("8 bytes")) as usize;
        pos += 8;
        pos += (8 - pos % 8) % 8;
        let stop = pos
            .checked_add(len)
            .filter(|&e| e <= end)
            .ok_or_else(|| damaged("truncated section"))?;
        out.push((pos, len));
        pos = stop;
    }
    if pos != end {
        return Err(damaged("trailing bytes"));
    }
    Ok(out)
}

/// Maps a segment written by `write` (file number `number`); its field index, for `schema`,
/// is built by the first filter that needs it. Damage found is `ERR_CORRUPT_INDEX` naming
/// the file; what open does not check is listed in the module's comment.
pub fn read(path: &Path, number: u64, schema: &FieldSchema) -> Result<Segment> {
    let named = |e: Error| Error::new(e.kind, format!("{}: {}", path.display(), e.message));
    let file = checksummed::open_regular(path).map_err(named)?;
    // SAFETY: a segment file is never written after its rename into the directory (every
    // write goes to a new file, docs/STORAGE.md), so the mapped bytes do not change under
    // the slices read from them. A process that truncated one anyway would make a read
    // fault (SIGBUS), as with any mapped file.
    let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(|e| named(e.into()))?);
    let payload_len = checksummed::unverified_payload(&map, &FORMAT).map_err(named)?.len();
    let damaged = |what: &str| Error::corrupt(format!("{}: damaged BM25 segment ({what})", path.display()));
    let at = layout(&map, payload_len, &damaged)?;
    let bytes = |i: usize| &map[at[i].0..at[i].0 + at[i].1];
    let crcs = bytes(S_CRCS);
    if crcs.len() != (SECTIONS - 1) * 4 {
        return Err(damaged("bad checksums"));
    }
    for i in CHECKED_AT_OPEN {
        if crc32fast::hash(bytes(i)) != u32::read_le(&crcs[i * 4..i * 4 + 4]) {
            return Err(damaged("a checksum does not match"));
        }
    }
    let c: Counts = serde_json::from_slice(bytes(S_HEADER)).map_err(|_| damaged("bad header"))?;
    // Each section must be as long as the header's counts say, before any is viewed.
    let expect = |i: usize, n: usize, width: usize| {
        n.checked_mul(width)
            .filter(|&b| b == at[i].1)
            .ok_or_else(|| damaged("an array of the wrong length"))
    };
    fn col<T: Plain>(map: &Arc<Mmap>, at: (usize, usize)) -> Column<T> {
        Column::mapped(map, at.0, at.1 / T::WIDTH)
    }
    for (i, n, width) in [
        (S_LENS, c.docs, 4),
        (S_FLAGS, c.docs, 1),
        (S_IDS, c.docs, 8),
        (S_TEXTS, c.docs, 8),
        (S_METAS, c.docs, 8),
        (S_TERMS, c.terms, 8),
        (S_OFFSETS, c.terms + 1, 8),
        (S_POST_DOCS, c.postings, 4),
        (S_POST_TFS, c.postings, 4),
        (S_FWD_OFFSETS, c.docs + 1, 8),
        (S_FWD, c.pairs, 8),
        (S_MAX_TF, c.terms, 4),
        (S_BLOCK_MAX, c.blocks, 4),
        (S_BLOCK_LAST, c.blocks, 4),
        (S_BY_ID, c.docs, 4),
    ] {
        expect(i, n, width)?;
    }
    if at[S_TERM_SLOTS].1 != (2 * c.terms).next_power_of_two().max(2) * 4 {
        return Err(damaged("an array of the wrong length"));
    }
    let strings = |i: usize| Strings {
        ends: col(&map, at[i]),
        bytes: col(&map, at[i + 1]),
    };
    let (ids, texts, metas, terms) = (strings(S_IDS), strings(S_TEXTS), strings(S_METAS), strings(S_TERMS));
    let offsets: Column<usize> = col(&map, at[S_OFFSETS]);
    let fwd_offsets: Column<usize> = col(&map, at[S_FWD_OFFSETS]);
    // The ends of the offset arrays, not every entry: those are covered by their CRCs.
    let ends_ok = offsets.first() == Some(&0)
        && offsets.last() == Some(&c.postings)
        && fwd_offsets.first() == Some(&0)
        && fwd_offsets.last() == Some(&c.pairs)
        && [&ids, &texts, &metas, &terms]
            .iter()
            .all(|s| s.ends.last().map_or(0, |&e| e) == s.bytes.len());
    if !ends_ok || c.blocks != c.postings.div_ceil(super::segment::BLOCK) {
        return Err(damaged("inconsistent arrays"));
    }
    let mut seg = Segment::from_parts(Parts {
        docs: Docs::Mapped(Box::new(StoredDocs {
            lens: col(&map, at[S_LENS]),
            flags: col(&map, at[S_FLAGS]),
            ids,
            texts,
            metas,
            by_id: col(&map, at[S_BY_ID]),
            segment: number,
        })),
        lens: col(&map, at[S_LENS]),
        terms: Vocab::Mapped {
            terms,
            slots: col(&map, at[S_TERM_SLOTS]),
        },
        fwd_offsets,
        fwd: col(&map, at[S_FWD]),
        offsets,
        post_docs: col(&map, at[S_POST_DOCS]),
        post_tfs: col(&map, at[S_POST_TFS]),
        max_tf_part: col(&map, at[S_MAX_TF]),
        block_max: col(&map, at[S_BLOCK_MAX]),
        block_last: col(&map, at[S_BLOCK_LAST]),
        build_avgdl: c.build_avgdl,
        total_len: c.total_len,
        map: Some(map.clone()),
    });
    seg.defer_fields(schema);
    let _ = seg.number.set(number);
    Ok(seg)
}

/// Checks the whole-file CRC of a mapped segment (nothing to check for one in memory).
pub fn verify(seg: &Segment) -> Result<()> {
    let Some(map) = seg.map() else { return Ok(()) };
    let never = AtomicBool::new(false);
    checksummed::check_crc(map, &FORMAT, &never).map_err(|e| {
        let name = seg
            .number
            .get()
            .map_or("a segment".to_string(), |n| format!("seg-{n}.bm25"));
        Error::new(e.kind, format!("{name}: {}", e.message))
    })
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
        let back = read(&path, 1, &snap.config.field_schema()).unwrap();
        assert!(back.map().is_some());
        assert_eq!(back.offsets, seg.offsets);
        assert_eq!(back.post_docs, seg.post_docs);
        assert_eq!(back.post_tfs, seg.post_tfs);
        assert_eq!(back.fwd, seg.fwd);
        assert_eq!(back.fwd_offsets, seg.fwd_offsets);
        assert_eq!(back.max_tf_part, seg.max_tf_part);
        assert_eq!(back.block_max, seg.block_max);
        assert_eq!(back.block_last, seg.block_last);
        assert_eq!(back.lens, seg.lens);
        assert_eq!(back.total_len, seg.total_len);
        assert!(back.terms.iter().eq(seg.terms.iter()));
        for (t, term) in seg.terms.iter().enumerate() {
            assert_eq!(back.term(term), Some(t as u32));
        }
        assert_eq!(back.term("absent"), None);
        for l in 0..seg.len() as u32 {
            assert_eq!(back.doc(l), seg.doc(l));
            assert_eq!(back.local_of(seg.docs.id(l)), Some(l));
        }
        assert_eq!(back.local_of("doc-x"), None);
        // The arrays are read in place: what the heap holds is a small part of the segment.
        assert!(back.bytes() * 4 < seg.bytes(), "{} vs {}", back.bytes(), seg.bytes());
        assert!(back.built_fields().is_none(), "built by the first filter");
        assert!(back.fields().is_some());
        verify(&back).unwrap();
        drop(back);
        let clean = std::fs::read(&path).unwrap();
        // A flipped byte in the postings is found by `verify`, not at open.
        let mut bytes = clean.clone();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let back = read(&path, 1, &snap.config.field_schema()).unwrap();
        let err = verify(&back).err().unwrap();
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
        assert!(err.message.contains("seg-1.bm25"), "{}", err.message);
        drop(back);
        // One in a section open checks (the header), or a truncated file, is found at open.
        for damage in [0usize, 1] {
            let mut bytes = clean.clone();
            if damage == 0 {
                bytes[HEADER + 12] ^= 0x01;
            } else {
                bytes.truncate(bytes.len() - 5);
            }
            std::fs::write(&path, &bytes).unwrap();
            let err = read(&path, 1, &snap.config.field_schema()).err().unwrap();
            assert_eq!(err.kind, ErrorKind::CorruptIndex);
            assert!(err.message.contains("seg-1.bm25"), "{}", err.message);
        }
        // A version 1 file is refused, saying so.
        let mut bytes = clean;
        bytes[8] = 1;
        std::fs::write(&path, &bytes).unwrap();
        let err = read(&path, 1, &snap.config.field_schema()).err().unwrap();
        assert!(err.message.contains("version 1 is not supported"), "{}", err.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
