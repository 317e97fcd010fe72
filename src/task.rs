//! `BlockingTask`: the one libuv-pool task behind every async native call. It holds the
//! work as a closure, runs it under `guard` (no panic crosses into JS) with the call's
//! cancel flag, and turns the result into its JS value on the main thread. Maintenance
//! (`background`: writes, merges, saves) runs on ragrank's niced pool instead, the libuv
//! thread waiting for it, so it yields the cores to the event loop.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, Task};

use crate::cancel::{check, flag_of, CancelToken};
use crate::errors::{guard, internal};

type Work<T> = Box<dyn FnOnce(&AtomicBool) -> napi::Result<T> + Send>;

pub struct BlockingTask<T, J = T> {
    work: Option<Work<T>>,
    cancel: Arc<AtomicBool>,
    finish: fn(T) -> J,
    background: bool,
}

fn same<T>(t: T) -> T {
    t
}

impl<T: Send + ToNapiValue + TypeName + 'static> BlockingTask<T> {
    /// Runs `work` on the pool; its result is the JS value.
    pub fn spawn(
        cancel: Option<&CancelToken>,
        work: impl FnOnce(&AtomicBool) -> napi::Result<T> + Send + 'static,
    ) -> AsyncTask<Self> {
        BlockingTask::then(cancel, work, same)
    }

    /// As `spawn`, at background priority (`ragrank_core::background`): for maintenance
    /// whose caller does not wait on the event loop's behalf.
    pub fn background(
        cancel: Option<&CancelToken>,
        work: impl FnOnce(&AtomicBool) -> napi::Result<T> + Send + 'static,
    ) -> AsyncTask<Self> {
        BlockingTask::new(cancel, Box::new(work), same, true)
    }
}

impl<T: Send + 'static, J: ToNapiValue + TypeName> BlockingTask<T, J> {
    /// Runs `work` on the pool, then `finish` on the main thread (for values that must be
    /// made there, such as class instances).
    pub fn then(
        cancel: Option<&CancelToken>,
        work: impl FnOnce(&AtomicBool) -> napi::Result<T> + Send + 'static,
        finish: fn(T) -> J,
    ) -> AsyncTask<Self> {
        BlockingTask::new(cancel, Box::new(work), finish, false)
    }

    fn new(cancel: Option<&CancelToken>, work: Work<T>, finish: fn(T) -> J, background: bool) -> AsyncTask<Self> {
        AsyncTask::new(BlockingTask {
            work: Some(work),
            cancel: flag_of(cancel),
            finish,
            background,
        })
    }
}

impl<T: Send + 'static, J: ToNapiValue + TypeName> Task for BlockingTask<T, J> {
    type Output = T;
    type JsValue = J;

    fn compute(&mut self) -> napi::Result<T> {
        // A call cancelled before the pool picked it up does none of its work.
        check(&self.cancel)?;
        let work = self.work.take().ok_or_else(|| internal("a task ran twice"))?;
        let cancel = &self.cancel;
        if self.background {
            guard(|| ragrank_core::background::run(|| work(cancel)))
        } else {
            guard(|| work(cancel))
        }
    }

    fn resolve(&mut self, _env: Env, out: T) -> napi::Result<J> {
        Ok((self.finish)(out))
    }
}
