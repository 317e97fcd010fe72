//! `NativeVectorIndex`: the core vector index behind a read-write lock. `add`, `remove` and
//! `search` are synchronous; `searchBatch`, `save` and `load` run on the libuv pool.
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use napi::bindgen_prelude::{
    AbortSignal, AsyncTask, Either, Float32Array, Float32ArraySlice, Float64ArraySlice, Uint32Array,
};
use napi::{Env, Task};
use napi_derive::napi;
use ragrank_vector::kernels::{self, Kernels};
use ragrank_vector::{persist, Config, Hit, SearchOptions, VectorIndex};

use crate::bm25::{flag_of, CancelToken};
use crate::errors::{guard, OrNapi};
use crate::hits::{fill_buffer, utf16_len};

/// Hits in columns (all ids in one string with UTF-16 end offsets, scores in one typed
/// array); `lib/vector.ts` builds the objects. For a batch, `queryEnds[i]` is the end of
/// query i's hits.
#[napi(object)]
pub struct NativeVectorHits {
    pub ids: String,
    pub id_ends: Uint32Array,
    pub scores: Float32Array,
    pub query_ends: Uint32Array,
}

type Shared = Arc<RwLock<VectorIndex>>;

fn read(index: &Shared) -> RwLockReadGuard<'_, VectorIndex> {
    index.read().unwrap_or_else(|p| p.into_inner())
}

fn write(index: &Shared) -> RwLockWriteGuard<'_, VectorIndex> {
    index.write().unwrap_or_else(|p| p.into_inner())
}

fn to_hits(index: &VectorIndex, per_query: &[Vec<Hit>]) -> NativeVectorHits {
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
    NativeVectorHits {
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

    #[napi]
    pub fn add(&self, ids: Vec<String>, vectors: Float32ArraySlice, upsert: bool) -> napi::Result<u32> {
        guard(|| Ok(write(&self.inner).add(&ids, &vectors, upsert).or_napi()? as u32))
    }

    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> napi::Result<u32> {
        guard(|| Ok(write(&self.inner).remove(&ids) as u32))
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
        mut out: Float64ArraySlice,
    ) -> napi::Result<Either<String, NativeVectorHits>> {
        guard(|| {
            let index = read(&self.inner);
            let filter = filter_ids.map(|ids| index.slots_of(ids.iter().map(String::as_str)));
            let hits = index
                .search(
                    &query,
                    &SearchOptions {
                        top_k: top_k as usize,
                        filter,
                    },
                )
                .or_napi()?;
            // SAFETY: the slice views a live JS typed array that nothing else touches during
            // this synchronous call.
            let out = unsafe { out.as_mut() };
            let buffered = hits.iter().map(|h| (index.id(h.slot), h.score));
            Ok(match fill_buffer(buffered, out) {
                Some(ids) => Either::A(ids),
                None => Either::B(to_hits(&index, &[hits])),
            })
        })
    }

    /// The queries are copied before the task starts, so the caller may reuse its array.
    #[napi(ts_return_type = "Promise<NativeVectorHits>")]
    pub fn search_batch(
        &self,
        queries: Float32ArraySlice,
        top_k: u32,
        cancel: Option<&CancelToken>,
        signal: Option<AbortSignal>,
    ) -> AsyncTask<VectorBatchTask> {
        let task = VectorBatchTask {
            index: self.inner.clone(),
            queries: queries.to_vec(),
            top_k: top_k as usize,
            cancel: flag_of(cancel),
        };
        AsyncTask::with_optional_signal(task, signal)
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

    #[napi(getter)]
    pub fn vector_bytes(&self) -> f64 {
        read(&self.inner).vector_bytes() as f64
    }

    #[napi]
    pub fn has(&self, id: String) -> bool {
        read(&self.inner).contains(&id)
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn save(&self, path: String, signal: Option<AbortSignal>) -> AsyncTask<VectorSaveTask> {
        AsyncTask::with_optional_signal(
            VectorSaveTask {
                index: self.inner.clone(),
                path: PathBuf::from(path),
            },
            signal,
        )
    }

    #[napi(ts_return_type = "Promise<NativeVectorIndex>")]
    pub fn load(path: String, mmap: bool, signal: Option<AbortSignal>) -> AsyncTask<VectorLoadTask> {
        AsyncTask::with_optional_signal(
            VectorLoadTask {
                path: PathBuf::from(path),
                mmap,
            },
            signal,
        )
    }
}

/// The kernel set this CPU runs (`avx512`, `avx2`, `neon` or `scalar`); for benchmarks.
#[napi]
pub fn vector_kernel_isa() -> String {
    format!("{:?}", Kernels::best().isa).to_lowercase()
}

/// Best-of-`repeats` read bandwidth in GB/s of a STREAM-like sum over `megabytes` of f64,
/// on one thread or on rayon's pool: the bound a single-query scan is measured against.
/// For benchmarks only.
#[napi]
pub fn vector_read_bandwidth(megabytes: u32, parallel: bool, repeats: u32) -> f64 {
    kernels::read_bandwidth(megabytes as usize * (1 << 20), parallel, repeats.max(1) as usize)
}

pub struct VectorBatchTask {
    index: Shared,
    queries: Vec<f32>,
    top_k: usize,
    cancel: Arc<AtomicBool>,
}

#[napi]
impl Task for VectorBatchTask {
    type Output = NativeVectorHits;
    type JsValue = NativeVectorHits;

    fn compute(&mut self) -> napi::Result<NativeVectorHits> {
        guard(|| {
            let index = read(&self.index);
            let results = index.search_batch(&self.queries, self.top_k, &self.cancel).or_napi()?;
            Ok(to_hits(&index, &results))
        })
    }

    fn resolve(&mut self, _env: Env, out: NativeVectorHits) -> napi::Result<NativeVectorHits> {
        Ok(out)
    }
}

pub struct VectorSaveTask {
    index: Shared,
    path: PathBuf,
}

#[napi]
impl Task for VectorSaveTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<()> {
        guard(|| persist::save(&read(&self.index), &self.path).or_napi())
    }

    fn resolve(&mut self, _env: Env, _: ()) -> napi::Result<()> {
        Ok(())
    }
}

pub struct VectorLoadTask {
    path: PathBuf,
    mmap: bool,
}

#[napi]
impl Task for VectorLoadTask {
    type Output = VectorIndex;
    type JsValue = NativeVectorIndex;

    fn compute(&mut self) -> napi::Result<VectorIndex> {
        guard(|| persist::load(&self.path, self.mmap).or_napi())
    }

    fn resolve(&mut self, _env: Env, index: VectorIndex) -> napi::Result<NativeVectorIndex> {
        Ok(NativeVectorIndex {
            inner: Arc::new(RwLock::new(index)),
        })
    }
}
