//! Segments: immutable slices of the index, each built once (by a refresh from the new
//! documents, by a merge from adjacent segments, or by a load) and then only shared.
//!
//! A segment holds its documents in insertion order, a vocabulary of its own (`term ->
//! local term id`), postings in CSR per local term (documents increasing) with the raw
//! term frequency, and each document's `(local term, tf)` list (the forward index, so a
//! removal can update the global df, a merge can rewrite documents and a save can write
//! them). No statistic of the whole index lives here: scores are computed at query time
//! from the snapshot's N, df and average length, which is what keeps them exact however
//! the index is cut into segments.
use std::sync::{Arc, OnceLock};

use memmap2::Mmap;
use rustc_hash::FxHashMap;

use super::column::Column;
pub use super::docs::{Doc, DocRef, Docs, Matched};
use super::scoring::{Params, TfForm, TfPart};
use super::vocab::Vocab;
use crate::fields::{FieldIndex, FieldSchema, SelectionCache};

/// Postings per block-max block. Blocks are cut from the segment's whole posting array, not
/// per term, so one index needs no per-term table: a block that straddles two terms bounds
/// both (looser at a list's two ends, still exact as a bound). 4 bytes per `BLOCK` postings.
pub const BLOCK: usize = 64;

/// Documents analysed together. Term ids are local to the batch (`terms[id]`), so
/// analysis allocates once per distinct term of the batch, not once per token.
#[derive(Default)]
pub struct AnalyzedBatch {
    pub terms: Vec<Box<str>>,
    pub docs: Vec<AnalyzedDoc>,
}

/// A document after analysis, ready to be stored.
pub struct AnalyzedDoc {
    /// Shared with the staged id set and then the stored `Doc`.
    pub id: Arc<str>,
    /// `(batch-local term id, frequency)`, each term once.
    pub counts: Vec<(u32, u32)>,
    pub len: u32,
    pub text: Option<String>,
    pub meta: Option<serde_json::Value>,
}

/// The arrays are `Column`s: owned for a segment built in memory, views into the file's
/// map for one read from a directory (`segment_file`); the search code reads both alike.
pub struct Segment {
    /// The stored documents and the id lookup (`Docs::Owned` shares `Doc`s with the
    /// segments merged from this one: a merge copies pointers, not text).
    pub docs: Docs,
    /// The documents' lengths, packed for the scoring loops.
    pub lens: Column<u32>,
    pub terms: Vocab,
    /// Forward index: document `d` owns `fwd[fwd_offsets[d]..fwd_offsets[d + 1]]`.
    pub fwd_offsets: Column<usize>,
    pub fwd: Column<(u32, u32)>,
    /// Postings: local term `t` owns `offsets[t]..offsets[t + 1]` of `post_docs`/`post_tfs`
    /// (so `offsets[t + 1] - offsets[t]` is the term's df in this segment, removed
    /// documents included).
    pub offsets: Column<usize>,
    pub post_docs: Column<u32>,
    pub post_tfs: Column<u32>,
    /// Per term, the largest `tfc - tfc(0)` of its postings at `build_avgdl`: the MaxScore
    /// bound, scaled at query time by how much the average length has grown since.
    pub max_tf_part: Column<f32>,
    /// The same maximum per block of `BLOCK` postings (`block_max[i / BLOCK]` bounds
    /// posting `i`): the block-max bounds of MaxScore, scaled the same way.
    pub block_max: Column<f32>,
    /// The document of each block's last posting, packed (16 blocks a cache line): the
    /// windowed search steps over a long list's blocks without touching its postings.
    pub block_last: Column<u32>,
    pub build_avgdl: f64,
    /// The sum of the documents' lengths (removed ones included).
    pub total_len: u64,
    /// Whether any document stores text or metadata (a search then has fields to return).
    pub has_fields: bool,
    /// The documents' metadata by field and value; without it, filters scan. Built with
    /// the segment (`index_fields`), or on first use for a mapped one (`defer_fields`).
    fields: OnceLock<Option<FieldIndex>>,
    deferred_schema: Option<FieldSchema>,
    /// Recent filters' documents, from `fields`.
    pub selections: SelectionCache,
    /// Its file number in a directory, once committed there (`seg-<number>.bm25`).
    pub number: std::sync::OnceLock<u64>,
    /// The file the arrays are read from, for a mapped segment (`segment_file::verify`).
    map: Option<Arc<Mmap>>,
    bytes: usize,
}

