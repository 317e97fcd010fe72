//! `NativeBm25Index`: the core live index, shared with the pool's tasks. No lock is held
//! across a call: searches read the current snapshot, writes push to the staged queue
//! (a short mutex) and publish with `try_refresh`, which never waits. Sync: `add`,
//! `remove`, `search`, `has`, `size`, `pending`, `stats`, `analyze`. On the libuv pool:
//! `addAsync`, `removeMatching`, `refresh`, `merge`, `searchBatch`, `save`, `load`. A big sync `add` crosses
//! in parts (`parted_add`).
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::{AsyncTask, Either, Float64ArraySlice, Uint32ArraySlice, Uint8ArraySlice, Utf16String};
use napi_derive::napi;
use ragrank_core::bm25::directory::{DurabilityMode, OpenOptions};
use ragrank_core::bm25::{
    persist, prepare_docs, retire, Bm25Index, Filter, Hit, IndexConfig, NewDoc, Query, SearchOptions, Snapshot,
    Strategy,
};
use ragrank_core::filter::MetaFilter;

use crate::cancel::{check, CancelToken};
use crate::errors::{guard, internal, OrNapi};
use crate::hits::{self, JsString, NativeHits, NativeSearchOptions, Row};
use crate::task::BlockingTask;

mod parted_add;
pub use parted_add::NativeAddParts;

#[napi(object)]
pub struct NativeDoc {
    pub id: String,
    pub text: Option<String>,
    /// Tokens joined by U+0000: one string crosses the boundary far faster than many.
    pub tokens: Option<String>,
    /// How many tokens were joined: a token holding U+0000 would split, so the count of
    /// separators tells (checked here, in one pass over bytes, not per token in JS).
    pub token_count: Option<u32>,
    pub meta: Option<serde_json::Value>,
}

/// The queries of a batch from one UTF-16 string and each query's length in code units (one
/// string crosses the boundary instead of one per query, and is decoded here on the pool),
/// as one UTF-8 string and each query's end in it: one allocation for the whole batch.
/// Lone surrogates become U+FFFD, as napi's UTF-8 conversion of a string does.
fn split_queries(joined: &[u16], lengths: &[u32]) -> napi::Result<(String, Vec<usize>)> {
    let mismatch = || internal("searchBatch: query lengths do not add up to the joined queries");
    // An upper bound of the UTF-8 size: 3 bytes per unit above U+007F (a surrogate pair's 4 is 2 each).
    let bytes = joined.iter().map(|&u| if u < 0x80 { 1 } else { 3 }).sum();
    let mut text = String::with_capacity(bytes);
    let mut ends = Vec::with_capacity(lengths.len());
    let mut at = 0usize;
    for &n in lengths {
        let q = joined.get(at..at + n as usize).ok_or_else(mismatch)?;
        at += n as usize;
        // Decoded query by query, so a surrogate cut at a query's end stays lone, as before.
        text.extend(char::decode_utf16(q.iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));
        ends.push(text.len());
    }
    if at != joined.len() {
        return Err(mismatch());
    }
    Ok((text, ends))
}

type Shared = Arc<Bm25Index>;

/// Turns off glibc's fastbins, once per process. A BM25 index makes and frees millions of
/// small allocations across threads (documents converted on the event loop and dropped on
/// the pool, segments freed on the reaper); glibc parks such frees in fastbins and, at the
/// next large free or allocation in that arena, consolidates all of them while holding
/// the arena lock. At 1M documents that held the event loop's arena for 0.2-7 s (profiled:
/// the reaper in `malloc_consolidate`, the event loop waiting). Without fastbins a free
/// coalesces at once (the per-thread tcache still serves the hot sizes).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        extern "C" {
            fn mallopt(param: std::os::raw::c_int, value: std::os::raw::c_int) -> std::os::raw::c_int;
        }
        const M_MXFAST: std::os::raw::c_int = 1;
        // SAFETY: mallopt only changes glibc's tuning; it takes the arena lock itself.
        ONCE.call_once(|| unsafe {
            mallopt(M_MXFAST, 0);
        });
    }
}

/// `refresh_interval_ms`: 0 turns the automatic refresh off.
fn shared(index: Bm25Index, refresh_interval_ms: Option<u32>) -> Shared {
    tune_allocator();
    if let Some(ms) = refresh_interval_ms {
        index.set_refresh_interval((ms > 0).then(|| Duration::from_millis(ms as u64)));
    }
    Arc::new(index)
}

