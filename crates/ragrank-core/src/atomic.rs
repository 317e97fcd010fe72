//! Atomic file replacement: write a temporary file beside the target, then rename it over
//! the target, so readers see the old file or the new one, never half of one.
//!
//! The target may be a regular file, nothing yet, or a symbolic link (a chain of them) to
//! either: links are followed and the file they lead to is replaced, so `current.idx ->
//! releases/v7.idx` stays a link and `v7.idx` gets the new content (a dangling link creates
//! the file it names, in a folder that must exist). Anything else at the target (a device,
//! a FIFO, a socket, a directory), directly or at the end of the links, is refused with
//! `ERR_IO` naming what it is, before anything is created or removed: a rename would
//! otherwise put a regular file where `/dev/null` was.
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

use crate::error::{Error, ErrorKind, Result};

/// What every ragrank temporary file name holds between `.<target name>` and its suffix.
const TMP_TAG: &str = ".ragrank-tmp-";
/// How every ragrank temporary file name ends.
const TMP_END: &str = ".tmp";
/// Links followed before a target is taken for a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Calls `write` with a fresh, locked temporary file in the folder of the file `path` leads
/// to (after symbolic links), then renames it over that file. On any failure the temporary
/// file is removed and the target is left as it was. A target that exists and is not a
/// regular file is refused before anything is written. Stale temporaries of the target from
/// killed writers are removed first.
pub fn write_atomically(path: &Path, write: impl FnOnce(&File) -> Result<()>) -> Result<()> {
    let target = resolve_target(path)?;
    let dir = parent_of(&target);
    let name = target
        .file_name()
        .ok_or_else(|| Error::invalid(format!("not a file path: {}", path.display())))?
        .to_string_lossy()
        .into_owned();
    check_folder(path, dir)?;
    let prefix = format!(".{name}{TMP_TAG}");
    remove_stale_temporaries(dir, &prefix);
    let (tmp, file) = create_locked(dir, &prefix).map_err(|e| in_saving(path, e))?;
    let result = write(&file).and_then(|()| {
        // Whatever was put at the target meanwhile gets the same check as before.
        check_kind(path, &target)?;
        fs::rename(&tmp, &target).map_err(|e| in_saving(path, e.into()))
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    // The lock goes with the file, after the rename: until then the temporary is ours.
    drop(file);
    result
}

/// The folder of `path` (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The path a save of `path` replaces: `path` itself, or the end of its chain of symbolic
/// links (which may not exist yet). An error if that exists and is not a regular file.
fn resolve_target(path: &Path) -> Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = match fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            // E.g. "Not a directory": a folder on the way is a file; say which.
            Err(e) => {
                check_folder(path, parent_of(&at))?;
                return Err(in_saving(path, e.into()));
            }
        };
        if !meta.file_type().is_symlink() {
            return if meta.is_file() {
                Ok(at)
            } else {
                Err(not_regular(path, &at, &meta))
            };
        }
        let next = fs::read_link(&at).map_err(|e| in_saving(path, e.into()))?;
        // A relative link is relative to the folder holding it.
        at = parent_of(&at).join(next);
    }
    Err(Error::new(
        ErrorKind::Io,
        format!("cannot save to {}: too many levels of symbolic links", path.display()),
    ))
}