/// A segment's arrays, as built or read back from its file (`segment_file`).
pub struct Parts {
    pub docs: Docs,
    pub lens: Column<u32>,
    pub terms: Vocab,
    pub fwd_offsets: Column<usize>,
    pub fwd: Column<(u32, u32)>,
    pub offsets: Column<usize>,
    pub post_docs: Column<u32>,
    pub post_tfs: Column<u32>,
    pub max_tf_part: Column<f32>,
    pub block_max: Column<f32>,
    pub block_last: Column<u32>,
    pub build_avgdl: f64,
    pub total_len: u64,
    pub map: Option<Arc<Mmap>>,
}

impl Segment {
    pub fn from_parts(p: Parts) -> Segment {
        let has_fields = p.docs.has_fields();
        let mut seg = Segment {
            docs: p.docs,
            lens: p.lens,
            terms: p.terms,
            fwd_offsets: p.fwd_offsets,
            fwd: p.fwd,
            offsets: p.offsets,
            post_docs: p.post_docs,
            post_tfs: p.post_tfs,
            max_tf_part: p.max_tf_part,
            block_max: p.block_max,
            block_last: p.block_last,
            build_avgdl: p.build_avgdl,
            total_len: p.total_len,
            has_fields,
            fields: OnceLock::new(),
            deferred_schema: None,
            selections: SelectionCache::default(),
            number: std::sync::OnceLock::new(),
            map: p.map,
            bytes: 0,
        };
        seg.bytes = seg.count_bytes();
        seg
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The mapped file, if the segment was read from one.
    pub fn map(&self) -> Option<&Mmap> {
        self.map.as_deref()
    }

    /// Builds the field index of the documents' metadata (once, as the segment is built).
    pub fn index_fields(&mut self, schema: &FieldSchema) {
        let index = self.build_fields(schema);
        self.bytes += index.heap_bytes().values().sum::<usize>();
        self.fields = OnceLock::from(Some(index));
    }

    /// Leaves the field index to be built by the first filter that needs it (a mapped
    /// segment: open must not parse every document's metadata).
    pub fn defer_fields(&mut self, schema: &FieldSchema) {
        self.fields = OnceLock::new();
        self.deferred_schema = Some(schema.clone());
    }

    /// The field index, built now if it was deferred.
    pub fn fields(&self) -> Option<&FieldIndex> {
        self.fields
            .get_or_init(|| {
                let schema = self.deferred_schema.as_ref()?;
                Some(self.build_fields(schema))
            })
            .as_ref()
    }

    fn build_fields(&self, schema: &FieldSchema) -> FieldIndex {
        let mut index = FieldIndex::new(schema.clone());
        for l in 0..self.len() as u32 {
            index.insert(l, self.docs.meta(l).as_deref());
        }
        index
    }

    /// The field index if it is built (stats must not build it).
    pub fn built_fields(&self) -> Option<&FieldIndex> {
        self.fields.get().and_then(Option::as_ref)
    }

    pub fn term(&self, term: &str) -> Option<u32> {
        self.terms.lookup(term)
    }

    /// The stored document `local`.
    pub fn doc(&self, local: u32) -> DocRef<'_> {
        self.docs.get(local)
    }

    pub fn local_of(&self, id: &str) -> Option<u32> {
        self.docs.local_of(id)
    }

    pub fn postings(&self, t: u32) -> (&[u32], &[u32]) {
        let r = self.offsets[t as usize]..self.offsets[t as usize + 1];
        (&self.post_docs[r.clone()], &self.post_tfs[r])
    }

    pub fn doc_terms(&self, local: u32) -> &[(u32, u32)] {
        &self.fwd[self.fwd_offsets[local as usize]..self.fwd_offsets[local as usize + 1]]
    }