/// `offset`: where `docs` start in the caller's array (errors name `docs[i]` there).
fn to_new_docs(docs: Vec<NativeDoc>, offset: usize) -> ragrank_core::Result<Vec<NewDoc>> {
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| {
            let i = offset + i;
            if let (Some(joined), Some(n)) = (&d.tokens, d.token_count) {
                let separators = joined.bytes().filter(|&b| b == 0).count();
                if separators != (n as usize).saturating_sub(1) {
                    return Err(ragrank_core::Error::invalid(format!(
                        "docs[{i}]: tokens must not contain U+0000"
                    )));
                }
            }
            Ok(NewDoc {
                id: d.id,
                text: d.text,
                tokens: None,
                joined_tokens: d.tokens,
                meta: d.meta,
            })
        })
        .collect()
}

/// A query crosses as text, or as tokens joined by U+0000 (one string instead of many).
fn to_query(q: &str, is_tokens: bool) -> Query<'_> {
    if is_tokens {
        Query::JoinedTokens(q)
    } else {
        Query::Text(q)
    }
}

/// A search's options for `index`: the filter compiled, its ids as the snapshot's slots.
fn search_options(
    index: &Snapshot,
    top_k: u32,
    options: Option<NativeSearchOptions>,
) -> napi::Result<(SearchOptions, bool)> {
    let o = hits::resolve(options)?;
    let filter = (o.ids.is_some() || o.meta.is_some()).then(|| Filter {
        slots: o.ids.map(|ids| index.slots_of(ids.iter().map(String::as_str))),
        meta: o.meta,
    });
    let opts = SearchOptions {
        top_k: top_k as usize,
        strategy: Strategy::Auto,
        filter,
    };
    Ok((opts, o.include_fields))
}

/// The hits as `hits::Row`s, with their documents' fields when asked for (an index that
/// stores none, `storeText: false` and no metadata, skips the look at each document's).
fn rows<'a>(index: &'a Snapshot, hits: impl Iterator<Item = &'a Hit>, include_fields: bool) -> Vec<Row<'a>> {
    let fields = include_fields && index.has_fields();
    hits.map(|h| {
        let d = index.doc(h.slot);
        Row {
            id: d.id,
            score: h.score,
            text: if fields { d.text } else { None },
            meta: if fields { d.meta } else { None },
        }
    })
    .collect()
}

/// A snapshot held by a sync call on the event loop: if a refresh or merge replaced it
/// meanwhile, this is its last reference, and freeing it (whole segments) goes to the
/// reaper thread instead of the event loop.
struct Retiring(Option<Arc<Snapshot>>);

impl std::ops::Deref for Retiring {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        self.0.as_deref().expect("held until drop")
    }
}

impl Drop for Retiring {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            retire(s);
        }
    }
}

#[napi]
pub struct NativeBm25Index {
    inner: Shared,
}

#[napi]
impl NativeBm25Index {
    /// `config_json`: the core `IndexConfig` as JSON; fields left out take their defaults.
    /// `refresh_interval_ms`: delay after which staged writes become visible on their own
    /// (0: never; absent: the default, 1000).
    #[napi(constructor)]
    pub fn new(config_json: String, refresh_interval_ms: Option<u32>) -> napi::Result<Self> {
        guard(|| {
            let config = IndexConfig::from_json(&config_json).or_napi()?;
            let index = Bm25Index::new(config).or_napi()?;
            Ok(NativeBm25Index {
                inner: shared(index, refresh_interval_ms),
            })
        })
    }

    /// Analyses on the calling thread and stages the documents; with `refresh` (the
    /// default) publishes them at once unless a refresh or merge commit is running (that
    /// one publishes them when it ends). Never waits for another thread's work.
    #[napi]
    pub fn add(&self, docs: Vec<NativeDoc>, upsert: bool, refresh: Option<bool>) -> napi::Result<u32> {
        guard(|| {
            let index = &self.inner;
            let docs = to_new_docs(docs, 0).or_napi()?;
            let prepared = prepare_docs(&index.analyzer(), index.config().store_text, docs).or_napi()?;
            let n = index.stage_add(prepared, upsert).or_napi()?;
            if refresh.unwrap_or(true) {
                index.try_refresh();
            }
            Ok(n as u32)
        })
    }

    /// A big sync `add` in parts (`lib/` cuts it): each part crosses on the calling thread
    /// and is analysed on a thread of its own while the next one crosses, then `addFinish`
    /// stages them all at once (nothing is staged before, so a failed part adds nothing).
    #[napi]
    pub fn add_parts(&self) -> NativeAddParts {
        NativeAddParts::new(self.inner.clone())
    }

