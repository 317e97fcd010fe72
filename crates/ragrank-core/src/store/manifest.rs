//! The manifest: the commit point of a directory. `manifest-<generation>` names the live
//! segments of each index kind and their deletions, the settings the indexes were built
//! with, and the sequence number of the last write it includes. A commit writes the next
//! generation beside the last (temporary file, fsync, rename, fsync of the directory), so
//! the newest manifest is always whole; a damaged one is reported, never skipped (it was
//! fsync'd before its commit returned: falling back would drop acknowledged writes).
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::{numbered, sync_dir};
use crate::checksummed::{self, Format};
use crate::error::{Error, Result};

const FORMAT: Format = Format::new(b"RGRKMANI", 1, "directory manifest");
const PREFIX: &str = "manifest-";

/// One segment as a manifest names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentEntry {
    /// `seg-<segment>.<extension of its kind>`.
    pub segment: u64,
    /// Documents the segment holds, removed ones included.
    pub docs: u64,
    /// Documents removed from it as of this commit.
    pub deleted: u64,
    /// `seg-<segment>-<deletes>.del` holds which; absent while none is removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletes: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub generation: u64,
    /// The log position of the last write any commit covered (the log numbers on after it).
    pub seq: u64,
    /// Per index kind, the log position up to which its writes are in this commit (a kind
    /// not open at a commit keeps its own, and its records stay in the log).
    #[serde(default)]
    pub covered: BTreeMap<String, u64>,
    /// The number the next new segment file takes.
    pub next_segment: u64,
    /// What the indexes were built with, by part ("bm25", "vectors", "embedder").
    #[serde(default)]
    pub settings: BTreeMap<String, serde_json::Value>,
    /// The segments of each index kind ("bm25", "vectors"), in insertion order.
    #[serde(default)]
    pub indexes: BTreeMap<String, Vec<SegmentEntry>>,
}

/// The file extension of a kind's segments.
pub fn segment_extension(kind: &str) -> &'static str {
    match kind {
        "vectors" => "vec",
        _ => "bm25",
    }
}

pub fn segment_file(kind: &str, segment: u64) -> String {
    format!("seg-{segment}.{}", segment_extension(kind))
}

pub fn deletes_file(segment: u64, deletes: u64) -> String {
    format!("seg-{segment}-{deletes}.del")
}

pub fn manifest_file(generation: u64) -> String {
    format!("{PREFIX}{generation}")
}

impl Manifest {
    /// Every file this manifest needs.
    pub fn files(&self) -> BTreeSet<String> {
        let mut files = BTreeSet::new();
        for (kind, segments) in &self.indexes {
            for s in segments {
                files.insert(segment_file(kind, s.segment));
                if let Some(d) = s.deletes {
                    files.insert(deletes_file(s.segment, d));
                }
            }
        }
        files.insert(manifest_file(self.generation));
        files
    }

    /// Writes this manifest as the directory's newest commit point (durable on return).
    pub fn commit(&self, dir: &Path) -> Result<()> {
        let json = serde_json::to_vec(self).map_err(|e| Error::invalid(e.to_string()))?;
        let never = AtomicBool::new(false);
        checksummed::write(&dir.join(manifest_file(self.generation)), &FORMAT, &never, |w| {
            w.put(&json)
        })?;
        sync_dir(dir)
    }

    pub fn read(path: &Path) -> Result<Manifest> {
        let never = AtomicBool::new(false);
        let named = |e: Error| Error::new(e.kind, format!("{}: {}", path.display(), e.message));
        let data = checksummed::read_file(path, &never).map_err(named)?;
        let json = checksummed::payload(&data, &FORMAT, &never).map_err(named)?;
        serde_json::from_slice(json).map_err(|e| Error::corrupt(format!("{}: bad manifest: {e}", path.display())))
    }

