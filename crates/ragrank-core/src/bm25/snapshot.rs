//! A snapshot: what one search sees. Immutable once published, so readers share it
//! without a lock while the writer prepares the next one.
//!
//! It is the ordered list of segments, each with its removed documents, plus the
//! statistics of the live documents (N, total length, df per term). The df map is a
//! persistent hash map: cloning it for the next snapshot is O(1) and a refresh updates
//! only the terms it touches. Insertion order is (segment position, local id), exposed
//! as a global slot `base + local`; merges only join adjacent segments, so it holds.
use std::hash::BuildHasher;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use roaring::RoaringBitmap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::dense::DenseRows;
use super::df::{DfState, GlobalDf};
use super::filter::FilterUse;
use super::scoring::{TfForm, TfPart};
use super::search::{self, Blocks, Cached, OnTheFly, Parts, SegTerm, SLACK};
use super::segment::{Deleted, DocRef, Matched, Segment, BLOCK};
use super::windowed;
use super::{IndexConfig, Query, SearchOptions, Stats, Strategy, AUTO_MAXSCORE_SLOTS};
use crate::analysis::Analyzer;
use crate::error::{check_cancel, Result};
use crate::filter::MetaFilter;
use crate::topk::{Hit, TopK};

/// What a df map entry costs besides its term's bytes (key pointer, count, node share).
pub(crate) const DF_ENTRY_BYTES: usize = 48;

/// How many postings scoring one document of a filter by lookup is taken to cost per query
/// term (a gallop through each term's list): a filter with fewer documents than the terms'
/// postings over this is scored alone (`search::selected`), a broader one tests candidates.
const SELECTED_COST: usize = 8;

/// Distinct query terms up to which repeats are merged by a linear scan.
const LINEAR_MERGE_TERMS: usize = 32;

/// Documents whose metadata `Snapshot::matching` tests per parallel task (and between two
/// looks at the cancel flag) when no field index answers a filter.
const MATCH_RUN: usize = 4096;

/// A segment as one snapshot sees it.
#[derive(Clone)]
pub struct SegRef {
    pub seg: Arc<Segment>,
    pub deleted: Arc<Deleted>,
    /// Global slot of the segment's first document.
    pub base: u32,
}

impl SegRef {
    pub fn new(seg: Arc<Segment>, deleted: Arc<Deleted>) -> Self {
        SegRef { seg, deleted, base: 0 }
    }

    pub fn live(&self) -> usize {
        self.seg.len() - self.deleted.count()
    }
}

/// The tf part of every posting of every segment at one snapshot's average length, so a
/// frozen index adds floats instead of evaluating the formula per posting. Built once the
/// index is quiet (`Snapshot::precompute`); a new snapshot starts without it (its average
/// length differs), so cloning gives an empty cache.
#[derive(Default)]
pub(crate) struct PartsCache(OnceLock<Vec<CachedParts>>);

/// One segment's precomputed parts and their exact block maxima (tighter than the
/// segment's own, which hold at its build's average length and are scaled up), plus the
/// parts of its most frequent terms as dense rows (exhaustive search, positive scores only).
pub(crate) struct CachedParts {
    parts: Box<[f32]>,
    block_max: Box<[f32]>,
    dense: DenseRows,
}

impl CachedParts {
    fn bytes(&self) -> usize {
        (self.parts.len() + self.block_max.len()) * 4 + self.dense.bytes()
    }
}

impl Clone for PartsCache {
    fn clone(&self) -> Self {
        PartsCache::default()
    }
}

#[derive(Clone)]
pub struct Snapshot {
    pub(crate) config: Arc<IndexConfig>,
    pub(crate) analyzer: Arc<Analyzer>,
    pub(crate) segs: Vec<SegRef>,
    pub(crate) live: usize,
    pub(crate) total_len: u64,
    /// (term, live document) pairs.
    pub(crate) postings: usize,
    /// Per term, live documents holding it (deferred for a snapshot read from a directory).
    pub(crate) df: GlobalDf,
    pub(crate) parts: PartsCache,
    /// Shared by every snapshot of one index.
    pub(crate) filter_use: Arc<FilterUse>,
    /// The sequence number of the last write this snapshot includes.
    pub(crate) seq: u64,
    /// The log position of the newest logged write it includes (a commit records it as the
    /// log position its segments cover).
    pub(crate) logged: u64,
}