    /// How much larger than `max_tf_part` a posting can score at `avgdl_now`. When the
    /// average length grows by 1/r, every L shrinks by at most r (b in [0, 1]) and each
    /// variant's `tfc - tfc(0)` is concave increasing in 1/L from 0, so it grows by at
    /// most 1/r; a shrinking average only lowers it.
    pub fn bound_growth(&self, avgdl_now: f64) -> f32 {
        if self.build_avgdl > 0.0 {
            (avgdl_now / self.build_avgdl).max(1.0) as f32
        } else {
            1.0
        }
    }

    /// Heap bytes held, counted once at build (a segment never changes): `stats` stays
    /// O(segments), never a walk over the documents on the event loop. A mapped segment's
    /// arrays are in the page cache, not counted.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn count_bytes(&self) -> usize {
        self.terms.heap_bytes()
            + self.docs.heap_bytes()
            + self.posting_bytes()
            + self.offsets.heap_bytes()
            + self.fwd_offsets.heap_bytes()
            + self.lens.heap_bytes()
    }

    /// Heap bytes per (term, document) pair: postings (doc, tf) and forward (term, tf).
    pub fn posting_bytes(&self) -> usize {
        self.post_docs.heap_bytes()
            + self.post_tfs.heap_bytes()
            + self.fwd.heap_bytes()
            + self.max_tf_part.heap_bytes()
            + self.block_max.heap_bytes()
            + self.block_last.heap_bytes()
    }
}

/// Collects documents, then builds a segment in one pass.
#[derive(Default)]
pub struct SegmentBuilder {
    docs: Vec<Arc<Doc>>,
    vocab: FxHashMap<Arc<str>, u32>,
    terms: Vec<Arc<str>>,
    fwd_offsets: Vec<usize>,
    fwd: Vec<(u32, u32)>,
    df: Vec<usize>,
}

impl SegmentBuilder {
    pub fn new() -> Self {
        SegmentBuilder {
            fwd_offsets: vec![0],
            ..Default::default()
        }
    }

