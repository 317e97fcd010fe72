//! A column of plain values that is either owned or a window of a read-only memory map.
//! A mapped column is copied into memory the first time the index changes.
use std::marker::PhantomData;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;

pub enum Column<T: Pod> {
    Owned(Vec<T>),
    Mapped {
        map: Arc<Mmap>,
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

    /// Keeps the rows (of `width` values) whose flag in `keep` is set, in order.
    pub fn retain_rows(&mut self, width: usize, keep: &[bool]) {
        if width == 0 || self.as_slice().is_empty() {
            return;
        }
        let v = self.to_mut();
        let mut w = 0;
        for (r, &k) in keep.iter().enumerate() {
            if k {
                if w != r {
                    v.copy_within(r * width..(r + 1) * width, w * width);
                }
                w += 1;
            }
        }
        v.truncate(w * width);
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
