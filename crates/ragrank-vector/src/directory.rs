//! A vector index bound to a directory (docs/STORAGE.md), on the same machinery as BM25's
//! (`ragrank_core::store`): each chunk is written once as its own file `seg-<n>.vec` (the
//! single-file format of that chunk, mapped at open), removals as `.del` files, the chunks
//! named in the manifest under kind "vectors", and the writes between commits in the log.
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ragrank_core::fields::FieldSchema;
use ragrank_core::store::deletes::{self, missing_is_corrupt};
pub use ragrank_core::store::directory::DurabilityMode;
use ragrank_core::store::directory::{Committed, Directory, Part, VECTORS as KIND};
use ragrank_core::store::lock;
use ragrank_core::store::manifest::{deletes_file, segment_file, Manifest, SegmentEntry};
use ragrank_core::store::record::{decode_remove, put_bytes, Cursor};
use ragrank_core::{Error, ErrorKind, Result};
use serde_json::{json, Map, Value};

use crate::config::{Config, Shortlist};
use crate::index::{NewFields, Part as IndexPart, VectorIndex};
use crate::persist;
use crate::select::RowMask;
use crate::shared::SharedIndex;

/// Log record kinds (16 and up are the vector index's: `kind_of_record`).
pub(crate) const ADD: u8 = 16;
pub(crate) const REMOVE: u8 = 17;

/// The option keys a vector index takes at open, as its constructor does.
const KEYS: [&str; 7] = ["dim", "metric", "storage", "rescore", "shortlist", "fields", "embedder"];

#[derive(Debug, Default)]
pub struct OpenOptions {
    /// The index options as the constructor takes them (a JSON object: `dim`, `metric`,
    /// `storage`, `rescore`, `shortlist`, `fields` with `dynamicFields`, `embedder`); keys left
    /// out take the directory's, or the defaults for a new directory (`dim` is then required).
    pub options: Option<Value>,
    pub durability: DurabilityMode,
    pub read_only: bool,
}

/// The log payload of an add: the rows as the caller gave them (a replay adds them again
/// through the same checks and normalisation, so the rows are bit-identical).
pub(crate) fn encode_add(ids: &[String], vectors: &[f32], fields: &NewFields, upsert: bool) -> Vec<u8> {
    let mut out = vec![upsert as u8];
    out.extend_from_slice(&(ids.len() as u32).to_le_bytes());
    out.extend_from_slice(&(vectors.len() as u64).to_le_bytes());
    for id in ids {
        put_bytes(&mut out, id.as_bytes());
    }
    vectors.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    out.push(u8::from(!fields.metas.is_empty()) | u8::from(!fields.texts.is_empty()) << 1);
    for m in &fields.metas {
        out.push(m.is_some() as u8);
        if let Some(m) = m {
            put_bytes(&mut out, m.to_string().as_bytes());
        }
    }
    for t in &fields.texts {
        out.push(t.is_some() as u8);
        if let Some(t) = t {
            put_bytes(&mut out, t.as_bytes());
        }
    }
    out
}

struct Add {
    ids: Vec<String>,
    vectors: Vec<f32>,
    fields: NewFields,
}

fn decode_add(payload: &[u8]) -> Option<Add> {
    let mut c = Cursor(payload);
    let _upsert = c.u8()?;
    let n = c.u32()? as usize;
    let values = usize::try_from(u64::from_le_bytes(c.take(8)?.try_into().ok()?)).ok()?;
    let ids = (0..n).map(|_| c.string()).collect::<Option<Vec<_>>>()?;
    let bytes = c.take(values.checked_mul(4)?)?;
    let vectors = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect();
    let flags = c.u8()?;
    let mut fields = NewFields::default();
    if flags & 1 != 0 {
        for _ in 0..n {
            fields.metas.push(match c.u8()? {
                0 => None,
                _ => Some(serde_json::from_str(&c.string()?).ok()?),
            });
        }
    }
    if flags & 2 != 0 {
        for _ in 0..n {
            fields.texts.push(match c.u8()? {
                0 => None,
                _ => Some(c.string()?),
            });
        }
    }
    c.is_done().then_some(Add { ids, vectors, fields })
}

