//! `NativeBm25Index`: the core index behind a read-write lock. Cheap calls are
//! synchronous; `addAsync`, `searchBatch`, `save` and `load` run on the libuv pool.
use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use napi::bindgen_prelude::{AsyncTask, Either, Float64Array, Float64ArraySlice, Uint32Array};
use napi_derive::napi;
use ragrank_core::bm25::{
    persist, prepare_docs, Bm25Index, Filter, Hit, IndexConfig, NewDoc, Query, SearchOptions, Strategy,
};

use ragrank_core::filter::MetaFilter;

use crate::cancel::{check, CancelToken};
use crate::errors::{guard, internal, OrNapi};
use crate::hits::{fill_buffer, metas_json, utf16_len};
use crate::task::{save_task, BlockingTask};

#[napi(object)]
pub struct NativeDoc {
    pub id: String,
    pub text: Option<String>,
    /// Tokens joined by U+0000: one string crosses the boundary far faster than many.
    pub tokens: Option<String>,
    pub meta: Option<serde_json::Value>,
}

#[napi(object)]
pub struct NativeSearchOptions {
    pub filter_ids: Option<Vec<String>>,
    /// A metadata filter object (`ragrank_core::filter`), compiled before the search.
    pub filter_meta: Option<serde_json::Value>,
    /// Return stored text and metadata with each hit (default true).
    pub include_fields: Option<bool>,
}

/// Hits in columns: all ids in one string with their UTF-16 end offsets, and the scores
/// in one typed array. Far cheaper to cross the boundary than an object or a string per
/// hit; `lib/` slices and zips them into objects.
#[napi(object)]
pub struct NativeHits {
    pub ids: String,
    pub id_ends: Uint32Array,
    pub scores: Float64Array,
    /// Stored text per hit (null where none), when fields were asked for.
    pub texts: Option<Vec<Option<String>>>,
    /// Metadata per hit (null where none) as one JSON array, when fields were asked for:
    /// `JSON.parse` keeps every key (even `"__proto__"`) an own property, which napi's
    /// object building does not, and one string crosses faster than many objects.
    pub metas_json: Option<String>,
}

type Shared = Arc<RwLock<Bm25Index>>;

fn read(index: &Shared) -> RwLockReadGuard<'_, Bm25Index> {
    index.read().unwrap_or_else(|p| p.into_inner())
}

fn write(index: &Shared) -> RwLockWriteGuard<'_, Bm25Index> {
    index.write().unwrap_or_else(|p| p.into_inner())
}

