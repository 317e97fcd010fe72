//! An incremental BM25 index.
pub mod filter;
mod impacts;
pub mod persist;
pub mod scoring;
mod search;
mod store;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::error::{check_cancel, Error, ErrorKind, Result};
pub use crate::topk::Hit;
pub use filter::Filter;
use impacts::Impacts;
pub use scoring::{Params, Variant};
use search::QueryTerm;
pub use store::Doc;
use store::{AnalyzedBatch, AnalyzedDoc, DocStore};

/// The settings of an index; a field left out of the serialized form takes its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IndexConfig {
    pub params: Params,
    pub analyzer: AnalyzerConfig,
    /// Keep each document's text so hits can return it.
    pub store_text: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            params: Params::default(),
            analyzer: AnalyzerConfig::default(),
            store_text: true,
        }
    }
}

impl IndexConfig {
    /// Reads caller options (JSON of this struct's shape, any field left out), with errors
    /// that name the bad option. The values are checked by `Bm25Index::new`.
    pub fn from_json(json: &str) -> Result<Self> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| Error::invalid(format!("bad index options: {e}")))?;
        // From a `Value`, serde's messages carry no line and column: just ours.
        serde_json::from_value(value).map_err(|e| Error::invalid(e.to_string()))
    }
}

/// A document to index: its text, or its tokens (then the analyzer is bypassed), or both
/// (tokens are indexed, text is stored).
#[derive(Debug, Clone, Default)]
pub struct NewDoc {
    pub id: String,
    pub text: Option<String>,
    pub tokens: Option<Vec<String>>,
    /// Tokens in one string, separated by U+0000 (empty tokens are skipped): the cheap way
    /// to pass many tokens from another runtime. Used when `tokens` is absent.
    pub joined_tokens: Option<String>,
    pub meta: Option<serde_json::Value>,
}