/// A query term with its multiplicity and global df. `term` borrows the snapshot's own copy
/// (the df map's key), so a query allocates no string per term.
struct QueryTerm<'s> {
    term: &'s str,
    /// `term`'s hash, compared before the bytes when merging repeats.
    hash: u64,
    weight: f32,
    df: u32,
    /// The term's id in the snapshot's only segment (`sole_segment`), else `NO_LOCAL`.
    local: u32,
}

const NO_LOCAL: u32 = u32::MAX;

impl Snapshot {
    pub(crate) fn empty(config: Arc<IndexConfig>, analyzer: Arc<Analyzer>) -> Self {
        Snapshot {
            config,
            analyzer,
            segs: Vec::new(),
            live: 0,
            total_len: 0,
            postings: 0,
            df: GlobalDf::default(),
            parts: PartsCache::default(),
            filter_use: Arc::default(),
            seq: 0,
            logged: 0,
        }
    }

    /// Sets the segments (dropping those with no live document) and their bases. A
    /// deferred df is built first, from the segments it was counted on.
    pub(crate) fn set_segments(&mut self, segs: Vec<SegRef>) {
        self.df.get(&self.segs);
        let mut base = 0u32;
        self.segs = segs
            .into_iter()
            .filter(|s| s.live() > 0)
            .map(|mut s| {
                s.base = base;
                base += s.seg.len() as u32;
                s
            })
            .collect();
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    pub fn avg_len(&self) -> f64 {
        if self.live == 0 {
            0.0
        } else {
            self.total_len as f64 / self.live as f64
        }
    }

    pub fn segments(&self) -> &[SegRef] {
        &self.segs
    }

    /// The live copy of `id`: (segment position, local id).
    pub fn find(&self, id: &str) -> Option<(usize, u32)> {
        // Newest first: an id removed and added again lives in a later segment.
        self.segs.iter().enumerate().rev().find_map(|(i, s)| {
            let local = s.seg.local_of(id)?;
            (!s.deleted.contains(local)).then_some((i, local))
        })
    }

    pub fn contains(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// The live document `id` (its stored text and metadata), if any.
    pub fn get(&self, id: &str) -> Option<DocRef<'_>> {
        self.find(id).map(|(i, local)| self.segs[i].seg.doc(local))
    }

    /// The document at a global slot of this snapshot (from a hit).
    pub fn doc(&self, slot: u32) -> DocRef<'_> {
        let i = self.segs.partition_point(|s| s.base <= slot) - 1;
        let s = &self.segs[i];
        s.seg.doc(slot - s.base)
    }

    /// The df state, built now if it was deferred (a write or `stats` needs the whole map).
    pub(crate) fn df_state(&self) -> &DfState {
        self.df.get(&self.segs)
    }

    pub(crate) fn df_state_mut(&mut self) -> &mut DfState {
        self.df.get_mut(&self.segs)
    }

    /// Checks every mapped segment's whole checksum (open checks only the small sections,
    /// docs/STORAGE.md). The error names the damaged segment.
    pub fn verify(&self) -> Result<()> {
        self.segs.iter().try_for_each(|s| super::segment_file::verify(&s.seg))
    }

    /// Whether any document (removed ones included) stores text or metadata: when none
    /// does, a search's hits need no look at their documents' fields.
    pub fn has_fields(&self) -> bool {
        self.segs.iter().any(|s| s.seg.has_fields)
    }

