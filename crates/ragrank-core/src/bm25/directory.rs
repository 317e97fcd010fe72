//! A BM25 index bound to a directory (docs/STORAGE.md): its segments as files, a manifest per
//! commit, and the write-ahead log of the writes between commits. The generic parts (lock,
//! manifest, log) are `crate::store`'s; this module adds what is BM25's own: the log records'
//! payloads, the deletion files and rebuilding a snapshot from committed segments.
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::live::{lock, Shared};
use super::segment::{AnalyzedBatch, AnalyzedDoc, Deleted};
use super::snapshot::{SegRef, Snapshot};
use super::{df, segment_file, Bm25Index, IdSet, IndexConfig, PreparedDocs};
use crate::analysis::Analyzer;
use crate::error::{Error, ErrorKind, Result};
use crate::store::deletes::{self, missing_is_corrupt};
pub use crate::store::directory::DurabilityMode;
use crate::store::directory::{Committed, Directory, Part, BM25 as KIND};
use crate::store::manifest::{deletes_file, segment_file as segment_name, Manifest, SegmentEntry};
use crate::store::record::{decode_remove, put_bytes, Cursor};

/// Log record kinds.
pub(crate) const ADD: u8 = 1;
pub(crate) const REMOVE: u8 = 2;

#[derive(Debug, Default)]
pub struct OpenOptions {
    /// The index options as the caller gave them (a JSON object, keys left out take the
    /// directory's, or the defaults for a new directory).
    pub options: Option<serde_json::Value>,
    pub durability: DurabilityMode,
    pub read_only: bool,
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
    c.is_done().then_some((PreparedDocs { batches, ids }, upsert))
}

fn write_deletes(path: &Path, deleted: &Deleted) -> Result<()> {
    deletes::write(path, deleted.words())
}

fn read_deletes(path: &Path, docs: usize) -> Result<Deleted> {
    Deleted::from_words(docs, deletes::read(path, docs)?)
        .ok_or_else(|| Error::corrupt(format!("{}: does not fit its segment", path.display())))
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
    /// a reader (`read_only`) reads the last commit and sees later ones at `reload`. A vector
    /// index opened on the same path in this process shares the directory (one commit).
    pub fn open(dir: &Path, opts: OpenOptions) -> Result<Bm25Index> {
        let directory = Directory::open(dir, KIND, opts.read_only, opts.durability)?;
        Self::open_in(directory, opts.options.as_ref())
    }

    /// The index of `directory` (see `open`).
    pub fn open_in(directory: Arc<Directory>, options: Option<&serde_json::Value>) -> Result<Bm25Index> {
        let recorded = directory.settings(KIND);
        if directory.read_only() && recorded.is_none() {
            return Err(Error::new(
                ErrorKind::Io,
                format!("{} holds no committed BM25 index", directory.path().display()),
            ));
        }
        let config = settle_config(options, recorded.as_ref())?;
        config.params.validate()?;
        let analyzer = Arc::new(Analyzer::new(config.analyzer.clone())?);
        let settings = serde_json::to_value(&config).map_err(|e| Error::invalid(e.to_string()))?;
        let config = Arc::new(config);
        let manifest = directory.manifest();
        let segs = load_segments(directory.path(), &manifest, &config, &[])?;
        // Not precomputed here (O(postings)): the background thread does it once quiet.
        let snap = snapshot_of(config, analyzer, segs, 0);
        let index = Bm25Index::from_snapshot(snap);
        let part: std::sync::Weak<dyn Part> = Arc::downgrade(&index.shared) as _;
        let records = directory.attach(KIND, part, settings)?;
        for r in &records {
            let bad = || Error::corrupt(format!("{}: a log record does not parse", directory.path().display()));
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
        if let Some(wal) = directory.wal() {
            let _ = index.shared.wal.set(wal.clone());
        }
        let _ = index.shared.directory.set(Arc::downgrade(&directory));
        index
            .shared
            .read_only
            .store(directory.read_only(), std::sync::atomic::Ordering::Relaxed);
        *lock(&index.directory) = Some(directory);
        Ok(index)
    }

    /// The directory of an index opened from one (none once closed).
    pub fn directory(&self) -> Option<Arc<Directory>> {
        lock(&self.directory).clone()
    }

    /// Lets go of the directory: a writer commits first (a failed commit leaves the index
    /// open and bound), then the index takes no more writes and, once no other index of this
    /// process shares the directory, its lock is released. Searches go on over what it holds.
    pub fn close(&self) -> Result<()> {
        let mut bound = lock(&self.directory);
        let Some(d) = bound.as_ref() else { return Ok(()) };
        self.hold_directory(true);
        if !d.read_only() {
            if let Err(e) = d.commit() {
                self.hold_directory(false);
                return Err(e);
            }
        }
        self.shared.closed.store(true, std::sync::atomic::Ordering::Relaxed);
        d.detach(KIND);
        *bound = None;
        Ok(())
    }

    /// Makes every write so far durable (with those of a vector index sharing the directory):
    /// see `Directory::commit`. Returns the manifest written (the last one when nothing changed).
    pub fn commit(&self) -> Result<Manifest> {
        match self.directory() {
            Some(d) => d.commit(),
            None => Err(Error::invalid(
                "commit needs an index opened from a directory (Bm25Index.open)",
            )),
        }
    }

    /// A reader's refresh: reads the segments of a newer commit, if the writer made one.
    /// True if the index changed.
    pub fn reload(&self) -> Result<bool> {
        match self.directory() {
            Some(d) => d.reload(),
            None => Err(Error::invalid(
                "reload needs an index opened from a directory (Bm25Index.open)",
            )),
        }
    }
}

impl Part for Shared {
    fn write_commit(self: Arc<Self>, dir: &Path, last: &Manifest, next: &mut Manifest) -> Result<Committed> {
        self.refresh();
        let snap = self.current.load_full();
        let never = AtomicBool::new(false);
        let mut entries = Vec::with_capacity(snap.segs.len());
        // A segment numbered by a commit that failed before its manifest keeps its number and
        // file: new ones are numbered after it (the last manifest's count does not know it).
        for s in &snap.segs {
            if let Some(&n) = s.seg.number.get() {
                next.next_segment = next.next_segment.max(n + 1);
            }
        }
        for s in &snap.segs {
            let number = match s.seg.number.get() {
                Some(&n) => n,
                None => {
                    let n = next.next_segment;
                    next.next_segment += 1;
                    segment_file::write(&s.seg, &dir.join(segment_name(KIND, n)), &never)?;
                    let _ = s.seg.number.set(n);
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
                    write_deletes(&dir.join(deletes_file(number, next.generation)), &s.deleted)?;
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
        Ok(Committed {
            segments: entries,
            logged: snap.logged,
        })
    }

    fn reload(self: Arc<Self>, dir: &Path, manifest: &Manifest) -> Result<()> {
        let current = self.current.load_full();
        let segs = load_segments(dir, manifest, &current.config, &current.segs)?;
        let snap = snapshot_of(current.config.clone(), current.analyzer.clone(), segs, current.seq);
        self.publish(snap);
        Ok(())
    }
}