fn to_new_docs(docs: Vec<NativeDoc>) -> Vec<NewDoc> {
    docs.into_iter()
        .map(|d| NewDoc {
            id: d.id,
            text: d.text,
            tokens: None,
            joined_tokens: d.tokens,
            meta: d.meta,
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

struct ResolvedOptions {
    core: SearchOptions,
    include_fields: bool,
}

fn resolve_options(index: &Bm25Index, top_k: u32, o: Option<&NativeSearchOptions>) -> napi::Result<ResolvedOptions> {
    let Some(o) = o else {
        return Ok(ResolvedOptions {
            core: SearchOptions {
                top_k: top_k as usize,
                strategy: Strategy::Auto,
                filter: None,
            },
            include_fields: true,
        });
    };
    let filter = if o.filter_ids.is_some() || o.filter_meta.is_some() {
        Some(Filter {
            slots: o
                .filter_ids
                .as_ref()
                .map(|ids| index.slots_of(ids.iter().map(String::as_str))),
            meta: o
                .filter_meta
                .as_ref()
                .map(|m| MetaFilter::compile(m, "options.filter.meta"))
                .transpose()
                .or_napi()?,
        })
    } else {
        None
    };
    Ok(ResolvedOptions {
        core: SearchOptions {
            top_k: top_k as usize,
            strategy: Strategy::Auto,
            filter,
        },
        include_fields: o.include_fields.unwrap_or(true),
    })
}

fn to_hits(index: &Bm25Index, hits: Vec<Hit>, include_fields: bool) -> NativeHits {
    let docs: Vec<_> = hits.iter().map(|h| index.doc(h.slot)).collect();
    let any_text = include_fields && docs.iter().any(|d| d.text.is_some());
    let any_meta = include_fields && docs.iter().any(|d| d.meta.is_some());
    let mut ids = String::with_capacity(docs.iter().map(|d| d.id.len()).sum());
    let mut id_ends = Vec::with_capacity(docs.len());
    let mut end = 0u32;
    for d in &docs {
        ids.push_str(&d.id);
        end += utf16_len(&d.id) as u32;
        id_ends.push(end);
    }
    NativeHits {
        ids,
        id_ends: Uint32Array::new(id_ends),
        scores: Float64Array::new(hits.iter().map(|h| h.score as f64).collect()),
        texts: any_text.then(|| docs.iter().map(|d| d.text.as_deref().map(str::to_owned)).collect()),
        metas_json: any_meta.then(|| metas_json(docs.iter().map(|d| d.meta.as_ref()))),
    }
}

#[napi]
pub struct NativeBm25Index {
    inner: Shared,
}

#[napi]
impl NativeBm25Index {
    /// `config_json`: the core `IndexConfig` as JSON; fields left out take their defaults.
    #[napi(constructor)]
    pub fn new(config_json: String) -> napi::Result<Self> {
        guard(|| {
            let config = IndexConfig::from_json(&config_json).or_napi()?;
            let index = Bm25Index::new(config).or_napi()?;
            Ok(NativeBm25Index {
                inner: Arc::new(RwLock::new(index)),
            })
        })
    }

    #[napi]
    pub fn add(&self, docs: Vec<NativeDoc>, upsert: bool) -> napi::Result<u32> {
        guard(|| Ok(write(&self.inner).add(to_new_docs(docs), upsert).or_napi()? as u32))
    }

    /// Analyses on the libuv pool without holding the lock, then inserts and builds the
    /// query-time impacts, so the next search pays nothing.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn add_async(
        &self,
        docs: Vec<NativeDoc>,
        upsert: bool,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<u32>> {
        let index = self.inner.clone();
        let docs = to_new_docs(docs);
        BlockingTask::spawn(cancel, move |cancel| {
            let (analyzer, store_text) = {
                let index = read(&index);
                (index.analyzer(), index.config().store_text)
            };
            let prepared = prepare_docs(&analyzer, store_text, docs).or_napi()?;
            let n = {
                let mut index = write(&index);
                // Checked under the lock: once inserted, the documents stay.
                check(cancel)?;
                index.insert(prepared, upsert).or_napi()?
            };
            read(&index).prepare();
            Ok(n as u32)
        })
    }

    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> napi::Result<u32> {
        guard(|| Ok(write(&self.inner).remove(&ids) as u32))
    }

    /// The hot path: with no stored fields among the hits and room in `out`, the hits come
    /// back as the ids string alone, with `out[0]` = hit count, then the scores, then the
    /// UTF-16 end offsets of the ids. `out` is a buffer the caller reuses, so a query
    /// allocates no typed arrays and reads no options object. Otherwise (fields to
    /// return, or `out` too short) it returns `NativeHits`.
    #[napi(ts_return_type = "string | NativeHits")]
    pub fn search(
        &self,
        query: String,
        is_tokens: bool,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        mut out: Float64ArraySlice,
    ) -> napi::Result<Either<String, NativeHits>> {
        guard(|| {
            let index = read(&self.inner);
            let opts = resolve_options(&index, top_k, options.as_ref())?;
            let hits = index.search(&to_query(&query, is_tokens), &opts.core);
            // SAFETY: the slice views a live JS typed array that nothing else touches during
            // this synchronous call.
            let out = unsafe { out.as_mut() };
            let has_fields = |h: &Hit| {
                let d = index.doc(h.slot);
                d.text.is_some() || d.meta.is_some()
            };
            if opts.include_fields && hits.iter().any(has_fields) {
                return Ok(Either::B(to_hits(&index, hits, opts.include_fields)));
            }
            let buffered = hits.iter().map(|h| (&*index.doc(h.slot).id, h.score));
            Ok(match fill_buffer(buffered, out) {
                Some(ids) => Either::A(ids),
                None => Either::B(to_hits(&index, hits, opts.include_fields)),
            })
        })
    }

    #[napi(ts_return_type = "Promise<NativeHits[]>")]
    pub fn search_batch(
        &self,
        queries: Vec<String>,
        are_tokens: Vec<bool>,
        top_k: u32,
        options: Option<NativeSearchOptions>,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<Vec<NativeHits>>> {
        let index = self.inner.clone();
        BlockingTask::spawn(cancel, move |cancel| {
            let index = read(&index);
            let opts = resolve_options(&index, top_k, options.as_ref())?;
            let queries: Vec<Query> = queries
                .iter()
                .enumerate()
                .map(|(i, q)| to_query(q, are_tokens.get(i).copied().unwrap_or(false)))
                .collect();
            let results = index.search_batch_cancellable(&queries, &opts.core, cancel).or_napi()?;
            Ok(results
                .into_iter()
                .map(|hits| to_hits(&index, hits, opts.include_fields))
                .collect())
        })
    }

    #[napi]
    pub fn analyze(&self, text: String) -> napi::Result<Vec<String>> {
        guard(|| Ok(read(&self.inner).analyze(&text)))
    }

    #[napi(getter)]
    pub fn size(&self) -> u32 {
        read(&self.inner).len() as u32
    }

    #[napi]
    pub fn has(&self, id: String) -> bool {
        read(&self.inner).contains(&id)
    }

    #[napi]
    pub fn stats(&self) -> napi::Result<serde_json::Value> {
        guard(|| serde_json::to_value(read(&self.inner).stats()).map_err(|e| internal(&e.to_string())))
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn save(&self, path: String, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        save_task(&self.inner, path, cancel, persist::save)
    }

    #[napi(ts_return_type = "Promise<NativeBm25Index>")]
    pub fn load(path: String, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<Bm25Index, NativeBm25Index>> {
        BlockingTask::then(
            cancel,
            move |cancel| {
                let index = persist::load(&PathBuf::from(path), cancel).or_napi()?;
                index.prepare();
                Ok(index)
            },
            |index| NativeBm25Index {
                inner: Arc::new(RwLock::new(index)),
            },
        )
    }
}
