//! A BM25 index bound to a directory (docs/STORAGE.md): its segments as files, a manifest per
//! commit, and the write-ahead log of the writes between commits. The generic parts (lock,
//! manifest, log) are `crate::store`'s; this module adds what is BM25's own: the log records'
//! payloads, the deletion files and rebuilding a snapshot from committed segments.
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustc_hash::FxHashMap;

use super::live::lock;
use super::segment::{AnalyzedBatch, AnalyzedDoc, Deleted};
use super::snapshot::{SegRef, Snapshot};
use super::{df, segment_file, Bm25Index, IdSet, IndexConfig, PreparedDocs};
use crate::analysis::Analyzer;
use crate::checksummed::{self, Format};
use crate::error::{Error, ErrorKind, Result};
use crate::store::lock::WriterLock;
use crate::store::manifest::{self, deletes_file, segment_file as segment_name, Manifest, SegmentEntry};
use crate::store::wal::{self, Durability, Wal};

/// Log record kinds.
pub(crate) const ADD: u8 = 1;
pub(crate) const REMOVE: u8 = 2;
const KIND: &str = "bm25";
const DELETES: Format = Format::new(b"RGRKDELS", 1, "deletion");

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

#[derive(Debug, Default)]
pub struct OpenOptions {
    /// The index options as the caller gave them (a JSON object, keys left out take the
    /// directory's, or the defaults for a new directory).
    pub options: Option<serde_json::Value>,
    pub durability: DurabilityMode,
    pub read_only: bool,
}

/// What an index keeps of its directory.
pub struct Durable {
    dir: PathBuf,
    _lock: Option<WriterLock>,
    read_only: bool,
    /// The last two commits (files of both are kept: a reader may have read the older one).
    committed: Mutex<(Manifest, Option<Manifest>)>,
    /// One commit at a time.
    committing: Mutex<()>,
}