/// What a vector index is built with, as the manifest records it.
struct Settings {
    config: Config,
    shortlist: Option<Shortlist>,
    schema: FieldSchema,
    embedder: Option<Value>,
}

impl Settings {
    /// From caller options (see `OpenOptions::options`).
    fn of_options(o: &Map<String, Value>) -> Result<Settings> {
        let unknown: Vec<&str> = o
            .keys()
            .map(String::as_str)
            .filter(|k| !KEYS.contains(k) && *k != "dynamicFields")
            .collect();
        if !unknown.is_empty() {
            return Err(Error::invalid(format!("unknown options: {}", unknown.join(", "))));
        }
        let text = |k: &str| match o.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(Error::invalid(format!("options.{k} must be a string, got {v}"))),
        };
        let dim = match o.get("dim") {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(-1),
            Some(v) => return Err(Error::invalid(format!("options.dim must be an integer, got {v}"))),
            None => return Err(Error::invalid("options.dim is required to create a vector index")),
        };
        let config = Config::from_options(dim, text("metric")?, text("storage")?, text("rescore")?)?;
        let shortlist = match o.get("shortlist") {
            None | Some(Value::Null) => None,
            Some(Value::Object(s)) => {
                let n = |k: &str| s.get(k).and_then(Value::as_i64);
                Some(Shortlist::new(n("perTopK"), n("rows"))?)
            }
            Some(v) => return Err(Error::invalid(format!("options.shortlist must be an object, got {v}"))),
        };
        let fields = json!({
            "fields": o.get("fields").cloned().unwrap_or(Value::Null),
            "dynamicFields": o.get("dynamicFields").cloned().unwrap_or(Value::Null),
        });
        let schema = FieldSchema::from_options(&fields.to_string())?;
        // Checked as the constructor checks it (a shortlist on an exact storage is an error).
        VectorIndex::new(config)?.set_shortlist(shortlist)?;
        let embedder = o.get("embedder").filter(|v| !v.is_null()).cloned();
        Ok(Settings {
            config,
            shortlist,
            schema,
            embedder,
        })
    }

    /// The recorded form: one value per option key, so two are compared key by key.
    fn to_json(&self) -> Value {
        let c = self.config;
        json!({
            "dim": c.dim,
            "metric": c.metric.name(),
            "storage": c.storage.name(),
            // Only storage binary takes the option (int8 always rescores from f32).
            "rescore": c.storage.rescore().filter(|_| c.storage.name() == "binary").map(|r| r.name()),
            "shortlist": self.shortlist.map(|s| json!({ "perTopK": s.per_top_k, "rows": s.rows })),
            "fields": serde_json::from_str::<Value>(&self.schema.to_json()).unwrap_or(Value::Null),
            "embedder": self.embedder,
        })
    }

    fn of_recorded(v: &Value) -> Result<Settings> {
        let bad = |why: String| Error::corrupt(format!("bad recorded vector settings: {why}"));
        let text = |k: &str| v.get(k).and_then(Value::as_str);
        let dim = v.get("dim").and_then(Value::as_i64).unwrap_or(0);
        let config =
            Config::from_options(dim, text("metric"), text("storage"), text("rescore")).map_err(|e| bad(e.message))?;
        let shortlist = match v.get("shortlist") {
            Some(Value::Object(s)) => {
                let n = |k: &str| s.get(k).and_then(Value::as_i64);
                Some(Shortlist::new(n("perTopK"), n("rows")).map_err(|e| bad(e.message))?)
            }
            _ => None,
        };
        let schema = match v.get("fields") {
            Some(f @ Value::Object(_)) => {
                FieldSchema::from_json(f.to_string().as_bytes()).map_err(|e| bad(e.message))?
            }
            _ => FieldSchema::default(),
        };
        let embedder = v.get("embedder").filter(|v| !v.is_null()).cloned();
        Ok(Settings {
            config,
            shortlist,
            schema,
            embedder,
        })
    }
}

