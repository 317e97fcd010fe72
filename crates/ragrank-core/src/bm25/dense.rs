//! Dense score rows for the terms that most documents of a small segment contain.
//!
//! Exhaustive search adds a term's precomputed tf parts into a dense accumulator, one
//! scattered add per posting. For a term in a large share of the documents (stopwords,
//! common Hangul bigrams) it is cheaper to keep its parts as a row of one f32 per document
//! (0 where the term is absent) and add the whole row with vector instructions: no index
//! load, no scattered store, no dependency between lanes.
//!
//! Exact: a row adds `wi * part` to the documents holding the term (the very operation the
//! sparse path does, in the same term order) and `wi * 0.0 = +0.0` to the others, which
//! leaves any sum >= 0 unchanged. So only where every contribution is >= 0 (`positive`).
use rustc_hash::FxHashMap;

use super::segment::Segment;

/// A term becomes a row when at least `1 / DENSE_SHARE_INV` of the segment's documents
/// hold it. Measured on the small corpora (cran, KorQuAD, ko-sci, zipf-10k): rows for terms
/// in a sixteenth to a quarter of the documents were slower than their scattered adds on
/// zipf-10k and ko-sci (a 40 KB row read from L2 or beyond against a few thousand adds
/// into an accumulator in L1), while cran gained as much from the stopwords alone. From
/// half on, a row is also smaller than the term's postings (4 bytes a document against 8
/// a posting).
const DENSE_SHARE_INV: usize = 2;

/// Rows are built only for segments below this many documents, where exhaustive search
/// is the automatic strategy (larger segments use MaxScore, which reads postings).
pub const DENSE_MAX_DOCS: usize = super::AUTO_MAXSCORE_SLOTS;

/// The rows of one segment at one snapshot's average length.
#[derive(Default)]
pub struct DenseRows {
    /// Documents per row (the segment's length).
    n: usize,
    /// Terms with fewer postings have no row (checked before the map, so most query terms
    /// skip the lookup).
    min_df: usize,
    /// Local term id -> row index.
    row_of: FxHashMap<u32, u32>,
    rows: Box<[f32]>,
}

impl DenseRows {
    /// Rows for the segment's most frequent terms, from its precomputed `parts` (one per
    /// posting). The rows hold at most as many floats as there are postings, so they never
    /// more than double the 4 bytes a posting the parts already cost; the most frequent
    /// terms come first (they save the most).
    pub fn build(seg: &Segment, parts: &[f32]) -> DenseRows {
        let n = seg.len();
        if n == 0 || n >= DENSE_MAX_DOCS {
            return DenseRows::default();
        }
        let min_df = n.div_ceil(DENSE_SHARE_INV).max(1);
        let df = |t: usize| seg.offsets[t + 1] - seg.offsets[t];
        let mut picked: Vec<usize> = (0..seg.terms.len()).filter(|&t| df(t) >= min_df).collect();
        picked.sort_unstable_by_key(|&t| std::cmp::Reverse(df(t)));
        let budget = parts.len() / n;
        if picked.len() > budget {
            // Cut between two document frequencies, so "df >= min_df" still means "has a row".
            let cut_df = df(picked[budget]);
            picked.retain(|&t| df(t) > cut_df);
        }
        let Some(min_df) = picked.iter().map(|&t| df(t)).min() else {
            return DenseRows::default();
        };
        let mut rows = vec![0f32; picked.len() * n];
        let mut row_of = FxHashMap::default();
        for (r, &t) in picked.iter().enumerate() {
            let row = &mut rows[r * n..(r + 1) * n];
            let span = seg.offsets[t]..seg.offsets[t + 1];
            for (&d, &v) in seg.post_docs[span.clone()].iter().zip(&parts[span]) {
                row[d as usize] = v;
            }
            row_of.insert(t as u32, r as u32);
        }
        DenseRows {
            n,
            min_df,
            row_of,
            rows: rows.into(),
        }
    }

    /// The row of local term `t`, which has `df` postings.
    #[inline]
    pub fn row(&self, t: u32, df: usize) -> Option<&[f32]> {
        if df < self.min_df || self.row_of.is_empty() {
            return None;
        }
        let r = *self.row_of.get(&t)? as usize;
        Some(&self.rows[r * self.n..(r + 1) * self.n])
    }

    pub fn len(&self) -> usize {
        self.row_of.len()
    }

    pub fn bytes(&self) -> usize {
        self.rows.len() * 4 + self.row_of.capacity() * 12
    }
}

/// `acc[d] += w * row[d]` for every document (`first`: the accumulator holds no sum yet,
/// so it is written as `0 + w * row[d]` without being cleared first).
pub fn add_row(acc: &mut [f32], row: &[f32], w: f32, first: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: the feature was just detected.
            return unsafe { add_row_avx512(acc, row, w, first) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was just detected.
            return unsafe { add_row_avx2(acc, row, w, first) };
        }
    }
    add_row_portable(acc, row, w, first)
}

// The same loop compiled for wider vectors: plain IEEE multiplies and adds (Rust never fuses
// them into an FMA), so every width gives the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn add_row_avx512(acc: &mut [f32], row: &[f32], w: f32, first: bool) {
    add_row_portable(acc, row, w, first)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_row_avx2(acc: &mut [f32], row: &[f32], w: f32, first: bool) {
    add_row_portable(acc, row, w, first)
}

#[inline(always)]
fn add_row_portable(acc: &mut [f32], row: &[f32], w: f32, first: bool) {
    assert_eq!(acc.len(), row.len());
    if first {
        for (a, &r) in acc.iter_mut().zip(row) {
            *a = 0.0 + w * r;
        }
    } else {
        for (a, &r) in acc.iter_mut().zip(row) {
            *a += w * r;
        }
    }
}