impl Durable {
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn read_only(&self) -> bool {
        self.read_only
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// The log payload of an add: the analysed documents (a replay does not analyse again).
pub(crate) fn encode_add(batches: &[AnalyzedBatch], upsert: bool) -> Vec<u8> {
    let mut out = vec![upsert as u8];
    out.extend_from_slice(&(batches.len() as u32).to_le_bytes());
    for b in batches {
        out.extend_from_slice(&(b.terms.len() as u32).to_le_bytes());
        for t in &b.terms {
            put_bytes(&mut out, t.as_bytes());
        }
        out.extend_from_slice(&(b.docs.len() as u32).to_le_bytes());
        for d in &b.docs {
            put_bytes(&mut out, d.id.as_bytes());
            out.extend_from_slice(&d.len.to_le_bytes());
            out.extend_from_slice(&(d.counts.len() as u32).to_le_bytes());
            for &(t, tf) in &d.counts {
                out.extend_from_slice(&t.to_le_bytes());
                out.extend_from_slice(&tf.to_le_bytes());
            }
            out.push(d.text.is_some() as u8 | (d.meta.is_some() as u8) << 1);
            if let Some(text) = &d.text {
                put_bytes(&mut out, text.as_bytes());
            }
            if let Some(meta) = &d.meta {
                put_bytes(&mut out, &serde_json::to_vec(meta).unwrap_or_default());
            }
        }
    }
    out
}

pub(crate) fn encode_remove(ids: &[String]) -> Vec<u8> {
    let mut out = (ids.len() as u32).to_le_bytes().to_vec();
    for id in ids {
        put_bytes(&mut out, id.as_bytes());
    }
    out
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        (n <= self.0.len()).then(|| {
            let (a, b) = self.0.split_at(n);
            self.0 = b;
            a
        })
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

fn decode_add(payload: &[u8]) -> Option<(PreparedDocs, bool)> {
    let mut c = Cursor(payload);
    let upsert = c.take(1)?[0] != 0;
    let mut batches = Vec::new();
    let mut ids = IdSet::default();
    for _ in 0..c.u32()? {
        let mut batch = AnalyzedBatch::default();
        for _ in 0..c.u32()? {
            batch.terms.push(c.string()?.into_boxed_str());
        }
        for _ in 0..c.u32()? {
            let id: Arc<str> = c.string()?.into();
            let len = c.u32()?;
            let mut counts = Vec::new();
            for _ in 0..c.u32()? {
                let (t, tf) = (c.u32()?, c.u32()?);
                if t as usize >= batch.terms.len() {
                    return None;
                }
                counts.push((t, tf));
            }
            let flags = c.take(1)?[0];
            let text = if flags & 1 != 0 { Some(c.string()?) } else { None };
            let meta = if flags & 2 != 0 {
                Some(serde_json::from_str(&c.string()?).ok()?)
            } else {
                None
            };
            ids.insert(id.clone());
            batch.docs.push(AnalyzedDoc {
                id,
                counts,
                len,
                text,
                meta,
            });
        }
        batches.push(batch);
    }
    c.0.is_empty().then_some((PreparedDocs { batches, ids }, upsert))
}

fn decode_remove(payload: &[u8]) -> Option<Vec<String>> {
    let mut c = Cursor(payload);
    let ids = (0..c.u32()?).map(|_| c.string()).collect::<Option<Vec<_>>>()?;
    c.0.is_empty().then_some(ids)
}

fn write_deletes(path: &Path, deleted: &Deleted) -> Result<()> {
    let never = AtomicBool::new(false);
    checksummed::write(path, &DELETES, &never, |w| {
        w.put(
            &deleted
                .words()
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    })
}

fn read_deletes(path: &Path, docs: usize) -> Result<Deleted> {
    let never = AtomicBool::new(false);
    let named = |e: Error| Error::new(e.kind, format!("{}: {}", path.display(), e.message));
    let data = checksummed::read_file(path, &never).map_err(named)?;
    let payload = checksummed::payload(&data, &DELETES, &never).map_err(named)?;
    let words = payload
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    Deleted::from_words(docs, words)
        .filter(|_| payload.len() % 8 == 0)
        .ok_or_else(|| Error::corrupt(format!("{}: does not fit its segment", path.display())))
}

/// A missing file the manifest names is damage, not an I/O error of the caller's.
fn missing_is_corrupt(e: Error, path: &Path) -> Error {
    if e.kind == ErrorKind::Io && !path.exists() {
        Error::corrupt(format!("{} is missing (the manifest names it)", path.display()))
    } else {
        e
    }
}

/// The options a new directory is created with, or a check that those given agree with the
/// directory's: each key given must equal the recorded one.
fn settle_config(given: Option<&serde_json::Value>, recorded: Option<&serde_json::Value>) -> Result<IndexConfig> {
    let given_config = match given {
        Some(v) => Some(IndexConfig::from_json(&v.to_string())?),
        None => None,
    };
    let Some(recorded) = recorded else {
        return Ok(given_config.unwrap_or_default());
    };
    let stored: IndexConfig =
        serde_json::from_value(recorded.clone()).map_err(|e| Error::corrupt(format!("bad recorded settings: {e}")))?;
    if let (Some(given), Some(config)) = (given.and_then(|v| v.as_object()), given_config) {
        let full = serde_json::to_value(&config).map_err(|e| Error::invalid(e.to_string()))?;
        let ours = serde_json::to_value(&stored).map_err(|e| Error::invalid(e.to_string()))?;
        let differ: Vec<&str> = given
            .keys()
            .filter(|k| {
                full.get(k.as_str()).unwrap_or(&serde_json::Value::Null)
                    != ours.get(k.as_str()).unwrap_or(&serde_json::Value::Null)
            })
            .map(String::as_str)
            .collect();
        if !differ.is_empty() {
            return Err(Error::invalid(format!(
                "options {} differ from those the directory's index was built with (leave them out to use the recorded ones)",
                differ.join(", ")
            )));
        }
    }
    Ok(stored)
}

/// The snapshot of committed segments. N, total length and postings come from each
/// segment's persisted counts less its removed documents'; the df map is deferred
/// (`df::GlobalDf`): only the removed documents' terms are walked, never the postings.
fn snapshot_of(config: Arc<IndexConfig>, analyzer: Arc<Analyzer>, segs: Vec<SegRef>, seq: u64) -> Snapshot {
    let mut snap = Snapshot::empty(config, analyzer);
    let mut removed = FxHashMap::default();
    for s in segs.iter().filter(|s| s.live() > 0) {
        snap.live += s.live();
        snap.total_len += s.seg.total_len;
        snap.postings += s.seg.fwd.len();
        for local in s.deleted.added_since(&Deleted::default()) {
            snap.total_len -= s.seg.lens[local as usize] as u64;
            snap.postings -= s.seg.doc_terms(local).len();
        }
        df::removed_terms(s, &mut removed);
    }
    snap.set_segments(segs);
    snap.df = df::GlobalDf::deferred(removed);
    snap.seq = seq;
    snap
}

fn load_segments(dir: &Path, m: &Manifest, config: &IndexConfig, reuse: &[SegRef]) -> Result<Vec<SegRef>> {
    let schema = config.field_schema();
    let mut segs = Vec::new();
    for e in m.indexes.get(KIND).map_or(&[][..], Vec::as_slice) {
        let known = reuse.iter().find(|s| s.seg.number.get() == Some(&e.segment));
        let seg = match known {
            Some(s) => s.seg.clone(),
            None => {
                let path = dir.join(segment_name(KIND, e.segment));
                let seg =
                    segment_file::read(&path, e.segment, &schema).map_err(|err| missing_is_corrupt(err, &path))?;
                let _ = seg.number.set(e.segment);
                Arc::new(seg)
            }
        };
        if seg.len() as u64 != e.docs {
            return Err(Error::corrupt(format!(
                "{}: holds {} documents, the manifest says {}",
                segment_name(KIND, e.segment),
                seg.len(),
                e.docs
            )));
        }
        let deleted = match (known, e.deletes) {
            (Some(s), _) if s.deleted.count() as u64 == e.deleted => s.deleted.clone(),
            (_, Some(d)) => {
                let path = dir.join(deletes_file(e.segment, d));
                Arc::new(read_deletes(&path, seg.len()).map_err(|err| missing_is_corrupt(err, &path))?)
            }
            (_, None) => Arc::new(Deleted::new(seg.len())),
        };
        if deleted.count() as u64 != e.deleted {
            return Err(Error::corrupt(format!(
                "{}: the deletions do not match the manifest",
                segment_name(KIND, e.segment)
            )));
        }
        segs.push(SegRef::new(seg, deleted));
    }
    Ok(segs)
}

impl Bm25Index {
    /// Opens (or creates) the index bound to `dir`. A writer takes the directory's lock,
    /// replays the log after the last commit and then logs its writes as `durability` says;
    /// a reader (`read_only`) maps the last commit and sees later ones at `reload`.
    pub fn open(dir: &Path, opts: OpenOptions) -> Result<Bm25Index> {
        if !opts.read_only {
            std::fs::create_dir_all(dir)?;
        }
        if !dir.is_dir() {
            return Err(Error::new(
                ErrorKind::Io,
                format!("{} is not a directory", dir.display()),
            ));
        }
        let lock = if opts.read_only {
            None
        } else {
            Some(WriterLock::acquire(dir)?)
        };
        let newest = Manifest::newest(dir)?;
        let config = settle_config(
            opts.options.as_ref(),
            newest.as_ref().and_then(|m| m.settings.get(KIND)),
        )?;
        config.params.validate()?;
        let analyzer = Arc::new(Analyzer::new(config.analyzer.clone())?);
        let config = Arc::new(config);
        let manifest = match newest {
            Some(m) => m,
            None if opts.read_only => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!("{} holds no committed index", dir.display()),
                ))
            }
            None => {
                let m = Manifest {
                    generation: 1,
                    next_segment: 1,
                    settings: [(
                        KIND.to_string(),
                        serde_json::to_value(&*config).map_err(|e| Error::invalid(e.to_string()))?,
                    )]
                    .into(),
                    indexes: [(KIND.to_string(), Vec::new())].into(),
                    ..Default::default()
                };
                m.commit(dir)?;
                m
            }
        };
        let segs = load_segments(dir, &manifest, &config, &[])?;
        // Not precomputed here (O(postings)): the background thread does it once quiet.
        let snap = snapshot_of(config, analyzer, segs, manifest.seq);
        let mut index = Bm25Index::from_snapshot(snap);
        index.shared.set_seq(manifest.seq);
        if !opts.read_only {
            let records = wal::replay(dir, manifest.seq)?;
            for r in &records {
                index.shared.set_seq(r.seq - 1);
                let bad = || Error::corrupt(format!("{}: a log record does not parse", dir.display()));
                match r.kind {
                    ADD => {
                        let (docs, upsert) = decode_add(&r.payload).ok_or_else(bad)?;
                        index.stage_add(docs, upsert)?;
                    }
                    REMOVE => {
                        index.stage_remove(&decode_remove(&r.payload).ok_or_else(bad)?)?;
                    }
                    _ => return Err(bad()),
                }
            }
            index.refresh();
            let next_log = wal::generations(dir)?.last().map_or(1, |g| g + 1);
            let durability = match opts.durability {
                DurabilityMode::Commit => None,
                DurabilityMode::Sync => Some(Durability::Sync),
                DurabilityMode::Async(every) => Some(Durability::Async(every)),
            };
            if let Some(d) = durability {
                let _ = index.shared.wal.set(Wal::create(dir, next_log, d)?);
            }
        }
        index.durable = Some(Arc::new(Durable {
            dir: dir.to_path_buf(),
            _lock: lock,
            read_only: opts.read_only,
            committed: Mutex::new((manifest, None)),
            committing: Mutex::new(()),
        }));
        Ok(index)
    }

    pub fn durable(&self) -> Option<&Durable> {
        self.durable.as_deref()
    }

    /// Makes every write so far durable: publishes the staged writes, writes the segments
    /// and deletions no commit has, then the manifest; removes what no kept manifest needs.
    /// Returns the manifest written (the last one when nothing changed).
    pub fn commit(&self) -> Result<Manifest> {
        let Some(d) = self.durable.as_deref() else {
            return Err(Error::invalid(
                "commit needs an index opened from a directory (Bm25Index.open)",
            ));
        };
        if d.read_only {
            return Err(Error::invalid("a read-only index cannot commit"));
        }
        let _committing = lock(&d.committing);
        let covered_log = match self.shared.wal.get() {
            Some(wal) => Some(wal.rotate()?),
            None => None,
        };
        self.refresh();
        let snap = self.snapshot();
        let (last, _) = lock(&d.committed).clone();
        let mut next = last.clone();
        next.generation += 1;
        next.seq = snap.seq;
        let never = AtomicBool::new(false);
        let mut entries = Vec::with_capacity(snap.segs.len());
        let mut wrote_any = false;
        for s in &snap.segs {
            let number = match s.seg.number.get() {
                Some(&n) => n,
                None => {
                    let n = next.next_segment;
                    next.next_segment += 1;
                    segment_file::write(&s.seg, &d.dir.join(segment_name(KIND, n)), &never)?;
                    let _ = s.seg.number.set(n);
                    wrote_any = true;
                    n
                }
            };
            let before = last
                .indexes
                .get(KIND)
                .and_then(|es| es.iter().find(|e| e.segment == number));
            let deleted = s.deleted.count() as u64;
            let deletes = match before {
                Some(e) if e.deleted == deleted => e.deletes,
                _ if deleted == 0 => None,
                _ => {
                    write_deletes(&d.dir.join(deletes_file(number, next.generation)), &s.deleted)?;
                    wrote_any = true;
                    Some(next.generation)
                }
            };
            entries.push(SegmentEntry {
                segment: number,
                docs: s.seg.len() as u64,
                deleted,
                deletes,
            });
        }
        let same = !wrote_any && last.indexes.get(KIND) == Some(&entries) && last.seq == next.seq;
        if same {
            return Ok(last);
        }
        next.indexes.insert(KIND.to_string(), entries);
        crate::store::sync_dir(&d.dir)?;
        next.commit(&d.dir)?;
        *lock(&d.committed) = (next.clone(), Some(last.clone()));
        if let (Some(wal), Some(old)) = (self.shared.wal.get(), covered_log) {
            wal.remove_before(old + 1)?;
        } else if covered_log.is_none() {
            // Logs an earlier writer left (another durability) are covered too.
            for g in wal::generations(&d.dir)? {
                let _ = std::fs::remove_file(d.dir.join(wal::log_file(g)));
            }
        }
        manifest::remove_unreferenced(&d.dir, &[&next, &last])?;
        Ok(next)
    }

    /// A reader's refresh: maps the segments of a newer commit, if the writer made one.
    /// True if the index changed.
    pub fn reload(&self) -> Result<bool> {
        let Some(d) = self.durable.as_deref() else {
            return Err(Error::invalid(
                "reload needs an index opened from a directory (Bm25Index.open)",
            ));
        };
        // A file the writer removed between the manifest read and the open: read again.
        for attempt in 0.. {
            let Some(newest) = Manifest::newest(&d.dir)? else {
                return Ok(false);
            };
            if newest.generation <= lock(&d.committed).0.generation {
                return Ok(false);
            }
            let current = self.snapshot();
            match load_segments(&d.dir, &newest, &current.config, &current.segs) {
                Ok(segs) => {
                    let snap = snapshot_of(current.config.clone(), current.analyzer.clone(), segs, newest.seq);
                    self.shared.publish(snap);
                    let mut committed = lock(&d.committed);
                    let last = std::mem::replace(&mut committed.0, newest);
                    committed.1 = Some(last);
                    return Ok(true);
                }
                Err(e) if e.kind == ErrorKind::CorruptIndex && attempt < 3 => continue,
                Err(e) => return Err(e),
            }
        }
        unreachable!()
    }
}
