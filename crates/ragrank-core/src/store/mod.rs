//! The durable directory's primitives, shared by both index kinds (docs/STORAGE.md): the
//! writer lock, the manifest (the commit point) and the write-ahead log. The index kinds add
//! only their segment file formats.
pub mod deletes;
pub mod directory;
pub mod lock;
pub mod manifest;
pub mod record;
pub mod wal;

use std::fs::File;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use crate::error::Result;

/// Makes a directory's entries (files created, renamed or removed in it) durable: a file's
/// own fsync does not cover its name.
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// The counter in a file name `<prefix><decimal><suffix>`, if `name` is one.
pub(crate) fn numbered(name: &str, prefix: &str, suffix: &str) -> Option<u64> {
    let digits = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Locks a mutex whatever a panicking holder left: every structure behind the indexes' and
/// the directory's locks is replaced whole (a snapshot swapped once built, a manifest once
/// written), so it is never half-updated.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
