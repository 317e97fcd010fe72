//! Exact top-k search.
//!
//! Every scan walks the snapshot's chunks in order, each with the rows its tombstones and
//! filters allow, into one selection keyed by slot, so the hits equal those of one chunk.
//!
//! One query: a scan of every row with the dispatched dot kernel; once the corpus is large,
//! the calling thread and the pool share its row chunks (`pool`), each with its own top-k
//! selection, merged. int8 storage scans the codes for a shortlist and rescores it exactly
//! from the f32 originals; binary storage does the same with sign bits, ranked by Hamming
//! distance (popcount), and rescores from f32 or (`BinaryInt8`) from int8 codes.
//!
//! Many queries: GEMM-like tiling. Each participant claims ranges of rows and walks them in
//! blocks; a block (widened to f32 once for f16/int8) is multiplied with a block of
//! queries by the `dots_tile` kernel (register-blocked 4 x 4 on AVX-512, a packed sgemm
//! elsewhere), so it is read from memory once per query block instead of once per query.
//! A block of sign bits (binary) stays in L1 while every query's distances to it are counted.
use std::sync::atomic::{AtomicBool, Ordering};

use half::f16;
use half::slice::HalfFloatSliceExt;
use ragrank_core::topk::{Hit, KBest};
use ragrank_core::{check_cancel, Error, Result};
use rayon::prelude::*;

use ragrank_core::filter::MetaFilter;

use std::sync::Arc;

use crate::chunk::Chunk;
use crate::config::{Metric, Shortlist, Storage};
use crate::index::{check_row, Part, VectorIndex};
use crate::kernels::hamming::{sign_bits_into, words, Hamming};
use crate::kernels::Kernels;
use crate::pool::{batch_pool, share_rows, sync_pool};
use crate::select::{RowMask, Selection};

#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// How many hits at most; more than the candidates returns them all.
    pub top_k: usize,
    /// Only these slots are scored (sorted, unique), when set.
    pub filter: Option<Vec<u32>>,
    /// Only rows whose metadata passes are scored, when set.
    pub meta: Option<MetaFilter>,
}

/// Bytes of rows at which a scan goes parallel (3 MB): below it, waking a pool thread costs
/// about what the second core saves (measured on 2 cores, where break-even is 2-3 MB).
const PAR_MIN_BYTES: usize = 3 << 20;
/// Bytes of rows above which consecutive scans alternate direction (`share_rows`): about the
/// size of a server CPU's last-level cache slice, which smaller scans stay inside anyway.
const ALTERNATE_MIN_BYTES: usize = 32 << 20;
/// Rows per block of a contiguous scan: scored into a stack buffer, then offered to the selection.
const SCAN_BLOCK: usize = 64;
/// Bounds of the bytes of rows per chunk of a parallel single-query scan (see `share_rows`).
const MIN_CHUNK_BYTES: usize = 1 << 18;
const MAX_CHUNK_BYTES: usize = 1 << 22;
/// Rows per block of the batch search (kept in L2 while every query block passes), and queries per block.
const BLOCK_ROWS: usize = 128;
const QUERY_BLOCK: usize = 64;
/// Below this many queries the batch search runs single-query scans.
const MIN_GEMM_QUERIES: usize = 4;

/// Hits beyond `k` a f32 or f16 scan keeps for the final rescoring: rows whose scores differ
/// only by rounding at the k-th place are all rescored, so the same k come back on every path.
const RESCORE_MARGIN: usize = 8;

/// The int8 shortlist rescored exactly from the f32 originals, unless the caller set one.
pub fn shortlist_len(k: usize) -> usize {
    (4 * k).max(k + 32)
}

struct Prepared {
    f32s: Vec<f32>,
    codes: Vec<i8>,
    code_scale: f32,
    /// Sign bits (binary storage).
    bits: Vec<u64>,
    sqnorm: f32,
}

/// Turns an inner product into the metric's score.
struct Finish<'a> {
    /// Squared row norms, for l2 only.
    sqnorms: Option<&'a [f32]>,
    q_sqnorm: f32,
}

