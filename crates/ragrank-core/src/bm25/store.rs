//! The document store: the source of truth of the index. Each live document keeps its
//! term frequencies (a forward index), so removal is exact and the impacts can be
//! rebuilt at any time; statistics (N, df, total length) are maintained on every change.
use rustc_hash::FxHashMap;

/// One document slot. Slots are never reused, so slot order is insertion order
/// (compaction keeps it).
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
    pub terms: Vec<Box<str>>,
    /// Live documents containing each term.
    pub df: Vec<u32>,
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
        let id = self.terms.len() as u32;
        self.vocab.insert(term.clone(), id);
        self.terms.push(term);
        self.df.push(0);
        id
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
    }

    /// Removes a document by id; false when the id is unknown.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(slot) = self.slot_of.remove(id) else {
            return false;
        };
        let doc = &mut self.docs[slot as usize];
        for &(t, _) in doc.terms.iter() {
            self.df[t as usize] -= 1;
        }
        self.alive -= 1;
        self.total_len -= doc.len as u64;
        doc.alive = false;
        doc.terms = Box::new([]);
        doc.text = None;
        doc.meta = None;
        true
    }

    /// Drops dead slots once they outnumber live ones, keeping insertion order.
    pub fn maybe_compact(&mut self) {
        let dead = self.docs.len() - self.alive;
        if dead < 1024 || dead < self.alive {
            return;
        }
        self.docs.retain(|d| d.alive);
        self.slot_of.clear();
        for (slot, d) in self.docs.iter().enumerate() {
            self.slot_of.insert(d.id.clone(), slot as u32);
        }
    }

    /// Number of (term, document) pairs.
    pub fn postings(&self) -> usize {
        self.df.iter().map(|&d| d as usize).sum()
    }

    /// Terms that occur in at least one live document.
    pub fn live_terms(&self) -> usize {
        self.df.iter().filter(|&&d| d > 0).count()
    }
}
