//! Which adjacent segments to merge, and the merge itself.
//!
//! Tiered: a segment's tier is log8 of its live documents in units of `FLOOR_DOCS`, so
//! every segment under the floor is tier 0. Segments are grouped from the oldest: a group
//! ends at the newest segment of the highest tier left, so a small segment written
//! between two bigger ones joins their group instead of waiting for neighbours of its own
//! tier (merges only join adjacent segments: insertion order is the tie order). A group
//! of `MERGE_FACTOR` or more segments merges its newest `MERGE_FACTOR`, so each document
//! is rewritten O(log N) times above the floor.
//!
//! The floor is what keeps a steady writer from piling up segments: one sync `add` a call
//! makes one segment, and plain log8 tiers let up to 7 wait in each of the tiers 1, 8, 64,
//! 512 documents and so on (55 segments after 20 s at 100 writes/s, and every search
//! visits each). Under the floor they merge with each other as soon as 8 wait, rewriting
//! small segments more often (a document about FLOOR_DOCS / 14 times before it leaves the
//! floor, cheap at this size), as Lucene's floor segment size does. `MAX_SEGMENTS` caps
//! the rest: past it the newest group of two or more merges whole.
//!
//! A segment with `REWRITE_DEAD` of its documents removed is rewritten alone, which is how
//! removed documents and their terms leave the segments (they leave the df map, and so
//! the vocabulary searches see, at once).
use super::segment::{Segment, SegmentBuilder};
use super::snapshot::{SegRef, Snapshot};
use std::ops::Range;

pub const MERGE_FACTOR: usize = 8;
/// The removed fraction from which a segment is rewritten without its removed documents.
pub const REWRITE_DEAD: f64 = 0.25;
/// Live documents under which segments all count as one tier (merged as soon as
/// `MERGE_FACTOR` of them are grouped).
pub const FLOOR_DOCS: usize = 2048;
/// Segments past which the newest group of two or more merges even if it is short of
/// `MERGE_FACTOR`: every search visits every segment.
pub const MAX_SEGMENTS: usize = 10;

fn tier(live: usize) -> u32 {
    let mut t = 0;
    let mut n = live / FLOOR_DOCS;
    while n > 0 {
        t += 1;
        n /= MERGE_FACTOR;
    }
    t
}

/// The run to merge next, if any: a mostly-removed segment first, then the newest group
/// holding `MERGE_FACTOR` segments (its newest ones), then, past `MAX_SEGMENTS`, the
/// newest group of two or more.
pub fn pick(segs: &[SegRef]) -> Option<Range<usize>> {
    if let Some(i) = segs
        .iter()
        .position(|s| s.deleted.count() as f64 >= REWRITE_DEAD * s.seg.len() as f64 && s.deleted.count() > 0)
    {
        return Some(i..i + 1);
    }
    let tiers: Vec<u32> = segs.iter().map(|s| tier(s.live())).collect();
    let (mut full, mut short) = (None, None);
    let mut start = 0;
    while start < tiers.len() {
        let rest = &tiers[start..];
        let top = rest.iter().copied().max().unwrap_or(0);
        let end = start + rest.iter().rposition(|&t| t == top).map_or(rest.len(), |i| i + 1);
        if end - start >= MERGE_FACTOR {
            full = Some(end - MERGE_FACTOR..end);
        } else if end - start >= 2 {
            short = Some(start..end);
        }
        start = end;
    }
    full.or_else(|| short.filter(|_| segs.len() > MAX_SEGMENTS))
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
        for (local, new) in (0..seg.len() as u32).zip(remap.iter_mut()) {
            if s.deleted.contains(local) {
                continue;
            }
            *new = builder.len() as u32;
            let mut mapped = Vec::with_capacity(seg.doc_terms(local).len());
            for &(t, tf) in seg.doc_terms(local) {
                if terms[t as usize] == u32::MAX {
                    terms[t as usize] = builder.intern(&seg.terms.shared(t));
                }
                mapped.push((terms[t as usize], tf));
            }
            builder.push(seg.docs.to_doc(local), mapped);
        }
        remaps.push(remap);
    }
    let mut seg = builder.finish(&base.config.params, base.avg_len());
    seg.index_fields(&base.config.field_schema());
    (seg, remaps)
}
