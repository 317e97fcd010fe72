//! The one cancellation path of every async native call: `lib/` makes a `CancelToken`,
//! passes it to the call and calls `cancel()` when the caller's AbortSignal fires; the
//! running work checks the token's flag between steps and stops with `ABORT_ERR`.
//! (napi's own AbortSignal support only stops tasks that have not started.)
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi_derive::napi;
use ragrank_core::check_cancel;

use crate::errors::OrNapi;

/// Cancels running native work: `lib/` calls `cancel()` when the caller's AbortSignal
/// fires, and the call that holds the token stops at its next check with `ABORT_ERR`.
#[napi]
#[derive(Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
}

#[napi]
impl CancelToken {
    #[napi(constructor)]
    pub fn new() -> Self {
        CancelToken::default()
    }

    #[napi]
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

/// The flag a task watches: the token's, or one that is never set.
pub(crate) fn flag_of(token: Option<&CancelToken>) -> Arc<AtomicBool> {
    token.map_or_else(|| Arc::new(AtomicBool::new(false)), |t| t.flag.clone())
}

/// `ABORT_ERR` once `flag` is set.
pub(crate) fn check(flag: &AtomicBool) -> napi::Result<()> {
    check_cancel(flag).or_napi()
}
