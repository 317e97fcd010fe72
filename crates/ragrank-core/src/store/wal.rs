//! The write-ahead log: the writes made since the last commit, so a crash loses none that
//! returned under durability `Sync` (fsync'd before the write returns) or `Async` (fsync'd
//! on an interval).
//!
//! `wal-<generation>.log`: a header (magic, version `u32`), then records, each its payload
//! length `u32`, the CRC-32 `u32` of what follows, the write's sequence number `u64`, a kind
//! byte and the payload (what the payload holds is the index kind's business). A commit
//! starts a new generation (`rotate`) and deletes those it covers. Concurrent `Sync` writers
//! share fsyncs (group commit): whoever holds the sync lock fsyncs every record appended so
//! far, and a writer that waited for it finds its own record already on disk.
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use super::{lock, numbered, sync_dir};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"RGRKWAL1";
const VERSION: u32 = 1;
const HEADER: usize = 12;
/// Length, CRC, sequence number and kind.
const RECORD_HEADER: usize = 4 + 4 + 8 + 1;
const PREFIX: &str = "wal-";
const SUFFIX: &str = ".log";

/// When a logged write is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Before the write returns.
    Sync,
    /// Within this interval of the write.
    Async(Duration),
}

/// One logged write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub seq: u64,
    pub kind: u8,
    pub payload: Vec<u8>,
}

pub fn log_file(generation: u64) -> String {
    format!("{PREFIX}{generation}{SUFFIX}")
}

/// The log generations present in `dir`, oldest first.
pub fn generations(dir: &Path) -> Result<Vec<u64>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir)? {
        if let Some(g) = entry?.file_name().to_str().and_then(|n| numbered(n, PREFIX, SUFFIX)) {
            found.push(g);
        }
    }
    found.sort_unstable();
    Ok(found)
}

struct Active {
    file: File,
    generation: u64,
}

/// The log a writer appends to.
pub struct Wal {
    dir: PathBuf,
    durability: Durability,
    active: Mutex<Active>,
    /// The sequence number of the last record appended (log positions go on across
    /// generations and openings: a commit records the one it covers). A record's number is
    /// its ticket for `wait_durable`.
    seq: AtomicU64,
    /// Records up to this number are on disk.
    durable: AtomicU64,
    /// Held by the one fsync under way.
    sync_lock: Mutex<()>,
    /// fsyncs run, for benchmarks and tests.
    fsyncs: AtomicU64,
    stop: Arc<(Mutex<bool>, Condvar)>,
}

fn create(dir: &Path, generation: u64) -> Result<File> {
    let mut file = OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(dir.join(log_file(generation)))?;
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(&VERSION.to_le_bytes());
    file.write_all(&header)?;
    file.sync_all()?;
    sync_dir(dir)?;
    Ok(file)
}

impl Wal {
    /// Starts log `generation` in `dir` (a new file) for writes with `durability`, numbering
    /// records after `last_seq`.
    pub fn create(dir: &Path, generation: u64, durability: Durability, last_seq: u64) -> Result<Arc<Wal>> {
        let file = create(dir, generation)?;
        let wal = Arc::new(Wal {
            dir: dir.to_path_buf(),
            durability,
            active: Mutex::new(Active { file, generation }),
            seq: AtomicU64::new(last_seq),
            durable: AtomicU64::new(last_seq),
            sync_lock: Mutex::new(()),
            fsyncs: AtomicU64::new(0),
            stop: Arc::default(),
        });
        if let Durability::Async(every) = durability {
            let weak = Arc::downgrade(&wal);
            let stop = wal.stop.clone();
            let _ = std::thread::Builder::new()
                .name("ragrank-wal".into())
                .stack_size(128 * 1024)
                .spawn(move || sync_every(weak, stop, every));
        }
        Ok(wal)
    }

    pub fn durability(&self) -> Durability {
        self.durability
    }

    pub fn generation(&self) -> u64 {
        lock(&self.active).generation
    }

    pub fn fsyncs(&self) -> u64 {
        self.fsyncs.load(Ordering::Relaxed)
    }

    /// Appends one record (one `write`, to the page cache) and returns its sequence number,
    /// the ticket for `wait_durable`. Callers append under the lock that orders their writes, so the log's
    /// order is the writes' order.
    pub fn append(&self, kind: u8, payload: &[u8]) -> Result<u64> {
        let len =
            u32::try_from(payload.len()).map_err(|_| Error::invalid("a write of more than 4 GiB cannot be logged"))?;
        let mut record = Vec::with_capacity(RECORD_HEADER + payload.len());
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(&[0; 12]);
        record.push(kind);
        record.extend_from_slice(payload);
        let mut active = lock(&self.active);
        let seq = self.seq.load(Ordering::SeqCst) + 1;
        record[8..16].copy_from_slice(&seq.to_le_bytes());
        let crc = crc32fast::hash(&record[8..]);
        record[4..8].copy_from_slice(&crc.to_le_bytes());
        active.file.write_all(&record)?;
        // Counted only once written: a failed write leaves no gap in the numbering.
        self.seq.store(seq, Ordering::SeqCst);
        Ok(seq)
    }

