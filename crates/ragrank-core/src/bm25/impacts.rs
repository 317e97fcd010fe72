//! The query-time form of the index: per-term postings with precomputed BM25 impacts
//! (`idf * tfc`), as bm25s does, so a query only adds floats. Built lazily from the
//! document store after any change, because N, df and the average length move every
//! impact.
use rayon::prelude::*;

use super::scoring::Params;
use super::store::DocStore;

/// Postings in compressed sparse column form: term `t` owns `offsets[t]..offsets[t+1]`.
pub struct Impacts {
    pub offsets: Vec<usize>,
    /// Document slots, increasing within a term.
    pub docs: Vec<u32>,
    /// The impact of the term in that document (shifted by `tfc(0)` for BM25L/BM25+).
    pub scores: Vec<f32>,
    /// The largest impact of each term: the upper bound MaxScore prunes with.
    pub max: Vec<f32>,
    /// For BM25L/BM25+: what a document without the term still scores.
    pub absent: Vec<f32>,
    /// Dense rows (one impact per slot, 0 where absent) of the terms in at least
    /// 1/`DENSE_DF_FRACTION` of the documents, in collections small enough to be searched
    /// exhaustively: adding a row is a vector loop instead of a scatter per posting.
    pub dense: Vec<f32>,
    /// Row of each term in `dense`, or `NO_ROW`.
    pub dense_row: Vec<u32>,
}

pub const NO_ROW: u32 = u32::MAX;
/// A term gets a dense row when its df * this >= the number of slots.
const DENSE_DF_FRACTION: usize = 4;
/// Dense rows only below this many slots (where exhaustive search is the default).
pub const DENSE_MAX_SLOTS: usize = super::AUTO_MAXSCORE_SLOTS;

impl Impacts {
    pub fn build(store: &DocStore, params: &Params) -> Impacts {
        let n_terms = store.df.len();
        let mut offsets = Vec::with_capacity(n_terms + 1);
        let mut total = 0usize;
        offsets.push(0);
        for &df in &store.df {
            total += df as usize;
            offsets.push(total);
        }
        // Counting sort by term; slots are visited in increasing order, so each term's
        // postings come out sorted. The tf rides in `scores` until the second pass.
        let mut docs = vec![0u32; total];
        let mut scores = vec![0f32; total];
        let mut cursor: Vec<usize> = offsets[..n_terms].to_vec();
        let mut lens = vec![0u32; store.docs.len()];
        for (slot, doc) in store.docs.iter().enumerate() {
            if !doc.alive {
                continue;
            }
            lens[slot] = doc.len;
            for &(t, tf) in doc.terms.iter() {
                let c = &mut cursor[t as usize];
                docs[*c] = slot as u32;
                scores[*c] = tf as f32;
                *c += 1;
            }
        }
        drop(cursor);

        let n = store.alive as f64;
        let avgdl = store.avg_len();
        let shift = params.shifts();
        let tfc0 = if shift { safe(params.tfc(0.0, 1.0)) } else { 0.0 };
        let mut max = vec![0f32; n_terms];
        let mut absent = vec![0f32; if shift { n_terms } else { 0 }];
        let idf: Vec<f64> = store
            .df
            .iter()
            .map(|&df| if df == 0 { 0.0 } else { params.idf(n, df as f64) })
            .collect();

        // Second pass, parallel over terms: tf -> impact, and the per-term maximum.
        let mut score_chunks: Vec<&mut [f32]> = Vec::with_capacity(n_terms);
        let mut rest = scores.as_mut_slice();
        for t in 0..n_terms {
            let (head, tail) = rest.split_at_mut(offsets[t + 1] - offsets[t]);
            score_chunks.push(head);
            rest = tail;
        }
        score_chunks
            .into_par_iter()
            .zip(max.par_iter_mut())
            .enumerate()
            .with_min_len(256)
            .for_each(|(t, (chunk, m))| {
                let range = offsets[t]..offsets[t + 1];
                let mut best = 0f32;
                for (s, &d) in chunk.iter_mut().zip(&docs[range]) {
                    let l = params.length_norm(lens[d as usize] as f64, avgdl);
                    let v = (idf[t] * (params.tfc(*s as f64, l) - tfc0)) as f32;
                    *s = v;
                    best = best.max(v);
                }
                *m = best;
            });
        if shift {
            for (a, &i) in absent.iter_mut().zip(&idf) {
                *a = (i * tfc0) as f32;
            }
        }
        let n_slots = store.docs.len();
        let mut dense = Vec::new();
        let mut dense_row = vec![NO_ROW; n_terms];
        if n_slots < DENSE_MAX_SLOTS {
            for (t, row) in dense_row.iter_mut().enumerate() {
                let range = offsets[t]..offsets[t + 1];
                if range.len() * DENSE_DF_FRACTION >= n_slots && !range.is_empty() {
                    *row = (dense.len() / n_slots) as u32;
                    let start = dense.len();
                    dense.resize(start + n_slots, 0.0);
                    for (&d, &v) in docs[range.clone()].iter().zip(&scores[range]) {
                        dense[start + d as usize] = v;
                    }
                }
            }
        }
        Impacts {
            offsets,
            docs,
            scores,
            max,
            absent,
            dense,
            dense_row,
        }
    }

    /// The dense row of `term` (one impact per slot), if it has one.
    pub fn dense_row(&self, term: u32, n_slots: usize) -> Option<&[f32]> {
        let row = *self.dense_row.get(term as usize)?;
        (row != NO_ROW).then(|| &self.dense[row as usize * n_slots..(row as usize + 1) * n_slots])
    }

    pub fn postings(&self, term: u32) -> (&[u32], &[f32]) {
        let r = self.offsets[term as usize]..self.offsets[term as usize + 1];
        (&self.docs[r.clone()], &self.scores[r])
    }

    pub fn bytes(&self) -> usize {
        self.offsets.len() * 8
            + self.docs.len() * 4
            + self.scores.len() * 4
            + self.max.len() * 4
            + self.absent.len() * 4
            + self.dense.len() * 4
            + self.dense_row.len() * 4
    }
}

fn safe(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}
