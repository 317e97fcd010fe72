//! Deletion files (`seg-<n>-<gen>.del`): which documents of one segment are removed, as a
//! bitset (bit `i % 64` of word `i / 64` set: document `i` removed), in the checksummed
//! envelope. Both index kinds write the same format; only their in-memory sets differ.
use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::checksummed::{self, Format};
use crate::error::{Error, ErrorKind, Result};

const DELETES: Format = Format::new(b"RGRKDELS", 1, "deletion");

/// Writes the removed set `words` to `path` (atomically, durable on return).
pub fn write(path: &Path, words: &[u64]) -> Result<()> {
    let never = AtomicBool::new(false);
    checksummed::write(path, &DELETES, &never, |w| {
        w.put(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())
    })
}

/// The removed set of a segment of `docs` documents, as written by `write`: damage, a set
/// that does not fit `docs`, or a missing file is `CorruptIndex` naming the file.
pub fn read(path: &Path, docs: usize) -> Result<Vec<u64>> {
    let never = AtomicBool::new(false);
    let named = |e: Error| missing_is_corrupt(Error::new(e.kind, format!("{}: {}", path.display(), e.message)), path);
    let data = checksummed::read_file(path, &never).map_err(named)?;
    let payload = checksummed::payload(&data, &DELETES, &never).map_err(named)?;
    let words: Vec<u64> = payload
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let spare = words.len() * 64 - docs.min(words.len() * 64);
    let fits = payload.len() % 8 == 0
        && words.len() == docs.div_ceil(64)
        && words.last().is_none_or(|&w| spare == 0 || w >> (64 - spare) == 0);
    if !fits {
        return Err(Error::corrupt(format!("{}: does not fit its segment", path.display())));
    }
    Ok(words)
}

/// A missing file a manifest names is damage, not an I/O error of the caller's.
pub fn missing_is_corrupt(e: Error, path: &Path) -> Error {
    if e.kind == ErrorKind::Io && !path.exists() {
        Error::corrupt(format!("{} is missing (the manifest names it)", path.display()))
    } else {
        e
    }
}