/// What a query is made of.
pub enum Query<'a> {
    Text(&'a str),
    Tokens(&'a [String]),
    /// Tokens in one string separated by U+0000 (empty tokens skipped).
    JoinedTokens(&'a str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// MaxScore from `AUTO_MAXSCORE_SLOTS` documents on, exhaustive below.
    #[default]
    Auto,
    Exhaustive,
    MaxScore,
}

/// From this many document slots on, `Auto` prunes with MaxScore.
/// Distinct query terms up to which repeats are merged by a linear scan.
const LINEAR_MERGE_TERMS: usize = 32;

pub const AUTO_MAXSCORE_SLOTS: usize = 50_000;

#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    pub top_k: usize,
    pub strategy: Strategy,
    pub filter: Option<Filter>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub documents: usize,
    pub terms: usize,
    pub postings: usize,
    pub avg_doc_length: f64,
    /// Bytes the index holds per posting: forward index plus impacts, when built.
    pub bytes_per_posting: f64,
    pub memory_bytes: usize,
    /// Terms that also have a dense row (see `impacts.rs`), once the impacts are built.
    pub dense_terms: usize,
}

pub struct Bm25Index {
    config: IndexConfig,
    analyzer: Arc<Analyzer>,
    store: DocStore,
    impacts: OnceLock<Impacts>,
}

impl Bm25Index {
    pub fn new(config: IndexConfig) -> Result<Self> {
        config.params.validate()?;
        let analyzer = Arc::new(Analyzer::new(config.analyzer.clone())?);
        Ok(Bm25Index {
            config,
            analyzer,
            store: DocStore::default(),
            impacts: OnceLock::new(),
        })
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    pub fn len(&self) -> usize {
        self.store.alive
    }

    pub fn is_empty(&self) -> bool {
        self.store.alive == 0
    }

    pub fn contains(&self, id: &str) -> bool {
        self.store.slot_of.contains_key(id)
    }

    pub fn doc(&self, slot: u32) -> &Doc {
        &self.store.docs[slot as usize]
    }

    pub fn analyze(&self, text: &str) -> Vec<String> {
        self.analyzer.analyze(text)
    }

    /// Adds documents. Without `upsert`, an id already in the index is an
    /// `ERR_DUPLICATE_ID` error; with it, the old document is replaced (and counts as
    /// newly added for tie order). Ids repeated within one call are always an error.
    /// Validation happens before any change, so a failed call leaves the index as it was.
    pub fn add(&mut self, docs: Vec<NewDoc>, upsert: bool) -> Result<usize> {
        let prepared = prepare_docs(&self.analyzer, self.config.store_text, docs)?;
        self.insert(prepared, upsert)
    }

    /// The second half of `add`: stores documents analysed by `prepare_docs`, which
    /// needs no access to the index (so callers can analyse without holding a lock).
    pub fn insert(&mut self, docs: PreparedDocs, upsert: bool) -> Result<usize> {
        if !upsert {
            if let Some(d) = docs.0.iter().flat_map(|b| &b.docs).find(|d| self.contains(&d.id)) {
                return Err(Error::new(
                    ErrorKind::DuplicateId,
                    format!(
                        "document id {:?} is already in the index (use upsert to replace it)",
                        d.id
                    ),
                ));
            }
        }
        let n = docs.len();
        if upsert {
            for d in docs.0.iter().flat_map(|b| &b.docs) {
                self.store.remove(&d.id);
            }
        }
        for batch in docs.0 {
            self.store.insert_batch(batch);
        }
        self.changed();
        Ok(n)
    }

    /// The analyzer, shareable with threads that prepare documents.
    pub fn analyzer(&self) -> Arc<Analyzer> {
        self.analyzer.clone()
    }

    /// Removes documents by id and returns how many were in the index; unknown ids are
    /// ignored.
    pub fn remove(&mut self, ids: &[String]) -> usize {
        let removed = ids.iter().filter(|id| self.store.remove(id)).count();
        if removed > 0 {
            self.changed();
        }
        removed
    }

    fn changed(&mut self) {
        self.store.maybe_compact();
        self.impacts = OnceLock::new();
    }

    fn impacts(&self) -> &Impacts {
        self.impacts
            .get_or_init(|| Impacts::build(&self.store, &self.config.params))
    }

    /// Builds the query-time structures now instead of at the first search.
    pub fn prepare(&self) {
        self.impacts();
    }

    /// Unique known query terms in first-occurrence order, weighted by multiplicity
    /// (a repeated query token counts again, as in bm25s).
    fn query_terms(&self, query: &Query) -> Vec<QueryTerm> {
        let mut out: Vec<QueryTerm> = Vec::new();
        // Queries are short: a linear scan merges repeats faster than hashing, until the
        // query grows long enough for the map to pay off.
        let mut pos: FxHashMap<u32, usize> = FxHashMap::default();
        let mut add = |tok: &str| {
            let Some(t) = self.store.term_id(tok) else { return };
            let found = if out.len() <= LINEAR_MERGE_TERMS {
                out.iter().position(|q| q.term == t)
            } else {
                if pos.is_empty() {
                    pos.extend(out.iter().enumerate().map(|(i, q)| (q.term, i)));
                }
                pos.get(&t).copied()
            };
            match found {
                Some(i) => out[i].weight += 1.0,
                None => {
                    if !pos.is_empty() {
                        pos.insert(t, out.len());
                    }
                    out.push(QueryTerm { term: t, weight: 1.0 });
                }
            }
        };
        match query {
            Query::Text(text) => self.analyzer.analyze_into(text, &mut |t| add(t)),
            Query::Tokens(tokens) => tokens.iter().for_each(|t| add(t)),
            Query::JoinedTokens(joined) => joined.split('\0').filter(|t| !t.is_empty()).for_each(add),
        }
        out
    }

    /// The top `top_k` documents containing at least one query term, best first; ties
    /// go to the document added earlier.
    pub fn search(&self, query: &Query, opts: &SearchOptions) -> Vec<Hit> {
        let terms = self.query_terms(query);
        if terms.is_empty() || opts.top_k == 0 || self.is_empty() {
            return Vec::new();
        }
        let impacts = self.impacts();
        let n_slots = self.store.docs.len();
        let allow = |slot: u32| opts.filter.as_ref().is_none_or(|f| f.allows(slot, self.doc(slot)));
        let use_maxscore = match opts.strategy {
            Strategy::Auto => n_slots >= AUTO_MAXSCORE_SLOTS,
            Strategy::Exhaustive => false,
            Strategy::MaxScore => true,
        };
        let mut hits = if use_maxscore {
            search::maxscore(impacts, &terms, opts.top_k, &allow)
        } else {
            search::exhaustive(
                impacts,
                n_slots,
                &terms,
                opts.top_k,
                self.config.params.positive_impacts(),
                &allow,
            )
        };
        if !impacts.absent.is_empty() {
            let constant: f32 = terms
                .iter()
                .map(|qt| qt.weight * impacts.absent[qt.term as usize])
                .sum();
            hits.iter_mut().for_each(|h| h.score += constant);
        }
        hits
    }

    /// Runs queries in parallel on rayon's pool; results in query order.
    pub fn search_batch(&self, queries: &[Query], opts: &SearchOptions) -> Vec<Vec<Hit>> {
        // Never cancelled, so never an error.
        self.search_batch_cancellable(queries, opts, &AtomicBool::new(false))
            .unwrap_or_default()
    }

    /// `search_batch` that skips the remaining queries once `cancel` is set and then
    /// fails with `Error::aborted()`.
    pub fn search_batch_cancellable(
        &self,
        queries: &[Query],
        opts: &SearchOptions,
        cancel: &AtomicBool,
    ) -> Result<Vec<Vec<Hit>>> {
        self.prepare();
        queries
            .par_iter()
            .map(|q| {
                check_cancel(cancel)?;
                Ok(self.search(q, opts))
            })
            .collect()
    }

    /// Slots of the given ids (unknown ids skipped), for building filters.
    pub fn slots_of<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> FxHashSet<u32> {
        ids.into_iter()
            .filter_map(|id| self.store.slot_of.get(id).copied())
            .collect()
    }

    pub fn stats(&self) -> Stats {
        let postings = self.store.postings();
        let forward: usize = self
            .store
            .docs
            .iter()
            .map(|d| d.terms.len() * 8 + d.id.len() + 48)
            .sum();
        let impacts = self.impacts.get().map_or(0, Impacts::bytes);
        let vocab: usize = self.store.terms.iter().map(|t| t.len() * 2 + 40).sum();
        let texts: usize = self
            .store
            .docs
            .iter()
            .map(|d| d.text.as_ref().map_or(0, |t| t.len()))
            .sum();
        let per_posting = self.store.docs.iter().map(|d| d.terms.len() * 8).sum::<usize>()
            + self.impacts.get().map_or(0, |i| i.docs.len() * 8 + i.dense.len() * 4);
        Stats {
            documents: self.store.alive,
            terms: self.store.live_terms(),
            postings,
            avg_doc_length: self.store.avg_len(),
            bytes_per_posting: if postings == 0 {
                0.0
            } else {
                per_posting as f64 / postings as f64
            },
            memory_bytes: forward + impacts + vocab + texts,
            dense_terms: self
                .impacts
                .get()
                .map_or(0, |i| i.dense_row.iter().filter(|&&r| r != impacts::NO_ROW).count()),
        }
    }

    /// Live documents in insertion order.
    pub fn docs(&self) -> impl Iterator<Item = &Doc> {
        self.store.docs.iter().filter(|d| d.alive)
    }

    pub(crate) fn store(&self) -> &DocStore {
        &self.store
    }

    pub(crate) fn from_parts(config: IndexConfig, store: DocStore) -> Result<Self> {
        let mut index = Bm25Index::new(config)?;
        index.store = store;
        Ok(index)
    }
}

/// Documents checked and analysed, ready for `Bm25Index::insert`.
pub struct PreparedDocs(Vec<AnalyzedBatch>);

impl PreparedDocs {
    pub fn len(&self) -> usize {
        self.0.iter().map(|b| b.docs.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Documents per analysis batch: big enough to amortise term allocation and interning
/// (once per distinct term per batch), small enough to spread over all cores.
fn batch_size(n_docs: usize) -> usize {
    (n_docs / (4 * rayon::current_num_threads())).clamp(256, 8192)
}

/// Checks documents on their own (ids present and unique within the call, content
/// present) and analyses them in parallel.
pub fn prepare_docs(analyzer: &Analyzer, store_text: bool, docs: Vec<NewDoc>) -> Result<PreparedDocs> {
    let mut seen = FxHashSet::default();
    for (i, d) in docs.iter().enumerate() {
        if d.id.is_empty() {
            return Err(Error::invalid(format!("document {i}: id must be a non-empty string")));
        }
        if d.text.is_none() && d.tokens.is_none() && d.joined_tokens.is_none() {
            return Err(Error::invalid(format!(
                "document {i} ({:?}): needs text or tokens",
                d.id
            )));
        }
        if !seen.insert(d.id.as_str()) {
            return Err(Error::new(
                ErrorKind::DuplicateId,
                format!("document id {:?} appears twice in one call", d.id),
            ));
        }
    }
    drop(seen);
    let size = batch_size(docs.len());
    let batches = docs
        .into_par_iter()
        .chunks(size)
        .map(|chunk| analyze_batch(analyzer, chunk, store_text))
        .collect::<Result<_>>()?;
    Ok(PreparedDocs(batches))
}

fn analyze_batch(analyzer: &Analyzer, docs: Vec<NewDoc>, store_text: bool) -> Result<AnalyzedBatch> {
    let mut local: FxHashMap<Box<str>, u32> = FxHashMap::default();
    let mut ids: Vec<u32> = Vec::new();
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        ids.clear();
        let mut push = |tok: &str| {
            if tok.is_empty() {
                return;
            }
            let next = local.len() as u32;
            let id = match local.get(tok) {
                Some(&id) => id,
                None => *local.entry(tok.into()).or_insert(next),
            };
            ids.push(id);
        };
        match (&d.tokens, &d.joined_tokens, &d.text) {
            (Some(tokens), _, _) => tokens.iter().for_each(|t| push(t)),
            (None, Some(joined), _) => joined.split('\0').for_each(push),
            (None, None, Some(text)) => analyzer.analyze_into(text, &mut push),
            (None, None, None) => unreachable!("validated before analysis"),
        }
        let len =
            u32::try_from(ids.len()).map_err(|_| Error::invalid(format!("document {:?} has too many tokens", d.id)))?;
        ids.sort_unstable();
        let mut counts: Vec<(u32, u32)> = Vec::new();
        for &t in &ids {
            match counts.last_mut() {
                Some((last, tf)) if *last == t => *tf += 1,
                _ => counts.push((t, 1)),
            }
        }
        out.push(AnalyzedDoc {
            id: d.id,
            counts,
            len,
            text: if store_text { d.text } else { None },
            meta: d.meta,
        });
    }
    let mut terms: Vec<Box<str>> = vec![Box::default(); local.len()];
    for (term, id) in local {
        terms[id as usize] = term;
    }
    Ok(AnalyzedBatch { terms, docs: out })
}
