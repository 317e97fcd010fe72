//! The writer side: staged operations, refresh, and the background merges.
//!
//! Readers load the current snapshot (`ArcSwap`) and never wait. Writers stage their
//! operations under a short mutex (pushes and drains only) and a refresh turns them into
//! the next snapshot: one new segment from the added documents, copy-on-write deletions,
//! updated N / total length / df, one pointer swap. At most one refresher runs (the
//! refresh mutex); sync callers only `try_refresh`, and whoever holds the mutex picks up
//! what was staged meanwhile before and right after releasing it, so a staged write is
//! never stranded.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, OnceLock, TryLockError, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::merge;
use super::segment::{AnalyzedBatch, Deleted, Matched, SegmentBuilder};
use super::snapshot::{SegRef, Snapshot};
use super::{prepare_docs, IdSet, IndexConfig, NewDoc, PreparedDocs, Stats};
use crate::analysis::Analyzer;
use crate::error::{check_cancel, Error, ErrorKind, Result};
use crate::filter::MetaFilter;

/// Frees a snapshot off the caller's thread when this is its last reference. The last
/// reference to a snapshot may own whole segments (a million documents are millions of
/// allocations) or their precomputed scores; whoever drops it pays for it, and a sync write
/// or search on the event loop must not (a 1M-document segment took ~180 ms to free).
pub fn retire(snapshot: Arc<Snapshot>) {
    if Arc::strong_count(&snapshot) > 1 {
        return; // another holder frees it, or retires it in turn
    }
    static REAPER: OnceLock<Option<mpsc::Sender<Arc<Snapshot>>>> = OnceLock::new();
    let reaper = REAPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Arc<Snapshot>>();
        let spawned = std::thread::Builder::new()
            .name("ragrank-bm25-reaper".into())
            .spawn(move || {
                crate::background::lower_current_thread();
                reap(rx)
            });
        spawned.ok().map(|_| tx)
    });
    if let Some(tx) = reaper {
        // A send fails only if the thread is gone; the snapshot is then dropped here.
        let _ = tx.send(snapshot);
    }
}

/// How often the reaper looks for retired snapshots while writes come in.
const REAP_POLL: Duration = Duration::from_millis(20);
/// Empty polls after which the reaper blocks until the next retirement (1 s idle).
const REAP_IDLE_POLLS: u32 = 50;

/// The reaper's loop. A send wakes a receiver blocked in `recv` (a futex wake from the
/// sender's thread, and with it a point where the scheduler may switch the event loop
/// out for the woken thread: profiled on every other sync write). While retirements keep
/// coming, the reaper instead polls on a timer, so a sync write or search hands its
/// snapshot over without a syscall; after an idle second it blocks again.
fn reap(rx: mpsc::Receiver<Arc<Snapshot>>) {
    while let Ok(first) = rx.recv() {
        drop(first);
        let mut idle = 0;
        while idle < REAP_IDLE_POLLS {
            std::thread::sleep(REAP_POLL);
            let mut any = false;
            for s in rx.try_iter() {
                drop(s);
                any = true;
            }
            idle = if any { 0 } else { idle + 1 };
        }
    }
}

pub(crate) use crate::store::lock;

fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Staged operations a drain leaves room for, so staging rarely grows the queue under
/// the staged mutex.
const OPS_RESERVE: usize = 16;

enum Op {
    /// Documents, and whether they may replace documents with their ids (upsert).
    Add(Vec<AnalyzedBatch>, bool),
    Remove(Vec<String>),
}

/// Operations on at most this many ids enter them in the staged lock's id maps (a few
/// microseconds under the lock); bigger ones keep the set made before the lock.
const SMALL_OP_IDS: usize = 256;

/// Per id, the sequence number of the newest small operation on it and whether it added
/// (true) or removed it.
type SmallOps = FxHashMap<Arc<str>, (u64, bool)>;

#[derive(Default)]
struct Staged {
    ops: Vec<Op>,
    /// What `contains` sees before the snapshot does: the ids each staged or in-flight
    /// operation adds (true) or removes (false). A big operation's set, made before the lock
    /// is taken (staging a big batch costs the lock no allocation per document), with its
    /// sequence number, oldest first.
    overlay: Vec<(u64, bool, Arc<IdSet>)>,
    /// Small operations staged since the last drain, by id: one probe however many there
    /// are (a set each made every staged write check all earlier ones: 40k single adds
    /// staged without a refresh took 0.5 ms an add and a `has`).
    small: SmallOps,
    /// The small operations the running refresh drained (all older than `small`'s).
    small_in_flight: SmallOps,
    seq: u64,
    /// The log position of the newest staged write that was logged.
    logged: u64,
    /// Documents added or removed by staged and in-flight operations.
    pending: usize,
    /// When the oldest staged operation was staged.
    since: Option<Instant>,
    /// A caller asked for the staged writes to be published (`try_refresh` found the
    /// refresh mutex taken): its holder publishes them before it is done. Writes only
    /// staged wait for a refresh (explicit or automatic).
    wanted: bool,
}

