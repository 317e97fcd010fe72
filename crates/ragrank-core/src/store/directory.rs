//! One durable directory (docs/STORAGE.md) and the indexes bound to it: the writer lock, the
//! commit points, the write-ahead log they share, and the commit that writes every index's
//! new files and then one manifest naming them all. A BM25 index and a vector index opened on
//! the same path in one process share one `Directory`, so they commit together and a crash
//! never leaves one side ahead of the other.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::lock;
use super::lock::WriterLock;
use super::manifest::{self, Manifest, SegmentEntry};
use super::wal::{self, Durability, Record, Wal};
use crate::error::{Error, ErrorKind, Result};

/// When a write of an index bound to a directory is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DurabilityMode {
    /// At the next commit (no log).
    #[default]
    Commit,
    /// Logged and fsync'd before the write returns.
    Sync,
    /// Logged; fsync'd on this interval.
    Async(Duration),
}

/// The index kinds a directory holds, each with the log record kinds it writes.
pub const BM25: &str = "bm25";
pub const VECTORS: &str = "vectors";

/// The index kind a log record belongs to (each kind writes its own record kinds).
pub fn kind_of_record(record: u8) -> &'static str {
    if record < 16 {
        BM25
    } else {
        VECTORS
    }
}

/// An index bound to a directory, as the commit sees it.
pub trait Part: Send + Sync {
    /// Publishes every write made so far, writes the files of this kind the last commit
    /// lacks (new segments in `next.next_segment` order, changed deletions) and returns the
    /// kind's segments as of now with the log position of the newest logged write they hold
    /// (writes logged after the log rotated may be among them: the commit covers them too).
    fn write_commit(self: Arc<Self>, dir: &Path, last: &Manifest, next: &mut Manifest) -> Result<Committed>;
    /// A reader's view moves to `manifest` (its files exist: the writer keeps those of the
    /// last two commits).
    fn reload(self: Arc<Self>, dir: &Path, manifest: &Manifest) -> Result<()>;
}

/// What one kind's part of a commit holds.
pub struct Committed {
    pub segments: Vec<SegmentEntry>,
    /// The log position of the newest logged write in `segments` (0: none).
    pub logged: u64,
}

struct Attached {
    parts: BTreeMap<&'static str, Weak<dyn Part>>,
    /// Replayed records of kinds no index has claimed yet.
    unclaimed: Vec<Record>,
}

pub struct Directory {
    path: PathBuf,
    read_only: bool,
    durability: DurabilityMode,
    _lock: Option<WriterLock>,
    wal: Option<Arc<Wal>>,
    /// The log position of the last record read at open.
    replayed_to: u64,
    /// The last two commits (a reader may still read the older one's files).
    committed: Mutex<(Manifest, Option<Manifest>)>,
    /// One commit (or reload) at a time.
    committing: Mutex<()>,
    attached: Mutex<Attached>,
}

/// The directories open in this process, by canonical path and mode: a second index opened
/// on one joins it instead of failing on the lock.
static OPEN: Mutex<Vec<(PathBuf, bool, Weak<Directory>)>> = Mutex::new(Vec::new());