    pub fn intern(&mut self, term: &Arc<str>) -> u32 {
        if let Some(&t) = self.vocab.get(&**term) {
            return t;
        }
        let t = self.terms.len() as u32;
        self.terms.push(term.clone());
        self.vocab.insert(term.clone(), t);
        self.df.push(0);
        t
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Room for `docs` more documents of `pairs` (term, tf) pairs in all: a big add then
    /// allocates its forward lists once instead of doubling them (each doubling copies, and
    /// touches fresh pages the kernel must zero: a third of a 100k-document build's time).
    pub fn reserve(&mut self, docs: usize, pairs: usize) {
        self.docs.reserve_exact(docs);
        self.fwd_offsets.reserve_exact(docs);
        self.fwd.reserve_exact(pairs);
    }

    /// Adds a document whose `(local term, tf)` pairs are already in this builder's ids.
    pub fn push(&mut self, doc: Arc<Doc>, terms: impl IntoIterator<Item = (u32, u32)>) {
        for (t, tf) in terms {
            self.df[t as usize] += 1;
            self.fwd.push((t, tf));
        }
        self.fwd_offsets.push(self.fwd.len());
        self.docs.push(doc);
    }

    /// Adds the documents of `batch` for which `keep(index in batch)` holds, in order;
    /// batch terms are interned as first used.
    pub fn push_batch(&mut self, batch: AnalyzedBatch, keep: impl Fn(usize) -> bool) {
        let mut map = vec![u32::MAX; batch.terms.len()];
        for (i, d) in batch.docs.into_iter().enumerate() {
            if !keep(i) {
                continue;
            }
            for &(t, _) in &d.counts {
                if map[t as usize] == u32::MAX {
                    let term = &batch.terms[t as usize];
                    map[t as usize] = match self.vocab.get(&**term) {
                        Some(&id) => id,
                        None => self.intern(&Arc::from(&**term)),
                    };
                }
            }
            let doc = Arc::new(Doc::new(d.id, d.len, d.text.map(String::into_boxed_str), d.meta));
            self.push(doc, d.counts.iter().map(|&(t, tf)| (map[t as usize], tf)));
        }
    }

    /// Builds the postings (counting sort by term: documents come out increasing) and the
    /// MaxScore bounds for `avgdl`, the index's average length at build time.
    pub fn finish(self, params: &Params, avgdl: f64) -> Segment {
        self.finish_on(params, avgdl, 1)
    }

    /// `finish` on up to `threads` threads (two at most: the postings are written from both
    /// ends of each list) when the segment is big enough to repay a thread: a bulk add's
    /// refresh and a load, where the caller waits for the segment. Merges stay on one
    /// thread, in the background.
    pub fn finish_on(self, params: &Params, avgdl: f64, threads: usize) -> Segment {
        let SegmentBuilder {
            docs,
            vocab,
            terms,
            fwd_offsets,
            fwd,
            df,
        } = self;
        let mut offsets = Vec::with_capacity(df.len() + 1);
        let mut total = 0usize;
        offsets.push(0);
        for &n in &df {
            total += n;
            offsets.push(total);
        }
        let split = threads > 1 && total >= PARALLEL_POSTINGS;
        let (post_docs, post_tfs) = scatter(&offsets, &fwd_offsets, &fwd, split);
        let lens: Vec<u32> = docs.iter().map(|d| d.len).collect();
        let (max_tf_part, block_max) = match params.tf_form(avgdl) {
            TfForm::Saturation(f) => max_parts(f, &offsets, &post_docs, &post_tfs, &lens, split),
            TfForm::LengthScaled(f) => max_parts(f, &offsets, &post_docs, &post_tfs, &lens, split),
        };
        let block_last: Vec<u32> = (0..block_max.len())
            .map(|b| post_docs[((b + 1) * BLOCK).min(total) - 1])
            .collect();
        let local_of = docs.iter().enumerate().map(|(i, d)| (d.id.clone(), i as u32)).collect();
        let total_len = lens.iter().map(|&l| l as u64).sum();
        Segment::from_parts(Parts {
            docs: Docs::Owned { docs, local_of },
            lens: lens.into(),
            terms: Vocab::Owned { terms, ids: vocab },
            fwd_offsets: fwd_offsets.into(),
            fwd: fwd.into(),
            offsets: offsets.into(),
            post_docs: post_docs.into(),
            post_tfs: post_tfs.into(),
            max_tf_part: max_tf_part.into(),
            block_max: block_max.into(),
            block_last: block_last.into(),
            build_avgdl: avgdl,
            total_len,
            map: None,
        })
    }
}

/// Postings below which `finish` stays on one thread (a thread costs tens of microseconds;
/// a 2M-posting sort some tens of milliseconds).
const PARALLEL_POSTINGS: usize = 1 << 21;

/// `a` here and `b` on a scoped thread when `split`, else one after the other.
fn join<A: Send, B: Send>(split: bool, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    if !split {
        return (a(), b());
    }
    std::thread::scope(|s| {
        let b = s.spawn(b);
        let a = a();
        (a, b.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

/// The postings `(docs, tfs)` of every term from the forward lists, documents increasing.
/// Split, the documents are cut in two halves by postings: the first fills each list from
/// its front, the second (documents in reverse) from its back, so the halves meet without
/// either knowing the other's counts.
fn scatter(offsets: &[usize], fwd_offsets: &[usize], fwd: &[(u32, u32)], split: bool) -> (Vec<u32>, Vec<u32>) {
    let n_terms = offsets.len() - 1;
    let total = offsets[n_terms];
    let n_docs = fwd_offsets.len() - 1;
    if !split {
        let mut post_docs = vec![0u32; total];
        let mut post_tfs = vec![0u32; total];
        let mut cursor: Vec<usize> = offsets[..n_terms].to_vec();
        for d in 0..n_docs {
            for &(t, tf) in &fwd[fwd_offsets[d]..fwd_offsets[d + 1]] {
                let c = &mut cursor[t as usize];
                post_docs[*c] = d as u32;
                post_tfs[*c] = tf;
                *c += 1;
            }
        }
        return (post_docs, post_tfs);
    }
    let mid = fwd_offsets.partition_point(|&o| o < total / 2).min(n_docs);
    // Each list's room per half, from the first half's counts: safe slices, no shared writes.
    let mut front_len = vec![0usize; n_terms];
    fwd[..fwd_offsets[mid]]
        .iter()
        .for_each(|&(t, _)| front_len[t as usize] += 1);
    let mut post_docs = vec![0u32; total];
    let mut post_tfs = vec![0u32; total];
    let (mut front, mut back) = (Vec::with_capacity(n_terms), Vec::with_capacity(n_terms));
    let (mut docs_rest, mut tfs_rest) = (&mut post_docs[..], &mut post_tfs[..]);
    for t in 0..n_terms {
        let len = offsets[t + 1] - offsets[t];
        let (d, dr) = std::mem::take(&mut docs_rest).split_at_mut(len);
        let (f, fr) = std::mem::take(&mut tfs_rest).split_at_mut(len);
        (docs_rest, tfs_rest) = (dr, fr);
        let (df, db) = d.split_at_mut(front_len[t]);
        let (ff, fb) = f.split_at_mut(front_len[t]);
        front.push((df, ff, 0usize));
        back.push((db, fb, 0usize));
    }
    let fill = |lists: &mut Vec<(&mut [u32], &mut [u32], usize)>, docs: &mut dyn Iterator<Item = usize>| {
        for d in docs {
            for &(t, tf) in &fwd[fwd_offsets[d]..fwd_offsets[d + 1]] {
                let (ds, ts, c) = &mut lists[t as usize];
                ds[*c] = d as u32;
                ts[*c] = tf;
                *c += 1;
            }
        }
    };
    join(
        true,
        || fill(&mut front, &mut (0..mid)),
        || {
            // From the back of each list: documents in reverse, each list's slice reversed after.
            fill(&mut back, &mut (mid..n_docs).rev());
            back.iter_mut().for_each(|(ds, ts, _)| {
                ds.reverse();
                ts.reverse();
            });
        },
    );
    drop((front, back));
    (post_docs, post_tfs)
}

/// Per term and per block of `BLOCK` postings, the largest tf part at the build's average
/// length, from one evaluation per posting; split, the terms are cut in two halves by
/// postings and the block they share takes the larger of their maxima.
fn max_parts<F: TfPart>(
    f: F,
    offsets: &[usize],
    docs: &[u32],
    tfs: &[u32],
    lens: &[u32],
    split: bool,
) -> (Vec<f32>, Vec<f32>) {
    let n_terms = offsets.len() - 1;
    let total = offsets[n_terms];
    let mid = if split {
        offsets.partition_point(|&o| o < total / 2).min(n_terms)
    } else {
        n_terms
    };
    // The maxima of terms `range`, and of the blocks their postings touch (from the first).
    let part = |range: std::ops::Range<usize>| {
        let first_block = offsets[range.start] / BLOCK;
        let mut blocks = vec![0f32; offsets[range.end].div_ceil(BLOCK).saturating_sub(first_block)];
        let terms: Vec<f32> = offsets[range.start..=range.end]
            .windows(2)
            .map(|w| {
                (w[0]..w[1])
                    .map(|i| {
                        let v = f.eval(tfs[i] as f32, lens[docs[i] as usize] as f32);
                        let b = &mut blocks[i / BLOCK - first_block];
                        *b = b.max(v);
                        v
                    })
                    .fold(0f32, f32::max)
            })
            .collect();
        (terms, first_block, blocks)
    };
    let ((mut terms, _, mut blocks), (more_terms, first, more_blocks)) =
        join(split, || part(0..mid), || part(mid..n_terms));
    terms.extend(more_terms);
    blocks.resize(total.div_ceil(BLOCK).max(first), 0.0);
    for (b, v) in blocks[first..].iter_mut().zip(more_blocks) {
        *b = b.max(v);
    }
    (terms, blocks)
}

/// Removed documents of one segment, as a bitset over its local ids. Shared by the
/// snapshots that agree on it and cloned by the refresh that changes it (copy on write).
#[derive(Debug, Clone, Default)]
pub struct Deleted {
    bits: Vec<u64>,
    count: usize,
}

impl Deleted {
    pub fn new(n: usize) -> Self {
        Deleted {
            bits: vec![0; n.div_ceil(64)],
            count: 0,
        }
    }

    #[inline]
    pub fn contains(&self, local: u32) -> bool {
        self.bits
            .get(local as usize / 64)
            .is_some_and(|w| w & (1 << (local % 64)) != 0)
    }

    /// Marks `local` removed; false if it already was.
    pub fn insert(&mut self, local: u32) -> bool {
        let (w, bit) = (local as usize / 64, 1u64 << (local % 64));
        if self.bits[w] & bit != 0 {
            return false;
        }
        self.bits[w] |= bit;
        self.count += 1;
        true
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// The bitset's words (bit `i % 64` of word `i / 64` set: document `i` removed).
    pub fn words(&self) -> &[u64] {
        &self.bits
    }

    /// The set of `n` documents held by `words`; None if they do not fit `n`.
    pub fn from_words(n: usize, words: Vec<u64>) -> Option<Self> {
        let spare = words.len() * 64 - n;
        let fits = words.len() == n.div_ceil(64) && words.last().is_none_or(|&w| spare == 0 || w >> (64 - spare) == 0);
        fits.then(|| Deleted {
            count: words.iter().map(|w| w.count_ones() as usize).sum(),
            bits: words,
        })
    }

    /// The locals set here and not in `before`.
    pub fn added_since<'a>(&'a self, before: &'a Deleted) -> impl Iterator<Item = u32> + 'a {
        self.bits.iter().enumerate().flat_map(move |(w, &bits)| {
            let mut fresh = bits & !before.bits.get(w).copied().unwrap_or(0);
            std::iter::from_fn(move || {
                (fresh != 0).then(|| {
                    let b = fresh.trailing_zeros();
                    fresh &= fresh - 1;
                    (w * 64) as u32 + b
                })
            })
        })
    }

    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builder of `docs` documents with a skewed vocabulary (a few terms in most
    /// documents, a long tail), the same for the same arguments.
    fn builder(docs: usize, terms_per_doc: usize) -> SegmentBuilder {
        let mut b = SegmentBuilder::new();
        let mut state = 0x2545_f491_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for d in 0..docs {
            let mut pairs: Vec<(u32, u32)> = (0..terms_per_doc)
                .map(|_| {
                    let r = next();
                    // Rank skew: the square of a uniform draw favours the first terms.
                    let u = (r % 1_000_003) as f64 / 1_000_003.0;
                    let name: Arc<str> = format!("t{}", (u * u * 50_000.0) as u32).into();
                    (b.intern(&name), 1 + (r >> 40) as u32 % 4)
                })
                .collect();
            pairs.sort_unstable_by_key(|p| p.0);
            pairs.dedup_by_key(|p| p.0);
            let len = pairs.iter().map(|p| p.1).sum();
            let doc = Arc::new(Doc::new(format!("d{d}").into(), len, None, None));
            b.push(doc, pairs);
        }
        b
    }

    #[test]
    fn finish_on_two_threads_builds_the_segment_one_thread_builds() {
        // Above PARALLEL_POSTINGS, and small: an odd document count, the halves cut mid-list.
        let (docs, per_doc) = (30_001, 80);
        let params = Params::default();
        let one = builder(docs, per_doc).finish_on(&params, 60.0, 1);
        let two = builder(docs, per_doc).finish_on(&params, 60.0, 2);
        assert!(
            one.post_docs.len() >= PARALLEL_POSTINGS,
            "the test must take the split path"
        );
        assert_eq!(one.offsets, two.offsets);
        assert_eq!(one.post_docs, two.post_docs);
        assert_eq!(one.post_tfs, two.post_tfs);
        assert_eq!(one.max_tf_part, two.max_tf_part);
        assert_eq!(one.block_max, two.block_max);
        assert_eq!(one.block_last, two.block_last);
        // And the postings are what the forward lists say, documents increasing per term.
        for t in 0..one.terms.len() {
            let (ds, _) = two.postings(t as u32);
            assert!(ds.windows(2).all(|w| w[0] < w[1]), "term {t}: documents out of order");
            for &d in ds {
                assert!(two.doc_terms(d).iter().any(|&(u, _)| u as usize == t));
            }
        }
    }
}