    /// The newest manifest of `dir`, None in a directory never committed.
    pub fn newest(dir: &Path) -> Result<Option<Manifest>> {
        let Some(&generation) = generations(dir)?.last() else {
            return Ok(None);
        };
        let manifest = Manifest::read(&dir.join(manifest_file(generation)))?;
        if manifest.generation != generation {
            return Err(Error::corrupt(format!(
                "{}: names generation {}",
                dir.join(manifest_file(generation)).display(),
                manifest.generation
            )));
        }
        Ok(Some(manifest))
    }
}

/// The manifest generations present in `dir`, oldest first.
pub fn generations(dir: &Path) -> Result<Vec<u64>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(g) = entry.file_name().to_str().and_then(|n| numbered(n, PREFIX, "")) {
            found.push(g);
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// Removes what no manifest in `keep` needs: segment, deletion and older manifest files,
/// and temporaries left by a writer that died (only the lock holder calls this, so no live
/// writer owns one). Returns the names removed. Files of the other kinds (the log, the
/// lock, a user's own) are left alone.
pub fn remove_unreferenced(dir: &Path, keep: &[&Manifest]) -> Result<Vec<String>> {
    let needed: BTreeSet<String> = keep.iter().flat_map(|m| m.files()).collect();
    let oldest_kept = keep.iter().map(|m| m.generation).min().unwrap_or(0);
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let ours = name.starts_with("seg-")
            && (name.ends_with(".bm25") || name.ends_with(".vec") || name.ends_with(".del"))
            || numbered(&name, PREFIX, "").is_some_and(|g| g < oldest_kept)
            || name.starts_with('.') && name.contains(".ragrank-tmp-") && name.ends_with(".tmp");
        if ours && !needed.contains(&name) && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed.push(name);
        }
    }
    if !removed.is_empty() {
        sync_dir(dir)?;
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ragrank-manifest-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn manifest(generation: u64, segments: &[(u64, Option<u64>)]) -> Manifest {
        let entries = segments
            .iter()
            .map(|&(segment, deletes)| SegmentEntry {
                segment,
                docs: 10,
                deleted: deletes.map_or(0, |_| 1),
                deletes,
            })
            .collect();
        Manifest {
            generation,
            seq: generation * 10,
            next_segment: 100,
            indexes: [("bm25".to_string(), entries)].into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_newest_generation_is_read_back_and_a_damaged_one_is_named() {
        let dir = temp("newest");
        assert_eq!(Manifest::newest(&dir).unwrap(), None);
        manifest(1, &[(1, None)]).commit(&dir).unwrap();
        let second = manifest(2, &[(1, Some(1)), (2, None)]);
        second.commit(&dir).unwrap();
        assert_eq!(Manifest::newest(&dir).unwrap(), Some(second));
        let path = dir.join(manifest_file(2));
        let mut bytes = fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - 3);
        fs::write(&path, bytes).unwrap();
        let err = Manifest::newest(&dir).unwrap_err();
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
        assert!(err.message.contains("manifest-2"), "{}", err.message);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unreferenced_files_go_and_those_of_the_kept_manifests_stay() {
        let dir = temp("gc");
        for f in [
            "seg-1.bm25",
            "seg-2.bm25",
            "seg-3.bm25",
            "seg-1-1.del",
            "seg-1-2.del",
            "wal-4.log",
            "notes.txt",
        ] {
            fs::write(dir.join(f), b"x").unwrap();
        }
        fs::write(dir.join(".manifest-5.ragrank-tmp-1-00000000000000ab.tmp"), b"torn").unwrap();
        let old = manifest(3, &[(1, Some(1)), (2, None)]);
        let new = manifest(4, &[(1, Some(2)), (3, None)]);
        for m in [&manifest(2, &[]), &old, &new] {
            m.commit(&dir).unwrap();
        }
        let removed = remove_unreferenced(&dir, &[&new]).unwrap();
        assert_eq!(
            removed,
            [
                ".manifest-5.ragrank-tmp-1-00000000000000ab.tmp",
                "manifest-2",
                "manifest-3",
                "seg-1-1.del",
                "seg-2.bm25"
            ]
        );
        let mut left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "manifest-4",
                "notes.txt",
                "seg-1-2.del",
                "seg-1.bm25",
                "seg-3.bm25",
                "wal-4.log"
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
