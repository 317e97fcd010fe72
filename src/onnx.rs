//! `NativeEncoder`: a loaded ONNX model. Loading and inference run on the libuv pool.
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{AsyncTask, Float32Array};
use napi_derive::napi;
use ragrank_onnx::model::BatchOptions;
use ragrank_onnx::{runtime, Encoder, EncoderOptions, ModelPaths, PaddingSide, Pooling};

use crate::cancel::CancelToken;
use crate::errors::{guard, OrNapi};
use crate::task::BlockingTask;

/// Loads the ONNX Runtime library (absolute path, or a bare name for the system search
/// path) once per process; returns the path actually in use.
#[napi]
pub fn init_onnx_runtime(path: String) -> napi::Result<String> {
    guard(|| {
        runtime::init(&PathBuf::from(&path)).or_napi()?;
        Ok(runtime::loaded_from().map(|p| p.display().to_string()).unwrap_or(path))
    })
}

#[napi(object)]
pub struct NativeModelPaths {
    pub model: String,
    pub tokenizer: String,
    pub tokenizer_config: Option<String>,
    pub config: Option<String>,
}

#[napi(object)]
pub struct NativeEncoderOptions {
    pub max_length: Option<u32>,
    pub threads: u32,
    pub sessions: u32,
    /// Run on the process-wide pool of every core instead of `threads` per session (default false).
    pub shared_pool: Option<bool>,
    /// Let a session's own intra-op threads spin between operators (default true, ONNX Runtime's).
    pub spinning: Option<bool>,
    /// Split a call's batches so that every session gets one (default false).
    pub spread: Option<bool>,
}

#[napi(object)]
pub struct NativeBatchOptions {
    pub batch_size: u32,
    pub token_budget: u32,
    pub max_length: Option<u32>,
    /// `'right'` (default) or `'left'`.
    pub padding_side: Option<String>,
}

fn batch_options(o: &NativeBatchOptions) -> napi::Result<BatchOptions> {
    Ok(BatchOptions {
        max_batch: o.batch_size as usize,
        token_budget: o.token_budget as usize,
        max_length: o.max_length.map(|m| m as usize),
        padding: o
            .padding_side
            .as_deref()
            .map_or(Ok(PaddingSide::Right), PaddingSide::parse)
            .or_napi()?,
    })
}

#[napi]
pub struct NativeEncoder {
    /// `None` once disposed; calls already running hold their own reference. A lock, not
    /// `&mut self`: napi keeps `&self` borrowed while a call it started is running.
    inner: Mutex<Option<Arc<Encoder>>>,
    max_length: u32,
    width: u32,
    output_rank: u32,
}

#[napi]
impl NativeEncoder {
    #[napi(ts_return_type = "Promise<NativeEncoder>")]
    pub fn load(
        paths: NativeModelPaths,
        options: NativeEncoderOptions,
    ) -> AsyncTask<BlockingTask<Encoder, NativeEncoder>> {
        let paths = ModelPaths {
            model: paths.model.into(),
            tokenizer: paths.tokenizer.into(),
            tokenizer_config: paths.tokenizer_config.map(Into::into),
            config: paths.config.map(Into::into),
        };
        let options = EncoderOptions {
            max_length: options.max_length.map(|m| m as usize),
            threads: options.threads as usize,
            sessions: options.sessions as usize,
            shared_pool: options.shared_pool.unwrap_or(false),
            spinning: options.spinning.unwrap_or(true),
            spread: options.spread.unwrap_or(false),
        };
        BlockingTask::then(
            None,
            move |_| Encoder::load(&paths, &options).or_napi(),
            |encoder| NativeEncoder {
                max_length: encoder.max_length as u32,
                width: encoder.width as u32,
                output_rank: encoder.output_rank as u32,
                inner: Mutex::new(Some(Arc::new(encoder))),
            },
        )
    }

    /// Tokens per input at most.
    #[napi(getter)]
    pub fn max_length(&self) -> u32 {
        self.max_length
    }

    /// Labels of a classifier output, or the hidden size of an encoder output.
    #[napi(getter)]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// 2 for `[batch, labels]` (classifier or pooled embedding), 3 for `[batch, seq, hidden]`.
    #[napi(getter)]
    pub fn output_rank(&self) -> u32 {
        self.output_rank
    }

    /// Releases the ONNX Runtime sessions (and the memory their arenas keep) once the calls
    /// already running have finished; later calls fail with `ERR_DISPOSED`.
    #[napi]
    pub fn dispose(&self) {
        *self.inner.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn live(&self) -> napi::Result<Arc<Encoder>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner
            .clone()
            .ok_or_else(|| napi::Error::from_reason("[ERR_DISPOSED] this model was disposed"))
    }

    /// Scores pairs: document `i` is paired with `queries[query_of[i]]`.
    #[napi(ts_return_type = "Promise<Float32Array>")]
    pub fn score_pairs(
        &self,
        queries: Vec<String>,
        documents: Vec<String>,
        query_of: Vec<u32>,
        options: NativeBatchOptions,
        cancel: Option<&CancelToken>,
    ) -> napi::Result<AsyncTask<BlockingTask<Vec<f32>, Float32Array>>> {
        let encoder = self.live()?;
        let options = batch_options(&options)?;
        Ok(BlockingTask::then(
            cancel,
            move |cancel| {
                let pairs: Vec<(&str, &str)> = documents
                    .iter()
                    .zip(&query_of)
                    .map(|(d, &q)| (queries[q as usize].as_str(), d.as_str()))
                    .collect();
                encoder.score_pairs(&pairs, &options, cancel).or_napi()
            },
            Float32Array::new,
        ))
    }

    /// Embeds texts; resolves to `n x width` floats, row-major. `pooling` is one of `mean`, `cls`,
    /// `max`, `meansqrt`, `weightedmean`, `lasttoken`.
    #[napi(ts_return_type = "Promise<Float32Array>")]
    pub fn embed(
        &self,
        texts: Vec<String>,
        pooling: String,
        normalize: bool,
        options: NativeBatchOptions,
        cancel: Option<&CancelToken>,
    ) -> napi::Result<AsyncTask<BlockingTask<Vec<f32>, Float32Array>>> {
        let encoder = self.live()?;
        let options = batch_options(&options)?;
        let pooling = Pooling::parse(&pooling).or_napi()?;
        Ok(BlockingTask::then(
            cancel,
            move |cancel| {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                let (data, _) = encoder.embed(&texts, pooling, normalize, &options, cancel).or_napi()?;
                Ok(data)
            },
            Float32Array::new,
        ))
    }
}
