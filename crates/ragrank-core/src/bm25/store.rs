//! The document store: the source of truth of the index. Each live document keeps its
//! term frequencies (a forward index), so removal is exact and the impacts can be
//! rebuilt at any time; statistics (N, df, total length) are maintained on every change.
//!
//! Nothing removed is kept for good: a term whose df drops to 0 leaves the vocabulary at
//! once and its id goes to a free list that the next new term takes (O(1) per term, no
//! forward-index rewrite), and dead document slots are dropped by `maybe_compact`. Both
//! tables are compacted only once they are mostly dead, which costs one pass per that
//! many removals.
use rustc_hash::FxHashMap;

/// Dead document slots or free term ids tolerated before compaction: at least this
/// many, and at least as many as the live ones.
const COMPACT_MIN_DEAD: usize = 1024;

/// One document slot. Slots are never reused, so slot order is insertion order
/// (compaction keeps it), which is how ties go to the earlier-inserted document.
pub struct Doc {
    pub id: Box<str>,
    /// `(term id, term frequency)`, each term once.
    pub terms: Box<[(u32, u32)]>,
    /// Number of tokens (the BM25 document length).
    pub len: u32,
    pub alive: bool,
    pub text: Option<Box<str>>,
    pub meta: Option<serde_json::Value>,
}

#[derive(Default)]
pub struct DocStore {
    pub docs: Vec<Doc>,
    pub slot_of: FxHashMap<Box<str>, u32>,
    pub vocab: FxHashMap<Box<str>, u32>,
    /// The term of each id; empty for a free id.
    pub terms: Vec<Box<str>>,
    /// Live documents containing each term (0 exactly for free ids).
    pub df: Vec<u32>,
    /// Term ids of no term, reused first by `intern`.
    pub free_terms: Vec<u32>,
    pub alive: usize,
    pub total_len: u64,
}

/// Documents analysed together. Term ids are local to the batch (`terms[id]`), so
/// analysis allocates once per distinct term of the batch, not once per token.
#[derive(Default)]
pub struct AnalyzedBatch {
    pub terms: Vec<Box<str>>,
    pub docs: Vec<AnalyzedDoc>,
}

/// A document after analysis, ready to be stored.
pub struct AnalyzedDoc {
    pub id: String,
    /// `(batch-local term id, frequency)`, each term once.
    pub counts: Vec<(u32, u32)>,
    pub len: u32,
    pub text: Option<String>,
    pub meta: Option<serde_json::Value>,
}

impl DocStore {
    pub fn avg_len(&self) -> f64 {
        if self.alive == 0 {
            0.0
        } else {
            self.total_len as f64 / self.alive as f64
        }
    }

    pub fn term_id(&self, term: &str) -> Option<u32> {
        self.vocab.get(term).copied()
    }

    fn intern(&mut self, term: Box<str>) -> u32 {
        if let Some(&id) = self.vocab.get(&term) {
            return id;
        }
        let id = match self.free_terms.pop() {
            Some(id) => {
                self.terms[id as usize] = term.clone();
                id
            }
            None => {
                self.terms.push(term.clone());
                self.df.push(0);
                (self.terms.len() - 1) as u32
            }
        };
        self.vocab.insert(term, id);
        id
    }

    /// Takes a term whose df is 0 out of the vocabulary and frees its id.
    fn release(&mut self, t: u32) {
        let term = std::mem::take(&mut self.terms[t as usize]);
        self.vocab.remove(&term);
        self.free_terms.push(t);
    }

    /// Appends documents whose ids are known to be absent.
    pub fn insert_batch(&mut self, batch: AnalyzedBatch) {
        let global: Vec<u32> = batch.terms.into_iter().map(|t| self.intern(t)).collect();
        for doc in batch.docs {
            let terms: Box<[(u32, u32)]> = doc
                .counts
                .iter()
                .map(|&(local, tf)| {
                    let t = global[local as usize];
                    self.df[t as usize] += 1;
                    (t, tf)
                })
                .collect();
            let slot = self.docs.len() as u32;
            // Slots are appended, never reused: slot order stays insertion order.
            let id: Box<str> = doc.id.into_boxed_str();
            self.slot_of.insert(id.clone(), slot);
            self.alive += 1;
            self.total_len += doc.len as u64;
            self.docs.push(Doc {
                id,
                terms,
                len: doc.len,
                alive: true,
                text: doc.text.map(String::into_boxed_str),
                meta: doc.meta,
            });
        }
        // A batch term used by no document (possible only in a crafted file) never stays;
        // batch terms are distinct, so each is released at most once.
        for t in global {
            if self.df[t as usize] == 0 {
                self.release(t);
            }
        }
    }

