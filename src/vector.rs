//! `NativeVectorIndex`: the core vector index as published snapshots (`SharedIndex`).
//! `add`, `remove`, `search` and the getters are synchronous; `removeMatching`, `searchBatch`,
//! `save` and `load` run on the libuv pool. Every read takes the current snapshot without a
//! lock, so no call waits for a save, a batch or a background merge; a sync search that needs
//! threads runs on the vector crate's own pool (`search_sync`), never behind work on the global
//! one; a `searchBatch` on its niced batch pool (`search_batch_pooled`), yielding to the loop.
use std::path::{Path, PathBuf};
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Either, Float32ArraySlice, Float64ArraySlice};
use napi_derive::napi;
use ragrank_core::fields::FieldSchema;
use ragrank_core::filter::MetaFilter;
use ragrank_vector::directory::{self, DurabilityMode, OpenOptions};
use ragrank_vector::{persist, Config, Hit, NewFields, SearchOptions, SharedIndex, Shortlist, VectorIndex};

use crate::cancel::CancelToken;
use crate::errors::{guard, OrNapi};
use crate::hits::{self, JsString, NativeHits, NativeSearchOptions, Row};
use crate::task::BlockingTask;

/// A search's options for `index`: its filter compiled, the ids as the index's slots.
fn search_options(
    index: &VectorIndex,
    top_k: u32,
    options: Option<NativeSearchOptions>,
) -> napi::Result<(SearchOptions, bool)> {
    let o = hits::resolve(options)?;
    let opts = SearchOptions {
        top_k: top_k as usize,
        filter: o.ids.map(|ids| index.slots_of(ids.iter().map(String::as_str))),
        meta: o.meta,
    };
    Ok((opts, o.include_fields))
}

/// The hits as `hits::Row`s, with their fields when asked for.
fn rows<'a>(index: &'a VectorIndex, hits: impl Iterator<Item = &'a Hit>, include_fields: bool) -> Vec<Row<'a>> {
    let f = index.fields();
    let fields = include_fields && (f.has_metas() || f.has_texts());
    hits.map(|h| Row {
        id: index.id(h.slot),
        score: h.score,
        text: if fields { f.text(h.slot) } else { None },
        meta: if fields {
            f.meta(h.slot).map(std::borrow::Cow::Borrowed)
        } else {
            None
        },
    })
    .collect()
}

/// Rows an approximate scan keeps for exact rescoring: `max(perTopK * topK, rows)`.
#[napi(object)]
pub struct NativeShortlist {
    // Signed and wide: the core checks the range (a negative count is its RangeError).
    pub per_top_k: Option<i64>,
    pub rows: Option<i64>,
}

/// What a commit wrote: the manifest generation now newest.
#[napi(object)]
pub struct NativeCommit {
    pub generation: i64,
}

#[napi]
pub struct NativeVectorIndex {
    inner: Arc<SharedIndex>,
}

#[napi]
impl NativeVectorIndex {
    /// `metric` and `storage` by name; absent ones take the core defaults (cosine, f32).
    /// `shortlist`: the rows an int8 or binary scan rescores (absent: the storage's default).
    /// `rescore`: what a binary index rescores them from, `f32` (absent) or `int8`.
    #[napi(constructor)]
    pub fn new(
        dim: i64,
        metric: Option<String>,
        storage: Option<String>,
        shortlist: Option<NativeShortlist>,
        rescore: Option<String>,
        fields_json: Option<String>,
    ) -> napi::Result<Self> {
        guard(|| {
            let config =
                Config::from_options(dim, metric.as_deref(), storage.as_deref(), rescore.as_deref()).or_napi()?;
            let schema = match fields_json {
                Some(json) => FieldSchema::from_options(&json).or_napi()?,
                None => FieldSchema::default(),
            };
            let mut index = VectorIndex::with_fields(config, schema).or_napi()?;
            let shortlist = shortlist
                .map(|s| Shortlist::new(s.per_top_k, s.rows))
                .transpose()
                .or_napi()?;
            index.set_shortlist(shortlist).or_napi()?;
            Ok(NativeVectorIndex {
                inner: SharedIndex::new(index),
            })
        })
    }

