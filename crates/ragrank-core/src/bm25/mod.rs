//! An incremental BM25 index that takes writes while it serves reads.
//!
//! - `segment`: immutable pieces of the index (documents, postings with raw tf).
//! - `snapshot`: what a search sees (segments, deletions, N, df); searched without locks.
//! - `live`: the writer (`Bm25Index`): staged writes, refresh, background merges.
//! - `search` / `windowed` / `scoring`: query-time BM25 over one segment (exhaustive and
//!   windowed MaxScore); `merge`: the merge policy.
mod column;
mod dense;
mod df;
pub mod directory;
mod docs;
pub mod filter;
mod live;
mod merge;
pub mod persist;
pub mod scoring;
mod search;
mod segment;
pub(crate) mod segment_file;
mod snapshot;
mod vocab;
mod windowed;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::error::{Error, ErrorKind, Result};
use crate::fields::{FieldDecl, FieldSchema};
pub use crate::topk::Hit;
pub use filter::Filter;
pub use live::{retire, Bm25Index, DEFAULT_REFRESH_INTERVAL};
pub use merge::{MERGE_FACTOR, REWRITE_DEAD};
pub use scoring::{Params, Variant};
use segment::{AnalyzedBatch, AnalyzedDoc};
pub use segment::{Doc, DocRef, Matched};
pub use snapshot::Snapshot;

/// The settings of an index; a field left out of the serialized form takes its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IndexConfig {
    pub params: Params,
    pub analyzer: AnalyzerConfig,
    /// Keep each document's text so hits can return it.
    pub store_text: bool,
    /// Declared metadata fields of the field indexes (see `crate::fields`). Left out of
    /// the saved form when empty, and so is `dynamic_fields` at its default, so a file of
    /// an index that uses neither saves back byte for byte.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, FieldDecl>,
    /// Whether other top-level metadata fields are indexed as they come.
    #[serde(skip_serializing_if = "is_true")]
    pub dynamic_fields: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            params: Params::default(),
            analyzer: AnalyzerConfig::default(),
            store_text: true,
            fields: BTreeMap::new(),
            dynamic_fields: true,
        }
    }
}

fn is_true(b: &bool) -> bool {
    *b
}

impl IndexConfig {
    /// What each segment's field index covers.
    pub fn field_schema(&self) -> FieldSchema {
        FieldSchema::of_decls(&self.fields, self.dynamic_fields)
    }

    /// Reads caller options (JSON of this struct's shape, any field left out), with errors
    /// that name the bad option. The values are checked by `Bm25Index::new`.
    pub fn from_json(json: &str) -> Result<Self> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| Error::invalid(format!("bad index options: {e}")))?;
        crate::fields::check_decls(value.get("fields"))?;
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

/// From this many documents in a segment on, `Auto` prunes it with MaxScore. Measured on
/// the Zipf corpora: exhaustive search is faster up to about 250k documents (100k: 50 vs
/// 73 us a query), windowed MaxScore from then on (1M: 380 vs 650 us).
pub const AUTO_MAXSCORE_SLOTS: usize = 200_000;

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
    /// Bytes the index holds per posting: postings and forward index.
    pub bytes_per_posting: f64,
    pub memory_bytes: usize,
    /// Terms whose precomputed scores are also held as a dense row of one float per
    /// document (the most frequent terms of small segments, once the index is quiet).
    pub dense_terms: usize,
    /// Segments of the current snapshot.
    pub segments: usize,
    /// Removed documents still held by segments (until a merge rewrites them).
    pub deleted_docs: usize,
    /// Approximate bytes of the field indexes, by field (included in `memory_bytes`).
    pub field_index_bytes: BTreeMap<String, usize>,
    /// Searches with a metadata filter since the index was made or loaded.
    pub filtered_searches: u64,
    /// Of those, searches that tested some candidates' metadata one by one (a field no
    /// field index covers), and the fields that made them.
    pub scanned_filter_searches: u64,
    pub scanned_filter_fields: Vec<String>,
}

/// Documents checked and analysed, ready for `Bm25Index::stage_add`, with the set of their
/// ids (made once here, off the lock and maybe off the event loop, and shared by staging).
pub struct PreparedDocs {
    batches: Vec<AnalyzedBatch>,
    ids: IdSet,
}

