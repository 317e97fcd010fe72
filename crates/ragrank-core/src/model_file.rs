//! Model files read by the native side (a splitter's `tokenizer.json`): regular files only
//! after symlinks, within a bound, so a FIFO cannot block the caller's thread and a device
//! such as `/dev/zero` cannot be read without end. The TypeScript loaders apply the same rule
//! (`lib/models/model-file.ts`) to the files they read.
use std::fs;
use std::io::Read;
use std::path::Path;

use crate::atomic::kind_of;
use crate::error::{Error, ErrorKind, Result};

/// The bound of a `tokenizer.json`, as the TypeScript loaders have it.
pub const TOKENIZER_MAX_BYTES: u64 = 64 << 20;

/// Reads `path` (described as `what` in errors) if it is a regular file of at most `max`
/// bytes. A missing file is `ModelNotFound`; anything else that is wrong is `ModelLoad`
/// naming the file and what it is.
pub fn read_model_file(path: &Path, what: &str, max: u64) -> Result<Vec<u8>> {
    let shown = path.display();
    let check = |m: &fs::Metadata| -> Result<u64> {
        if !m.is_file() {
            return Err(Error::new(
                ErrorKind::ModelLoad,
                format!(
                    "{shown} ({what}) is {}; the files of a model must be regular files (symlinks are followed)",
                    kind_of(m)
                ),
            ));
        }
        if m.len() > max {
            return Err(Error::new(
                ErrorKind::ModelLoad,
                format!(
                    "{shown} ({what}) is larger than {max} bytes ({} bytes); it is not read",
                    m.len()
                ),
            ));
        }
        Ok(m.len())
    };
    let io_error = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::new(ErrorKind::ModelNotFound, format!("{shown} ({what}) does not exist"))
        } else {
            Error::new(ErrorKind::ModelLoad, format!("{shown} ({what}) cannot be read: {e}"))
        }
    };
    check(&fs::metadata(path).map_err(io_error)?)?;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Non-blocking, so a FIFO swapped in after the check cannot block the open.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io_error)?;
    let len = check(&file.metadata().map_err(io_error)?)?;
    let mut bytes = Vec::with_capacity(len as usize);
    // At most one byte past the bound is read: a file that grew after the check is refused.
    file.take(max + 1).read_to_end(&mut bytes).map_err(io_error)?;
    if bytes.len() as u64 > max {
        return Err(Error::new(
            ErrorKind::ModelLoad,
            format!("{shown} ({what}) grew past {max} bytes while it was read; it is not loaded"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_bounded_regular_file() {
        let dir = std::env::temp_dir().join(format!("ragrank-model-file-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tokenizer.json");
        fs::write(&file, b"{}").unwrap();
        assert_eq!(read_model_file(&file, "tokenizer", 16).unwrap(), b"{}");
        let big = read_model_file(&file, "tokenizer", 1).unwrap_err();
        assert_eq!(big.kind, ErrorKind::ModelLoad);
        assert!(big.message.contains("larger than 1 bytes"), "{}", big.message);
        let folder = read_model_file(&dir, "tokenizer", 16).unwrap_err();
        assert_eq!(folder.kind, ErrorKind::ModelLoad);
        assert!(folder.message.contains("a directory"), "{}", folder.message);
        let missing = read_model_file(&dir.join("nope.json"), "tokenizer", 16).unwrap_err();
        assert_eq!(missing.kind, ErrorKind::ModelNotFound);
        #[cfg(unix)]
        {
            let device = read_model_file(Path::new("/dev/zero"), "tokenizer", 16).unwrap_err();
            assert!(device.message.contains("a character device"), "{}", device.message);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