impl Finish<'_> {
    #[inline]
    fn apply(&self, dot: f32, slot: usize) -> f32 {
        match self.sqnorms {
            Some(sq) => (2.0 * dot - sq[slot] - self.q_sqnorm).min(0.0),
            None => dot,
        }
    }

    /// `apply` over the inner products of the consecutive slots `first..`, in place
    /// (nothing to do unless the metric is l2).
    fn apply_run(&self, first: usize, dots: &mut [f32]) {
        if self.sqnorms.is_some() {
            for (i, x) in dots.iter_mut().enumerate() {
                *x = self.apply(*x, first + i);
            }
        }
    }
}

/// The rows a scan visits.
#[derive(Clone, Copy)]
enum Rows<'a> {
    All(usize),
    Only(&'a [u32]),
    /// The set rows of `0..n`.
    Mask(&'a RowMask, usize),
}

impl<'a> Rows<'a> {
    fn of(sel: &'a Selection, n: usize) -> Rows<'a> {
        match sel {
            Selection::All => Rows::All(n),
            Selection::Only(s) => Rows::Only(s),
            Selection::Mask(m) => Rows::Mask(m, n),
        }
    }
    /// How many rows may be returned.
    fn len(&self) -> usize {
        match self {
            Rows::All(n) => *n,
            Rows::Only(s) => s.len(),
            Rows::Mask(m, _) => m.count(),
        }
    }
    /// The range of positions a scan walks (slots, or indexes into `Only`).
    fn span(&self) -> usize {
        match self {
            Rows::All(n) | Rows::Mask(_, n) => *n,
            Rows::Only(s) => s.len(),
        }
    }
    #[inline]
    fn slot(&self, i: usize) -> usize {
        match self {
            Rows::All(_) | Rows::Mask(..) => i,
            Rows::Only(s) => s[i] as usize,
        }
    }
}

impl VectorIndex {
    fn prepare(&self, q: &[f32], what: &str) -> Result<Prepared> {
        let c = self.config();
        if q.len() != c.dim {
            return Err(Error::invalid(format!(
                "{what} has {} values; the index has dim {}",
                q.len(),
                c.dim
            )));
        }
        // The f16 range limit applies to stored rows, not to queries.
        let norm = check_row(q, c.metric, Storage::F32).map_err(|why| Error::invalid(format!("{what} {why}")))?;
        let f32s: Vec<f32> = if c.metric == Metric::Cosine {
            q.iter().map(|&x| (x as f64 / norm) as f32).collect()
        } else {
            q.to_vec()
        };
        let mut codes = Vec::new();
        let code_scale = if c.storage.keeps_int8() {
            crate::config::quantize_into(&f32s, &mut codes)
        } else {
            0.0
        };
        let mut bits = Vec::new();
        if c.storage.keeps_bits() {
            sign_bits_into(&f32s, &mut bits);
        }
        let sqnorm = (Kernels::best().dot_f32)(&f32s, &f32s);
        Ok(Prepared {
            f32s,
            codes,
            code_scale,
            bits,
            sqnorm,
        })
    }

    fn finisher<'a>(&self, chunk: &'a Chunk, q_sqnorm: f32) -> Finish<'a> {
        Finish {
            sqnorms: (self.config().metric == Metric::L2).then(|| chunk.sqnorms.as_slice()),
            q_sqnorm,
        }
    }

    /// The final score of one slot: exact from f32 (or f16) values, or for `BinaryInt8` the
    /// int8 inner product of the query's codes and the row's (the int8 storage's kernel).
    fn exact(&self, q: &Prepared, slot: u32) -> f32 {
        let (p, r) = self.locate(slot);
        let (d, k, ch) = (self.dim(), Kernels::best(), &*p.chunk);
        let span = r * d..(r + 1) * d;
        let dot = match self.config().storage {
            Storage::F16 => (k.dot_f16)(&q.f32s, &ch.f16s.as_slice()[span]),
            Storage::BinaryInt8 => {
                (k.dot_i8)(&q.codes, &ch.i8s.as_slice()[span]) as f32 * q.code_scale * ch.scales.as_slice()[r]
            }
            Storage::F32 | Storage::Int8 | Storage::Binary => (k.dot_f32)(&q.f32s, &ch.f32s.as_slice()[span]),
        };
        self.finisher(ch, q.sqnorm).apply(dot, r)
    }

    /// The per-row scorer of one prepared query over one chunk: approximate (int8 codes, or
    /// minus the Hamming distance of sign bits) for int8 and binary storage, exact otherwise. Slices and kernels are resolved once, outside the scan loop.
    fn scorer<'a>(&self, chunk: &'a Chunk, q: &'a Prepared) -> RowScorer<'a> {
        RowScorer {
            d: self.dim(),
            q,
            fin: self.finisher(chunk, q.sqnorm),
            kern: Kernels::best(),
            hamming: Hamming::best(),
            rows: match self.config().storage {
                Storage::F32 => RowData::F32(chunk.f32s.as_slice()),
                Storage::F16 => RowData::F16(chunk.f16s.as_slice()),
                Storage::Int8 => RowData::Int8(chunk.i8s.as_slice(), chunk.scales.as_slice()),
                Storage::Binary | Storage::BinaryInt8 => RowData::Bits(chunk.bits.as_slice()),
            },
        }
    }

    /// How many hits a scan keeps for the final rescoring: the shortlist of an approximate
    /// storage (the caller's, else the storage's default), or `k` plus `RESCORE_MARGIN`.
    fn keep(&self, k: usize) -> usize {
        match (self.config().storage, self.shortlist) {
            (Storage::Int8 | Storage::Binary | Storage::BinaryInt8, Some(s)) => s.len(k),
            (Storage::Int8, None) => shortlist_len(k),
            (Storage::Binary | Storage::BinaryInt8, None) => Shortlist::BINARY_DEFAULT.len(k),
            (Storage::F32 | Storage::F16, _) => k + RESCORE_MARGIN,
        }
    }

    /// The final hits of a scan: its shortlist rescored by one kernel (`exact`). A scan's
    /// scores depend on the path (the blocked batch kernel, a row's place in a block of four,
    /// a chunk boundary) by float rounding; rescoring makes every returned score the same
    /// function of query and row, so `search`, `searchBatch` and a coalesced `searchAsync`
    /// agree bit for bit whatever the batch or chunk layout.
    fn finish_top(&self, q: &Prepared, top: KBest, k: usize) -> Vec<Hit> {
        self.rescore(q, top.into_sorted(), k)
    }

    /// The rows of `p`'s chunk a search may return: live, in the id filter (global slots,
    /// sorted) and passing the metadata filter, each when set.
    fn selection(&self, p: &Part, ids: Option<&[u32]>, meta: Option<&MetaFilter>) -> Selection {
        let (ch, n) = (&*p.chunk, p.chunk.rows());
        if let Some(slots) = ids {
            let at = |end: usize| slots.partition_point(|&s| (s as usize) < end);
            let mine = &slots[at(p.base)..at(p.base + n)];
            return Selection::Only(
                mine.iter()
                    .map(|&s| s - p.base as u32)
                    .filter(|&r| p.is_alive(r as usize) && meta.is_none_or(|f| f.matches(ch.fields.meta(r))))
                    .collect(),
            );
        }
        match (meta, &p.alive) {
            (None, None) => Selection::All,
            (None, Some(alive)) => Selection::Mask(alive.clone()),
            (Some(f), alive) => {
                if let Some(rows) = ch.field_index.as_ref().and_then(|fi| ch.selections.select(fi, f)) {
                    return Selection::of_rows(n, &rows, alive.as_deref());
                }
                let passing = ch.masks.get(n, &ch.fields, f);
                match alive {
                    None => Selection::Mask(passing),
                    Some(alive) => Selection::Mask(Arc::new(passing.and(alive))),
                }
            }
        }
    }

    /// Each part's selection, and how many rows they allow in all.
    fn selections(&self, opts: &SearchOptions) -> (Vec<Selection>, usize) {
        let sels: Vec<Selection> = self
            .parts
            .iter()
            .map(|p| self.selection(p, opts.filter.as_deref(), opts.meta.as_ref()))
            .collect();
        let count = sels.iter().zip(&self.parts).map(|(s, p)| s.count(p.chunk.rows())).sum();
        (sels, count)
    }

    /// Whether a search would use a thread pool: a scan large enough to share out, or a
    /// metadata filter (whose mask may be built in parallel).
    pub fn search_uses_pool(&self, opts: &SearchOptions) -> bool {
        let c = self.config();
        opts.meta.is_some() || self.parts.iter().any(|p| p.chunk.scan_bytes(c) >= PAR_MIN_BYTES)
    }

    /// `search` for a caller that must not wait on a pool's queue (the JS event loop): small
    /// scans run on the calling thread, larger ones on `sync_pool`, never on the global pool.
    pub fn search_sync(&self, query: &[f32], opts: &SearchOptions) -> Result<Vec<Hit>> {
        if self.search_uses_pool(opts) {
            sync_pool().install(|| self.search(query, opts))
        } else {
            self.search(query, opts)
        }
    }

    /// The best `top_k` rows for one query, best first (ties: earlier added first).
    pub fn search(&self, query: &[f32], opts: &SearchOptions) -> Result<Vec<Hit>> {
        self.check_file()?;
        let q = self.prepare(query, "query")?;
        let (sels, count) = self.selections(opts);
        let k = opts.top_k.min(count);
        if k == 0 {
            return Ok(Vec::new());
        }
        let keep = self.keep(k);
        let mut top = KBest::new(keep);
        for (p, sel) in self.parts.iter().zip(&sels) {
            top = self.scan(p, Rows::of(sel, p.chunk.rows()), keep, top, &self.scorer(&p.chunk, &q));
        }
        Ok(self.finish_top(&q, top, k))
    }

    fn rescore(&self, q: &Prepared, shortlist: Vec<Hit>, k: usize) -> Vec<Hit> {
        let mut top = KBest::new(k);
        for h in shortlist {
            top.push(h.slot, self.exact(q, h.slot));
        }
        top.into_sorted()
    }

    /// `top` with the best of `rows` of part `p` offered; a large scan is shared out in
    /// chunks (see `pool`).
    fn scan(&self, p: &Part, rows: Rows, keep: usize, mut top: KBest, sc: &RowScorer) -> KBest {
        let base = p.base;
        let run = |top: &mut KBest, range: std::ops::Range<usize>| match rows {
            Rows::All(_) => {
                let mut scores = [0f32; SCAN_BLOCK];
                for start in range.clone().step_by(SCAN_BLOCK) {
                    let block = &mut scores[..SCAN_BLOCK.min(range.end - start)];
                    sc.score_block(start, block);
                    top.push_run((base + start) as u32, block);
                }
            }
            Rows::Only(_) => {
                for i in range {
                    let s = rows.slot(i);
                    top.push((base + s) as u32, sc.score(s));
                }
            }
            Rows::Mask(mask, _) => {
                let mut scores = [0f32; SCAN_BLOCK];
                for start in range.clone().step_by(SCAN_BLOCK) {
                    let n = SCAN_BLOCK.min(range.end - start);
                    let bits = mask.bits(start, n);
                    let set = bits.count_ones() as usize;
                    if set * 4 < n {
                        // Few rows: scoring them one by one beats the block kernel.
                        for_each_bit(bits, |i| top.push((base + start + i) as u32, sc.score(start + i)));
                    } else {
                        let block = &mut scores[..n];
                        sc.score_block(start, block);
                        offer(top, bits, base + start, block);
                    }
                }
            }
        };
        if rows.len() == 0 {
            return top;
        }
        let (n, threads) = (rows.span(), rayon::current_num_threads());
        let row_bytes = self.config().storage.row_bytes(self.dim());
        if n * row_bytes < PAR_MIN_BYTES || threads < 2 {
            run(&mut top, 0..n);
            return top;
        }
        let bounds = (MIN_CHUNK_BYTES / row_bytes, MAX_CHUNK_BYTES / row_bytes, SCAN_BLOCK);
        let alternate = n * row_bytes > ALTERNATE_MIN_BYTES;
        share_rows(n, bounds, alternate, || KBest::new(keep), run)
            .into_iter()
            .fold(top, KBest::merge)
    }

    /// Top-k for each of the `queries.len() / dim` queries (row-major), in query order.
    /// Scores equal `search`'s (see `finish_top`). `cancel` is checked between row ranges.
    pub fn search_batch(&self, queries: &[f32], top_k: usize, cancel: &AtomicBool) -> Result<Vec<Vec<Hit>>> {
        let opts = SearchOptions {
            top_k,
            ..Default::default()
        };
        self.search_batch_with(queries, &opts, cancel)
    }

    /// `search_batch_with` on the batch pool (`pool::batch_pool`), the calling thread
    /// sleeping meanwhile: for an async caller on a pool thread, whose batch must yield the
    /// cores to the event loop.
    pub fn search_batch_pooled(
        &self,
        queries: &[f32],
        opts: &SearchOptions,
        cancel: &AtomicBool,
    ) -> Result<Vec<Vec<Hit>>> {
        batch_pool().install(|| self.search_batch_with(queries, opts, cancel))
    }

    /// `search_batch` with the filters of `opts`, which every query shares (the allowed
    /// rows are found once per call).
    pub fn search_batch_with(
        &self,
        queries: &[f32],
        opts: &SearchOptions,
        cancel: &AtomicBool,
    ) -> Result<Vec<Vec<Hit>>> {
        self.check_file()?;
        let d = self.dim();
        if !queries.len().is_multiple_of(d) {
            return Err(Error::invalid(format!(
                "queries has {} values, not a multiple of dim {d}",
                queries.len()
            )));
        }
        let prepared = queries
            .chunks_exact(d)
            .enumerate()
            .map(|(i, q)| self.prepare(q, &format!("query {i}")))
            .collect::<Result<Vec<_>>>()?;
        let m = prepared.len();
        let (sels, count) = self.selections(opts);
        let k = opts.top_k.min(count);
        if k == 0 || m == 0 {
            return Ok(vec![Vec::new(); m]);
        }
        let keep = self.keep(k);
        let mut tops: Vec<KBest> = (0..m).map(|_| KBest::new(keep)).collect();
        if m < MIN_GEMM_QUERIES {
            for (top, q) in tops.iter_mut().zip(&prepared) {
                check_cancel(cancel)?;
                for (p, sel) in self.parts.iter().zip(&sels) {
                    let t = std::mem::replace(top, KBest::new(0));
                    *top = self.scan(p, Rows::of(sel, p.chunk.rows()), keep, t, &self.scorer(&p.chunk, q));
                }
            }
        } else {
            let bits = self.config().storage.keeps_bits();
            let qmat: Vec<f32> = if bits {
                Vec::new()
            } else {
                prepared.iter().flat_map(|q| q.f32s.iter().copied()).collect()
            };
            for (p, sel) in self.parts.iter().zip(sels) {
                check_cancel(cancel)?;
                let n = p.chunk.rows();
                if sel.count(n) == 0 {
                    continue;
                }
                // The blocked scan skips rows by mask: an id filter becomes one too.
                let mask = match sel {
                    Selection::All => None,
                    Selection::Only(s) => Some(Arc::new(RowMask::of_slots(n, &s))),
                    Selection::Mask(m) => Some(m),
                };
                let states = share_rows(
                    n,
                    (4 * BLOCK_ROWS, 64 * BLOCK_ROWS, BLOCK_ROWS),
                    false,
                    || BatchPart::new(self, &p.chunk, &prepared, keep),
                    |part, rows| {
                        if !cancel.load(Ordering::Relaxed) {
                            let span = Span {
                                p,
                                rows,
                                mask: mask.as_deref(),
                            };
                            if bits {
                                self.batch_range_bits(&span, part, &prepared);
                            } else {
                                self.batch_range(&span, part, &qmat);
                            }
                        }
                    },
                );
                for state in states {
                    for (top, t) in tops.iter_mut().zip(state.tops) {
                        let mine = std::mem::replace(top, KBest::new(0));
                        *top = mine.merge(t);
                    }
                }
            }
        }
        check_cancel(cancel)?;
        Ok(tops
            .into_par_iter()
            .zip(&prepared)
            .map(|(top, q)| self.finish_top(q, top, k))
            .collect())
    }

    /// All queries of a batch (`qmat`, row after row) against the rows of `span`, a block
    /// at a time, into `part`.
    fn batch_range(&self, span: &Span, part: &mut BatchPart, qmat: &[f32]) {
        let c = self.config();
        let ch = &*span.p.chunk;
        let (d, m) = (c.dim, part.tops.len());
        let BatchPart { tops, fins, buf, tile } = part;
        let kern = Kernels::best();
        span.for_each_block(|start, nb| {
            // f16 and int8 blocks are widened to f32 once, then reused by every query block.
            let block: &[f32] = match c.storage {
                Storage::F32 => &ch.f32s.as_slice()[start * d..(start + nb) * d],
                Storage::F16 => {
                    ch.f16s.as_slice()[start * d..(start + nb) * d].convert_to_f32_slice(&mut buf[..nb * d]);
                    &buf[..nb * d]
                }
                Storage::Binary | Storage::BinaryInt8 => unreachable!("binary batches run batch_range_bits"),
                Storage::Int8 => {
                    let codes = &ch.i8s.as_slice()[start * d..(start + nb) * d];
                    let scales = &ch.scales.as_slice()[start..start + nb];
                    for ((out, row), &s) in buf.chunks_exact_mut(d).zip(codes.chunks_exact(d)).zip(scales) {
                        for (o, &x) in out.iter_mut().zip(row) {
                            *o = x as f32 * s;
                        }
                    }
                    &buf[..nb * d]
                }
            };
            let mut q0 = 0;
            while q0 < m {
                let mq = QUERY_BLOCK.min(m - q0);
                (kern.dots_tile)(&qmat[q0 * d..(q0 + mq) * d], block, d, &mut tile[..mq * nb]);
                for (qi, scores) in tile.chunks_exact_mut(nb).take(mq).enumerate() {
                    fins[q0 + qi].apply_run(start, scores);
                    span.offer(&mut tops[q0 + qi], start, scores);
                }
                q0 += mq;
            }
        });
    }
}