/// Wakes the background thread: merges to consider, a refresh due, or the index dropped.
///
/// A wake from a write does not make a syscall while the thread is active: it then polls
/// every `WORKER_POLL` and finds `poke` set. Only a thread that has been idle for a second
/// (`deep`) gets a condvar notify, so sync writes on the event loop do not hand the CPU to
/// the thread they wake (the scheduler may switch the waker out right after a futex wake).
#[derive(Default)]
struct Signal {
    state: Mutex<SignalState>,
    cv: Condvar,
    /// Work to look at since the thread last looked.
    poke: AtomicBool,
    /// The thread is waiting without a poll bound: a wake must notify it.
    deep: AtomicBool,
}

/// How often an active background thread looks for merges without being notified.
const WORKER_POLL: Duration = Duration::from_millis(20);
/// How long after its last poke the background thread keeps polling.
const WORKER_ACTIVE: Duration = Duration::from_secs(1);

#[derive(Default)]
struct SignalState {
    wake: bool,
    stop: bool,
    started: bool,
    /// `close` holds the directory: the thread starts no commit of it.
    held: bool,
    /// The thread is committing a merge to the directory.
    committing: bool,
}

pub(crate) struct Shared {
    config: Arc<IndexConfig>,
    analyzer: Arc<Analyzer>,
    pub(super) current: ArcSwap<Snapshot>,
    staged: Mutex<Staged>,
    refresh_lock: Mutex<()>,
    /// One merge at a time (the background thread's or an explicit `merge`).
    merge_lock: Mutex<()>,
    /// Auto-refresh delay in ms; 0 = off.
    refresh_ms: AtomicU64,
    /// When the current snapshot was published (the background thread precomputes its
    /// tf parts once it has stood for `QUIET`).
    published: Mutex<Instant>,
    signal: Arc<Signal>,
    /// The write-ahead log of an index bound to a directory with durability `sync` or
    /// `async`: every staged write is appended to it under the staged lock (log order is
    /// write order).
    pub(crate) wal: std::sync::OnceLock<Arc<crate::store::wal::Wal>>,
    /// The directory of an index opened from one: the background merges commit to it.
    pub(crate) directory: std::sync::OnceLock<std::sync::Weak<crate::store::directory::Directory>>,
    /// A reader of a directory: it takes no writes and runs no merges (its segments are the
    /// writer's, replaced at each reload).
    pub(crate) read_only: AtomicBool,
    /// Closed (`Bm25Index::close`): takes no more writes.
    pub(crate) closed: AtomicBool,
}

/// An incremental BM25 index that takes writes while it serves reads. `Send + Sync`:
/// share it behind an `Arc`.
pub struct Bm25Index {
    pub(crate) shared: Arc<Shared>,
    /// The directory of an index opened from one (`directory`).
    pub(crate) directory: Mutex<Option<Arc<crate::store::directory::Directory>>>,
}

/// The default delay after which staged writes become visible on their own (as
/// Elasticsearch's `refresh_interval`).
pub const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

/// How long a snapshot must stand before the background thread precomputes its tf parts
/// (O(postings), worth it only for a snapshot that serves many searches).
const QUIET: Duration = Duration::from_secs(1);

impl Drop for Bm25Index {
    fn drop(&mut self) {
        let mut s = lock(&self.shared.signal.state);
        s.stop = true;
        self.shared.signal.cv.notify_all();
    }
}