    /// Removes a document by id; false when the id is unknown.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(slot) = self.slot_of.remove(id) else {
            return false;
        };
        let doc = &mut self.docs[slot as usize];
        let terms = std::mem::take(&mut doc.terms);
        self.alive -= 1;
        self.total_len -= doc.len as u64;
        doc.alive = false;
        doc.id = Box::default();
        doc.text = None;
        doc.meta = None;
        for &(t, _) in terms.iter() {
            self.df[t as usize] -= 1;
            if self.df[t as usize] == 0 {
                self.release(t);
            }
        }
        true
    }

    /// Compacts the document slots and the term ids that are mostly dead.
    pub fn maybe_compact(&mut self) {
        self.maybe_compact_docs();
        self.maybe_compact_terms();
    }

    /// Drops dead slots once they outnumber live ones, keeping insertion order.
    fn maybe_compact_docs(&mut self) {
        if !mostly_dead(self.docs.len() - self.alive, self.alive) {
            return;
        }
        self.docs.retain(|d| d.alive);
        self.docs.shrink_to_fit();
        self.slot_of = self
            .docs
            .iter()
            .enumerate()
            .map(|(slot, d)| (d.id.clone(), slot as u32))
            .collect();
    }

    /// Renumbers the live terms densely (in id order) once free ids outnumber them, as
    /// after a mass removal that no new terms refill; the forward index is remapped.
    fn maybe_compact_terms(&mut self) {
        let live = self.terms.len() - self.free_terms.len();
        if !mostly_dead(self.free_terms.len(), live) {
            return;
        }
        let mut remap = vec![u32::MAX; self.terms.len()];
        let mut next = 0u32;
        for (t, df) in self.df.iter().enumerate() {
            if *df > 0 {
                remap[t] = next;
                next += 1;
            }
        }
        let mut id = 0;
        self.terms.retain(|_| {
            id += 1;
            remap[id - 1] != u32::MAX
        });
        self.df.retain(|&df| df > 0);
        self.terms.shrink_to_fit();
        self.df.shrink_to_fit();
        self.free_terms = Vec::new();
        self.vocab = self
            .terms
            .iter()
            .enumerate()
            .map(|(t, term)| (term.clone(), t as u32))
            .collect();
        for doc in self.docs.iter_mut() {
            for (t, _) in doc.terms.iter_mut() {
                *t = remap[*t as usize];
            }
        }
    }

    /// Number of (term, document) pairs.
    pub fn postings(&self) -> usize {
        self.df.iter().map(|&d| d as usize).sum()
    }

    /// Terms that occur in at least one live document.
    pub fn live_terms(&self) -> usize {
        self.terms.len() - self.free_terms.len()
    }
}

fn mostly_dead(dead: usize, live: usize) -> bool {
    dead >= COMPACT_MIN_DEAD && dead >= live
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One document per call, each with its own batch (as `insert` receives them).
    fn add(store: &mut DocStore, id: &str, words: &[&str]) {
        let terms = words.iter().map(|&w| Box::from(w)).collect();
        let counts = (0..words.len() as u32).map(|t| (t, 1)).collect();
        store.insert_batch(AnalyzedBatch {
            terms,
            docs: vec![AnalyzedDoc {
                id: id.into(),
                counts,
                len: words.len() as u32,
                text: None,
                meta: None,
            }],
        });
    }

    #[test]
    fn replaced_terms_free_their_ids_for_new_ones() {
        let mut store = DocStore::default();
        for round in 0..5000 {
            let (a, b) = (format!("a{round}"), format!("b{round}"));
            store.remove("x");
            add(&mut store, "x", &["common", &a, &b]);
            store.maybe_compact();
        }
        // Table of the live terms plus the ids freed by the last replacement.
        assert!(store.terms.len() <= 5 && store.df.len() == store.terms.len());
        assert_eq!(store.vocab.len(), 3);
        assert_eq!(store.live_terms(), 3);
        assert!(store.docs.len() <= 1 + COMPACT_MIN_DEAD);
        assert_eq!(store.term_id("a4998"), None);
        let t = store.term_id("a4999").unwrap();
        assert_eq!(store.df[t as usize], 1);
    }

    #[test]
    fn a_mass_removal_compacts_and_remaps_the_terms() {
        let mut store = DocStore::default();
        for i in 0..3000 {
            add(&mut store, &format!("d{i}"), &[&format!("t{i}"), "common"]);
        }
        for i in 0..2990 {
            assert!(store.remove(&format!("d{i}")));
        }
        store.maybe_compact();
        assert_eq!((store.docs.len(), store.terms.len()), (10, 11));
        assert!(store.free_terms.is_empty() && store.terms.capacity() < 100);
        for (slot, doc) in store.docs.iter().enumerate() {
            assert_eq!(&*doc.id, format!("d{}", 2990 + slot));
            let words: Vec<&str> = doc.terms.iter().map(|&(t, _)| &*store.terms[t as usize]).collect();
            assert_eq!(words, [format!("t{}", 2990 + slot).as_str(), "common"]);
        }
        assert_eq!(store.df[store.term_id("common").unwrap() as usize], 10);
    }
}
