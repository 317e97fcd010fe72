//! Which adjacent segments to merge, and the merge itself.
//!
//! Tiered: a segment's tier is log8 of its live documents; a run of `MERGE_FACTOR` or
//! more adjacent segments of one tier becomes one segment of a higher tier, so each
//! document is rewritten O(log N) times. A segment with `REWRITE_DEAD` of its documents
//! removed is rewritten alone, which is how removed documents and their terms leave the
//! segments (they leave the df map, and so the vocabulary searches see, at once).
use std::ops::Range;
use std::sync::Arc;

use super::segment::{Segment, SegmentBuilder};
use super::snapshot::{SegRef, Snapshot};

pub const MERGE_FACTOR: usize = 8;
/// The removed fraction from which a segment is rewritten without its removed documents.
pub const REWRITE_DEAD: f64 = 0.25;

fn tier(live: usize) -> u32 {
    let mut t = 0;
    let mut n = live / MERGE_FACTOR;
    while n > 0 {
        t += 1;
        n /= MERGE_FACTOR;
    }
    t
}

/// The run to merge next, if any: a mostly-removed segment first, then the newest run of
/// at least `MERGE_FACTOR` adjacent segments of one tier.
pub fn pick(segs: &[SegRef]) -> Option<Range<usize>> {
    if let Some(i) = segs
        .iter()
        .position(|s| s.deleted.count() as f64 >= REWRITE_DEAD * s.seg.len() as f64 && s.deleted.count() > 0)
    {
        return Some(i..i + 1);
    }
    let mut end = segs.len();
    while end > 0 {
        let t = tier(segs[end - 1].live());
        let mut start = end - 1;
        while start > 0 && tier(segs[start - 1].live()) == t {
            start -= 1;
        }
        if end - start >= MERGE_FACTOR {
            return Some(start..end);
        }
        end = start;
    }
    None
}

/// The live documents of `base.segs[run]` as one segment (bounds at `base`'s average
/// length), and per merged segment the new local id of each old one (`u32::MAX` for
/// documents already removed).
pub fn build(base: &Snapshot, run: Range<usize>) -> (Segment, Vec<Vec<u32>>) {
    let mut builder = SegmentBuilder::new();
    let mut remaps = Vec::with_capacity(run.len());
    for s in &base.segs[run] {
        let seg = &s.seg;
        let mut terms = vec![u32::MAX; seg.terms.len()];
        let mut remap = vec![u32::MAX; seg.len()];
        for (local, doc) in seg.docs.iter().enumerate() {
            if s.deleted.contains(local as u32) {
                continue;
            }
            remap[local] = builder.len() as u32;
            let mut mapped = Vec::with_capacity(seg.doc_terms(local as u32).len());
            for &(t, tf) in seg.doc_terms(local as u32) {
                if terms[t as usize] == u32::MAX {
                    terms[t as usize] = builder.intern(&seg.terms[t as usize]);
                }
                mapped.push((terms[t as usize], tf));
            }
            builder.push(Arc::clone(doc), mapped);
        }
        remaps.push(remap);
    }
    (builder.finish(&base.config.params, base.avg_len()), remaps)
}
