//! Checksummed index files, the envelope both the BM25 and the vector format use.
//!
//! Layout (little endian): an 8-byte magic, the format version `u32`, the payload, then a
//! trailer of the payload's length `u64` and its CRC-32 `u32`. Writes are atomic (a
//! temporary file renamed over the target, see `atomic`) and both directions check a
//! cancel flag every `CHUNK` bytes, so a cancelled save stops, removes its temporary file
//! and leaves the target as it was.
//!
//! Reads open only regular files (`open_regular`): a device such as `/dev/zero` would be read
//! forever and a FIFO would block forever, so both are refused with `ERR_IO` before a byte
//! is read. Every length inside a file is checked against the file's size before use.
use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::atomic::{kind_of, write_atomically};
use crate::error::{check_cancel, Error, ErrorKind, Result};

/// Bytes before the payload: magic and version.
pub const HEADER: usize = 12;
/// Bytes after the payload: length and CRC-32.
pub const TRAILER: usize = 12;
/// How much is written, read or checksummed between two looks at the cancel flag.
const CHUNK: usize = 1 << 20;

/// What tells one file format from another, and names it in error messages.
pub struct Format {
    pub magic: &'static [u8; 8],
    pub version: u32,
    /// E.g. "BM25 index": messages read "not a ragrank BM25 index file".
    pub name: &'static str,
}

impl Format {
    pub const fn new(magic: &'static [u8; 8], version: u32, name: &'static str) -> Self {
        Format { magic, version, name }
    }

    pub fn damaged(&self) -> Error {
        Error::corrupt(format!("{} file is truncated or damaged", self.name))
    }
}

/// Writes the payload, keeping its length and CRC for the trailer.
pub struct PayloadWriter<'a> {
    out: BufWriter<&'a File>,
    crc: crc32fast::Hasher,
    len: u64,
    next_check: u64,
    cancel: &'a AtomicBool,
}

impl PayloadWriter<'_> {
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        for chunk in bytes.chunks(CHUNK) {
            if self.len >= self.next_check {
                check_cancel(self.cancel)?;
                self.next_check = self.len + CHUNK as u64;
            }
            self.crc.update(chunk);
            self.len += chunk.len() as u64;
            self.out.write_all(chunk)?;
        }
        Ok(())
    }

    pub fn u32(&mut self, v: u32) -> Result<()> {
        self.put(&v.to_le_bytes())
    }

    /// `b` after its length as a `u32`.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        let len = u32::try_from(b.len()).map_err(|_| Error::invalid("a field is larger than 4 GiB"))?;
        self.u32(len)?;
        self.put(b)
    }

    /// Offset in the file of the next byte written.
    pub fn position(&self) -> u64 {
        HEADER as u64 + self.len
    }
}

/// Writes a file in `format` to `path` atomically; `body` writes the payload.
pub fn write(
    path: &Path,
    format: &Format,
    cancel: &AtomicBool,
    body: impl FnOnce(&mut PayloadWriter) -> Result<()>,
) -> Result<()> {
    check_cancel(cancel)?;
    write_atomically(path, |file| {
        let mut out = BufWriter::with_capacity(CHUNK, file);
        out.write_all(format.magic)?;
        out.write_all(&format.version.to_le_bytes())?;
        let mut w = PayloadWriter {
            out,
            crc: crc32fast::Hasher::new(),
            len: 0,
            next_check: 0,
            cancel,
        };
        body(&mut w)?;
        // Last look before the rename: a cancel that came during the write wins.
        check_cancel(cancel)?;
        let (len, crc, mut out) = (w.len, w.crc.finalize(), w.out);
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&crc.to_le_bytes())?;
        let file = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
        file.sync_all()?;
        Ok(())
    })
}

