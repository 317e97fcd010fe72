//! The one error type of the core. The binding maps `ErrorKind` to a stable JS `code`.
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A caller passed a value the core cannot use (bad parameter, bad token, ...).
    InvalidArg,
    /// A document id that is already in the index was added again.
    DuplicateId,
    /// A file is not a ragrank index, or is truncated or damaged.
    CorruptIndex,
    /// Reading or writing a file failed, or the path is not a regular file.
    Io,
    /// The file behind a memory-mapped index was changed in place after it was loaded.
    IndexChanged,
    /// The ONNX Runtime shared library could not be found or loaded.
    OrtNotFound,
    /// The ONNX Runtime library is older than ragrank accepts.
    OrtVersion,
    /// A model file or folder is missing something it needs.
    ModelNotFound,
    /// A model could not be loaded (corrupt file, tokenizer that does not fit the graph, ...).
    ModelLoad,
    /// Running a model failed.
    Inference,
    /// The caller cancelled the work.
    Aborted,
    /// Another live process (or another open index in this one) holds a directory's writer lock.
    Locked,
    /// A write to an index opened read-only.
    ReadOnly,
}

impl ErrorKind {
    /// The stable code JS sees in `error.code`.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidArg => "ERR_INVALID_ARG",
            ErrorKind::DuplicateId => "ERR_DUPLICATE_ID",
            ErrorKind::CorruptIndex => "ERR_CORRUPT_INDEX",
            ErrorKind::Io => "ERR_IO",
            ErrorKind::IndexChanged => "ERR_INDEX_CHANGED",
            ErrorKind::OrtNotFound => "ERR_ORT_NOT_FOUND",
            ErrorKind::OrtVersion => "ERR_ORT_VERSION",
            ErrorKind::ModelNotFound => "ERR_MODEL_NOT_FOUND",
            ErrorKind::ModelLoad => "ERR_MODEL_LOAD",
            ErrorKind::Inference => "ERR_INFERENCE",
            ErrorKind::Aborted => "ABORT_ERR",
            ErrorKind::Locked => "ERR_LOCKED",
            ErrorKind::ReadOnly => "ERR_READ_ONLY",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidArg, message)
    }
    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::CorruptIndex, message)
    }
    /// The one abort error (JS `AbortError` with code `ABORT_ERR`).
    pub fn aborted() -> Self {
        Error::new(ErrorKind::Aborted, "The operation was aborted")
    }
}

/// `Err(Error::aborted())` once `cancel` is set: long-running work calls this between
/// steps, so a cancelled call stops instead of running to the end.
pub fn check_cancel(cancel: &AtomicBool) -> Result<()> {
    if cancel.load(Ordering::Relaxed) {
        Err(Error::aborted())
    } else {
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, Error>;