    /// Stages the documents of `parts` as one `add` (see `add`), once their analysis is done.
    #[napi]
    pub fn add_finish(&self, parts: &mut NativeAddParts, upsert: bool, refresh: Option<bool>) -> napi::Result<u32> {
        guard(|| {
            let docs = parts.finish(&self.inner)?;
            let n = self.inner.stage_add(docs, upsert).or_napi()?;
            if refresh.unwrap_or(true) {
                self.inner.try_refresh();
            }
            Ok(n as u32)
        })
    }

    /// Analyses on the libuv pool, stages, then refreshes (waiting there for a running
    /// refresh), so the promise resolves once the documents are searchable.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn add_async(
        &self,
        docs: Vec<NativeDoc>,
        upsert: bool,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<u32>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |cancel| {
            let docs = to_new_docs(docs, 0).or_napi()?;
            let prepared = prepare_docs(&index.analyzer(), index.config().store_text, docs).or_napi()?;
            // Checked before staging: once staged, the documents stay.
            check(cancel)?;
            // Staged under the refresh mutex, so no sync call on the event loop can end up
            // building this batch's segment.
            Ok(index.add_refreshed(prepared, upsert).or_napi()? as u32)
        })
    }

    /// Stages the removals and publishes them as `add` does.
    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> napi::Result<u32> {
        guard(|| {
            let n = self.inner.stage_remove(&ids).or_napi()?;
            self.inner.try_refresh();
            Ok(n as u32)
        })
    }

    /// Removes the documents whose metadata passes `filter` (a `filter.meta` object), on the
    /// pool at background priority: compiled and matched there against the snapshot once
    /// earlier staged writes are published, then removed by id as `remove` does; resolves with
    /// how many, once the removal is searchable (`Bm25Index::remove_matching`).
    #[napi(ts_return_type = "Promise<number>")]
    pub fn remove_matching(
        &self,
        filter: serde_json::Value,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<u32>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |cancel| {
            let filter = MetaFilter::compile(&filter, "filter").or_napi()?;
            Ok(index.remove_matching(&filter, cancel).or_napi()? as u32)
        })
    }

    /// Makes every write staged before the call searchable, on the libuv pool.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn refresh(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |_| {
            index.refresh();
            Ok(())
        })
    }

    /// Runs the merges due now on the libuv pool (the index's background thread runs them
    /// too); resolves with how many ran once none is due.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn merge(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<u32>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |_| Ok(index.merge() as u32))
    }

    /// The hot path: with no stored fields among the hits and room in `out`, the hits come
    /// back as the ids string alone, the numbers in `out`, a buffer the caller reuses, so a
    /// query allocates no typed arrays; `options` is absent for a plain `{ topK }`, so most
    /// calls read no options object. Otherwise it returns `NativeHits` (`hits::single`).
    /// Reads the current snapshot: never waits for a writer.
    ///
    /// `token_count`: for tokens, how many were joined. A token holding U+0000 would split
    /// into more; counting the separators here (a byte scan of the copy napi made anyway)
    /// replaces a JS pass over every token, and the call returns `null` so that `lib/`
    /// throws its RangeError.
    #[napi(ts_return_type = "string | NativeHits | null")]
    pub fn search(
        &self,
        query: String,
        is_tokens: bool,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        mut out: Float64ArraySlice,
        token_count: Option<u32>,
    ) -> napi::Result<Option<Either<JsString, NativeHits>>> {
        guard(|| {
            if let (true, Some(n)) = (is_tokens, token_count) {
                // U+0000 is the only character whose UTF-8 holds a 0 byte.
                let separators = query.bytes().filter(|&b| b == 0).count();
                if separators != (n as usize).saturating_sub(1) {
                    return Ok(None);
                }
            }
            let index = Retiring(Some(self.inner.snapshot()));
            let (opts, include_fields) = search_options(&index, top_k, options)?;
            let hits = index.search(&to_query(&query, is_tokens), &opts);
            // SAFETY: the slice views a live JS typed array that nothing else touches during
            // this synchronous call.
            let out = unsafe { out.as_mut() };
            Ok(Some(hits::single(&rows(&index, hits.iter(), include_fields), out)))
        })
    }

    /// `NativeBm25Snapshot.searchBatch` over the current snapshot, taken now: for a batch
    /// that crosses in one call, which then needs no pinned snapshot object (a class instance
    /// with a finalizer, and a `release` call, per batch).
    #[napi(ts_return_type = "Promise<NativeHits>")]
    #[allow(clippy::too_many_arguments)]
    pub fn search_batch(
        &self,
        queries: Utf16String,
        lengths: Uint32ArraySlice,
        are_tokens: Uint8ArraySlice,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        cancel: Option<&CancelToken>,
        threads: Option<u32>,
    ) -> AsyncTask<BlockingTask<NativeHits>> {
        let index = Retiring(Some(self.inner.snapshot()));
        batch_task(index, queries, &lengths, &are_tokens, top_k, options, cancel, threads)
    }

    /// The current snapshot, held until the returned object is collected: the batches a
    /// large `searchBatch` is cut into all read it, so they see the same documents.
    #[napi]
    pub fn pin(&self) -> NativeBm25Snapshot {
        NativeBm25Snapshot {
            snap: std::cell::RefCell::new(Retiring(Some(self.inner.snapshot()))),
        }
    }

    #[napi]
    pub fn analyze(&self, text: String) -> napi::Result<Vec<String>> {
        guard(|| Ok(self.inner.analyze(&text)))
    }

    /// Documents searchable now.
    #[napi(getter)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Documents added or removed but not yet searchable.
    #[napi(getter)]
    pub fn pending(&self) -> u32 {
        self.inner.pending() as u32
    }

    /// Counts staged writes (the staged mutex is only held for pushes and drains).
    #[napi]
    pub fn has(&self, id: String) -> bool {
        self.inner.contains(&id)
    }

    /// Stored text and metadata by id, from the snapshot searches see (never waits).
    #[napi(ts_return_type = "Array<{ id: string; text?: string; meta?: Record<string, unknown> } | null>")]
    pub fn get(&self, ids: Vec<String>) -> napi::Result<serde_json::Value> {
        guard(|| {
            let snapshot = self.inner.snapshot();
            let docs = ids.iter().map(|id| {
                let found = snapshot.get(id);
                hits::stored_document(id, found.as_ref().map(|d| (d.text, d.meta.as_deref())))
            });
            Ok(serde_json::Value::Array(docs.collect()))
        })
    }

    #[napi]
    pub fn stats(&self) -> napi::Result<serde_json::Value> {
        guard(|| {
            let mut stats = serde_json::to_value(self.inner.stats()).map_err(|e| internal(&e.to_string()))?;
            let wal = self.inner.directory().and_then(|d| d.wal().cloned());
            if let (Some(wal), Some(fields)) = (wal, stats.as_object_mut()) {
                fields.insert("logFsyncs".into(), wal.fsyncs().into());
            }
            Ok(stats)
        })
    }

    /// Publishes the staged writes, then writes the current snapshot on the pool: no lock
    /// is held while writing, and writes made meanwhile are not in the file.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn save(&self, path: String, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |cancel| {
            index.refresh();
            persist::save(&index.snapshot(), Path::new(&path), cancel).or_napi()
        })
    }

    /// Opens (or creates) the index bound to directory `dir` on the pool (docs/STORAGE.md):
    /// `options_json` as the constructor's (absent: the directory's recorded ones),
    /// `durability` 'commit' | 'sync' | 'async' (fsync'd every `sync_interval_ms`).
    #[napi(ts_return_type = "Promise<NativeBm25Index>")]
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        dir: String,
        options_json: Option<String>,
        durability: String,
        sync_interval_ms: u32,
        read_only: bool,
        refresh_interval_ms: Option<u32>,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<Shared, NativeBm25Index>> {
        BlockingTask::then(
            cancel,
            move |_| {
                let durability = match durability.as_str() {
                    "commit" => DurabilityMode::Commit,
                    "sync" => DurabilityMode::Sync,
                    "async" => DurabilityMode::Async(Duration::from_millis(sync_interval_ms.max(1) as u64)),
                    other => return Err(internal(&format!("unknown durability {other}"))),
                };
                let options = match options_json {
                    Some(json) => Some(serde_json::from_str(&json).map_err(|e| internal(&e.to_string()))?),
                    None => None,
                };
                let opts = OpenOptions {
                    options,
                    durability,
                    read_only,
                };
                Ok(shared(
                    Bm25Index::open(Path::new(&dir), opts).or_napi()?,
                    refresh_interval_ms,
                ))
            },
            |inner| NativeBm25Index { inner },
        )
    }

    /// Commits the directory (both indexes when a vector index shares it) on the pool;
    /// resolves with the generation of the newest commit.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn commit(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<u32>> {
        let index = self.inner.clone();
        BlockingTask::spawn(cancel, move |_| Ok(index.commit().or_napi()?.generation as u32))
    }

    /// A reader's refresh: moves to the writer's newest commit; resolves true if it was newer.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn reload(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<bool>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |_| index.reload().or_napi())
    }

    /// Commits (a writer) and lets go of the directory, on the pool (`Bm25Index::close`).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        let index = self.inner.clone();
        BlockingTask::spawn(cancel, move |_| index.close().or_napi())
    }

    /// Whether the index is bound to a directory, and how: absent, 'writer' or 'reader'.
    #[napi(getter)]
    pub fn directory_mode(&self) -> Option<String> {
        self.inner
            .directory()
            .map(|d| if d.read_only() { "reader" } else { "writer" }.to_string())
    }

    #[napi(ts_return_type = "Promise<NativeBm25Index>")]
    pub fn load(
        path: String,
        cancel: Option<&CancelToken>,
        refresh_interval_ms: Option<u32>,
    ) -> AsyncTask<BlockingTask<Shared, NativeBm25Index>> {
        BlockingTask::then(
            cancel,
            move |cancel| {
                Ok(shared(
                    persist::load(&PathBuf::from(path), cancel).or_napi()?,
                    refresh_interval_ms,
                ))
            },
            |inner| NativeBm25Index { inner },
        )
    }
}