/// The settings of a new directory, or a check that the options given agree with the
/// recorded ones: every option given must equal the recorded value (`TypeError` naming each
/// that differs).
fn settle(given: Option<&Value>, recorded: Option<&Value>) -> Result<Settings> {
    let given = match given {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o),
        Some(v) => return Err(Error::invalid(format!("options must be an object, got {v}"))),
    };
    let Some(recorded) = recorded else {
        return Settings::of_options(given.unwrap_or(&Map::new()));
    };
    let stored = Settings::of_recorded(recorded)?;
    let Some(given) = given.filter(|o| !o.is_empty()) else {
        return Ok(stored);
    };
    // Options left out take the recorded values, so only those given are compared.
    let ours = stored.to_json();
    let mut merged = given.clone();
    for k in KEYS {
        if !merged.contains_key(k) || k == "fields" && !given.contains_key("fields") {
            merged.insert(k.to_string(), ours[k].clone());
        }
    }
    // The recorded schema is in the stored form: compare schemas as both read back.
    let full = if given.contains_key("fields") || given.contains_key("dynamicFields") {
        Settings::of_options(&merged)?.to_json()
    } else {
        merged.remove("fields");
        merged.remove("dynamicFields");
        let mut s = Settings::of_options(&merged)?;
        s.schema = stored.schema.clone();
        s.to_json()
    };
    let mut differ: Vec<&str> = KEYS
        .into_iter()
        .filter(|k| {
            (given.contains_key(*k) || *k == "fields" && given.contains_key("dynamicFields")) && full[k] != ours[k]
        })
        .collect();
    differ.dedup();
    if !differ.is_empty() {
        return Err(Error::invalid(format!(
            "options {} differ from those the directory's vector index was built with (leave them out to use the recorded ones)",
            differ.join(", ")
        )));
    }
    Ok(stored)
}

/// The committed chunks of `m`, mapped, with their live rows; chunks `reuse` holds already
/// (a reader's refresh) are taken from it.
fn load_parts(dir: &Path, m: &Manifest, settings: &Settings, reuse: &VectorIndex) -> Result<VectorIndex> {
    let never = AtomicBool::new(false);
    let mut parts = Vec::new();
    for e in m.indexes.get(KIND).map_or(&[][..], Vec::as_slice) {
        let name = segment_file(KIND, e.segment);
        let known = reuse.parts.iter().find(|p| p.chunk.number.get() == Some(&e.segment));
        let chunk = match known {
            Some(p) => p.chunk.clone(),
            None => {
                let path = dir.join(&name);
                let named = |err: Error| {
                    let err = missing_is_corrupt(err, &path);
                    match err.message.contains(&name) {
                        true => err,
                        false => Error::new(err.kind, format!("{}: {}", path.display(), err.message)),
                    }
                };
                let file = persist::load_committed(&path, &never).map_err(named)?;
                if file.config() != settings.config {
                    return Err(Error::corrupt(format!(
                        "{}: holds vectors of another dimension, metric or storage than the directory's",
                        path.display()
                    )));
                }
                match file.parts.into_iter().next() {
                    Some(p) => p.chunk,
                    None => return Err(Error::corrupt(format!("{}: holds no rows", path.display()))),
                }
            }
        };
        let _ = chunk.number.set(e.segment);
        if chunk.rows() as u64 != e.docs {
            return Err(Error::corrupt(format!(
                "{name}: holds {} rows, the manifest says {}",
                chunk.rows(),
                e.docs
            )));
        }
        let alive = match (known, e.deletes) {
            (Some(p), _) if (p.chunk.rows() - p.live()) as u64 == e.deleted => p.alive.clone(),
            (_, Some(d)) => {
                let path = dir.join(deletes_file(e.segment, d));
                let removed = deletes::read(&path, chunk.rows())?;
                Some(Arc::new(alive_of(&removed, chunk.rows())))
            }
            (_, None) => None,
        };
        let live = alive.as_ref().map_or(chunk.rows(), |a| a.count());
        if (chunk.rows() - live) as u64 != e.deleted {
            return Err(Error::corrupt(format!(
                "{name}: the deletions do not match the manifest"
            )));
        }
        parts.push((chunk, alive));
    }
    Ok(VectorIndex::of_parts(
        settings.config,
        Arc::new(settings.schema.clone()),
        settings.shortlist,
        parts,
    ))
}

