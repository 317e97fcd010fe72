//! `NativeVectorIndex`: the core vector index behind a read-write lock. `add`, `remove` and
//! `search` are synchronous; `searchBatch`, `save` and `load` run on the libuv pool.
use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use napi::bindgen_prelude::{AsyncTask, Either, Float32Array, Float32ArraySlice, Float64ArraySlice, Uint32Array};
use napi_derive::napi;
use ragrank_core::filter::MetaFilter;
use ragrank_vector::{persist, Config, Hit, NewFields, SearchOptions, VectorIndex};

use crate::cancel::CancelToken;
use crate::errors::{guard, OrNapi};
use crate::hits::{fill_buffer, metas_json, utf16_len};
use crate::task::{save_task, BlockingTask};

/// Hits in columns (all ids in one string with UTF-16 end offsets, scores in one typed
/// array); `lib/vector.ts` builds the objects. For a batch, `queryEnds[i]` is the end of
/// query i's hits.
#[napi(object)]
pub struct NativeVectorHits {
    pub ids: String,
    pub id_ends: Uint32Array,
    pub scores: Float32Array,
    pub query_ends: Uint32Array,
    /// Stored text per hit (null where none), when fields were asked for and any hit has one.
    pub texts: Option<Vec<Option<String>>>,
    /// Metadata per hit (null where none), likewise, as JSON text (see `hits::metas_json`).
    pub metas_json: Option<String>,
}

/// A search's filter and field options, compiled before any row is scored.
fn search_options(
    index: &VectorIndex,
    top_k: u32,
    filter_ids: Option<Vec<String>>,
    filter_meta: Option<serde_json::Value>,
) -> napi::Result<SearchOptions> {
    Ok(SearchOptions {
        top_k: top_k as usize,
        filter: filter_ids.map(|ids| index.slots_of(ids.iter().map(String::as_str))),
        meta: filter_meta
            .as_ref()
            .map(|m| MetaFilter::compile(m, "options.filter.meta"))
            .transpose()
            .or_napi()?,
    })
}

type Shared = Arc<RwLock<VectorIndex>>;

fn read(index: &Shared) -> RwLockReadGuard<'_, VectorIndex> {
    index.read().unwrap_or_else(|p| p.into_inner())
}

fn write(index: &Shared) -> RwLockWriteGuard<'_, VectorIndex> {
    index.write().unwrap_or_else(|p| p.into_inner())
}

fn to_hits(index: &VectorIndex, per_query: &[Vec<Hit>], include_fields: bool) -> NativeVectorHits {
    let total: usize = per_query.iter().map(Vec::len).sum();
    let mut ids = String::new();
    let mut id_ends = Vec::with_capacity(total);
    let mut scores = Vec::with_capacity(total);
    let mut query_ends = Vec::with_capacity(per_query.len());
    let mut end = 0u32;
    for hits in per_query {
        for h in hits {
            let id = index.id(h.slot);
            ids.push_str(id);
            end += utf16_len(id) as u32;
            id_ends.push(end);
            scores.push(h.score);
        }
        query_ends.push(id_ends.len() as u32);
    }
    let f = index.fields();
    let all = || per_query.iter().flatten();
    let any_text = include_fields && all().any(|h| f.text(h.slot).is_some());
    let any_meta = include_fields && all().any(|h| f.meta(h.slot).is_some());
    NativeVectorHits {
        texts: any_text.then(|| all().map(|h| f.text(h.slot).map(str::to_owned)).collect()),
        metas_json: any_meta.then(|| metas_json(all().map(|h| f.meta(h.slot)))),
        ids,
        id_ends: Uint32Array::new(id_ends),
        scores: Float32Array::new(scores),
        query_ends: Uint32Array::new(query_ends),
    }
}

#[napi]
pub struct NativeVectorIndex {
    inner: Shared,
}