/// `Ok` if nothing, or a regular file, is at `target` now (no link: it was resolved).
fn check_kind(path: &Path, target: &Path) -> Result<()> {
    match fs::symlink_metadata(target) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => Err(not_regular(path, target, &m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(in_saving(path, e.into())),
    }
}

/// The target's folder must exist: say so, rather than "No such file or directory".
fn check_folder(path: &Path, dir: &Path) -> Result<()> {
    let problem = match fs::metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(m) => format!("{} is not a folder ({})", dir.display(), kind_of(&m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => format!("folder {} does not exist", dir.display()),
        Err(e) => format!("folder {}: {e}", dir.display()),
    };
    Err(Error::new(
        ErrorKind::Io,
        format!("cannot save to {}: {problem}", path.display()),
    ))
}

fn not_regular(path: &Path, target: &Path, meta: &fs::Metadata) -> Error {
    let what = if target == path {
        format!("it is {}", kind_of(meta))
    } else {
        format!("it leads to {}, which is {}", target.display(), kind_of(meta))
    };
    Error::new(
        ErrorKind::Io,
        format!(
            "cannot save to {}: {what}, not a regular file (index files are saved only as regular files)",
            path.display()
        ),
    )
}

/// `e` with the path of the save it failed, unless it is not an I/O error.
fn in_saving(path: &Path, e: Error) -> Error {
    if e.kind != ErrorKind::Io {
        return e;
    }
    Error::new(
        ErrorKind::Io,
        format!("cannot save to {}: {}", path.display(), e.message),
    )
}

/// What a file system entry is, for messages: "a FIFO", "a character device", ...
pub(crate) fn kind_of(m: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a directory"
    } else if m.file_type().is_symlink() {
        "a symbolic link"
    } else if m.is_file() {
        "a regular file"
    } else {
        "not a plain file"
    }
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
    use crate::error::ErrorKind;

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

    fn save(path: &Path, bytes: &[u8]) -> Result<()> {
        write_atomically(path, |f| {
            use std::io::Write;
            (&*f).write_all(bytes).map_err(Error::from)
        })
    }

    /// What is in `dir` besides `keep`: a refused or finished save leaves no temporary.
    fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect();
        names.sort();
        names
    }

    #[cfg(unix)]
    fn run(cmd: &str, args: &[&Path]) -> bool {
        std::process::Command::new(cmd)
            .args(args)
            .status()
            .is_ok_and(|s| s.success())
    }

    #[cfg(unix)]
    #[test]
    fn a_save_to_a_fifo_a_socket_a_device_or_a_directory_is_refused_before_anything_is_written() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("kinds");
        let fifo = dir.join("fifo");
        assert!(run("mkfifo", &[&fifo]));
        let _socket = std::os::unix::net::UnixListener::bind(dir.join("socket")).unwrap();
        fs::create_dir(dir.join("folder")).unwrap();
        // A character device of our own (the null device's numbers), where we may make one (root).
        let device = dir.join("null");
        let has_device = std::process::Command::new("mknod")
            .arg(&device)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        let mut cases = vec![("fifo", "a FIFO"), ("socket", "a socket"), ("folder", "a directory")];
        if has_device {
            cases.push(("null", "a character device"));
        }
        for (name, kind) in cases {
            let err = save(&dir.join(name), b"new").unwrap_err();
            assert_eq!(err.kind, ErrorKind::Io, "{name}");
            assert!(
                err.message.contains(&dir.join(name).display().to_string()),
                "{}",
                err.message
            );
            assert!(
                err.message.contains(&format!("is {kind}, not a regular file")),
                "{}",
                err.message
            );
        }
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(fs::symlink_metadata(dir.join("socket"))
            .unwrap()
            .file_type()
            .is_socket());
        if has_device {
            assert!(fs::symlink_metadata(&device).unwrap().file_type().is_char_device());
        }
        assert_eq!(
            others(&dir, &["fifo", "socket", "folder", "null"]),
            Vec::<String>::new()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_save_through_a_link_to_dev_null_is_refused_and_dev_null_stays_a_device() {
        use std::os::unix::fs::{symlink, FileTypeExt};
        let dir = scratch("devnull");
        symlink("/dev/null", dir.join("hop")).unwrap();
        symlink(dir.join("hop"), dir.join("out.idx")).unwrap();
        let err = save(&dir.join("out.idx"), b"new").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        assert!(
            err.message.contains("leads to /dev/null, which is a character device"),
            "{}",
            err.message
        );
        assert!(fs::symlink_metadata(dir.join("out.idx"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        assert_eq!(others(&dir, &["hop", "out.idx"]), Vec::<String>::new());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_save_through_links_replaces_the_final_target_and_keeps_the_links() {
        use std::os::unix::fs::symlink;
        let dir = scratch("links");
        fs::create_dir(dir.join("releases")).unwrap();
        fs::write(dir.join("releases/v7.idx"), b"old").unwrap();
        symlink("releases/v7.idx", dir.join("current.idx")).unwrap(); // relative, to its own folder
        symlink(dir.join("current.idx"), dir.join("alias.idx")).unwrap(); // a chain
        save(&dir.join("alias.idx"), b"new").unwrap();
        assert_eq!(fs::read(dir.join("releases/v7.idx")).unwrap(), b"new");
        assert_eq!(
            fs::read_link(dir.join("current.idx")).unwrap(),
            Path::new("releases/v7.idx")
        );
        assert_eq!(fs::read_link(dir.join("alias.idx")).unwrap(), dir.join("current.idx"));
        // The temporary was made beside the target (a rename cannot cross folders).
        assert_eq!(others(&dir.join("releases"), &["v7.idx"]), Vec::<String>::new());
        assert_eq!(
            others(&dir, &["releases", "current.idx", "alias.idx"]),
            Vec::<String>::new()
        );

        // A dangling link: the file it names is created, in a folder that exists.
        symlink("releases/v8.idx", dir.join("next.idx")).unwrap();
        save(&dir.join("next.idx"), b"v8").unwrap();
        assert_eq!(fs::read(dir.join("releases/v8.idx")).unwrap(), b"v8");
        assert!(fs::symlink_metadata(dir.join("next.idx"))
            .unwrap()
            .file_type()
            .is_symlink());
        // ... and one into a missing folder is an error naming both.
        symlink("nowhere/v9.idx", dir.join("lost.idx")).unwrap();
        let err = save(&dir.join("lost.idx"), b"v9").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        assert!(err.message.contains("lost.idx"), "{}", err.message);
        assert!(err.message.contains("nowhere"), "{}", err.message);

        // A loop of links.
        symlink(dir.join("b"), dir.join("a")).unwrap();
        symlink(dir.join("a"), dir.join("b")).unwrap();
        let err = save(&dir.join("a"), b"x").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        assert!(err.message.contains("symbolic links"), "{}", err.message);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_save_into_a_missing_folder_names_the_folder() {
        let dir = scratch("missing");
        let err = save(&dir.join("no/such/t.idx"), b"x").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        let folder = dir.join("no/such");
        assert!(
            err.message
                .contains(&format!("folder {} does not exist", folder.display())),
            "{}",
            err.message
        );
        fs::write(dir.join("file"), b"x").unwrap();
        let err = save(&dir.join("file/t.idx"), b"x").unwrap_err();
        assert!(err.message.contains("is not a folder"), "{}", err.message);
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