impl Bm25Index {
    /// Keeps the background thread from committing to the directory (`close`), once a
    /// commit it is in has ended; `false` lets it again.
    pub(crate) fn hold_directory(&self, held: bool) {
        let mut s = lock(&self.shared.signal.state);
        s.held = held;
        while held && s.committing {
            s = self.shared.signal.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub fn new(config: IndexConfig) -> Result<Self> {
        config.params.validate()?;
        let analyzer = Arc::new(Analyzer::new(config.analyzer.clone())?);
        let config = Arc::new(config);
        let snapshot = Snapshot::empty(config.clone(), analyzer.clone());
        Ok(Self::from_snapshot(snapshot))
    }

    pub(crate) fn from_snapshot(snapshot: Snapshot) -> Self {
        Bm25Index {
            directory: Mutex::new(None),
            shared: Arc::new(Shared {
                config: snapshot.config.clone(),
                analyzer: snapshot.analyzer.clone(),
                current: ArcSwap::from_pointee(snapshot),
                staged: Mutex::default(),
                refresh_lock: Mutex::new(()),
                merge_lock: Mutex::new(()),
                refresh_ms: AtomicU64::new(DEFAULT_REFRESH_INTERVAL.as_millis() as u64),
                published: Mutex::new(Instant::now()),
                signal: Arc::default(),
                wal: std::sync::OnceLock::new(),
                directory: std::sync::OnceLock::new(),
                read_only: AtomicBool::new(false),
                closed: AtomicBool::new(false),
            }),
        }
    }

    pub fn config(&self) -> &IndexConfig {
        &self.shared.config
    }

    pub fn analyzer(&self) -> Arc<Analyzer> {
        self.shared.analyzer.clone()
    }

    pub fn analyze(&self, text: &str) -> Vec<String> {
        self.shared.analyzer.analyze(text)
    }

    /// What a search sees now. Never waits.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.shared.current.load_full()
    }

    /// Documents searchable now.
    pub fn len(&self) -> usize {
        self.shared.current.load().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Documents added or removed but not yet visible to searches.
    pub fn pending(&self) -> usize {
        lock(&self.shared.staged).pending
    }

    /// Whether `id` is in the index, counting staged writes.
    pub fn contains(&self, id: &str) -> bool {
        let staged = lock(&self.shared.staged);
        self.shared.present(&staged, id)
    }

    pub fn stats(&self) -> Stats {
        self.shared.current.load().stats()
    }

    /// Sets the auto-refresh delay (`None` or zero: off).
    pub fn set_refresh_interval(&self, interval: Option<Duration>) {
        let ms = interval.map_or(0, |d| d.as_millis().clamp(1, u64::MAX as u128) as u64);
        self.shared.refresh_ms.store(ms, Ordering::Relaxed);
        self.shared.wake();
    }

    pub fn refresh_interval(&self) -> Option<Duration> {
        match self.shared.refresh_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// Adds documents and makes them visible (waits for a running refresh). Without
    /// `upsert`, an id already in the index is an `ERR_DUPLICATE_ID` error; with it, the
    /// old document is replaced (and counts as newly added for tie order). Ids repeated
    /// within one call are always an error. A failed call changes nothing.
    pub fn add(&self, docs: Vec<NewDoc>, upsert: bool) -> Result<usize> {
        let prepared = prepare_docs(&self.shared.analyzer, self.shared.config.store_text, docs)?;
        self.add_refreshed(prepared, upsert)
    }

    /// Stages documents analysed by `prepare_docs`: checked now (duplicates against the
    /// index and the staged writes), visible at the next refresh.
    pub fn stage_add(&self, docs: PreparedDocs, upsert: bool) -> Result<usize> {
        let (n, ticket) = self.stage_add_logged(docs, upsert)?;
        self.shared.wait_durable(ticket)?;
        Ok(n)
    }

    /// `stage_add` without waiting for the log: returns the ticket to wait for.
    fn stage_add_logged(&self, docs: PreparedDocs, upsert: bool) -> Result<(usize, Option<u64>)> {
        self.shared.writable()?;
        let n = docs.len();
        if n == 0 {
            return Ok((0, None));
        }
        let PreparedDocs { batches, ids } = docs;
        // Declared field types, before anything is staged.
        let schema = self.shared.config.field_schema();
        for (i, d) in batches.iter().flat_map(|b| &b.docs).enumerate() {
            schema
                .check(d.meta.as_ref())
                .map_err(|e| Error::invalid(format!("document {i} ({:?}): {}", d.id, e.message)))?;
        }
        let duplicate = |id: &str| {
            Error::new(
                ErrorKind::DuplicateId,
                format!("document id {id:?} is already in the index (use upsert to replace it)"),
            )
        };
        // Against the snapshot before the lock (the long part for a big batch), then under
        // it against staged writes, unless a refresh published meanwhile. An id the snapshot
        // holds is a duplicate only if no staged write removed it since.
        let checked = if upsert {
            None
        } else {
            let snap = self.shared.current.load_full();
            let in_snap: IdSet = ids.iter().filter(|id| snap.contains(id)).cloned().collect();
            Some((snap, in_snap))
        };
        // Allocated before the lock (see `publish_staged`).
        let ids = Arc::new(ids);
        let wal = self.shared.wal.get();
        let record = wal.map(|_| super::directory::encode_add(&batches, upsert));
        let mut in_snap_checked = None;
        let mut staged = lock(&self.shared.staged);
        if let Some((before, in_snap)) = checked {
            let same = Arc::ptr_eq(&before, &self.shared.current.load());
            let found = ids.iter().find(|id| match Shared::staged_presence(&staged, id) {
                Some(present) => present,
                None if same => in_snap.contains(*id),
                None => self.shared.current.load().contains(id),
            });
            if let Some(id) = found {
                drop(staged);
                drop(in_snap);
                retire(before);
                return Err(duplicate(id));
            }
            // Freed after the lock (see `publish_staged`).
            in_snap_checked = Some(in_snap);
            // A refresh or merge may have replaced it meanwhile: then this is its last
            // reference, and a sync call must not free it.
            retire(before);
        }
        let ticket = match (wal, &record) {
            (Some(wal), Some(record)) => Some(wal.append(super::directory::ADD, record)?),
            _ => None,
        };
        staged.logged = ticket.unwrap_or(staged.logged);
        let seq = self.shared.next_seq(&mut staged);
        if ids.len() <= SMALL_OP_IDS {
            for id in ids.iter() {
                staged.small.insert(id.clone(), (seq, true));
            }
        } else {
            staged.overlay.push((seq, true, ids.clone()));
        }
        staged.pending += n;
        staged.ops.push(Op::Add(batches, upsert));
        drop(staged);
        drop((record, in_snap_checked));
        Ok((n, ticket))
    }

    /// Stages documents and publishes them before returning, holding the refresh mutex
    /// from before they are staged: no other thread's `try_refresh` (an event-loop call)
    /// can take over building their segment. For callers off the event loop (`addAsync`).
    pub fn add_refreshed(&self, docs: PreparedDocs, upsert: bool) -> Result<usize> {
        let guard = lock(&self.shared.refresh_lock);
        let (n, ticket) = self.stage_add_logged(docs, upsert)?;
        self.shared.refresh_holding(guard);
        // Waited for after the refresh lock is let go, so concurrent writers share fsyncs
        // (the write may be searchable here a moment before its record is on disk; the call
        // returns only once it is).
        self.shared.wait_durable(ticket)?;
        Ok(n)
    }

    /// Removes documents by id, visible once this returns (waits for a running
    /// refresh), and returns how many were in the index; unknown ids are ignored.
    pub fn remove(&self, ids: &[String]) -> Result<usize> {
        let n = self.stage_remove(ids)?;
        self.refresh();
        Ok(n)
    }

    /// Stages removals; returns how many of the ids are in the index (counting staged
    /// writes). Fails only when the write-ahead log cannot be written (nothing is staged).
    pub fn stage_remove(&self, ids: &[String]) -> Result<usize> {
        self.shared.writable()?;
        let mut staged = lock(&self.shared.staged);
        let mut gone: IdSet = FxHashSet::default();
        for id in ids {
            if !gone.contains(id.as_str()) && self.shared.present(&staged, id) {
                gone.insert(id.as_str().into());
            }
        }
        let (n, ticket) = self.shared.push_remove(&mut staged, gone)?;
        drop(staged);
        self.shared.wait_durable(ticket)?;
        Ok(n)
    }

    /// Removes every live document whose metadata passes `filter` and returns how many it
    /// removed, visible once this returns (waits for a running refresh: call it off the event
    /// loop). Writes staged before the call are published first, so they are matched too; the
    /// filter is then matched against that snapshot without any lock (`Snapshot::matching`:
    /// field indexes where they cover it) and the matches removed by `remove_matched`. Fails
    /// with `Error::aborted()`, having removed nothing, when `cancel` is set before the
    /// removal is staged.
    pub fn remove_matching(&self, filter: &MetaFilter, cancel: &AtomicBool) -> Result<usize> {
        self.shared.writable()?;
        self.refresh();
        let docs = self.snapshot().matching(filter, cancel, &mut Vec::new())?;
        self.remove_matched(docs, cancel)
    }

    /// Removes, as `remove` does (staged by id, visible once this returns), the documents of an
    /// earlier snapshot's `matching` that are still in the index as they were then; returns how
    /// many. A document removed since (counted by that removal) or replaced since (an upsert:
    /// a new document under the same id) is left to that write, so a document added after
    /// the snapshot is never removed. Fails with `Error::aborted()`, having removed nothing,
    /// when `cancel` is set before the removal is staged.
    pub fn remove_matched(&self, docs: Vec<Matched>, cancel: &AtomicBool) -> Result<usize> {
        self.shared.writable()?;
        check_cancel(cancel)?;
        if docs.is_empty() {
            return Ok(0);
        }
        // Held from the check to the publish, so no snapshot is published meanwhile: the current
        // one is what the removal applies to, after the operations staged before it.
        let guard = lock(&self.shared.refresh_lock);
        let now = self.shared.current.load_full();
        // The matched documents the current snapshot still holds, as the very same documents
        // (merges keep their keys; an upsert or a new add makes a new one). Looked up before
        // the staged lock, which event-loop calls wait for.
        let mut still: IdSet = FxHashSet::default();
        still.reserve(docs.len());
        for d in &docs {
            let same = now
                .find(&d.id)
                .is_some_and(|(i, local)| now.segs[i].seg.docs.key(local) == d.key);
            if same {
                still.insert(d.id.clone());
            }
        }
        drop((now, docs));
        let mut staged = lock(&self.shared.staged);
        if check_cancel(cancel).is_err() {
            drop(staged);
            // Publishes what writers asked for while the mutex was held here.
            self.shared.refresh_holding_if(false, guard);
            return Err(Error::aborted());
        }
        // An operation staged since `now` on one of the ids came first and decides it (a
        // remove counted it, an upsert replaced it).
        still.retain(|id| Shared::staged_presence(&staged, id).is_none());
        let pushed = self.shared.push_remove(&mut staged, still);
        drop(staged);
        self.shared.refresh_holding(guard);
        let (n, ticket) = pushed?;
        self.shared.wait_durable(ticket)?;
        Ok(n)
    }

    /// Makes every write staged before the call visible. Waits for a running refresh or
    /// merge commit: call it off the event loop.
    pub fn refresh(&self) {
        self.shared.refresh();
    }

    /// Refreshes only if no refresh or merge commit runs (that one will publish the
    /// staged writes when it ends); true if it ran.
    pub fn try_refresh(&self) -> bool {
        self.shared.try_refresh()
    }

    /// Runs the merge policy to the end, here and now (the background thread does it
    /// too); returns how many merges ran.
    pub fn merge(&self) -> usize {
        let mut n = 0;
        while self.shared.merge_once(false) {
            n += 1;
        }
        n
    }

    /// Merges all segments into one (dropping every removed document).
    pub fn force_merge(&self) {
        self.shared.merge_once(true);
    }
}

impl Shared {
    fn writable(&self) -> Result<()> {
        if self.closed.load(Ordering::Relaxed) {
            return Err(crate::Error::new(
                crate::ErrorKind::ReadOnly,
                "this index was closed: open its directory again to write",
            ));
        }
        if self.read_only.load(Ordering::Relaxed) {
            return Err(crate::Error::new(
                crate::ErrorKind::ReadOnly,
                "this index was opened read-only: write through the directory's writer",
            ));
        }
        Ok(())
    }

    /// Stages the removal of `gone`, ids all present (counting staged writes); returns how many.
    /// Stages the removal of `gone` (ids present now) and logs it when the index has a log:
    /// returns how many, and the log ticket to wait for once the staged lock is dropped.
    fn push_remove(self: &Arc<Self>, staged: &mut Staged, gone: IdSet) -> Result<(usize, Option<u64>)> {
        let n = gone.len();
        let mut ticket = None;
        if n > 0 {
            let list: Vec<String> = gone.iter().map(|id| id.to_string()).collect();
            if let Some(wal) = self.wal.get() {
                let record = crate::store::record::encode_remove(&list);
                let at = wal.append(super::directory::REMOVE, &record)?;
                staged.logged = at;
                ticket = Some(at);
            }
            let seq = self.next_seq(staged);
            if n <= SMALL_OP_IDS {
                for id in gone {
                    staged.small.insert(id, (seq, false));
                }
            } else {
                staged.overlay.push((seq, false, Arc::new(gone)));
            }
            staged.pending += n;
            staged.ops.push(Op::Remove(list));
        }
        Ok((n, ticket))
    }

    /// Returns once a logged write's record is as durable as the log promises.
    fn wait_durable(&self, ticket: Option<u64>) -> Result<()> {
        match (self.wal.get(), ticket) {
            (Some(wal), Some(ticket)) => wal.wait_durable(ticket),
            _ => Ok(()),
        }
    }

    fn present(&self, staged: &Staged, id: &str) -> bool {
        // Loaded under the staged lock: a refresh swaps the snapshot before it drops the
        // overlay entries it published, so one of the two always knows the id.
        Shared::staged_presence(staged, id).unwrap_or_else(|| self.current.load().contains(id))
    }

    /// What the newest staged or in-flight operation on `id` did to it, if any did: the
    /// newest small one, unless a big one came after it.
    fn staged_presence(staged: &Staged, id: &str) -> Option<bool> {
        let small = staged.small.get(id).or_else(|| staged.small_in_flight.get(id)).copied();
        let after = small.map_or(0, |(seq, _)| seq);
        staged
            .overlay
            .iter()
            .rev()
            .take_while(|&&(seq, _, _)| seq > after)
            .find(|(_, _, ids)| ids.contains(id))
            .map(|&(_, added, _)| added)
            .or(small.map(|(_, added)| added))
    }

    /// Publishes `snap` as it is (a reader's reload of a newer commit).
    pub(crate) fn publish(&self, snap: Snapshot) {
        let _refreshing = lock(&self.refresh_lock);
        retire(self.current.swap(Arc::new(snap)));
        *lock(&self.published) = Instant::now();
    }

    fn next_seq(self: &Arc<Self>, staged: &mut Staged) -> u64 {
        staged.seq += 1;
        if staged.since.is_none() {
            staged.since = Some(Instant::now());
            // The background thread runs the automatic refresh.
            self.start_worker();
            self.wake();
        }
        staged.seq
    }

    /// Whether staged writes wait for the refresh mutex's holder.
    fn refresh_wanted(&self) -> bool {
        let staged = lock(&self.staged);
        staged.wanted && !staged.ops.is_empty()
    }

    pub(super) fn refresh(self: &Arc<Self>) {
        let guard = lock(&self.refresh_lock);
        self.refresh_holding(guard);
    }

    fn try_refresh(self: &Arc<Self>) -> bool {
        // Set before trying: a holder that releases after this sees it and publishes.
        lock(&self.staged).wanted = true;
        match try_lock(&self.refresh_lock) {
            Some(guard) => {
                self.refresh_holding(guard);
                true
            }
            None => false,
        }
    }

    /// Publishes staged writes until none are left (a merge commit passes 'publish'
    /// false: it publishes only writes whose writer asked), then releases the refresh
    /// mutex and takes it again if a writer's `try_refresh` failed in between.
    fn refresh_holding<'a>(self: &'a Arc<Self>, guard: MutexGuard<'a, ()>) {
        self.refresh_holding_if(true, guard)
    }

    fn refresh_holding_if<'a>(self: &'a Arc<Self>, mut publish: bool, mut guard: MutexGuard<'a, ()>) {
        loop {
            if publish || self.refresh_wanted() {
                self.publish_staged();
            }
            publish = true;
            drop(guard);
            if !self.refresh_wanted() {
                return;
            }
            match try_lock(&self.refresh_lock) {
                Some(g) => guard = g,
                None => return,
            }
        }
    }

    /// Under the refresh mutex: drains and applies the staged operations, one snapshot
    /// per drain, until nothing is staged. Nothing is allocated or freed under the staged
    /// mutex, the one lock event-loop calls wait for: a free can stall for seconds when
    /// the allocator consolidates millions of chunks (glibc does under its arena lock),
    /// and a sync `add`/`remove`/`has` would wait for it.
    fn publish_staged(self: &Arc<Self>) {
        loop {
            let mut fresh_ops = Vec::with_capacity(OPS_RESERVE);
            let (ops, seq, logged, pending) = {
                let mut staged = lock(&self.staged);
                if staged.ops.is_empty() {
                    staged.wanted = false;
                    return;
                }
                staged.since = None;
                staged.wanted = false;
                std::mem::swap(&mut staged.ops, &mut fresh_ops);
                let staged = &mut *staged;
                if staged.small_in_flight.is_empty() {
                    std::mem::swap(&mut staged.small, &mut staged.small_in_flight);
                } else {
                    // Left by a refresh that panicked after its drain (its ops are lost, as its big
                    // sets are, until this publish drops them).
                    staged.small_in_flight.extend(staged.small.drain());
                }
                (fresh_ops, staged.seq, staged.logged, staged.pending)
            };
            // One overlay entry per operation: room for the ones this drain publishes.
            let mut published_ids = Vec::with_capacity(ops.len());
            let mut next = apply(&self.current.load(), ops);
            next.seq = seq;
            next.logged = logged;
            retire(self.current.swap(Arc::new(next)));
            *lock(&self.published) = Instant::now();
            let mut staged = lock(&self.staged);
            // Oldest first: the published entries are a prefix.
            let n = staged.overlay.partition_point(|&(s, _, _)| s <= seq);
            published_ids.extend(staged.overlay.drain(..n));
            let published_small = std::mem::take(&mut staged.small_in_flight);
            // Writes staged meanwhile are still pending.
            let published = pending.min(staged.pending);
            staged.pending -= published;
            drop(staged);
            drop(published_ids);
            drop(published_small);
            self.start_worker();
            self.wake();
        }
    }

    fn wake(&self) {
        // SeqCst with the worker's store of `deep` and load of `poke`: one of the two sees
        // the other, so a poke is never missed by a worker going to sleep.
        self.signal.poke.store(true, Ordering::SeqCst);
        if self.signal.deep.load(Ordering::SeqCst) {
            lock(&self.signal.state).wake = true;
            // After the unlock: a worker woken under the lock would block on it at once,
            // and the unlock would wake it a second time.
            self.signal.cv.notify_all();
        }
    }

    /// The background thread (merges and auto refresh), started at the first write. It
    /// holds the index weakly and ends when the index is dropped.
    fn start_worker(self: &Arc<Self>) {
        {
            let mut s = lock(&self.signal.state);
            if s.started {
                return;
            }
            s.started = true;
        }
        let weak = Arc::downgrade(self);
        let signal = self.signal.clone();
        let spawned = std::thread::Builder::new()
            .name("ragrank-bm25".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                crate::background::lower_current_thread();
                worker(weak, signal)
            });
        if spawned.is_err() {
            // No thread: merges then run only when asked (`merge`), writes stay correct.
            lock(&self.signal.state).started = false;
        }
    }