    /// Live documents in insertion order.
    pub fn docs(&self) -> impl Iterator<Item = DocRef<'_>> {
        self.segs.iter().flat_map(|s| {
            (0..s.seg.len() as u32)
                .filter(|&l| !s.deleted.contains(l))
                .map(|l| s.seg.doc(l))
        })
    }

    /// Global slots of the given ids (unknown ids skipped), for building filters.
    pub fn slots_of<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> FxHashSet<u32> {
        ids.into_iter()
            .filter_map(|id| self.find(id).map(|(i, l)| self.segs[i].base + l))
            .collect()
    }

    /// The live documents whose metadata passes `filter`, in insertion order, decided as a
    /// search's filter is: by a segment's field index when it covers the filter (bitmap
    /// algebra, no look at any document's JSON), else by testing each document's metadata
    /// (in parallel, on the calling thread's rayon pool). `unindexed` gets the fields that made
    /// some segment scan. Checks `cancel` between segments and between runs of scanned
    /// documents, and then fails with `Error::aborted()`.
    ///
    /// Each match carries its document's key (`DocKey`): a later snapshot holds a document of
    /// the same key as long as it was not removed or replaced (merges keep it), which is how
    /// `Bm25Index::remove_matching` tells them from documents added since.
    pub fn matching<'f>(
        &self,
        filter: &'f MetaFilter,
        cancel: &AtomicBool,
        unindexed: &mut Vec<&'f str>,
    ) -> Result<Vec<Matched>> {
        let mut out = Vec::new();
        for s in &self.segs {
            check_cancel(cancel)?;
            let (seg, deleted) = (&s.seg, &*s.deleted);
            match seg.fields().and_then(|f| f.select(filter)) {
                Some(docs) => out.extend(
                    docs.iter()
                        .filter(|&local| !deleted.contains(local))
                        .map(|local| seg.docs.matched(local)),
                ),
                None => {
                    match seg.fields() {
                        Some(fields) => fields.uncovered(filter, unindexed),
                        None => unindexed.push("(segment without field index)"),
                    }
                    let runs: Vec<Vec<Matched>> = (0..seg.len().div_ceil(MATCH_RUN))
                        .into_par_iter()
                        .map(|run| {
                            check_cancel(cancel)?;
                            let first = run * MATCH_RUN;
                            Ok((first as u32..seg.len().min(first + MATCH_RUN) as u32)
                                .filter(|&local| {
                                    !deleted.contains(local) && filter.matches(seg.docs.meta(local).as_deref())
                                })
                                .map(|local| seg.docs.matched(local))
                                .collect())
                        })
                        .collect::<Result<_>>()?;
                    out.extend(runs.into_iter().flatten());
                }
            }
        }
        Ok(out)
    }

    /// The ids of the live documents `filter` passes, in insertion order (see `matching`).
    pub fn matching_ids(&self, filter: &MetaFilter) -> Vec<Arc<str>> {
        let never = AtomicBool::new(false);
        let docs = self.matching(filter, &never, &mut Vec::new()).unwrap_or_default();
        docs.into_iter().map(|d| d.id.clone()).collect()
    }

    pub fn analyze(&self, text: &str) -> Vec<String> {
        self.analyzer.analyze(text)
    }

    /// The segment of a snapshot that has only one and no removed document (a frozen
    /// index, the common case): its posting counts are then the global df, so its
    /// vocabulary alone resolves a query term (one hash lookup instead of the df map's and
    /// the segment's).
    fn sole_segment(&self) -> Option<&Segment> {
        match self.segs.as_slice() {
            [s] if s.deleted.count() == 0 => Some(&s.seg),
            _ => None,
        }
    }

    /// Unique known query terms in first-occurrence order, weighted by multiplicity
    /// (a repeated query token counts again, as in bm25s).
    fn query_terms(&self, query: &Query) -> Vec<QueryTerm<'_>> {
        let mut out: Vec<QueryTerm> = Vec::with_capacity(16);
        let sole = self.sole_segment();
        // Queries are short: a linear scan over the hashes merges repeats faster than a map
        // (and compares bytes only on a hash match: CJK bigrams all have the same length),
        // until the query grows long enough for the map to pay off.
        let mut pos: FxHashMap<&str, usize> = FxHashMap::default();
        let mut add = |tok: &str| {
            let hash = FxBuildHasher.hash_one(tok);
            let found = if out.len() <= LINEAR_MERGE_TERMS {
                out.iter().position(|q| q.hash == hash && q.term == tok)
            } else {
                if pos.is_empty() {
                    pos.extend(out.iter().enumerate().map(|(i, q)| (q.term, i)));
                }
                pos.get(tok).copied()
            };
            match found {
                Some(i) => out[i].weight += 1.0,
                None => {
                    let found = match sole {
                        Some(seg) => seg.term(tok).map(|local| {
                            let (docs, _) = seg.postings(local);
                            (seg.terms.get(local), docs.len() as u32, local)
                        }),
                        None => self.df.lookup(&self.segs, tok).map(|(t, df)| (t, df, NO_LOCAL)),
                    };
                    let Some((term, df, local)) = found else { return };
                    if !pos.is_empty() {
                        pos.insert(term, out.len());
                    }
                    out.push(QueryTerm {
                        term,
                        hash,
                        weight: 1.0,
                        df,
                        local,
                    });
                }
            }
        };
        match query {
            Query::Text(text) => self.analyzer.analyze_into(text, &mut |t| add(t)),
            Query::Tokens(tokens) => tokens.iter().for_each(|t| add(t)),
            // Split as bytes: a str split on a char searches with a memchr call per token,
            // a cost next to a CJK bigram's few bytes.
            Query::JoinedTokens(joined) => joined
                .as_bytes()
                .split(|&b| b == 0)
                .filter(|t| !t.is_empty())
                // SAFETY: cut at NUL bytes, which are whole characters in UTF-8, so every
                // piece is valid UTF-8 too.
                .for_each(|t| add(unsafe { std::str::from_utf8_unchecked(t) })),
        }
        out
    }

    /// The top `top_k` documents containing at least one query term, best first; ties
    /// go to the document added earlier. Hit slots are this snapshot's (see `doc`).
    pub fn search(&self, query: &Query, opts: &SearchOptions) -> Vec<Hit> {
        let terms = self.query_terms(query);
        if terms.is_empty() || opts.top_k == 0 || self.is_empty() {
            return Vec::new();
        }
        let params = &self.config.params;
        let n = self.live as f64;
        let tfc0 = params.tfc0();
        let mut absent = 0f32;
        // (weight * idf) per query term, and the constant of BM25L/BM25+.
        let wis: Vec<f32> = terms
            .iter()
            .map(|qt| {
                let idf = params.idf(n, qt.df as f64);
                absent += qt.weight * (idf * tfc0) as f32;
                (qt.weight as f64 * idf) as f32
            })
            .collect();
        let mut unindexed = Vec::new();
        let mut hits = match params.tf_form(self.avg_len()) {
            TfForm::Saturation(f) => self.search_segments(f, &terms, &wis, opts, &mut unindexed),
            TfForm::LengthScaled(f) => self.search_segments(f, &terms, &wis, opts, &mut unindexed),
        };
        if opts.filter.as_ref().is_some_and(|f| f.meta.is_some()) {
            self.filter_use.record(&unindexed);
        }
        if params.shifts() {
            hits.iter_mut().for_each(|h| h.score += absent);
        }
        hits
    }

    /// Searches the segments in order, each one only for documents that beat the k-th
    /// best of the earlier ones, and merges their hits.
    /// `unindexed` gets the fields of the metadata filter that some segment's field index
    /// did not cover (so its candidates were tested one by one).
    fn search_segments<'o, F: TfPart>(
        &self,
        f: F,
        terms: &[QueryTerm],
        wis: &[f32],
        opts: &'o SearchOptions,
        unindexed: &mut Vec<&'o str>,
    ) -> Vec<Hit> {
        let meta = opts.filter.as_ref().and_then(|f| f.meta.as_ref());
        let slots = opts.filter.as_ref().and_then(|f| f.slots.as_ref());
        let k = opts.top_k;
        let positive = self.config.params.positive_impacts();
        let avgdl = self.avg_len();
        let mut top = TopK::new(k);
        let mut seg_terms: Vec<SegTerm> = Vec::with_capacity(terms.len());
        for (i, s) in self.segs.iter().enumerate() {
            let seg = &s.seg;
            let growth = seg.bound_growth(avgdl);
            seg_terms.clear();
            seg_terms.extend(terms.iter().enumerate().filter_map(|(q, qt)| {
                let local = if qt.local == NO_LOCAL {
                    seg.term(qt.term)?
                } else {
                    qt.local
                };
                Some(SegTerm {
                    local,
                    wi: wis[q],
                    bound: wis[q] * seg.max_tf_part[local as usize] * growth * SLACK,
                    q,
                })
            }));
            if seg_terms.is_empty() {
                continue;
            }
            let base = s.base;
            let deleted = &*s.deleted;
            // The metadata filter as this segment's field index answers it (None: scanned).
            let selected = meta.and_then(|m| seg.selections.select(seg.fields()?, m));
            if let (Some(m), None) = (meta, &selected) {
                match seg.fields() {
                    Some(fields) => fields.uncovered(m, unindexed),
                    None => unindexed.push("(segment without field index)"),
                }
            }
            if selected.as_ref().is_some_and(|b| b.is_empty()) {
                continue;
            }
            let allow = |local: u32| {
                !deleted.contains(local)
                    && slots.is_none_or(|s| s.contains(&(base + local)))
                    && match &selected {
                        Some(docs) => docs.contains(local),
                        None => meta.is_none_or(|m| m.matches(seg.docs.meta(local).as_deref())),
                    }
            };
            // A filter selective enough to score its documents alone, looked up in the terms'
            // postings, rather than every posting tested against it.
            let postings: usize = seg_terms.iter().map(|t| seg.postings(t.local).0.len()).sum();
            let only = selected
                .as_ref()
                .filter(|docs| docs.len() as usize * seg_terms.len() * SELECTED_COST < postings)
                .map(|docs| docs.bitmap());
            let use_maxscore = match opts.strategy {
                Strategy::Auto => seg.len() >= AUTO_MAXSCORE_SLOTS,
                Strategy::Exhaustive => false,
                Strategy::MaxScore => true,
            };
            let floor = top.threshold();
            let run = Run {
                seg,
                terms: &seg_terms,
                k,
                positive,
                floor,
                allow: &allow,
                use_maxscore,
                only,
            };
            let hits = match self.parts.0.get() {
                Some(cached) => {
                    let c = &cached[i];
                    let blocks = Blocks {
                        max: &c.block_max,
                        scale: SLACK,
                    };
                    run.go(
                        Cached {
                            parts: &c.parts,
                            dense: &c.dense,
                        },
                        blocks,
                    )
                }
                None => {
                    let blocks = Blocks {
                        max: &seg.block_max,
                        scale: growth * SLACK,
                    };
                    let p = OnTheFly {
                        f,
                        tfs: &seg.post_tfs,
                        lens: &seg.lens,
                    };
                    run.go(p, blocks)
                }
            };
            // A lone segment's hits are already the k best in rank order (every path of
            // `Run::go` ends sorted) and its base is 0: no second selection and sort.
            if self.segs.len() == 1 {
                debug_assert_eq!(base, 0);
                return hits;
            }
            for h in hits {
                top.push(Hit {
                    slot: base + h.slot,
                    score: h.score,
                });
            }
        }
        top.into_sorted()
    }

    /// Whether the tf parts are precomputed for this snapshot.
    pub fn is_precomputed(&self) -> bool {
        self.parts.0.get().is_some()
    }

    /// Precomputes the tf part of every posting at this snapshot's average length (4 bytes
    /// a posting, O(postings) once) and their block maxima (4 bytes a block): searches then
    /// read them instead of evaluating the formula, with bit-identical scores. The
    /// background thread does this once the index is quiet.
    pub fn precompute(&self) {
        self.parts.0.get_or_init(|| {
            let form = self.config.params.tf_form(self.avg_len());
            let positive = self.config.params.positive_impacts();
            self.segs
                .iter()
                .map(|s| {
                    let mut c = match form {
                        TfForm::Saturation(f) => parts_of(f, &s.seg),
                        TfForm::LengthScaled(f) => parts_of(f, &s.seg),
                    };
                    if positive {
                        c.dense = DenseRows::build(&s.seg, &c.parts);
                    }
                    c
                })
                .collect()
        });
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
        queries
            .par_iter()
            .map(|q| {
                check_cancel(cancel)?;
                Ok(self.search(q, opts))
            })
            .collect()
    }

    /// `search_batch_cancellable` on at most `threads` threads at once (`None`: rayon's
    /// whole pool). With 1 the queries run one after another on the calling thread; with
    /// more, the batch is cut into `threads` runs of consecutive queries, one rayon task
    /// each, so no more threads can work on it. Results do not depend on `threads`.
    pub fn search_batch_threads(
        &self,
        queries: &[Query],
        opts: &SearchOptions,
        cancel: &AtomicBool,
        threads: Option<usize>,
    ) -> Result<Vec<Vec<Hit>>> {
        let run = |qs: &[Query]| -> Result<Vec<Vec<Hit>>> {
            qs.iter()
                .map(|q| {
                    check_cancel(cancel)?;
                    Ok(self.search(q, opts))
                })
                .collect()
        };
        match threads {
            Some(t) if t <= 1 => run(queries),
            Some(t) if t < queries.len() => {
                let parts: Vec<Vec<Vec<Hit>>> = queries
                    .par_chunks(queries.len().div_ceil(t))
                    .map(run)
                    .collect::<Result<_>>()?;
                Ok(parts.into_iter().flatten().collect())
            }
            _ => self.search_batch_cancellable(queries, opts, cancel),
        }
    }

    pub fn stats(&self) -> Stats {
        let mut field_index_bytes = std::collections::BTreeMap::<String, usize>::new();
        for fields in self.segs.iter().filter_map(|s| s.seg.built_fields()) {
            for (name, bytes) in fields.heap_bytes() {
                *field_index_bytes.entry(name).or_default() += bytes;
            }
        }
        let (filtered_searches, scanned_filter_searches, scanned_filter_fields) = self.filter_use.report();
        let seg_bytes: usize = self.segs.iter().map(|s| s.seg.bytes() + s.deleted.bytes()).sum();
        let per_posting: usize = self.segs.iter().map(|s| s.seg.posting_bytes()).sum();
        let df = self.df_state();
        let df_bytes = df.term_bytes + df.map.len() * DF_ENTRY_BYTES;
        Stats {
            documents: self.live,
            terms: df.map.len(),
            postings: self.postings,
            avg_doc_length: self.avg_len(),
            bytes_per_posting: if self.postings == 0 {
                0.0
            } else {
                per_posting as f64 / self.postings as f64
            },
            memory_bytes: seg_bytes
                + df_bytes
                + self.parts.0.get().map_or(0, |p| p.iter().map(CachedParts::bytes).sum()),
            dense_terms: self.parts.0.get().map_or(0, |p| p.iter().map(|c| c.dense.len()).sum()),
            segments: self.segs.len(),
            deleted_docs: self.segs.iter().map(|s| s.deleted.count()).sum(),
            field_index_bytes,
            filtered_searches,
            scanned_filter_searches,
            scanned_filter_fields,
        }
    }
}