    /// The shortlist set at construction (or saved in the loaded file); null: the storage's default.
    #[napi(getter)]
    pub fn shortlist(&self) -> Option<NativeShortlist> {
        self.inner.snapshot().shortlist().map(|s| NativeShortlist {
            per_top_k: Some(s.per_top_k.into()),
            rows: Some(s.rows.into()),
        })
    }

    /// `metas` and `texts`: absent, or one entry (null for none) per id.
    #[napi]
    pub fn add(
        &self,
        ids: Vec<String>,
        vectors: Float32ArraySlice,
        upsert: bool,
        metas: Option<Vec<Option<serde_json::Value>>>,
        texts: Option<Vec<Option<String>>>,
    ) -> napi::Result<u32> {
        guard(|| {
            let fields = NewFields {
                metas: metas.unwrap_or_default(),
                texts: texts.unwrap_or_default(),
            };
            let added = self.inner.add(&ids, &vectors, fields, upsert).or_napi()?;
            Ok(added as u32)
        })
    }

    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> napi::Result<u32> {
        guard(|| {
            let removed = self.inner.remove(&ids).or_napi()?;
            Ok(removed as u32)
        })
    }

    /// Removes the rows whose metadata passes `filter` (a `filter.meta` object), on the pool at
    /// background priority: compiled and matched there against the snapshot of the task, then
    /// removed by one write as `remove` does; resolves with how many, once they are gone from
    /// searches (`SharedIndex::remove_matching`).
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

    /// Hits into `out`, a buffer the caller reuses, as BM25's `search` does (see `hits::single`).
    #[napi(ts_return_type = "string | NativeHits")]
    pub fn search(
        &self,
        query: Float32ArraySlice,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        mut out: Float64ArraySlice,
    ) -> napi::Result<Either<JsString, NativeHits>> {
        guard(|| {
            let index = self.inner.snapshot();
            let (opts, include_fields) = search_options(&index, top_k, options)?;
            let hits = index.search_sync(&query, &opts).or_napi()?;
            // SAFETY: the slice views a live JS typed array that nothing else touches during
            // this synchronous call.
            let out = unsafe { out.as_mut() };
            Ok(hits::single(&rows(&index, hits.iter(), include_fields), out))
        })
    }

    /// The queries are copied before the task starts, so the caller may reuse its array.
    #[napi(ts_return_type = "Promise<NativeHits>")]
    pub fn search_batch(
        &self,
        queries: Float32ArraySlice,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<NativeHits>> {
        // The snapshot of the call: adds made while the task waits are not searched.
        let index = self.inner.snapshot();
        let queries = queries.to_vec();
        BlockingTask::spawn(cancel, move |cancel| {
            let (opts, include_fields) = search_options(&index, top_k, options)?;
            let results = index.search_batch_pooled(&queries, &opts, cancel).or_napi()?;
            let counts = results.iter().map(|hits| hits.len() as u32).collect();
            Ok(NativeHits::new(
                &rows(&index, results.iter().flatten(), include_fields),
                Some(counts),
            ))
        })
    }

    #[napi(getter)]
    pub fn size(&self) -> u32 {
        self.inner.snapshot().len() as u32
    }

    #[napi(getter)]
    pub fn dim(&self) -> u32 {
        self.inner.snapshot().dim() as u32
    }

    #[napi(getter)]
    pub fn metric(&self) -> String {
        self.inner.snapshot().config().metric.name().into()
    }

    #[napi(getter)]
    pub fn storage(&self) -> String {
        self.inner.snapshot().config().storage.name().into()
    }

    /// What the shortlist is rescored from (`f32` or `int8`); null for the exact storages.
    #[napi(getter)]
    pub fn rescore(&self) -> Option<String> {
        self.inner
            .snapshot()
            .config()
            .storage
            .rescore()
            .map(|r| r.name().into())
    }

    /// Whether rows are still read from a memory-mapped file.
    #[napi(getter)]
    pub fn mapped(&self) -> bool {
        self.inner.snapshot().is_mapped()
    }

    #[napi]
    pub fn has(&self, id: String) -> bool {
        self.inner.snapshot().contains(&id)
    }

    /// Stored text and metadata by id, from the snapshot searches see (never waits).
    #[napi(ts_return_type = "Array<{ id: string; text?: string; meta?: Record<string, unknown> } | null>")]
    pub fn get(&self, ids: Vec<String>) -> napi::Result<serde_json::Value> {
        guard(|| {
            let snapshot = self.inner.snapshot();
            let fields = snapshot.fields();
            let docs = ids.iter().map(|id| {
                let found = snapshot.slot_of(id).map(|slot| (fields.text(slot), fields.meta(slot)));
                hits::stored_document(id, found)
            });
            Ok(serde_json::Value::Array(docs.collect()))
        })
    }

    /// Writes the snapshot of the call: adds and removes made while it writes go on and
    /// are not in the file.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn save(&self, path: String, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        let index = self.inner.snapshot();
        BlockingTask::background(cancel, move |cancel| {
            persist::save(&index, Path::new(&path), cancel).or_napi()
        })
    }