/// The live rows of a chunk of `rows` rows whose removed set is `removed` (and back: the
/// same complement, as deletion files hold the removed rows).
fn alive_of(removed: &[u64], rows: usize) -> RowMask {
    let full = RowMask::full(rows);
    RowMask::from_words(full.words().iter().zip(removed).map(|(f, r)| f & !r).collect())
}

fn removed_of(alive: &RowMask, rows: usize) -> Vec<u64> {
    let full = RowMask::full(rows);
    full.words().iter().zip(alive.words()).map(|(f, a)| f & !a).collect()
}

/// Writes one chunk, all its rows (removed ones too: the deletion files say which), as a
/// single-file index of that chunk.
fn write_chunk(p: &IndexPart, snap: &VectorIndex, path: &Path) -> Result<()> {
    // With the index's field schema: the chunk read back indexes its metadata by it.
    let one = VectorIndex::of_parts(snap.config(), snap.schema.clone(), None, vec![(p.chunk.clone(), None)]);
    persist::save(&one, path, &AtomicBool::new(false))
}

/// Opens (or creates) the vector index bound to `dir`. A writer takes the directory's lock,
/// replays the log after the last commit and then logs its writes as `durability` says; a
/// reader (`read_only`) reads the last commit and sees later ones at `reload`. A BM25 index
/// opened on the same path in this process shares the directory (one commit for both).
pub fn open(dir: &Path, opts: OpenOptions) -> Result<Arc<SharedIndex>> {
    let directory = Directory::open(dir, KIND, opts.read_only, opts.durability)?;
    open_in(directory, opts.options.as_ref())
}

/// The vector index of `directory` (see `open`).
pub fn open_in(directory: Arc<Directory>, options: Option<&Value>) -> Result<Arc<SharedIndex>> {
    let recorded = directory.settings(KIND);
    if directory.read_only() && recorded.is_none() {
        return Err(Error::new(
            ErrorKind::Io,
            format!("{} holds no committed vector index", directory.path().display()),
        ));
    }
    let settings = settle(options, recorded.as_ref())?;
    let index = load_parts(
        directory.path(),
        &directory.manifest(),
        &settings,
        &VectorIndex::default(),
    )?;
    let shared = SharedIndex::new(index);
    let weak: std::sync::Weak<dyn Part> = Arc::downgrade(&shared) as std::sync::Weak<dyn Part>;
    let records = directory.attach(KIND, weak, settings.to_json())?;
    for r in &records {
        let bad = || Error::corrupt(format!("{}: a log record does not parse", directory.path().display()));
        match r.kind {
            ADD => {
                let add = decode_add(&r.payload).ok_or_else(bad)?;
                // As an upsert: a write a commit already holds may be logged after the
                // commit's log rotation too; setting a row again is then the same row.
                shared.write(|index| index.add_with(&add.ids, &add.vectors, add.fields, true))?;
            }
            REMOVE => {
                let ids = decode_remove(&r.payload).ok_or_else(bad)?;
                shared.write(|index| Ok(index.remove(&ids)))?;
            }
            _ => return Err(bad()),
        }
    }
    if let Some(wal) = directory.wal() {
        let _ = shared.wal.set(wal.clone());
    }
    *lock(&shared.directory) = Some(directory);
    Ok(shared)
}

impl SharedIndex {
    /// The directory of an index opened from one (none once closed).
    pub fn directory(&self) -> Option<Arc<Directory>> {
        lock(&self.directory).clone()
    }

    /// The settings the directory records for this index (its options), if bound to one.
    pub fn recorded_settings(&self) -> Option<Value> {
        self.directory().and_then(|d| d.settings(KIND))
    }

    /// Lets go of the directory: the index takes no more writes, a writer commits (a failed
    /// commit leaves the index open, bound and writable), and once no other index of this
    /// process shares the directory its lock is released. Searches go on over what it holds.
    pub fn close(&self) -> Result<()> {
        // Not under the directory's mutex: a write takes it under the writer turn.
        let Some(d) = self.directory() else { return Ok(()) };
        {
            let _turn = lock(&self.writer);
            self.closed.store(true, Ordering::SeqCst);
        }
        // A background merge's commit that began before: waited out (none begins after).
        drop(lock(&self.merge_commit));
        if !d.read_only() {
            if let Err(e) = d.commit() {
                self.closed.store(false, Ordering::SeqCst);
                return Err(e);
            }
        }
        d.detach(KIND);
        *lock(&self.directory) = None;
        Ok(())
    }