impl Directory {
    /// Opens `path` (created for a writer). A writer takes the lock, reads the newest commit,
    /// reads the log written since and starts its own log as `durability` says; a reader
    /// (`read_only`) reads the newest commit, and later ones at `reload`. For an index of
    /// `kind`: a reader joins a reader of this process that has no index of that kind yet, or
    /// opens its own (readers take no lock, so a process may hold any number).
    pub fn open(path: &Path, kind: &str, read_only: bool, durability: DurabilityMode) -> Result<Arc<Directory>> {
        if !read_only {
            std::fs::create_dir_all(path)?;
        }
        if !path.is_dir() {
            return Err(Error::new(
                ErrorKind::Io,
                format!("{} is not a directory", path.display()),
            ));
        }
        let canonical = path.canonicalize()?;
        let mut open = lock(&OPEN);
        open.retain(|(_, _, d)| d.strong_count() > 0);
        if let Some(d) = open
            .iter()
            .filter(|(p, ro, _)| *p == canonical && *ro == read_only)
            .filter_map(|(_, _, d)| d.upgrade())
            .find(|d| !read_only || !d.has(kind))
        {
            if !read_only && d.durability != durability {
                return Err(Error::invalid(format!(
                    "{} is open in this process with durability {:?}: open it again with the same",
                    path.display(),
                    d.durability
                )));
            }
            return Ok(d);
        }
        let writer_lock = if read_only {
            None
        } else {
            Some(WriterLock::acquire(path)?)
        };
        let manifest = match Manifest::newest(path)? {
            Some(m) => m,
            None if read_only => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!("{} holds no committed index", path.display()),
                ))
            }
            None => {
                let m = Manifest {
                    generation: 1,
                    next_segment: 1,
                    ..Default::default()
                };
                m.commit(path)?;
                m
            }
        };
        // Its files are kept with the newest's (a reader may have read it).
        let previous = Some(path.join(manifest::manifest_file(manifest.generation.saturating_sub(1))))
            .filter(|p| manifest.generation > 1 && p.exists())
            .and_then(|p| Manifest::read(&p).ok());
        let (unclaimed, wal, replayed_to) = if read_only {
            (Vec::new(), None, manifest.seq)
        } else {
            let records: Vec<Record> = wal::replay(path, 0)?
                .into_iter()
                .filter(|r| r.seq > covered(&manifest, kind_of_record(r.kind)))
                .collect();
            let last_seq = records.last().map_or(manifest.seq, |r| r.seq.max(manifest.seq));
            let next_log = wal::generations(path)?.last().map_or(1, |g| g + 1);
            let wal = match durability {
                DurabilityMode::Commit => None,
                DurabilityMode::Sync => Some(Wal::create(path, next_log, Durability::Sync, last_seq)?),
                DurabilityMode::Async(every) => Some(Wal::create(path, next_log, Durability::Async(every), last_seq)?),
            };
            (records, wal, last_seq)
        };
        let d = Arc::new(Directory {
            path: path.to_path_buf(),
            read_only,
            durability,
            _lock: writer_lock,
            wal,
            replayed_to,
            committed: Mutex::new((manifest, previous)),
            committing: Mutex::new(()),
            attached: Mutex::new(Attached {
                parts: BTreeMap::new(),
                unclaimed,
            }),
        });
        open.push((canonical, read_only, Arc::downgrade(&d)));
        Ok(d)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// The log the writes are appended to (durability `sync` or `async`).
    pub fn wal(&self) -> Option<&Arc<Wal>> {
        self.wal.as_ref()
    }

    /// The newest commit this process wrote or read.
    pub fn manifest(&self) -> Manifest {
        lock(&self.committed).0.clone()
    }

    /// Whether an index of `kind` is attached and alive.
    fn has(&self, kind: &str) -> bool {
        lock(&self.attached)
            .parts
            .get(kind)
            .is_some_and(|p| p.strong_count() > 0)
    }

    /// Binds the index of `kind` to this directory: records its settings in a first commit
    /// when the directory has none for it, and returns the log records it must replay, oldest
    /// first. One writer's index per kind per directory and process.
    pub fn attach(&self, kind: &'static str, part: Weak<dyn Part>, settings: serde_json::Value) -> Result<Vec<Record>> {
        let mut attached = lock(&self.attached);
        if attached.parts.get(kind).is_some_and(|p| p.strong_count() > 0) {
            // Only a writer's: readers of a kind open a directory each (`open`).
            return Err(Error::new(
                ErrorKind::Locked,
                format!(
                    "{}: its {kind} index is already open in this process (use that one)",
                    self.path.display()
                ),
            ));
        }
        attached.parts.insert(kind, part);
        let (mine, others) = std::mem::take(&mut attached.unclaimed)
            .into_iter()
            .partition(|r| kind_of_record(r.kind) == kind);
        attached.unclaimed = others;
        drop(attached);
        if !self.read_only && !lock(&self.committed).0.settings.contains_key(kind) {
            let _committing = lock(&self.committing);
            let (last, _) = lock(&self.committed).clone();
            let mut next = last.clone();
            next.generation += 1;
            next.settings.insert(kind.to_string(), settings);
            next.indexes.entry(kind.to_string()).or_default();
            next.commit(&self.path)?;
            *lock(&self.committed) = (next, Some(last));
        }
        Ok(mine)
    }

    /// Unbinds the index of `kind` (closed): a later `attach` may bind another.
    pub fn detach(&self, kind: &str) {
        lock(&self.attached).parts.remove(kind);
    }

    /// The settings recorded for `kind`, if a commit recorded them.
    pub fn settings(&self, kind: &str) -> Option<serde_json::Value> {
        lock(&self.committed).0.settings.get(kind).cloned()
    }

    /// Makes every write so far of every attached index durable: starts a new log, has each
    /// index publish its writes and write its new files, then writes the manifest naming them
    /// all and removes what no kept commit needs. Returns the manifest (the last one when
    /// nothing changed).
    pub fn commit(&self) -> Result<Manifest> {
        if self.read_only {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!("{} was opened read-only: the writer commits", self.path.display()),
            ));
        }
        let _committing = lock(&self.committing);
        // Every write logged before the rotation is staged already (writes log and stage under
        // one lock), so the publishing below includes it: the new manifest covers the old logs.
        let rotated = match &self.wal {
            Some(wal) => Some(wal.rotate()?),
            None => None,
        };
        let (last, previous) = lock(&self.committed).clone();
        let mut next = last.clone();
        next.generation += 1;
        let parts: Vec<(&'static str, Arc<dyn Part>)> = lock(&self.attached)
            .parts
            .iter()
            .filter_map(|(k, p)| Some((*k, p.upgrade()?)))
            .collect();
        // Without a log of its own, what this writer covers is what it replayed at open.
        let seq = rotated.map_or(self.replayed_to, |(_, seq)| seq);
        for (kind, part) in &parts {
            let part = part.clone().write_commit(&self.path, &last, &mut next)?;
            let covers = seq.max(part.logged);
            next.indexes.insert(kind.to_string(), part.segments);
            next.covered.insert(kind.to_string(), covers);
            next.seq = next.seq.max(covers);
        }
        next.seq = next.seq.max(seq);
        let mut unchanged = next.clone();
        unchanged.generation = last.generation;
        // Nothing new: the last manifest stays, but what a writer killed after its commit
        // point left behind (covered logs, unreferenced files) is removed all the same.
        let (newest, older) = if unchanged == last {
            (last, previous)
        } else {
            super::sync_dir(&self.path)?;
            next.commit(&self.path)?;
            *lock(&self.committed) = (next.clone(), Some(last.clone()));
            (next, Some(last))
        };
        // Logs stay while they hold writes of an index not open here (its next open replays them).
        if lock(&self.attached).unclaimed.is_empty() {
            match (&self.wal, rotated) {
                (Some(wal), Some((old, _))) => wal.remove_before(old + 1)?,
                _ => {
                    // Logs an earlier writer left (another durability) are covered too.
                    for g in wal::generations(&self.path)? {
                        let _ = std::fs::remove_file(self.path.join(wal::log_file(g)));
                    }
                }
            }
        }
        let keep: Vec<&Manifest> = [Some(&newest), older.as_ref()].into_iter().flatten().collect();
        manifest::remove_unreferenced(&self.path, &keep)?;
        Ok(newest)
    }

    /// A reader's refresh: moves every attached index to the newest commit, if the writer made
    /// a newer one. True if it did.
    pub fn reload(&self) -> Result<bool> {
        let _reloading = lock(&self.committing);
        // A file the writer removed between the manifest read and the open: read again.
        let mut attempt = 0;
        loop {
            let Some(newest) = Manifest::newest(&self.path)? else {
                return Ok(false);
            };
            if newest.generation <= lock(&self.committed).0.generation {
                return Ok(false);
            }
            let parts: Vec<Arc<dyn Part>> = lock(&self.attached).parts.values().filter_map(Weak::upgrade).collect();
            match parts.iter().try_for_each(|p| p.clone().reload(&self.path, &newest)) {
                Ok(()) => {
                    let mut committed = lock(&self.committed);
                    let last = std::mem::replace(&mut committed.0, newest);
                    committed.1 = Some(last);
                    return Ok(true);
                }
                Err(e) if e.kind == ErrorKind::CorruptIndex && attempt < 3 => attempt += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

/// The log position up to which `kind`'s writes are in `m`.
fn covered(m: &Manifest, kind: &str) -> u64 {
    m.covered.get(kind).copied().unwrap_or(0)
}