    /// Runs one merge: picks a run of adjacent segments, builds the merged segment from a
    /// snapshot without any lock but the merge one, then takes the refresh mutex briefly
    /// to carry over removals made meanwhile and swap the run for it.
    fn merge_once(self: &Arc<Self>, all: bool) -> bool {
        if self.writable().is_err() {
            return false;
        }
        let _merging = lock(&self.merge_lock);
        let base = self.current.load_full();
        let run = if all {
            (base.segs.len() > 1 || base.segs.iter().any(|s| s.deleted.count() > 0)).then(|| 0..base.segs.len())
        } else {
            merge::pick(&base.segs)
        };
        let Some(run) = run else { return false };
        let (merged, remap) = merge::build(&base, run.clone());
        let guard = lock(&self.refresh_lock);
        let now = self.current.load_full();
        let first = &base.segs[run.start];
        let Some(at) = now.segs.iter().position(|s| Arc::ptr_eq(&s.seg, &first.seg)) else {
            drop(guard);
            return false;
        };
        let same_run = run.len() <= now.segs.len() - at
            && run
                .clone()
                .zip(at..)
                .all(|(i, j)| Arc::ptr_eq(&base.segs[i].seg, &now.segs[j].seg));
        if !same_run {
            // A refresh dropped a segment of the run (all of it removed): try again later.
            drop(guard);
            return false;
        }
        let mut deleted = Deleted::new(merged.len());
        for (r, i) in run.clone().enumerate() {
            let (before, after) = (&base.segs[i].deleted, &now.segs[at + r].deleted);
            if !Arc::ptr_eq(before, after) {
                for local in after.added_since(before) {
                    deleted.insert(remap[r][local as usize]);
                }
            }
        }
        let mut next = (*now).clone();
        let mut segs = now.segs.clone();
        segs.splice(at..at + run.len(), [SegRef::new(Arc::new(merged), Arc::new(deleted))]);
        next.set_segments(segs);
        drop(now);
        retire(self.current.swap(Arc::new(next)));
        *lock(&self.published) = Instant::now();
        self.refresh_holding_if(false, guard);
        true
    }
}

