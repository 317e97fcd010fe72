//! Loading the ONNX Runtime shared library once per process.
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ort::environment::{Environment, GlobalThreadPoolOptions};
use ragrank_core::{Error, ErrorKind, Result};

/// The oldest ONNX Runtime this build accepts (the `api-22` feature of `ort`).
pub const MIN_ORT_VERSION: &str = "1.22";

static ENV: OnceLock<(Environment, PathBuf)> = OnceLock::new();
static INIT: Mutex<()> = Mutex::new(());

/// Loads the library at `path` (absolute) and creates the process-wide environment.
/// Later calls return the environment of the first successful one.
pub fn init(path: &Path) -> Result<&'static Environment> {
    if let Some((env, _)) = ENV.get() {
        return Ok(env);
    }
    let _guard = INIT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((env, _)) = ENV.get() {
        return Ok(env);
    }
    // A bare file name is left to the system's library search path.
    let bare = path.parent().is_none_or(|p| p.as_os_str().is_empty());
    if !bare && !path.is_file() {
        return Err(not_found(&format!("no ONNX Runtime library at {}", path.display())));
    }
    let builder = ort::init_from(path).map_err(|e| not_found(&e.to_string()))?;
    let env = builder
        .with_name("ragrank")
        .with_global_thread_pool(shared_pool_options()?)
        .build()
        .map_err(|e| Error::new(ErrorKind::OrtNotFound, format!("ONNX Runtime failed to start: {e}")))?;
    Ok(&ENV.get_or_init(|| (env, path.to_path_buf())).0)
}

/// Threads of the process-wide intra-op pool: every core. Sessions opt in
/// (`EncoderOptions::shared_pool`); the others keep pools of their own.
pub fn shared_pool_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The pool does not spin: concurrent runs share it, and a worker spinning for more work takes the core
/// another run needs (measured under load: 160-190 ms of CPU per one-text e5 call with spinning, 25-40 ms
/// on a session's own 1-thread pool). No session uses it unless asked, so by default it stays idle.
fn shared_pool_options() -> Result<GlobalThreadPoolOptions> {
    GlobalThreadPoolOptions::default()
        .with_intra_threads(shared_pool_threads())
        .and_then(|o| o.with_inter_threads(1))
        .and_then(|o| o.with_spin_control(false))
        .map_err(|e| Error::new(ErrorKind::OrtNotFound, format!("ONNX Runtime failed to start: {e}")))
}

/// The library the process loaded, if any.
pub fn loaded_from() -> Option<&'static Path> {
    ENV.get().map(|(_, p)| p.as_path())
}

pub(crate) fn environment() -> Result<&'static Environment> {
    ENV.get()
        .map(|(e, _)| e)
        .ok_or_else(|| not_found("ONNX Runtime is not loaded yet"))
}

fn not_found(detail: &str) -> Error {
    Error::new(
        ErrorKind::OrtNotFound,
        format!(
            "{detail}. ragrank needs the ONNX Runtime shared library (version >= {MIN_ORT_VERSION}): \
             install the optional peer dependency with `npm install onnxruntime-node` \
             (on hosts without network access to NuGet set ONNXRUNTIME_NODE_INSTALL=skip), \
             or set ORT_DYLIB_PATH to an absolute path of libonnxruntime.so / .dylib / onnxruntime.dll, \
             or pass the `ortLibrary` option"
        ),
    )
}