#[napi]
impl NativeVectorIndex {
    /// `metric` and `storage` by name; absent ones take the core defaults (cosine, f32).
    #[napi(constructor)]
    pub fn new(dim: i64, metric: Option<String>, storage: Option<String>) -> napi::Result<Self> {
        guard(|| {
            let config = Config::from_options(dim, metric.as_deref(), storage.as_deref()).or_napi()?;
            Ok(NativeVectorIndex {
                inner: Arc::new(RwLock::new(VectorIndex::new(config).or_napi()?)),
            })
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
            Ok(write(&self.inner).add_with(&ids, &vectors, fields, upsert).or_napi()? as u32)
        })
    }

    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> napi::Result<u32> {
        guard(|| {
            let mut index = write(&self.inner);
            // Removing copies the mapped rows that stay: not from a file changed in place.
            index.check_file().or_napi()?;
            Ok(index.remove(&ids) as u32)
        })
    }

    /// Hits into `out`, a buffer the caller reuses, as BM25's `search` does (see
    /// `hits::fill_buffer`): the ids string comes back alone, or `NativeVectorHits` when
    /// `out` is too short.
    #[napi(ts_return_type = "string | NativeVectorHits")]
    pub fn search(
        &self,
        query: Float32ArraySlice,
        top_k: u32,
        filter_ids: Option<Vec<String>>,
        filter_meta: Option<serde_json::Value>,
        include_fields: bool,
        mut out: Float64ArraySlice,
    ) -> napi::Result<Either<String, NativeVectorHits>> {
        guard(|| {
            let index = read(&self.inner);
            let opts = search_options(&index, top_k, filter_ids, filter_meta)?;
            let hits = index.search(&query, &opts).or_napi()?;
            // SAFETY: the slice views a live JS typed array that nothing else touches during
            // this synchronous call.
            let out = unsafe { out.as_mut() };
            let f = index.fields();
            let has_fields = |h: &Hit| f.meta(h.slot).is_some() || f.text(h.slot).is_some();
            if include_fields && hits.iter().any(has_fields) {
                return Ok(Either::B(to_hits(&index, &[hits], true)));
            }
            let buffered = hits.iter().map(|h| (index.id(h.slot), h.score));
            Ok(match fill_buffer(buffered, out) {
                Some(ids) => Either::A(ids),
                None => Either::B(to_hits(&index, &[hits], false)),
            })
        })
    }

    /// The queries are copied before the task starts, so the caller may reuse its array.
    #[napi(ts_return_type = "Promise<NativeVectorHits>")]
    pub fn search_batch(
        &self,
        queries: Float32ArraySlice,
        top_k: u32,
        filter_ids: Option<Vec<String>>,
        filter_meta: Option<serde_json::Value>,
        include_fields: bool,
        cancel: Option<&CancelToken>,
    ) -> AsyncTask<BlockingTask<NativeVectorHits>> {
        let index = self.inner.clone();
        let queries = queries.to_vec();
        BlockingTask::spawn(cancel, move |cancel| {
            let index = read(&index);
            let opts = search_options(&index, top_k, filter_ids, filter_meta)?;
            let results = index.search_batch_with(&queries, &opts, cancel).or_napi()?;
            Ok(to_hits(&index, &results, include_fields))
        })
    }

    #[napi(getter)]
    pub fn size(&self) -> u32 {
        read(&self.inner).len() as u32
    }

    #[napi(getter)]
    pub fn dim(&self) -> u32 {
        read(&self.inner).dim() as u32
    }

    #[napi(getter)]
    pub fn metric(&self) -> String {
        read(&self.inner).config().metric.name().into()
    }

    #[napi(getter)]
    pub fn storage(&self) -> String {
        read(&self.inner).config().storage.name().into()
    }

    /// Whether rows are still read from a memory-mapped file.
    #[napi(getter)]
    pub fn mapped(&self) -> bool {
        read(&self.inner).is_mapped()
    }

    #[napi]
    pub fn has(&self, id: String) -> bool {
        read(&self.inner).contains(&id)
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn save(&self, path: String, cancel: Option<&CancelToken>) -> AsyncTask<BlockingTask<()>> {
        save_task(&self.inner, path, cancel, persist::save)
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
                inner: Arc::new(RwLock::new(index)),
            },
        )
    }
}
