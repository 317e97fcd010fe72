//! `SharedIndex`: one index read and written from many threads. Readers take the published
//! snapshot (`arc-swap`: a few atomic operations, never a lock), so a search, a save or a
//! size never waits for a writer or a merge, and a writer never waits for them. Writers
//! take turns on a mutex held only while they build the next snapshot from the current
//! one, which costs O(rows added + chunks), never a copy of the index. Merges too large for
//! a writer run on a background thread, built from a snapshot without any lock and
//! installed by a short turn on the writers' mutex.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;
use ragrank_core::filter::MetaFilter;
use ragrank_core::store::directory::Directory;
use ragrank_core::store::lock;
use ragrank_core::store::record::encode_remove;
use ragrank_core::store::wal::Wal;
use ragrank_core::{check_cancel, Result};

use crate::index::{NewFields, VectorIndex};

/// Attempts one background pass makes before leaving the rest to the next write.
const MAX_MERGES_PER_PASS: usize = 64;

pub struct SharedIndex {
    pub(crate) current: ArcSwap<VectorIndex>,
    pub(crate) writer: Mutex<()>,
    merging: AtomicBool,
    /// The log of a directory-bound writer (durability `sync` or `async`): each write's record
    /// is appended under `writer`, so log order is write order.
    pub(crate) wal: OnceLock<Arc<Wal>>,
    /// The log position of the newest logged write published (set under `writer`).
    pub(crate) logged: AtomicU64,
    /// The directory of an index opened from one (`directory::open`).
    pub(crate) directory: Mutex<Option<Arc<Directory>>>,
    /// Closed (`close`): it takes no more writes.
    pub(crate) closed: AtomicBool,
    /// Held by the merge thread while it commits a merge, and by `close` to wait that out.
    pub(crate) merge_commit: Mutex<()>,
}

/// A write's log record: its kind and payload.
pub(crate) type Logged = Option<(u8, Vec<u8>)>;

impl SharedIndex {
    pub fn new(index: VectorIndex) -> Arc<SharedIndex> {
        Arc::new(SharedIndex {
            current: ArcSwap::from_pointee(index),
            writer: Mutex::new(()),
            merging: AtomicBool::new(false),
            wal: OnceLock::new(),
            logged: AtomicU64::new(0),
            directory: Mutex::new(None),
            closed: AtomicBool::new(false),
            merge_commit: Mutex::new(()),
        })
    }

    /// The current snapshot: immutable, kept alive by the returned `Arc`.
    pub fn snapshot(&self) -> Arc<VectorIndex> {
        self.current.load_full()
    }

    /// Applies `change` to a copy of the current snapshot and publishes it when it succeeds
    /// (a failed change publishes nothing). Starts a background merge when one is due.
    pub fn write<T>(self: &Arc<Self>, change: impl FnOnce(&mut VectorIndex) -> Result<T>) -> Result<T> {
        self.write_logged(change, |_| None)
    }

    /// `write`, whose change, once it succeeded, is logged as `record` says (a directory-bound
    /// writer with a log). The record is appended before the change is published and under
    /// the same turn, so log order is write order; a failed append publishes nothing. Returns
    /// once the record is as durable as the log promises (waited for after the turn).
    pub(crate) fn write_logged<T>(
        self: &Arc<Self>,
        change: impl FnOnce(&mut VectorIndex) -> Result<T>,
        record: impl FnOnce(&T) -> Logged,
    ) -> Result<T> {
        let (out, due, ticket) = {
            let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            // Under the turn: `close` refuses writes under it too.
            self.check_writable()?;
            let mut next = VectorIndex::clone(&self.current.load());
            let out = change(&mut next)?;
            let ticket = match self.wal.get().map(|wal| (wal, record(&out))) {
                Some((wal, Some((kind, payload)))) => Some((wal, wal.append(kind, &payload)?)),
                _ => None,
            };
            let due = next.merge_plan().is_some();
            self.current.store(Arc::new(next));
            if let Some((_, at)) = ticket {
                self.logged.store(at, Ordering::Relaxed);
            }
            (out, due, ticket)
        };
        if due {
            self.merge_in_background();
        }
        if let Some((wal, ticket)) = ticket {
            wal.wait_durable(ticket)?;
        }
        Ok(out)
    }

