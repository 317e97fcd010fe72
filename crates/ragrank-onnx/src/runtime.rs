//! Loading the ONNX Runtime shared library once per process.
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ort::environment::{Environment, GlobalThreadPoolOptions};
use ragrank_core::{Error, ErrorKind, Result};

/// The oldest ONNX Runtime this build accepts: 1.24 is the first release that refuses a model whose
/// external data lies outside the model's folder (an absolute path, `..`, a symlink out); 1.23 reads any
/// file the process can read into the weights. 1.24.1 also refuses external data reached through a symlink
/// that stays inside the folder, which is how the hub cache stores every file (fixed in 1.24.2,
/// onnxruntime PR #27374). `ort`'s own floor (`api-22`) is lower.
pub const MIN_ORT_VERSION: (u32, u32, u32) = (1, 24, 2);

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
    // Checked before `ort` keeps the library loaded for the process: a refused library must not stay
    // behind the next candidate.
    let path = &library_path(path);
    check_version(path)?;
    let builder = ort::init_from(path).map_err(|e| not_found(&e.to_string()))?;
    let env = builder
        .with_name("ragrank")
        .with_global_thread_pool(shared_pool_options()?)
        .build()
        .map_err(|e| Error::new(ErrorKind::OrtNotFound, format!("ONNX Runtime failed to start: {e}")))?;
    Ok(&ENV.get_or_init(|| (env, path.to_path_buf())).0)
}

/// The file `ort::init_from` opens: a relative path next to the executable if it is there, else as
/// given (a bare name goes to the system's library search path).
fn library_path(path: &Path) -> PathBuf {
    if !path.is_absolute() {
        if let Some(beside) = std::env::current_exe().ok().and_then(|e| Some(e.parent()?.join(path))) {
            if beside.exists() {
                return beside;
            }
        }
    }
    path.to_path_buf()
}

/// The version the library reports (`OrtGetApiBase()->GetVersionString()`), refused below `MIN_ORT_VERSION`.
fn check_version(path: &Path) -> Result<()> {
    let found = library_version(path)?;
    if parse_version(&found).is_some_and(|v| v >= MIN_ORT_VERSION) {
        return Ok(());
    }
    let min = min_version();
    Err(Error::new(
        ErrorKind::OrtVersion,
        format!(
            "ONNX Runtime {found} at {} is too old: ragrank needs {min} or newer (older runtimes \
             read model weights from files outside the model's folder, or refuse the hub cache's linked files). \
             Install onnxruntime-node >= {min}, or set ORT_DYLIB_PATH or the `ortLibrary` option to a newer library",
            path.display()
        ),
    ))
}

fn library_version(path: &Path) -> Result<String> {
    // SAFETY: loading runs the library's initialisers, as `ort::init_from` does right after; the
    // entry point and the string it returns have the signatures of the C API's header.
    unsafe {
        let lib = libloading::Library::new(path)
            .map_err(|e| not_found(&format!("failed to load {}: {e}", path.display())))?;
        let base: libloading::Symbol<unsafe extern "C" fn() -> *const ort::sys::OrtApiBase> = lib
            .get(b"OrtGetApiBase")
            .map_err(|_| not_found(&format!("{} does not export OrtGetApiBase", path.display())))?;
        let base = base();
        if base.is_null() {
            return Err(not_found(&format!("{} returned no API", path.display())));
        }
        let version = ((*base).GetVersionString)();
        if version.is_null() {
            return Ok(String::from("(no version)"));
        }
        Ok(std::ffi::CStr::from_ptr(version).to_string_lossy().into_owned())
    }
}

/// `MIN_ORT_VERSION` as `"1.24.2"`.
fn min_version() -> String {
    let (major, minor, patch) = MIN_ORT_VERSION;
    format!("{major}.{minor}.{patch}")
}

/// `"1.24.2"` -> `(1, 24, 2)`, `"1.25.0-dev"` -> `(1, 25, 0)`, `"2.0"` -> `(2, 0, 0)`; anything else is
/// `None` (refused: the version cannot be told).
fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    // The leading digits of a part: `0-dev` is 0.
    let number = |part: &str| part.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok();
    let mut parts = v.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = number(parts.next()?)?;
    let patch = match parts.next() {
        Some(part) => number(part)?,
        None => 0,
    };
    Some((major, minor, patch))
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
            "{detail}. ragrank needs the ONNX Runtime shared library (version >= {}): \
             install the optional peer dependency with `npm install onnxruntime-node` \
             (on hosts without network access to NuGet set ONNXRUNTIME_NODE_INSTALL=skip), \
             or set ORT_DYLIB_PATH to an absolute path of libonnxruntime.so / .dylib / onnxruntime.dll, \
             or pass the `ortLibrary` option",
            min_version()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_to_major_minor_and_patch() {
        assert_eq!(parse_version("1.24.2"), Some((1, 24, 2)));
        assert_eq!(parse_version("1.30.0"), Some((1, 30, 0)));
        assert_eq!(parse_version("1.25.0-dev"), Some((1, 25, 0)));
        assert_eq!(parse_version("1.26.0rc1"), Some((1, 26, 0)));
        assert_eq!(parse_version("2.0"), Some((2, 0, 0)));
        assert!(parse_version("1.23.2").is_some_and(|v| v < MIN_ORT_VERSION));
        assert!(
            parse_version("1.24.1").is_some_and(|v| v < MIN_ORT_VERSION),
            "the patch counts: 1.24.1 refuses the hub cache's symlinks"
        );
        assert!(parse_version("1.24.2").is_some_and(|v| v >= MIN_ORT_VERSION));
        assert!(parse_version("1.24.10").is_some_and(|v| v >= MIN_ORT_VERSION));
        assert_eq!(min_version(), "1.24.2");
        assert!(
            parse_version("1.9.0").is_some_and(|v| v < MIN_ORT_VERSION),
            "numeric, not string order"
        );
        assert_eq!(parse_version(""), None);
        assert_eq!(parse_version("x.y"), None);
    }

    #[test]
    fn a_file_that_is_not_a_runtime_is_not_found() {
        let e = check_version(Path::new("/etc/hostname")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OrtNotFound, "{}", e.message);
    }
}