    /// Returns once the record of `ticket` is on disk (at once unless durability is `Sync`).
    pub fn wait_durable(&self, ticket: u64) -> Result<()> {
        match self.durability {
            Durability::Sync => self.sync_to(ticket),
            Durability::Async(_) => Ok(()),
        }
    }

    /// Group commit: one fsync covers every record appended before it started.
    pub fn sync_to(&self, ticket: u64) -> Result<()> {
        if self.durable.load(Ordering::SeqCst) >= ticket {
            return Ok(());
        }
        let _syncing = lock(&self.sync_lock);
        if self.durable.load(Ordering::SeqCst) >= ticket {
            return Ok(());
        }
        let (file, covered) = {
            let active = lock(&self.active);
            (active.file.try_clone()?, self.seq.load(Ordering::SeqCst))
        };
        file.sync_data()?;
        self.fsyncs.fetch_add(1, Ordering::Relaxed);
        self.durable.fetch_max(covered, Ordering::SeqCst);
        Ok(())
    }

    /// Makes everything appended so far durable.
    pub fn sync(&self) -> Result<()> {
        self.sync_to(self.seq.load(Ordering::SeqCst))
    }

    /// Starts a new generation for the writes that follow (the old file is fsync'd first,
    /// so what it holds is durable whatever the next commit does). Returns the old generation
    /// and the sequence number of its last record.
    pub fn rotate(&self) -> Result<(u64, u64)> {
        let _syncing = lock(&self.sync_lock);
        let mut active = lock(&self.active);
        active.file.sync_data()?;
        let last_seq = self.seq.load(Ordering::SeqCst);
        let old = active.generation;
        active.file = create(&self.dir, old + 1)?;
        active.generation = old + 1;
        drop(active);
        self.durable.fetch_max(last_seq, Ordering::SeqCst);
        Ok((old, last_seq))
    }

    /// Deletes the generations before `generation` (a commit covers them).
    pub fn remove_before(&self, generation: u64) -> Result<()> {
        let mut removed = false;
        for g in generations(&self.dir)? {
            if g < generation {
                fs::remove_file(self.dir.join(log_file(g)))?;
                removed = true;
            }
        }
        if removed {
            sync_dir(&self.dir)?;
        }
        Ok(())
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        let (stopped, cv) = &*self.stop;
        *lock(stopped) = true;
        cv.notify_all();
        // What an `Async` writer appended last is on disk once the index is closed.
        let _ = lock(&self.active).file.sync_data();
    }
}

fn sync_every(wal: Weak<Wal>, stop: Arc<(Mutex<bool>, Condvar)>, every: Duration) {
    let (stopped, cv) = &*stop;
    loop {
        let guard = lock(stopped);
        let (guard, _) = cv.wait_timeout(guard, every).unwrap_or_else(|p| p.into_inner());
        if *guard {
            return;
        }
        drop(guard);
        let Some(wal) = wal.upgrade() else { return };
        let _ = wal.sync();
    }
}

/// The records of every log in `dir` after sequence number `after`, oldest first. A record
/// cut short or failing its checksum at the end of the newest log is a write that never
/// returned: the file is truncated there. Anywhere else it is `ERR_CORRUPT_INDEX` naming the
/// file, and nothing is changed.
pub fn replay(dir: &Path, after: u64) -> Result<Vec<Record>> {
    let logs = generations(dir)?;
    let mut records = Vec::new();
    for (i, &g) in logs.iter().enumerate() {
        let path = dir.join(log_file(g));
        let mut data = Vec::new();
        crate::checksummed::open_regular(&path)?.read_to_end(&mut data)?;
        let corrupt = |what: &str| Error::corrupt(format!("{}: {what}", path.display()));
        if data.len() < HEADER && data[..data.len().min(8)] == MAGIC[..data.len().min(8)] {
            // Created, its header not yet written (the writer died in `create`): it holds
            // nothing. Removed, as a later writer's log may follow it.
            fs::remove_file(&path)?;
            sync_dir(dir)?;
            continue;
        }
        if data.len() < HEADER || &data[..8] != MAGIC {
            return Err(corrupt("not a ragrank write-ahead log"));
        }
        if u32::from_le_bytes(data[8..12].try_into().expect("4 bytes")) != VERSION {
            return Err(corrupt("unsupported log version"));
        }
        let mut pos = HEADER;
        let mut last_seq = 0;
        while pos < data.len() {
            match parse(&data[pos..]) {
                Some((record, used)) => {
                    last_seq = record.seq;
                    if record.seq > after {
                        records.push(record);
                    }
                    pos += used;
                }
                None if i + 1 == logs.len() && !whole_record_after(&data, pos, last_seq) => {
                    // The torn tail of the newest log: cut it, so later appends follow whole records.
                    OpenOptions::new().write(true).open(&path)?.set_len(pos as u64)?;
                    break;
                }
                None => return Err(corrupt(&format!("damaged record at byte {pos}"))),
            }
        }
    }
    Ok(records)
}