/// Opens `path` for reading if it is a regular file (after symlinks), else an `ERR_IO`
/// error naming what it is. The type is checked before opening, so no device is opened, and
/// again on the open file, which on Unix is opened non-blocking: a FIFO swapped in between
/// cannot block the open.
pub fn open_regular(path: &Path) -> Result<File> {
    let not_regular = |m: &fs::Metadata| {
        Error::new(
            ErrorKind::Io,
            format!(
                "{} is not a regular file ({}); index files must be",
                path.display(),
                kind_of(m)
            ),
        )
    };
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok(file)
}

/// Reads a whole regular file, a chunk at a time, checking `cancel` between chunks.
pub fn read_file(path: &Path, cancel: &AtomicBool) -> Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let size = file.metadata().map_or(0, |m| m.len() as usize);
    let mut data = Vec::with_capacity(size);
    loop {
        check_cancel(cancel)?;
        if (&mut file).take(CHUNK as u64).read_to_end(&mut data)? == 0 {
            return Ok(data);
        }
    }
}

/// The payload of `data` once magic, version, length and CRC-32 are checked (the CRC a
/// chunk at a time, checking `cancel` between chunks).
pub fn payload<'a>(data: &'a [u8], format: &Format, cancel: &AtomicBool) -> Result<&'a [u8]> {
    let payload = unverified_payload(data, format)?;
    check_crc(data, format, cancel)?;
    Ok(payload)
}

/// The CRC-32 of `data`'s payload against its trailer's (magic, version and length are
/// `unverified_payload`'s), a chunk at a time, checking `cancel` between chunks.
pub fn check_crc(data: &[u8], format: &Format, cancel: &AtomicBool) -> Result<()> {
    let payload = unverified_payload(data, format)?;
    let crc = u32::from_le_bytes(data[data.len() - 4..].try_into().expect("4 bytes"));
    let mut hasher = crc32fast::Hasher::new();
    for chunk in payload.chunks(CHUNK) {
        check_cancel(cancel)?;
        hasher.update(chunk);
    }
    if hasher.finalize() != crc {
        return Err(format.damaged());
    }
    Ok(())
}

/// The payload of `data` once magic, version and length are checked, not its CRC: a
/// mapped file is checked in parts at open (`bm25::segment_file`) and whole by `check_crc`.
pub fn unverified_payload<'a>(data: &'a [u8], format: &Format) -> Result<&'a [u8]> {
    if data.len() < HEADER + TRAILER || &data[..8] != format.magic {
        return Err(Error::corrupt(format!("not a ragrank {} file", format.name)));
    }
    let version = u32::from_le_bytes(data[8..12].try_into().expect("4 bytes"));
    if version != format.version {
        return Err(Error::corrupt(format!(
            "{} file format version {version} is not supported (this build reads version {})",
            format.name, format.version
        )));
    }
    let (payload, trailer) = data[HEADER..].split_at(data.len() - HEADER - TRAILER);
    let len = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    if len != payload.len() as u64 {
        return Err(format.damaged());
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::ErrorKind;

    const TEST: Format = Format::new(b"RGRKTEST", 3, "test");

    #[test]
    fn a_write_cancelled_midway_removes_its_temporary_file_and_keeps_the_target() {
        let dir = std::env::temp_dir().join(format!("ragrank-checksummed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let never = AtomicBool::new(false);
        write(&path, &TEST, &never, |w| w.bytes(b"old")).unwrap();
        let old = std::fs::read(&path).unwrap();
        assert_eq!(payload(&old, &TEST, &never).unwrap(), b"\x03\0\0\0old");

        let cancel = AtomicBool::new(false);
        let big = vec![7u8; 3 * CHUNK];
        let err = write(&path, &TEST, &cancel, |w| {
            w.put(&big[..CHUNK + 1])?;
            cancel.store(true, Ordering::Relaxed);
            w.put(&big)
        })
        .err()
        .unwrap();
        assert_eq!(err.kind, ErrorKind::Aborted);
        assert_eq!(std::fs::read(&path).unwrap(), old);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert_eq!(read_file(&path, &cancel).err().unwrap().kind, ErrorKind::Aborted);
        assert_eq!(payload(&old, &TEST, &cancel).err().unwrap().kind, ErrorKind::Aborted);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
