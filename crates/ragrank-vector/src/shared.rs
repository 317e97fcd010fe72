//! `SharedIndex`: one index read and written from many threads. Readers take the published
//! snapshot (`arc-swap`: a few atomic operations, never a lock), so a search, a save or a
//! size never waits for a writer or a merge, and a writer never waits for them. Writers
//! take turns on a mutex held only while they build the next snapshot from the current
//! one, which costs O(rows added + chunks), never a copy of the index. Merges too large for
//! a writer run on a background thread, built from a snapshot without any lock and
//! installed by a short turn on the writers' mutex.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use ragrank_core::filter::MetaFilter;
use ragrank_core::{check_cancel, Result};

use crate::index::VectorIndex;

/// Attempts one background pass makes before leaving the rest to the next write.
const MAX_MERGES_PER_PASS: usize = 64;

pub struct SharedIndex {
    current: ArcSwap<VectorIndex>,
    writer: Mutex<()>,
    merging: AtomicBool,
}

impl SharedIndex {
    pub fn new(index: VectorIndex) -> Arc<SharedIndex> {
        Arc::new(SharedIndex {
            current: ArcSwap::from_pointee(index),
            writer: Mutex::new(()),
            merging: AtomicBool::new(false),
        })
    }

    /// The current snapshot: immutable, kept alive by the returned `Arc`.
    pub fn snapshot(&self) -> Arc<VectorIndex> {
        self.current.load_full()
    }

    /// Applies `change` to a copy of the current snapshot and publishes it when it succeeds
    /// (a failed change publishes nothing). Starts a background merge when one is due.
    pub fn write<T>(self: &Arc<Self>, change: impl FnOnce(&mut VectorIndex) -> Result<T>) -> Result<T> {
        let due = {
            let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            let mut next = VectorIndex::clone(&self.current.load());
            let out = change(&mut next)?;
            let due = next.merge_plan().is_some();
            self.current.store(Arc::new(next));
            (out, due)
        };
        if due.1 {
            self.merge_in_background();
        }
        Ok(due.0)
    }

    /// Removes every live row whose metadata passes `filter` and returns how many it removed,
    /// visible once this returns. The filter is matched against the current snapshot without
    /// any lock (`VectorIndex::matching`: field indexes where they cover it); the rows it
    /// matched are then removed by one write, as `remove` removes them, except those removed
    /// or replaced since (`VectorIndex::remove_matched`): a row added after the snapshot is
    /// never removed. Fails with `Error::aborted()`, having removed nothing, when `cancel` is
    /// set before the write.
    pub fn remove_matching(self: &Arc<Self>, filter: &MetaFilter, cancel: &AtomicBool) -> Result<usize> {
        let snapshot = self.snapshot();
        // Not from a file changed in place: its rows may differ from the ids'.
        snapshot.check_file()?;
        let rows = snapshot.matching(filter, cancel, &mut Vec::new())?;
        drop(snapshot);
        check_cancel(cancel)?;
        if rows.is_empty() {
            return Ok(0);
        }
        self.write(|index| {
            index.check_file()?;
            check_cancel(cancel)?;
            Ok(index.remove_matched(&rows))
        })
    }

    /// Whether a background merge is running.
    pub fn is_merging(&self) -> bool {
        self.merging.load(Ordering::Acquire)
    }

    fn merge_in_background(self: &Arc<Self>) {
        if self.merging.swap(true, Ordering::AcqRel) {
            return;
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("ragrank-vector-merge".into())
            .spawn(move || {
                // Maintenance: at background priority, as BM25's (never preempting the event loop).
                ragrank_core::background::lower_current_thread();
                me.merge_pass();
                me.merging.store(false, Ordering::Release);
                // A write that came after the last plan but before the flag fell saw a merge
                // running and started none.
                if me.snapshot().merge_plan().is_some() {
                    me.merge_in_background();
                }
            });
        if spawned.is_err() {
            // No thread: the merge waits for a later write (reads stay exact meanwhile).
            self.merging.store(false, Ordering::Release);
        }
    }

    /// Merges until no merge is due (or `MAX_MERGES_PER_PASS` attempts).
    pub fn merge_pass(&self) {
        for _ in 0..MAX_MERGES_PER_PASS {
            let snap = self.snapshot();
            let Some(plan) = snap.merge_plan() else {
                return;
            };
            // Built without any lock: readers and writers go on meanwhile.
            let merged = snap.build_merge(&plan);
            drop(snap);
            let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            let mut next = VectorIndex::clone(&self.current.load());
            if next.install_merge(merged) {
                self.current.store(Arc::new(next));
            }
        }
    }
}