impl VectorIndex {
    /// `batch_range` for binary storage: a block of sign bits (6 KiB at 384 dimensions) stays
    /// in L1 while each query's Hamming distances to it are counted, so memory is read once
    /// per block for the whole batch.
    fn batch_range_bits(&self, span: &Span, part: &mut BatchPart, queries: &[Prepared]) {
        let bits = span.p.chunk.bits.as_slice();
        let w = words(self.dim());
        let ham = Hamming::best();
        let mut dist = [0u32; BLOCK_ROWS];
        let mut scores = [0f32; BLOCK_ROWS];
        span.for_each_block(|start, nb| {
            let block = &bits[start * w..(start + nb) * w];
            for (top, q) in part.tops.iter_mut().zip(queries) {
                (ham.distances)(&q.bits, block, &mut dist[..nb]);
                for (s, &h) in scores.iter_mut().zip(&dist[..nb]) {
                    *s = -(h as f32);
                }
                span.offer(top, start, &scores[..nb]);
            }
        });
    }
}

/// The rows of part `p` one participant of a batch scans, and the mask of the rows allowed.
struct Span<'a> {
    p: &'a Part,
    rows: std::ops::Range<usize>,
    mask: Option<&'a RowMask>,
}

impl Span<'_> {
    /// `f(start, rows)` for each block of up to `BLOCK_ROWS` rows that holds an allowed row.
    #[inline]
    fn for_each_block(&self, mut f: impl FnMut(usize, usize)) {
        let mut start = self.rows.start;
        while start < self.rows.end {
            let nb = BLOCK_ROWS.min(self.rows.end - start);
            if self.mask.is_none_or(|m| m.any(start, start + nb)) {
                f(start, nb);
            }
            start += nb;
        }
    }

    /// Offers the scores of the block at row `start` to `top`: those of the allowed rows.
    #[inline]
    fn offer(&self, top: &mut KBest, start: usize, scores: &[f32]) {
        let base = self.p.base;
        match self.mask {
            None => top.push_run((base + start) as u32, scores),
            Some(m) => {
                for (j, run) in scores.chunks(64).enumerate() {
                    let at = start + 64 * j;
                    offer(top, m.bits(at, run.len()), base + at, run);
                }
            }
        }
    }
}