    /// Opens (or creates) the index bound to directory `dir` (docs/STORAGE.md) on the pool.
    /// `options_json`: the constructor's options as JSON (absent keys take the recorded ones);
    /// `durability`: `commit`, `sync` or `async` (fsync'd every `async_interval_ms`).
    #[napi(ts_return_type = "Promise<NativeVectorIndex>")]
    pub fn open(
        dir: String,
        options_json: Option<String>,
        durability: String,
        async_interval_ms: u32,
        read_only: bool,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<Arc<SharedIndex>, NativeVectorIndex>> {
        BlockingTask::then(
            cancel,
            move |_| {
                let durability = match durability.as_str() {
                    "commit" => DurabilityMode::Commit,
                    "sync" => DurabilityMode::Sync,
                    "async" => DurabilityMode::Async(std::time::Duration::from_millis(async_interval_ms.max(1).into())),
                    other => {
                        return Err(crate::errors::to_napi(ragrank_core::Error::invalid(format!(
                            "options.durability must be 'commit', 'sync' or 'async', got {other:?}"
                        ))))
                    }
                };
                let options = options_json
                    .map(|j| serde_json::from_str(&j))
                    .transpose()
                    .map_err(|e| crate::errors::to_napi(ragrank_core::Error::invalid(format!("bad options: {e}"))))?;
                let opts = OpenOptions {
                    options,
                    durability,
                    read_only,
                };
                directory::open(Path::new(&dir), opts).or_napi()
            },
            |inner| NativeVectorIndex { inner },
        )
    }

    /// Makes every write so far durable (with a BM25 index on the same directory), on the pool.
    #[napi(ts_return_type = "Promise<NativeCommit>")]
    pub fn commit(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<NativeCommit>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |_| {
            let m = index.commit().or_napi()?;
            Ok(NativeCommit {
                generation: m.generation as i64,
            })
        })
    }

    /// A read-only index's refresh: maps the chunks of a newer commit; true if one was read.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn reload(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<bool>> {
        let index = self.inner.clone();
        BlockingTask::background(cancel, move |_| index.reload().or_napi())
    }

    /// Commits (a writer) and lets go of the directory, on the pool (`SharedIndex::close`).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        let index = self.inner.clone();
        BlockingTask::spawn(cancel, move |_| index.close().or_napi())
    }

    /// The options the directory records (JSON), for an index opened from one.
    #[napi(getter)]
    pub fn recorded_options(&self) -> Option<String> {
        self.inner.recorded_settings().map(|v| v.to_string())
    }

    #[napi(ts_return_type = "Promise<NativeVectorIndex>")]
    pub fn load(
        path: String,
        mmap: bool,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<VectorIndex, NativeVectorIndex>> {
        BlockingTask::then(
            cancel,
            move |cancel| persist::load(&PathBuf::from(path), mmap, cancel).or_napi(),
            |index| NativeVectorIndex {
                inner: SharedIndex::new(index),
            },
        )
    }
}