    /// A read-only directory's index, or a closed one, takes no writes.
    pub(crate) fn check_writable(&self) -> Result<()> {
        let readonly = |message: String| Err(ragrank_core::Error::new(ragrank_core::ErrorKind::ReadOnly, message));
        if self.closed.load(Ordering::SeqCst) {
            return readonly("this index was closed: open its directory again to write".into());
        }
        match lock(&self.directory).as_ref().filter(|d| d.read_only()) {
            Some(d) => readonly(format!(
                "{} was opened read-only: it takes no writes (open it without readOnly to write)",
                d.path().display()
            )),
            None => Ok(()),
        }
    }

    /// Adds rows as `VectorIndex::add_with` does, logged when the index has a log.
    pub fn add(self: &Arc<Self>, ids: &[String], vectors: &[f32], fields: NewFields, upsert: bool) -> Result<usize> {
        let mut record = self
            .wal
            .get()
            .map(|_| crate::directory::encode_add(ids, vectors, &fields, upsert));
        self.write_logged(
            |index| index.add_with(ids, vectors, fields, upsert),
            |_| record.take().map(|r| (crate::directory::ADD, r)),
        )
    }

    /// Removes rows by id as `VectorIndex::remove` does, logged when the index has a log.
    pub fn remove(self: &Arc<Self>, ids: &[String]) -> Result<usize> {
        self.write_logged(
            |index| {
                // Not from a file changed in place: its rows may differ from the ids'.
                index.check_file()?;
                Ok(index.remove(ids))
            },
            |&n| (n > 0).then(|| (crate::directory::REMOVE, encode_remove(ids))),
        )
    }

    /// Removes every live row whose metadata passes `filter` and returns how many it removed,
    /// visible once this returns. The filter is matched against the current snapshot without
    /// any lock (`VectorIndex::matching`: field indexes where they cover it); the rows it
    /// matched are then removed by one write, as `remove` removes them, except those removed
    /// or replaced since (`VectorIndex::remove_matched`): a row added after the snapshot is
    /// never removed. Fails with `Error::aborted()`, having removed nothing, when `cancel` is
    /// set before the write.
    pub fn remove_matching(self: &Arc<Self>, filter: &MetaFilter, cancel: &AtomicBool) -> Result<usize> {
        self.check_writable()?;
        let snapshot = self.snapshot();
        // Not from a file changed in place: its rows may differ from the ids'.
        snapshot.check_file()?;
        let rows = snapshot.matching(filter, cancel, &mut Vec::new())?;
        drop(snapshot);
        check_cancel(cancel)?;
        if rows.is_empty() {
            return Ok(0);
        }
        let (n, _) = self.write_logged(
            |index| {
                index.check_file()?;
                check_cancel(cancel)?;
                // The ids removed are logged, so a replay removes exactly these.
                let ids = index.still_matched(&rows);
                Ok((index.remove(&ids), ids))
            },
            |(n, ids)| (*n > 0).then(|| (crate::directory::REMOVE, encode_remove(ids))),
        )?;
        Ok(n)
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
                if me.merge_pass() {
                    me.commit_merge();
                }
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

    /// A writer bound to a directory commits a background merge at once, so the merged
    /// chunks' files can go; a failure (a full disk) leaves the last commit as it was, and the
    /// next commit retries. Not once closed, nor once dropped (this thread holds the last
    /// reference): the directory is let go then, and another open of it must not find it held.
    fn commit_merge(self: &Arc<Self>) {
        let _committing = lock(&self.merge_commit);
        if self.closed.load(Ordering::SeqCst) || Arc::strong_count(self) < 2 {
            return;
        }
        if let Some(d) = self.directory().filter(|d| !d.read_only()) {
            let _ = d.commit();
        }
    }

    /// Merges until no merge is due (or `MAX_MERGES_PER_PASS` attempts); true if one was installed.
    pub fn merge_pass(&self) -> bool {
        let mut merged_any = false;
        for _ in 0..MAX_MERGES_PER_PASS {
            let snap = self.snapshot();
            let Some(plan) = snap.merge_plan() else {
                return merged_any;
            };
            // Built without any lock: readers and writers go on meanwhile.
            let merged = snap.build_merge(&plan);
            drop(snap);
            let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            let mut next = VectorIndex::clone(&self.current.load());
            if next.install_merge(merged) {
                self.current.store(Arc::new(next));
                merged_any = true;
            }
        }
        merged_any
    }
}