/// One pinned snapshot of a `NativeBm25Index` (see `pin`), held until `release` (or the
/// finalizer): a batch releases it when done, so an index taking writes does not keep old
/// segments alive until the garbage collector finds the wrapper. Freed through the reaper
/// when it was the last reference.
#[napi]
pub struct NativeBm25Snapshot {
    snap: std::cell::RefCell<Retiring>,
}

#[napi]
impl NativeBm25Snapshot {
    /// Queries joined in one string (`lengths`: each query's UTF-16 length; `are_tokens`:
    /// 1 where it is tokens joined by U+0000), in parallel on the pool, results in order.
    /// The two arrays are copied here: an owned typed array dropped on the pool releases
    /// its JS reference through a threadsafe function, a round trip to the event loop per
    /// array (profiled: it made a one-query batch cost 32 us where it had cost 12).
    /// `threads`: at most this many threads search the batch at once (absent: the pool).
    #[napi(ts_return_type = "Promise<NativeHits>")]
    #[allow(clippy::too_many_arguments)]
    pub fn search_batch(
        &self,
        queries: Utf16String,
        lengths: Uint32ArraySlice,
        are_tokens: Uint8ArraySlice,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        cancel: Option<&CancelToken>,
        threads: Option<u32>,
    ) -> AsyncTask<BlockingTask<NativeHits>> {
        let index = Retiring(self.snap.borrow().0.clone());
        batch_task(index, queries, &lengths, &are_tokens, top_k, options, cancel, threads)
    }

