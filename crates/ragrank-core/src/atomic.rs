//! Atomic file replacement: write a temporary file beside the target, then rename it over
//! the target, so readers see the old file or the new one, never half of one.
//!
//! A temporary file is named `.<target name>.ragrank-tmp-<pid>-<16 hex digits>.tmp` and its
//! writer holds an exclusive advisory lock on it (`flock` on Unix, `LockFileEx` on Windows)
//! from creation until after the rename. A writer killed mid-save (kill -9, OOM, power)
//! leaves its file behind, but the kernel drops its lock with the process: so every save
//! first removes the temporaries of the same target that it can lock, which are exactly
//! the stale ones. A live writer's file stays locked and is never touched.
use std::collections::hash_map::RandomState;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What every ragrank temporary file name holds between `.<target name>` and its suffix.
const TMP_TAG: &str = ".ragrank-tmp-";
/// How every ragrank temporary file name ends.
const TMP_END: &str = ".tmp";

/// Calls `write` with a fresh, locked temporary file in `path`'s folder, then renames it to
/// `path`. On any failure the temporary file is removed and `path` is left as it was.
/// Stale temporaries of `path` from killed writers are removed first.
pub fn write_atomically(path: &Path, write: impl FnOnce(&File) -> Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::invalid(format!("not a file path: {}", path.display())))?
        .to_string_lossy();
    let prefix = format!(".{name}{TMP_TAG}");
    remove_stale_temporaries(dir, &prefix);
    let (tmp, file) = create_locked(dir, &prefix)?;
    let result = write(&file).and_then(|()| fs::rename(&tmp, path).map_err(Error::from));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    // The lock goes with the file, after the rename: until then the temporary is ours.
    drop(file);
    result
}

/// Creates and locks a new temporary file named `<prefix><pid>-<random>.tmp`.
fn create_locked(dir: &Path, prefix: &str) -> Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..8 {
        let tmp = dir.join(format!("{prefix}{}-{:016x}{TMP_END}", std::process::id(), random()));
        let file = match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        };
        // A file system without locks (some network or FUSE mounts) still gets its save;
        // there a cleanup's `try_lock` fails too, so it never removes anything.
        let _ = file.lock();
        // Another save's cleanup may have locked and removed the file between our create
        // and our lock: then the name no longer leads to our file, and we take another.
        if leads_to(&tmp, &file) {
            return Ok((tmp, file));
        }
        last = Some(tmp);
    }
    Err(Error::from(io::Error::other(format!(
        "could not create a temporary file such as {}",
        last.map_or_else(|| dir.display().to_string(), |p| p.display().to_string())
    ))))
}

/// Removes the files in `dir` named `<prefix><pid>-<16 hex>.tmp` that no writer holds locked.
/// Best effort: a file that cannot be listed, opened, locked or removed is left alone.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let rest = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix)?.strip_suffix(TMP_END));
        let Some(rest) = rest else {
            continue;
        };
        if !is_tmp_suffix(rest) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else { continue };
        match file.try_lock() {
            Ok(()) if leads_to(&path, &file) => {
                let _ = fs::remove_file(&path);
            }
            Ok(()) | Err(TryLockError::WouldBlock) | Err(TryLockError::Error(_)) => {}
        }
    }
}

/// `<decimal pid>-<16 hex digits>`, the suffix `create_locked` writes.
fn is_tmp_suffix(s: &str) -> bool {
    let Some((pid, rand)) = s.split_once('-') else {
        return false;
    };
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && rand.len() == 16
        && rand.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `path` still names the file `file` has open.
fn leads_to(path: &Path, file: &File) -> bool {
    let (Ok(named), Ok(open)) = (fs::symlink_metadata(path), file.metadata()) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        named.dev() == open.dev() && named.ino() == open.ino()
    }
    #[cfg(not(unix))]
    {
        // Windows: an open file's name cannot be reused before the file is closed.
        named.is_file() && open.is_file()
    }
}

/// 64 random bits from the standard library's per-process seeded hasher.
fn random() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ragrank-atomic-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_save_removes_unlocked_temporaries_of_its_target_only() {
        let dir = scratch("stale");
        let stale = dir.join(".t.ragrank-tmp-123-00000000deadbeef.tmp");
        let held = dir.join(".t.ragrank-tmp-124-00000000cafef00d.tmp");
        let keep = [
            dir.join(".u.ragrank-tmp-123-00000000deadbeef.tmp"), // another target
            dir.join(".t.ragrank-tmp-123-nothex.tmp"),           // not our pattern
            dir.join(".t.ragrank-tmp-123-00000000deadbeef"),     // nor this
            dir.join(".t.123-456.tmp"),                          // an older ragrank's name
        ];
        for p in keep.iter().chain([&stale, &held]) {
            fs::write(p, b"x").unwrap();
        }
        let holder = File::open(&held).unwrap();
        holder.lock().unwrap();
        write_atomically(&dir.join("t"), |f| {
            use std::io::Write;
            (&*f).write_all(b"new").map_err(Error::from)
        })
        .unwrap();
        assert_eq!(fs::read(dir.join("t")).unwrap(), b"new");
        assert!(!stale.exists(), "an unlocked temporary is stale");
        assert!(held.exists(), "a locked temporary belongs to a live writer");
        for p in &keep {
            assert!(p.exists(), "{} is not ours to remove", p.display());
        }
        drop(holder);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn suffixes() {
        assert!(is_tmp_suffix("1-0123456789abcdef"));
        assert!(!is_tmp_suffix("1-0123456789abcde"));
        assert!(!is_tmp_suffix("-0123456789abcdef"));
        assert!(!is_tmp_suffix("1x-0123456789abcdef"));
    }
}