/// Offers the scores of slots `slot..` whose bit is set in `bits` (slot `slot` in bit 0).
#[inline]
fn offer(top: &mut KBest, bits: u64, slot: usize, scores: &[f32]) {
    if bits.count_ones() as usize == scores.len() {
        top.push_run(slot as u32, scores);
    } else {
        for_each_bit(bits, |i| top.push((slot + i) as u32, scores[i]));
    }
}

#[inline]
fn for_each_bit(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// One participant's state in a batch search: a selection per query and its buffers.
struct BatchPart<'a> {
    tops: Vec<KBest>,
    fins: Vec<Finish<'a>>,
    /// A block of f16 or int8 rows widened to f32.
    buf: Vec<f32>,
    /// Scores of a query block against a row block.
    tile: Vec<f32>,
}

impl<'a> BatchPart<'a> {
    fn new(index: &VectorIndex, chunk: &'a Chunk, qs: &[Prepared], keep: usize) -> Self {
        let d = index.dim();
        BatchPart {
            tops: (0..qs.len()).map(|_| KBest::new(keep)).collect(),
            fins: qs.iter().map(|q| index.finisher(chunk, q.sqnorm)).collect(),
            buf: if matches!(
                index.config().storage,
                Storage::F32 | Storage::Binary | Storage::BinaryInt8
            ) {
                Vec::new()
            } else {
                vec![0f32; BLOCK_ROWS * d]
            },
            tile: vec![0f32; QUERY_BLOCK * BLOCK_ROWS],
        }
    }
}