    /// Lets go of the snapshot (searches already started keep their own reference).
    #[napi]
    pub fn release(&self) {
        // Dropping the old `Retiring` hands the snapshot to the reaper if it was the last reference.
        drop(self.snap.replace(Retiring(None)));
    }
}

/// The pool task of a `searchBatch` over `index` (see `NativeBm25Snapshot::search_batch`).
#[allow(clippy::too_many_arguments)]
fn batch_task(
    index: Retiring,
    queries: Utf16String,
    lengths: &[u32],
    are_tokens: &[u8],
    top_k: u32,
    options: Option<NativeSearchOptions>,
    cancel: Option<&CancelToken>,
    threads: Option<u32>,
) -> AsyncTask<BlockingTask<NativeHits>> {
    let (lengths, are_tokens) = (lengths.to_vec(), are_tokens.to_vec());
    BlockingTask::spawn(cancel, move |cancel| {
        if index.0.is_none() {
            return Err(internal("searchBatch on a released snapshot"));
        }
        let (opts, include_fields) = search_options(&index, top_k, options)?;
        let (text, ends) = split_queries(&queries, &lengths)?;
        let mut start = 0;
        let queries: Vec<Query> = ends
            .iter()
            .enumerate()
            .map(|(i, &end)| {
                let q = to_query(&text[start..end], are_tokens.get(i).is_some_and(|&t| t != 0));
                start = end;
                q
            })
            .collect();
        let results = match queries.as_slice() {
            // A lone query (a coalesced call that found nothing in flight) runs here on the
            // libuv thread: through rayon it cost a hand-off to a rayon worker and back, two
            // more thread wakes per call.
            [q] => {
                check(cancel)?;
                vec![index.search(q, &opts)]
            }
            _ => index
                .search_batch_threads(&queries, &opts, cancel, threads.map(|t| t as usize))
                .or_napi()?,
        };
        let counts = results.iter().map(|hits| hits.len() as u32).collect();
        Ok(NativeHits::new(
            &rows(&index, results.iter().flatten(), include_fields),
            Some(counts),
        ))
    })
}