/// Document ids, shared with the documents themselves (no copy per set).
pub(crate) type IdSet = FxHashSet<Arc<str>>;

impl PreparedDocs {
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Threads a big add analyses on: its own, scoped to the call (see `prepare_docs`). Read
/// once: `available_parallelism` reads cgroup files, too slow for every small add.
pub(crate) fn analysis_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Fewest documents an analysis batch is given its own thread for.
const MIN_BATCH: usize = 256;

/// Checks documents on their own (ids present and unique within the call, content
/// present) and analyses them in parallel.
///
/// The parallel part runs on threads of its own for the call, not on rayon's shared pool:
/// a sync `add` on the event loop then waits only for its own analysis, never behind a
/// `searchBatch` or a model call that holds the pool.
pub fn prepare_docs(analyzer: &Analyzer, store_text: bool, docs: Vec<NewDoc>) -> Result<PreparedDocs> {
    prepare_docs_on(analyzer, store_text, docs, analysis_threads())
}

/// `prepare_docs` on up to `threads` threads (the calling one and scoped others), one
/// analysis batch per thread. One batch each because the refresh maps every batch's terms
/// to its segment's once per distinct term of the batch: at 8,192 documents a batch, a 1M
/// add made 7M such lookups, half its refresh.
pub fn prepare_docs_on(
    analyzer: &Analyzer,
    store_text: bool,
    docs: Vec<NewDoc>,
    threads: usize,
) -> Result<PreparedDocs> {
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
    }
    let size = docs.len().div_ceil(threads.max(1)).max(MIN_BATCH);
    let mut runs: Vec<Vec<NewDoc>> = Vec::new();
    let mut rest = docs;
    while rest.len() > size {
        let tail = rest.split_off(size);
        runs.push(std::mem::replace(&mut rest, tail));
    }
    runs.push(rest);
    // The first batch on the calling thread, the others on scoped threads. A thread that
    // cannot start panics, and so does a panic in analysis re-raised by the join: the
    // binding's guard turns either into an error, before anything is staged.
    let results: Vec<Result<AnalyzedBatch>> = std::thread::scope(|scope| {
        let mut runs = runs.into_iter();
        let first = runs.next().unwrap_or_default();
        let handles: Vec<_> = runs
            .map(|run| scope.spawn(move || analyze_batch(analyzer, run, store_text)))
            .collect();
        let mut results = vec![analyze_batch(analyzer, first, store_text)];
        for h in handles {
            results.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        results
    });
    PreparedDocs::new(results.into_iter().collect::<Result<Vec<_>>>()?)
}

impl PreparedDocs {
    /// Fails on an id that appears twice (after analysis: the ids are the documents' own).
    fn new(batches: Vec<AnalyzedBatch>) -> Result<PreparedDocs> {
        let n = batches.iter().map(|b| b.docs.len()).sum();
        let mut ids = IdSet::with_capacity_and_hasher(n, Default::default());
        for d in batches.iter().flat_map(|b| &b.docs) {
            if !ids.insert(d.id.clone()) {
                return Err(Error::new(
                    ErrorKind::DuplicateId,
                    format!("document id {:?} appears twice in one call", d.id),
                ));
            }
        }
        Ok(PreparedDocs { batches, ids })
    }

    /// The documents of several parts of one call (prepared apart), in order; fails on an
    /// id in two parts.
    pub fn join(parts: Vec<PreparedDocs>) -> Result<PreparedDocs> {
        let mut parts = parts.into_iter();
        let Some(mut all) = parts.next() else {
            return PreparedDocs::new(Vec::new());
        };
        for part in parts {
            all.ids.reserve(part.ids.len());
            for id in part.ids {
                if let Some(id) = all.ids.replace(id) {
                    return Err(Error::new(
                        ErrorKind::DuplicateId,
                        format!("document id {id:?} appears twice in one call"),
                    ));
                }
            }
            all.batches.extend(part.batches);
        }
        Ok(all)
    }
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
        let mut counts: Vec<(u32, u32)> = Vec::with_capacity(ids.len());
        for &t in &ids {
            match counts.last_mut() {
                Some((last, tf)) if *last == t => *tf += 1,
                _ => counts.push((t, 1)),
            }
        }
        out.push(AnalyzedDoc {
            id: d.id.into(),
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
