//! A segment's term lookup, built once with the segment (refresh, merge, load) and then
//! only read.
//!
//! A query term used to cost a `FxHashMap<Arc<str>, u32>` probe whose key compare followed
//! the `Arc` to a separate allocation, then one more cache line each for the postings'
//! offsets and the term's bound: 70-75 ns per distinct term on KorQuAD's 18-bigram queries.
//! Here the hash table holds only `(tag, id)` (8 bytes, eight to a line); the tag (32 more
//! bits of the hash) rejects a wrong candidate without reading anything else; the term's
//! record holds all the query path reads per term in 32 bytes; the key bytes sit in one
//! arena, each behind its length, and are compared only on a tag match.
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::scoring::Params;

/// The hash every term lookup uses (the query path computes it once per token and also
/// merges repeated tokens with it).
#[inline]
pub fn term_hash(term: &str) -> u64 {
    FxBuildHasher.hash_one(term)
}

/// What a query reads of one term of a segment, in half a cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct TermInfo {
    /// Index of the term's first posting in the segment's posting arrays.
    pub start: u64,
    /// `Params::idf` at N = the segment's documents and df = `len`: the term's idf in a
    /// snapshot whose only segment this is and has no removed document.
    pub idf_alone: f64,
    /// Where the key sits in the arena (its length, then its bytes).
    key_at: u64,
    /// Postings: the term's df in the segment.
    pub len: u32,
    /// `Segment::max_tf_part` of the term.
    pub max_tf_part: f32,
}

#[derive(Clone, Copy)]
struct Slot {
    tag: u32,
    id: u32,
}

#[inline]
fn tag_of(hash: u64) -> u32 {
    // hashbrown picks buckets with the low bits and its control byte with the top 7: the
    // tag is the upper half, 25 bits of which the table has not compared yet.
    (hash >> 32) as u32
}

#[derive(Default)]
pub struct TermTable {
    table: HashTable<Slot>,
    /// By local term id.
    infos: Vec<TermInfo>,
    /// Each key as its length (4 bytes, little endian) then its UTF-8 bytes.
    arena: Vec<u8>,
}

impl TermTable {
    /// The table of a segment's terms (`terms[id]`), their postings (`offsets`, CSR) and
    /// bounds, for a segment of `docs` documents.
    pub fn build<S: AsRef<str>>(
        terms: &[S],
        offsets: &[usize],
        max_tf_part: &[f32],
        docs: usize,
        params: &Params,
    ) -> TermTable {
        let bytes: usize = terms.iter().map(|t| t.as_ref().len() + 4).sum();
        let mut arena = Vec::with_capacity(bytes);
        let mut infos = Vec::with_capacity(terms.len());
        let mut table = HashTable::with_capacity(terms.len());
        for (id, term) in terms.iter().enumerate() {
            let term = term.as_ref();
            let len = offsets[id + 1] - offsets[id];
            infos.push(TermInfo {
                start: offsets[id] as u64,
                idf_alone: params.idf(docs as f64, len as f64),
                key_at: arena.len() as u64,
                len: len as u32,
                max_tf_part: max_tf_part[id],
            });
            // A term longer than 4 GiB cannot come from a query anyway: its length saturates.
            arena.extend_from_slice(&u32::try_from(term.len()).unwrap_or(u32::MAX).to_le_bytes());
            arena.extend_from_slice(term.as_bytes());
            let hash = term_hash(term);
            let slot = Slot {
                tag: tag_of(hash),
                id: id as u32,
            };
            // Keys are distinct (a segment's vocabulary), so no probe for an equal one.
            table.insert_unique(hash, slot, |s| term_hash(Self::key_in(&arena, &infos, s.id)));
        }
        TermTable { table, infos, arena }
    }

    fn key_in<'a>(arena: &'a [u8], infos: &[TermInfo], id: u32) -> &'a str {
        let at = infos[id as usize].key_at as usize;
        let len = u32::from_le_bytes(arena[at..at + 4].try_into().expect("4 bytes")) as usize;
        // SAFETY: `build` copied these bytes from a `&str` whole.
        unsafe { std::str::from_utf8_unchecked(&arena[at + 4..at + 4 + len]) }
    }

    /// The key of local term `id`, borrowed from the arena.
    pub fn key(&self, id: u32) -> &str {
        Self::key_in(&self.arena, &self.infos, id)
    }

    /// `term`'s local id and record; `hash` is `term_hash(term)`.
    #[inline]
    pub fn get(&self, term: &str, hash: u64) -> Option<(u32, &TermInfo)> {
        let tag = tag_of(hash);
        let slot = self.table.find(hash, |s| s.tag == tag && self.key(s.id) == term)?;
        Some((slot.id, &self.infos[slot.id as usize]))
    }

    pub fn info(&self, id: u32) -> &TermInfo {
        &self.infos[id as usize]
    }

    pub fn len(&self) -> usize {
        self.infos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }

    /// Bytes held: the slots and control bytes of the table, the records, the arena.
    pub fn bytes(&self) -> usize {
        self.table.capacity() * (std::mem::size_of::<Slot>() + 1)
            + self.infos.capacity() * std::mem::size_of::<TermInfo>()
            + self.arena.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_term_and_nothing_else() {
        let terms: Vec<String> = (0..5000)
            .map(|i| format!("t{i}"))
            .chain(["".into(), "학교".into()])
            .collect();
        let n = terms.len();
        let offsets: Vec<usize> = (0..=n).map(|i| i * 3).collect();
        let bounds: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let params = Params::default();
        let t = TermTable::build(&terms, &offsets, &bounds, 100, &params);
        assert_eq!(t.len(), n);
        for (id, term) in terms.iter().enumerate() {
            let (got, info) = t.get(term, term_hash(term)).expect("present");
            assert_eq!(got as usize, id);
            assert_eq!(t.key(got), term);
            assert_eq!(info.start as usize, id * 3);
            assert_eq!(info.len, 3);
            assert_eq!(info.max_tf_part, id as f32);
            assert_eq!(info.idf_alone.to_bits(), params.idf(100.0, 3.0).to_bits());
        }
        for miss in ["t5000", "t", "학", "t0 ", "T1"] {
            assert!(t.get(miss, term_hash(miss)).is_none(), "{miss}");
        }
        // A wrong hash finds nothing even for a present key's bytes (the tag is checked).
        assert!(t.get("t1", term_hash("t2")).is_none());
    }

    #[test]
    fn empty_table() {
        let t = TermTable::build::<&str>(&[], &[0], &[], 0, &Params::default());
        assert!(t.is_empty());
        assert!(t.get("a", term_hash("a")).is_none());
    }
}
