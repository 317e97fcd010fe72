//! One writer per directory: an exclusive advisory lock on `LOCK`, held for the writer's
//! life. The kernel drops it with the process, so a crash never leaves a directory locked.
//! The file holds the holder's pid, for the `ERR_LOCKED` message only (the lock, not the
//! pid, decides).
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::{Error, ErrorKind, Result};

pub const LOCK_FILE: &str = "LOCK";

/// The writer lock of one directory, released when dropped.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock without waiting: `ERR_LOCKED` naming the holder's pid if a live process
    /// (or another open index of this one) holds it.
    pub fn acquire(dir: &Path) -> Result<WriterLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let holder = match pid.trim() {
                    "" => "another process".to_string(),
                    pid => format!("process {pid}"),
                };
                return Err(Error::new(
                    ErrorKind::Locked,
                    format!(
                        "{} is locked by {holder}: one writer per directory (open it with readOnly: true to read)",
                        dir.display()
                    ),
                ));
            }
            Err(TryLockError::Error(e)) => return Err(e.into()),
        }
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(std::process::id().to_string().as_bytes())?;
        Ok(WriterLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("ragrank-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = WriterLock::acquire(&dir).unwrap();
        let err = WriterLock::acquire(&dir).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Locked);
        assert!(
            err.message.contains(&format!("process {}", std::process::id())),
            "{}",
            err.message
        );
        drop(first);
        WriterLock::acquire(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
