//! Core errors to JS: the message carries a `[CODE]` prefix that `lib/errors.ts` turns
//! into `error.code` (and a TypeError/RangeError where that fits).
use std::panic::{catch_unwind, AssertUnwindSafe};

use ragrank_core::Error as CoreError;

pub fn to_napi(e: CoreError) -> napi::Error {
    napi::Error::from_reason(format!("[{}] {}", e.kind.code(), e.message))
}

pub fn internal(what: &str) -> napi::Error {
    napi::Error::from_reason(format!("[ERR_INTERNAL] {what}"))
}

/// Runs `f`, turning a panic into an `ERR_INTERNAL` error so none crosses into JS.
pub fn guard<T>(f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(internal(&format!("internal error (please report): {msg}")))
        }
    }
}

pub trait OrNapi<T> {
    fn or_napi(self) -> napi::Result<T>;
}

impl<T> OrNapi<T> for Result<T, CoreError> {
    fn or_napi(self) -> napi::Result<T> {
        self.map_err(to_napi)
    }
}