/// Whether a whole record of a later write starts anywhere after the damaged one at `pos`:
/// then the damage is not a torn tail (a write that never returned) but a loss in the
/// middle of acknowledged ones. Searched byte by byte, as the damage may be in a length.
fn whole_record_after(data: &[u8], pos: usize, last_seq: u64) -> bool {
    (pos + 1..data.len()).any(|p| parse(&data[p..]).is_some_and(|(r, _)| r.seq > last_seq))
}

fn parse(data: &[u8]) -> Option<(Record, usize)> {
    if data.len() < RECORD_HEADER {
        return None;
    }
    let len = u32::from_le_bytes(data[..4].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(data[4..8].try_into().ok()?);
    let end = RECORD_HEADER.checked_add(len).filter(|&e| e <= data.len())?;
    if crc32fast::hash(&data[8..end]) != crc {
        return None;
    }
    let seq = u64::from_le_bytes(data[8..16].try_into().ok()?);
    Some((
        Record {
            seq,
            kind: data[16],
            payload: data[RECORD_HEADER..end].to_vec(),
        },
        end,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ragrank-wal-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn records_come_back_in_order_after_the_covered_sequence_number() {
        let dir = temp("order");
        let wal = Wal::create(&dir, 1, Durability::Sync, 0).unwrap();
        for seq in 1..=5 {
            let t = wal.append(seq as u8 % 2, format!("write {seq}").as_bytes()).unwrap();
            wal.wait_durable(t).unwrap();
        }
        assert_eq!(wal.rotate().unwrap(), (1, 5));
        wal.append(1, b"after rotation").unwrap();
        drop(wal);
        let records = replay(&dir, 3).unwrap();
        let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [4, 5, 6]);
        assert_eq!(records[2].payload, b"after rotation");
        assert_eq!(records[0].kind, 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_torn_tail_is_cut_and_damage_before_the_newest_log_is_an_error() {
        let dir = temp("torn");
        let wal = Wal::create(&dir, 1, Durability::Sync, 0).unwrap();
        wal.append(1, b"one").unwrap();
        wal.append(1, b"two").unwrap();
        wal.sync().unwrap();
        drop(wal);
        let path = dir.join(log_file(1));
        let whole = fs::read(&path).unwrap();
        fs::write(&path, &whole[..whole.len() - 2]).unwrap();
        assert_eq!(replay(&dir, 0).unwrap().len(), 1);
        // The cut left whole records only.
        assert_eq!(fs::read(&path).unwrap().len(), whole.len() - (RECORD_HEADER + 3));
        // A flipped byte in an older log, with a newer one beside it.
        let mut bytes = fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        fs::write(&path, bytes).unwrap();
        Wal::create(&dir, 2, Durability::Sync, 2).unwrap();
        let err = replay(&dir, 0).unwrap_err();
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
        assert!(err.message.contains("wal-1.log"), "{}", err.message);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn damage_followed_by_whole_records_is_an_error_and_a_headerless_log_is_empty() {
        let dir = temp("middle");
        let wal = Wal::create(&dir, 1, Durability::Sync, 0).unwrap();
        for _ in 1..=3 {
            wal.append(1, b"acknowledged").unwrap();
        }
        wal.sync().unwrap();
        drop(wal);
        let path = dir.join(log_file(1));
        let mut bytes = fs::read(&path).unwrap();
        // The first record's length: no parse can step over it to the records after.
        bytes[HEADER] ^= 0x40;
        fs::write(&path, &bytes).unwrap();
        let err = replay(&dir, 0).unwrap_err();
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
        assert!(err.message.contains("wal-1.log"), "{}", err.message);
        assert_eq!(fs::read(&path).unwrap(), bytes, "nothing was cut");
        bytes[HEADER] ^= 0x40;
        fs::write(&path, &bytes).unwrap();
        // Killed in `create`, then a later writer's log after it.
        fs::write(dir.join(log_file(2)), &MAGIC[..5]).unwrap();
        Wal::create(&dir, 3, Durability::Sync, 3).unwrap();
        assert_eq!(replay(&dir, 0).unwrap().len(), 3);
        assert_eq!(generations(&dir).unwrap(), [1, 3]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn concurrent_sync_writers_share_fsyncs() {
        let dir = temp("group");
        let wal = Wal::create(&dir, 1, Durability::Sync, 0).unwrap();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let t = wal.append(1, &[7; 100]).unwrap();
                        wal.wait_durable(t).unwrap();
                    }
                });
            }
        });
        assert_eq!(replay(&dir, 0).unwrap().len(), 200);
        // Records appended before one fsync are all covered by it.
        let before = wal.fsyncs();
        let tickets: Vec<u64> = (0..3).map(|_| wal.append(1, b"batch").unwrap()).collect();
        for t in tickets {
            wal.wait_durable(t).unwrap();
        }
        assert_eq!(wal.fsyncs(), before + 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_async_log_is_synced_in_the_background_and_when_dropped() {
        let dir = temp("async");
        let wal = Wal::create(&dir, 1, Durability::Async(Duration::from_millis(10)), 0).unwrap();
        wal.append(1, b"x").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while wal.fsyncs() == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(wal.fsyncs() >= 1);
        drop(wal);
        assert_eq!(replay(&dir, 0).unwrap().len(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }
}
