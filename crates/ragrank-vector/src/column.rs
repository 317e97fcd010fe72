//! A column of plain values that is either owned or a window of a read-only memory map.
//! A mapped column stays mapped: changes go to new chunks, and a merge copies it.
use std::fs::File;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::SystemTime;

use bytemuck::Pod;
use memmap2::Mmap;
use ragrank_core::{Error, ErrorKind, Result};

/// A read-only map of an index file, kept with the open file and its size and mtime at
/// mapping time. A map shares the file's pages: a write in place changes what the map reads,
/// and a truncation makes reading the lost pages a SIGBUS. `check_unchanged` (an `fstat`)
/// runs before every call that reads the map, so a file changed in place since the load is
/// an `ERR_INDEX_CHANGED` error instead of a crash or silently different results. A file
/// replaced by rename is a new inode: this map keeps the old one, unchanged and valid.
pub struct MappedFile {
    map: Mmap,
    file: File,
    stamp: Stamp,
}

#[derive(PartialEq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(file: &File) -> Result<Stamp> {
        let m = file.metadata()?;
        Ok(Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

impl MappedFile {
    /// Maps `file` (an open regular file) read-only.
    pub fn new(file: File) -> Result<MappedFile> {
        let stamp = Stamp::of(&file)?;
        // SAFETY: the map is only read, and `check_unchanged` guards every call that reads
        // it against a change in place (the race left is documented on the type).
        let map = unsafe { Mmap::map(&file)? };
        Ok(MappedFile { map, file, stamp })
    }

    /// `ERR_INDEX_CHANGED` if the file's size or mtime differ from when it was mapped.
    pub fn check_unchanged(&self) -> Result<()> {
        match Stamp::of(&self.file) {
            Ok(now) if now == self.stamp && now.len == self.map.len() as u64 => Ok(()),
            _ => Err(Error::new(
                ErrorKind::IndexChanged,
                "the file of this memory-mapped vector index was changed in place after it was loaded; \
                 load it again. To deploy a new index under a mapped path, write it to a new file and \
                 rename it over the old one (as save does): mapped readers keep the old file until they reload",
            )),
        }
    }
}

impl std::ops::Deref for MappedFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

pub enum Column<T: Pod> {
    Owned(Vec<T>),
    Mapped {
        map: Arc<MappedFile>,
        /// Byte offset; persist.rs aligns every section to 64 bytes, so casts never fail.
        offset: usize,
        len: usize,
        _t: PhantomData<T>,
    },
}

impl<T: Pod> Default for Column<T> {
    fn default() -> Self {
        Column::Owned(Vec::new())
    }
}

impl<T: Pod> Column<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            Column::Owned(v) => v,
            Column::Mapped { map, offset, len, .. } => {
                bytemuck::cast_slice(&map[*offset..*offset + len * std::mem::size_of::<T>()])
            }
        }
    }

    /// The values as an owned vector, copying a mapped column first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Column::Mapped { .. } = self {
            *self = Column::Owned(self.as_slice().to_vec());
        }
        match self {
            Column::Owned(v) => v,
            Column::Mapped { .. } => unreachable!("converted above"),
        }
    }

    /// Room for `additional` more values, without copying on every add. Large buffers are
    /// asked to use huge pages first, so the pages the new rows fault in are huge ones.
    pub fn reserve(&mut self, additional: usize) {
        let v = self.to_mut();
        if v.capacity() - v.len() < additional {
            v.reserve(additional);
            advise_huge_pages(v);
        }
    }

    /// An owned column holding a copy of `values` (on huge pages when large).
    pub fn copied(values: &[T]) -> Self {
        let mut v = Vec::with_capacity(values.len());
        advise_huge_pages(&v);
        v.extend_from_slice(values);
        Column::Owned(v)
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, Column::Mapped { .. })
    }

    /// The file a mapped column reads.
    pub fn mapped_file(&self) -> Option<&MappedFile> {
        match self {
            Column::Owned(_) => None,
            Column::Mapped { map, .. } => Some(map),
        }
    }
}

/// Asks Linux to back a large buffer with transparent huge pages (THP is often set to
/// `madvise` only, as here): a scan streams every row, and on 4 KiB pages it pays a TLB
/// miss every 4 KiB (numpy advises its large arrays the same way). Only a hint: errors are
/// ignored, and other systems skip it.
pub(crate) fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: the range lies inside this vector's allocation; MADV_HUGEPAGE changes
            // how its pages are backed, never their contents.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_mapped_file_changed_in_place_is_index_changed_and_a_renamed_over_one_is_not() {
        let dir = std::env::temp_dir().join(format!("ragrank-column-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m");
        std::fs::write(&path, [1u8; 4096]).unwrap();
        let mapped = MappedFile::new(File::open(&path).unwrap()).unwrap();
        mapped.check_unchanged().unwrap();

        // Rename over: the map keeps the old inode, which nobody changed.
        std::fs::write(dir.join("new"), [2u8; 100]).unwrap();
        std::fs::rename(dir.join("new"), &path).unwrap();
        mapped.check_unchanged().unwrap();
        assert_eq!(mapped[0], 1);

        // In place: a truncating write to the mapped inode.
        let again = MappedFile::new(File::open(&path).unwrap()).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.write_all(&[3u8; 10]).unwrap();
        assert_eq!(again.check_unchanged().unwrap_err().kind, ErrorKind::IndexChanged);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