enum RowData<'a> {
    F32(&'a [f32]),
    F16(&'a [f16]),
    /// Codes and per-row scales.
    Int8(&'a [i8], &'a [f32]),
    /// Sign bits, `words(d)` u64s per row.
    Bits(&'a [u64]),
}

struct RowScorer<'a> {
    d: usize,
    q: &'a Prepared,
    fin: Finish<'a>,
    kern: &'static Kernels,
    hamming: &'static Hamming,
    rows: RowData<'a>,
}

impl RowScorer<'_> {
    #[inline]
    fn score(&self, s: usize) -> f32 {
        let (d, q) = (self.d, self.q);
        let dot = match self.rows {
            RowData::F32(r) => (self.kern.dot_f32)(&q.f32s, &r[s * d..(s + 1) * d]),
            RowData::F16(r) => (self.kern.dot_f16)(&q.f32s, &r[s * d..(s + 1) * d]),
            RowData::Int8(codes, scales) => {
                (self.kern.dot_i8)(&q.codes, &codes[s * d..(s + 1) * d]) as f32 * q.code_scale * scales[s]
            }
            // Minus the distance: a rank, not an inner product, so the metric's finish does not apply.
            RowData::Bits(bits) => {
                let w = q.bits.len();
                return -((self.hamming.distance)(&q.bits, &bits[s * w..(s + 1) * w]) as f32);
            }
        };
        self.fin.apply(dot, s)
    }

    /// The scores of the contiguous slots `start..start + out.len()` (at most `SCAN_BLOCK`).
    fn score_block(&self, start: usize, out: &mut [f32]) {
        let (d, q, n) = (self.d, self.q, out.len());
        let span = start * d..(start + n) * d;
        match self.rows {
            RowData::F32(r) => (self.kern.dots_f32)(&q.f32s, &r[span], out),
            RowData::F16(r) => (self.kern.dots_f16)(&q.f32s, &r[span], out),
            RowData::Int8(codes, scales) => {
                let mut dots = [0i32; SCAN_BLOCK];
                (self.kern.dots_i8)(&q.codes, &codes[span], &mut dots[..n]);
                for ((o, &dot), &scale) in out.iter_mut().zip(&dots[..n]).zip(&scales[start..start + n]) {
                    *o = dot as f32 * q.code_scale * scale;
                }
            }
            RowData::Bits(bits) => {
                let w = q.bits.len();
                let mut dist = [0u32; SCAN_BLOCK];
                (self.hamming.distances)(&q.bits, &bits[start * w..(start + n) * w], &mut dist[..n]);
                for (o, &h) in out.iter_mut().zip(&dist[..n]) {
                    *o = -(h as f32);
                }
                return;
            }
        }
        self.fin.apply_run(start, out);
    }
}
