//! A segment's term lookup, built once with the segment (refresh, merge, load) and then
//! only read.
//!
//! A query term used to cost a `FxHashMap<Arc<str>, u32>` probe whose key compare followed
//! the `Arc` to a separate allocation, then one more cache line each for the postings'
//! offsets and the term's bound: 70-75 ns per distinct term on KorQuAD's 18-bigram queries.
//! Here a table entry is half a cache line holding the key (inline up to 16 bytes: Hangul
//! bigrams are 6, most English words fit), its length, the local id, the df and the bound,
//! so a probe reads the control bytes and one entry line, and nothing depends on a further
//! load. A first version kept `(tag, id)` slots and 32-byte records by id with the keys in an
//! arena: as many lines as before, but one load after the other (slot, record, key), and it
//! was slower on KorQuAD than the map.
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// The hash every term lookup uses (the query path computes it once per token and also
/// merges repeated tokens with it).
#[inline]
pub fn term_hash(term: &str) -> u64 {
    FxBuildHasher.hash_one(term)
}

/// Keys up to this many bytes sit in their entry.
const INLINE: usize = 16;

/// One term of a segment, in half a cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct TermEntry {
    /// The local term id.
    pub id: u32,
    /// Postings: the term's df in the segment.
    pub len: u32,
    /// `Segment::max_tf_part` of the term.
    pub max_tf_part: f32,
    key_len: u32,
    /// The key's bytes when they fit, else its offset in the arena (8 bytes, little endian).
    key: [u8; INLINE],
}

impl TermEntry {
    /// The key, from the entry or the arena.
    #[inline]
    fn key<'a>(&'a self, arena: &'a str) -> &'a str {
        let len = self.key_len as usize;
        if len <= INLINE {
            // SAFETY: `build` copied these bytes from a `&str` whole, and only them.
            unsafe { std::str::from_utf8_unchecked(&self.key[..len]) }
        } else {
            let at = u64::from_le_bytes(self.key[..8].try_into().expect("8 bytes")) as usize;
            &arena[at..at + len]
        }
    }
}

#[derive(Default)]
pub struct TermTable {
    table: HashTable<TermEntry>,
    /// The keys longer than `INLINE` bytes, one after the other.
    arena: String,
}

impl TermTable {
    /// The table of a segment's terms (`terms[id]`), their postings (`offsets`, CSR) and
    /// bounds.
    pub fn build<S: AsRef<str>>(terms: &[S], offsets: &[usize], max_tf_part: &[f32]) -> TermTable {
        let mut arena = String::new();
        let mut table = HashTable::with_capacity(terms.len());
        for (id, term) in terms.iter().enumerate() {
            let term = term.as_ref();
            let mut key = [0u8; INLINE];
            if term.len() <= INLINE {
                key[..term.len()].copy_from_slice(term.as_bytes());
            } else {
                key[..8].copy_from_slice(&(arena.len() as u64).to_le_bytes());
                arena.push_str(term);
            }
            let entry = TermEntry {
                id: id as u32,
                len: (offsets[id + 1] - offsets[id]) as u32,
                max_tf_part: max_tf_part[id],
                // A term of 4 GiB or more cannot be a segment's (a posting per term and
                // document, all in memory); saturating keeps this total anyway.
                key_len: u32::try_from(term.len()).unwrap_or(u32::MAX),
                key,
            };
            // Keys are distinct (a segment's vocabulary), so no probe for an equal one.
            table.insert_unique(term_hash(term), entry, |e| term_hash(e.key(&arena)));
        }
        TermTable { table, arena }
    }

    /// `term`'s entry; `hash` is `term_hash(term)`. The returned entry's key is `term`,
    /// borrowed from the table (`key_of`).
    #[inline]
    pub fn get(&self, term: &str, hash: u64) -> Option<&TermEntry> {
        self.table.find(hash, |e| {
            e.key_len as usize == term.len() && e.key(&self.arena).as_bytes() == term.as_bytes()
        })
    }

    /// The key of an entry of this table.
    #[inline]
    pub fn key_of<'a>(&'a self, e: &'a TermEntry) -> &'a str {
        e.key(&self.arena)
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Bytes held: the table's allocation (entries and control bytes) and the long keys.
    pub fn bytes(&self) -> usize {
        self.table.allocation_size() + self.arena.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_term_and_nothing_else() {
        let long = "a".repeat(INLINE + 1);
        let terms: Vec<String> = (0..5000)
            .map(|i| format!("t{i}"))
            .chain([
                "".into(),
                "학교".into(),
                "x".repeat(INLINE),
                long.clone(),
                format!("{long}b"),
            ])
            .collect();
        let n = terms.len();
        let offsets: Vec<usize> = (0..=n).map(|i| i * 3).collect();
        let bounds: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let t = TermTable::build(&terms, &offsets, &bounds);
        assert_eq!(t.len(), n);
        for (id, term) in terms.iter().enumerate() {
            let e = t.get(term, term_hash(term)).expect("present");
            assert_eq!(e.id as usize, id);
            assert_eq!(t.key_of(e), term);
            assert_eq!(e.len, 3);
            assert_eq!(e.max_tf_part, id as f32);
        }
        let longer = format!("{long}c");
        for miss in [
            "t5000",
            "t",
            "학",
            "t0 ",
            "T1",
            &"a".repeat(INLINE),
            longer.as_str(),
            &"x".repeat(INLINE - 1),
        ] {
            assert!(t.get(miss, term_hash(miss)).is_none(), "{miss}");
        }
        assert!(t.bytes() >= n * std::mem::size_of::<TermEntry>());
    }

    #[test]
    fn empty_table() {
        let t = TermTable::build::<&str>(&[], &[0], &[]);
        assert!(t.is_empty());
        assert!(t.get("a", term_hash("a")).is_none());
    }
}