fn worker(weak: Weak<Shared>, signal: Arc<Signal>) {
    let mut poked = Instant::now();
    loop {
        if signal.poke.swap(false, Ordering::SeqCst) {
            poked = Instant::now();
        }
        let timeout = {
            let Some(shared) = weak.upgrade() else { return };
            if lock(&signal.state).stop {
                return;
            }
            let refresh_ms = shared.refresh_ms.load(Ordering::Relaxed);
            let since = lock(&shared.staged).since;
            let mut timeout = None;
            if let (Some(since), true) = (since, refresh_ms > 0) {
                let due = Duration::from_millis(refresh_ms);
                let waited = since.elapsed();
                if waited >= due {
                    shared.refresh();
                } else {
                    timeout = Some(due - waited);
                }
            }
            let mut merged = false;
            while shared.merge_once(false) {
                merged = true;
                if lock(&signal.state).stop {
                    return;
                }
            }
            // Not once closed or dropped: the directory is let go then (another open of it
            // in this process must not find it held by this thread).
            let dir = merged
                .then(|| {
                    let mut s = lock(&signal.state);
                    let dir = (!s.stop && !s.held)
                        .then(|| shared.directory.get()?.upgrade())
                        .flatten();
                    s.committing = dir.is_some();
                    dir
                })
                .flatten();
            if let Some(dir) = dir {
                // A merge is committed at once, so its inputs' files can go; a failure
                // (a full disk) leaves the last commit as it was, and the next commit retries.
                let _ = dir.commit();
                drop(dir);
                lock(&signal.state).committing = false;
                signal.cv.notify_all();
            }
            let snap = shared.current.load_full();
            if !snap.is_precomputed() {
                let stood = lock(&shared.published).elapsed();
                if stood >= QUIET {
                    snap.precompute();
                } else {
                    let left = QUIET - stood;
                    timeout = Some(timeout.map_or(left, |t: Duration| t.min(left)));
                }
            }
            timeout
        };
        let active = poked.elapsed() < WORKER_ACTIVE;
        let timeout = if active {
            Some(timeout.map_or(WORKER_POLL, |t| t.min(WORKER_POLL)))
        } else {
            timeout
        };
        let mut s = lock(&signal.state);
        signal.deep.store(!active, Ordering::SeqCst);
        if signal.poke.load(Ordering::SeqCst) {
            s.wake = true;
        }
        while !s.wake && !s.stop {
            match timeout {
                None => s = signal.cv.wait(s).unwrap_or_else(|p| p.into_inner()),
                Some(t) => {
                    let (g, result) = signal.cv.wait_timeout(s, t).unwrap_or_else(|p| p.into_inner());
                    s = g;
                    if result.timed_out() {
                        break;
                    }
                }
            }
        }
        s.wake = false;
        signal.deep.store(false, Ordering::SeqCst);
    }
}