/// One segment's search, generic over where the tf parts come from.
struct Run<'a> {
    seg: &'a Segment,
    terms: &'a [SegTerm],
    k: usize,
    positive: bool,
    floor: f32,
    allow: &'a dyn Fn(u32) -> bool,
    use_maxscore: bool,
    /// The documents of a selective filter: scored alone (`search::selected`).
    only: Option<&'a RoaringBitmap>,
}

impl Run<'_> {
    fn go<P: Parts>(&self, p: P, blocks: Blocks) -> Vec<Hit> {
        if let Some(docs) = self.only {
            search::selected(self.seg, p, self.terms, self.k, self.floor, docs.iter(), self.allow)
        } else if self.use_maxscore {
            windowed::maxscore(self.seg, p, blocks, self.terms, self.k, self.floor, self.allow)
        } else {
            search::exhaustive(self.seg, p, self.terms, self.k, self.positive, self.floor, self.allow)
        }
    }
}

/// The same expression as `OnTheFly::part`, so cached and computed scores are bit-identical.
fn parts_of<F: TfPart>(f: F, seg: &Segment) -> CachedParts {
    let on_the_fly = OnTheFly {
        f,
        tfs: &seg.post_tfs,
        lens: &seg.lens,
    };
    let n = seg.post_docs.len();
    let mut parts = Vec::with_capacity(n);
    let mut block_max: Vec<f32> = Vec::with_capacity(n.div_ceil(BLOCK));
    for (i, &d) in seg.post_docs.iter().enumerate() {
        let v = on_the_fly.part(i, d);
        match block_max.last_mut() {
            Some(m) if i % BLOCK != 0 => *m = m.max(v),
            _ => block_max.push(v),
        }
        parts.push(v);
    }
    CachedParts {
        parts: parts.into(),
        block_max: block_max.into(),
        dense: DenseRows::default(),
    }
}
