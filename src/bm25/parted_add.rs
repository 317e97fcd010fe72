//! The parted sync `add` of `NativeBm25Index` (`addParts`, `push`, `addFinish`): a big add
//! crosses in parts, and one worker thread analyses each part while the caller converts the
//! next, so the conversion on the event loop runs beside the analysis instead of before it.
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use napi_derive::napi;
use ragrank_core::bm25::{prepare_docs_on, Bm25Index, NewDoc, PreparedDocs};

use super::{to_new_docs, NativeDoc};
use crate::errors::{guard, internal, to_napi, OrNapi};

/// The parts of one big sync `add` (see `NativeBm25Index::add_parts`). One worker thread
/// analyses them in order while the caller converts the next (a thread per part would
/// take the caller's core); the caller analyses what is left when it finishes.
#[napi]
pub struct NativeAddParts {
    index: Arc<Bm25Index>,
    /// Parts not yet analysed, shared with the worker; `None` once the call is over.
    queue: Option<Arc<PartQueue>>,
    worker: Option<std::thread::JoinHandle<()>>,
    parts: usize,
}

/// Parts waiting for analysis (with their place in the call) and the analysed ones.
#[derive(Default)]
struct PartQueue {
    waiting: Mutex<VecDeque<(usize, Vec<NewDoc>)>>,
    ready: Mutex<Vec<(usize, ragrank_core::Result<PreparedDocs>)>>,
    more: Condvar,
    closed: AtomicBool,
}

impl PartQueue {
    /// Analyses waiting parts until none is left; with `wait`, until the queue is closed.
    fn drain(&self, index: &Bm25Index, wait: bool) {
        loop {
            let next = {
                let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(part) = waiting.pop_front() {
                        break Some(part);
                    }
                    if !wait || self.closed.load(Ordering::Acquire) {
                        break None;
                    }
                    waiting = self.more.wait(waiting).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some((i, docs)) = next else { return };
            let done = prepare_docs_on(&index.analyzer(), index.config().store_text, docs, 1);
            self.ready.lock().unwrap_or_else(|e| e.into_inner()).push((i, done));
        }
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let _waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        self.more.notify_all();
    }
}

#[napi]
impl NativeAddParts {
    /// Queues `docs`, the call's documents from `offset` on, for analysis.
    #[napi]
    pub fn push(&mut self, docs: Vec<NativeDoc>, offset: u32) -> napi::Result<()> {
        guard(|| {
            let Some(queue) = &self.queue else {
                return Err(internal("addParts: push after the call ended"));
            };
            let docs = to_new_docs(docs, offset as usize).or_napi()?;
            if self.worker.is_none() {
                let (queue, index) = (queue.clone(), self.index.clone());
                let worker = std::thread::Builder::new()
                    .name("ragrank-add".into())
                    .spawn(move || queue.drain(&index, true))
                    .map_err(|e| internal(&format!("cannot start an analysis thread: {e}")))?;
                self.worker = Some(worker);
            }
            queue
                .waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back((self.parts, docs));
            queue.more.notify_one();
            self.parts += 1;
            Ok(())
        })
    }

    /// Ends the call: the parts' analysis stops and nothing of them is staged (after
    /// `addFinish`, a no-op).
    #[napi]
    pub fn abandon(&mut self) {
        if let Some(queue) = self.queue.take() {
            queue.waiting.lock().unwrap_or_else(|e| e.into_inner()).clear();
            queue.close();
        }
        // The worker ends after the part it is analysing; not waited for here.
        self.worker = None;
    }
}

/// A call dropped without `addFinish` or `abandon` (its JS object collected) lets the worker go.
impl Drop for NativeAddParts {
    fn drop(&mut self) {
        self.abandon();
    }
}

impl NativeAddParts {
    /// A call's parts for `index`, none yet.
    pub(super) fn new(index: Arc<Bm25Index>) -> Self {
        NativeAddParts {
            index,
            queue: Some(Arc::default()),
            worker: None,
            parts: 0,
        }
    }

    /// Every part of the call on `index` analysed, as one batch in the call's order: the
    /// caller analyses the parts still waiting beside the worker, then waits for the worker's last one.
    pub(super) fn finish(&mut self, index: &Arc<Bm25Index>) -> napi::Result<PreparedDocs> {
        if !Arc::ptr_eq(&self.index, index) {
            return Err(internal("addFinish: the parts belong to another index"));
        }
        let Some(queue) = self.queue.take() else {
            return Err(to_napi(ragrank_core::Error::invalid(
                "addFinish: the call already ended",
            )));
        };
        queue.close();
        queue.drain(&self.index, false);
        if let Some(worker) = self.worker.take() {
            worker.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
        let mut ready = std::mem::take(&mut *queue.ready.lock().unwrap_or_else(|e| e.into_inner()));
        ready.sort_unstable_by_key(|(i, _)| *i);
        let parts = ready
            .into_iter()
            .map(|(_, done)| done)
            .collect::<ragrank_core::Result<Vec<_>>>();
        PreparedDocs::join(parts.or_napi()?).or_napi()
    }
}
