//! Atomic file replacement: write a temporary file beside the target, then rename it over
//! the target, so readers see the old file or the new one, never half of one.
use std::fs;
use std::path::Path;

use crate::error::{Error, Result};

/// Calls `write` with a fresh temporary path in `path`'s folder, then renames it to `path`.
/// On any failure the temporary file is removed and `path` is left as it was.
pub fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::invalid(format!("not a file path: {}", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let result = write(&tmp).and_then(|()| fs::rename(&tmp, path).map_err(Error::from));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