    /// Makes every write so far durable (with those of a BM25 index sharing the directory):
    /// see `Directory::commit`. Returns the manifest written (the last one when nothing changed).
    pub fn commit(&self) -> Result<Manifest> {
        self.check_writable()?;
        match self.directory() {
            Some(d) => d.commit(),
            None => Err(Error::invalid(
                "commit needs an index opened from a directory (VectorIndex.open)",
            )),
        }
    }

    /// Checks the whole-file CRC of every chunk file of the last commit (open checks only their
    /// envelopes and layouts): `ERR_CORRUPT_INDEX` naming the first damaged one.
    pub fn verify(&self) -> Result<()> {
        let Some(d) = self.directory() else { return Ok(()) };
        let never = AtomicBool::new(false);
        for e in d.manifest().indexes.get(KIND).map_or(&[][..], Vec::as_slice) {
            let path = d.path().join(segment_file(KIND, e.segment));
            persist::verify_committed(&path, &never)
                .map_err(|err| Error::new(err.kind, format!("{}: {}", path.display(), err.message)))?;
        }
        Ok(())
    }

    /// A reader's refresh: reads the chunks of a newer commit, if the writer made one. True
    /// if the index changed. An index in memory has nothing newer to read (its writes are
    /// visible at once): false.
    pub fn reload(&self) -> Result<bool> {
        match self.directory() {
            Some(d) => d.reload(),
            None => Ok(false),
        }
    }
}

impl Part for SharedIndex {
    fn write_commit(self: Arc<Self>, dir: &Path, last: &Manifest, next: &mut Manifest) -> Result<Committed> {
        // Under the writers' turn: a write whose record went to the log before the rotation
        // has published its change once the turn is ours.
        let (snap, logged) = {
            let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            (self.snapshot(), self.logged.load(std::sync::atomic::Ordering::Relaxed))
        };
        snap.check_file()?;
        let before = last.indexes.get(KIND).map_or(&[][..], Vec::as_slice);
        let mut entries = Vec::with_capacity(snap.parts.len());
        for p in &snap.parts {
            let known = p
                .chunk
                .number
                .get()
                .copied()
                .filter(|n| before.iter().any(|e| e.segment == *n));
            let number = match known {
                Some(n) => n,
                None => {
                    // A chunk numbered by a commit that failed before its manifest is written
                    // again under that number (nothing names its file yet).
                    let n = *p.chunk.number.get().unwrap_or(&next.next_segment);
                    next.next_segment = next.next_segment.max(n + 1);
                    write_chunk(p, &snap, &dir.join(segment_file(KIND, n)))?;
                    let _ = p.chunk.number.set(n);
                    n
                }
            };
            let deleted = (p.chunk.rows() - p.live()) as u64;
            let deletes = match before.iter().find(|e| e.segment == number) {
                Some(e) if e.deleted == deleted => e.deletes,
                _ if deleted == 0 => None,
                _ => {
                    let alive = p.alive.as_deref().expect("rows removed");
                    let words = removed_of(alive, p.chunk.rows());
                    deletes::write(&dir.join(deletes_file(number, next.generation)), &words)?;
                    Some(next.generation)
                }
            };
            entries.push(SegmentEntry {
                segment: number,
                docs: p.chunk.rows() as u64,
                deleted,
                deletes,
            });
        }
        Ok(Committed {
            segments: entries,
            logged,
        })
    }

    fn reload(self: Arc<Self>, dir: &Path, manifest: &Manifest) -> Result<()> {
        let recorded = manifest
            .settings
            .get(KIND)
            .ok_or_else(|| Error::corrupt(format!("{}: the manifest records no vector settings", dir.display())))?;
        let settings = Settings::of_recorded(recorded)?;
        let _turn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let next = load_parts(dir, manifest, &settings, &self.snapshot())?;
        self.current.store(Arc::new(next));
        Ok(())
    }
}