/// The snapshot after `ops`, applied in order to `base`.
fn apply(base: &Snapshot, ops: Vec<Op>) -> Snapshot {
    let mut a = Apply {
        segs: base.segs.clone(),
        next: base.clone(),
        added: Vec::new(),
        added_of: FxHashMap::default(),
    };
    let mut batches: Vec<AnalyzedBatch> = Vec::new();
    // Whether an operation at or after each one may remove a document: only documents
    // added before such an operation need to be found by id (a plain add of 100k
    // documents then builds no id map here).
    let mut removes_from = vec![false; ops.len() + 1];
    for (i, op) in ops.iter().enumerate().rev() {
        removes_from[i] = removes_from[i + 1] || matches!(op, Op::Remove(_) | Op::Add(_, true));
    }
    for (i, op) in ops.into_iter().enumerate() {
        match op {
            Op::Add(new, upsert) => {
                for batch in new {
                    for (j, d) in batch.docs.iter().enumerate() {
                        // Without upsert, staging checked that no copy exists (counting
                        // the operations before this one): nothing to look up.
                        if upsert {
                            a.remove(&d.id);
                        }
                        if removes_from[i] {
                            a.added_of.insert(d.id.clone(), a.added.len());
                        }
                        a.added.push((batches.len(), j, true));
                    }
                    batches.push(batch);
                }
            }
            Op::Remove(ids) => ids.iter().for_each(|id| a.remove(id)),
        }
    }
    let Apply {
        mut segs,
        mut next,
        added,
        ..
    } = a;
    let mut alive: Vec<Vec<bool>> = batches.iter().map(|b| vec![false; b.docs.len()]).collect();
    for &(b, j, live) in &added {
        alive[b][j] = live;
    }
    let mut builder = SegmentBuilder::new();
    let (docs, pairs) = batches
        .iter()
        .zip(&alive)
        .flat_map(|(b, a)| b.docs.iter().zip(a))
        .filter(|(_, &a)| a)
        .fold((0, 0), |(n, p), (d, _)| (n + 1, p + d.counts.len()));
    builder.reserve(docs, pairs);
    for (batch, alive) in batches.into_iter().zip(alive) {
        for (d, _) in batch.docs.iter().zip(&alive).filter(|(_, &a)| a) {
            next.live += 1;
            next.total_len += d.len as u64;
        }
        builder.push_batch(batch, |j| alive[j]);
    }
    if !builder.is_empty() {
        let mut seg = builder.finish_on(&next.config.params, next.avg_len(), super::analysis_threads());
        seg.index_fields(&next.config.field_schema());
        let state = next.df_state_mut();
        for t in 0..seg.terms.len() {
            let n = (seg.offsets[t + 1] - seg.offsets[t]) as u32;
            let df = state.map.entry(seg.terms.shared(t as u32)).or_insert(0);
            if *df == 0 {
                state.term_bytes += seg.terms.get(t as u32).len();
            }
            *df += n;
        }
        next.postings += seg.post_docs.len();
        let deleted = Arc::new(Deleted::new(seg.len()));
        segs.push(SegRef::new(Arc::new(seg), deleted));
    }
    next.set_segments(segs);
    next
}

/// The state of one `apply`.
struct Apply {
    segs: Vec<SegRef>,
    next: Snapshot,
    /// Documents added by these operations: (batch, index in batch, still alive).
    added: Vec<(usize, usize, bool)>,
    added_of: FxHashMap<Arc<str>, usize>,
}

impl Apply {
    /// Removes the live copy of `id`, if any: an added one, or one in a segment (its
    /// deletions are cloned the first time, then shared by the next snapshot).
    fn remove(&mut self, id: &str) {
        if let Some(i) = self.added_of.remove(id) {
            self.added[i].2 = false;
            return;
        }
        // Newest first, as `Snapshot::find`, over the deletions made so far.
        let Some((i, local)) = self.segs.iter().enumerate().rev().find_map(|(i, s)| {
            let local = s.seg.local_of(id)?;
            (!s.deleted.contains(local)).then_some((i, local))
        }) else {
            return;
        };
        let s = &mut self.segs[i];
        Arc::make_mut(&mut s.deleted).insert(local);
        let (seg, next) = (&s.seg, &mut self.next);
        next.live -= 1;
        next.total_len -= seg.lens[local as usize] as u64;
        let terms = seg.doc_terms(local);
        next.postings -= terms.len();
        let state = next.df_state_mut();
        for &(t, _) in terms {
            let term = seg.terms.get(t);
            let df = state.map.get_mut(term).expect("a live document's term has a df");
            *df -= 1;
            if *df == 0 {
                state.map.remove(term);
                state.term_bytes -= term.len();
            }
        }
    }
}
