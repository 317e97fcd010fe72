//! A segment's arrays, either owned (a segment built in memory) or read in place from a
//! memory-mapped segment file (`segment_file`). Both deref to a slice, so the search code
//! does not know which it reads; the slice's pointer is taken once at construction, so a
//! read costs no branch on the kind.
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

/// Element types a file section can be viewed as in place.
///
/// # Safety
/// `WIDTH == size_of::<Self>()` must mean that every `WIDTH` little-endian bytes `read_le`
/// accepts are also a valid `Self` in memory on a little-endian target (no padding, no
/// invalid bit patterns).
pub unsafe trait Plain: Copy + Send + Sync + 'static {
    /// Bytes per element in the file.
    const WIDTH: usize;
    fn read_le(b: &[u8]) -> Self;
}

// SAFETY: integers and floats of their own width have no padding or invalid bit pattern.
unsafe impl Plain for u8 {
    const WIDTH: usize = 1;
    fn read_le(b: &[u8]) -> Self {
        b[0]
    }
}
unsafe impl Plain for u32 {
    const WIDTH: usize = 4;
    fn read_le(b: &[u8]) -> Self {
        u32::from_le_bytes(b.try_into().expect("4 bytes"))
    }
}
unsafe impl Plain for f32 {
    const WIDTH: usize = 4;
    fn read_le(b: &[u8]) -> Self {
        f32::from_bits(u32::read_le(b))
    }
}
// SAFETY: stored as u64; mapped in place only where usize is 8 bytes (WIDTH check).
unsafe impl Plain for usize {
    const WIDTH: usize = 8;
    fn read_le(b: &[u8]) -> Self {
        u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize
    }
}
// SAFETY: the layout of the pair is checked below: two u32s, the first at offset 0.
unsafe impl Plain for (u32, u32) {
    const WIDTH: usize = 8;
    fn read_le(b: &[u8]) -> Self {
        (u32::read_le(&b[..4]), u32::read_le(&b[4..]))
    }
}
const _: () = assert!(
    std::mem::size_of::<(u32, u32)>() == 8
        && std::mem::offset_of!((u32, u32), 0) == 0
        && std::mem::offset_of!((u32, u32), 1) == 4
);

enum Owner<T> {
    Vec(#[allow(dead_code)] Vec<T>),
    Map(#[allow(dead_code)] Arc<Mmap>),
}

pub struct Column<T: Plain> {
    ptr: *const T,
    len: usize,
    owner: Owner<T>,
}

// SAFETY: the column only hands out shared slices of data nobody mutates (an owned Vec is
// never touched again; a map is read-only).
unsafe impl<T: Plain> Send for Column<T> {}
unsafe impl<T: Plain> Sync for Column<T> {}

impl<T: Plain> Column<T> {
    /// The elements of `map[offset..offset + len * WIDTH]`, viewed in place when the target's
    /// layout and the section's alignment allow it, else decoded into a Vec. The caller
    /// checked that the range lies within the map.
    pub fn mapped(map: &Arc<Mmap>, offset: usize, len: usize) -> Column<T> {
        let bytes = &map[offset..offset + len * T::WIDTH];
        let in_place = cfg!(target_endian = "little")
            && std::mem::size_of::<T>() == T::WIDTH
            && (bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>());
        if !in_place || len == 0 {
            return Column::from(bytes.chunks_exact(T::WIDTH).map(T::read_le).collect::<Vec<T>>());
        }
        Column {
            ptr: bytes.as_ptr().cast(),
            len,
            owner: Owner::Map(map.clone()),
        }
    }

    /// Heap bytes held (a mapped column holds none: the page cache does).
    pub fn heap_bytes(&self) -> usize {
        match self.owner {
            Owner::Vec(_) => self.len * std::mem::size_of::<T>(),
            Owner::Map(_) => 0,
        }
    }
}

impl<T: Plain> From<Vec<T>> for Column<T> {
    fn from(v: Vec<T>) -> Self {
        Column {
            ptr: v.as_ptr(),
            len: v.len(),
            owner: Owner::Vec(v),
        }
    }
}

impl<T: Plain> Default for Column<T> {
    fn default() -> Self {
        Column::from(Vec::new())
    }
}

impl<T: Plain> Deref for Column<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points at `len` valid, aligned elements owned by `owner` (a Vec's
        // buffer does not move when the Vec does; a map stays mapped while its Arc lives).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Plain + PartialEq> PartialEq for Column<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Plain + fmt::Debug> fmt::Debug for Column<T> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// Strings as end offsets and bytes (a mapped segment's ids, texts, metadata and terms).
#[derive(Default)]
pub struct Strings {
    pub ends: Column<usize>,
    pub bytes: Column<u8>,
}

impl Strings {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The bytes of string `i`; empty if there is none such or the ends are out of order
    /// (damage open did not find).
    pub fn get(&self, i: usize) -> &[u8] {
        let Some(&end) = self.ends.get(i) else { return &[] };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start..end).unwrap_or_default()
    }

    /// String `i` as UTF-8 (None if it is not: damage open did not check).
    pub fn str(&self, i: usize) -> Option<&str> {
        std::str::from_utf8(self.get(i)).ok()
    }

    pub fn heap_bytes(&self) -> usize {
        self.ends.heap_bytes() + self.bytes.heap_bytes()
    }

    /// The local whose string is `key`, by binary search over `sorted` (the locals in byte
    /// order of their strings).
    pub fn find(&self, sorted: &[u32], key: &[u8]) -> Option<u32> {
        let n = self.len() as u32;
        let i = sorted
            .binary_search_by(|&l| {
                if l < n {
                    self.get(l as usize).cmp(key)
                } else {
                    std::cmp::Ordering::Less
                }
            })
            .ok()?;
        Some(sorted[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_column_reads_what_was_written_in_place_or_decoded() {
        let dir = std::env::temp_dir().join(format!("ragrank-column-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c");
        // A u32 array at offset 8 (aligned) and at offset 2 (decoded).
        let mut bytes = vec![0u8; 8];
        bytes.extend([1u32, 2, 3].iter().flat_map(|v| v.to_le_bytes()));
        std::fs::write(&path, &bytes).unwrap();
        let map = Arc::new(unsafe { Mmap::map(&std::fs::File::open(&path).unwrap()).unwrap() });
        let aligned = Column::<u32>::mapped(&map, 8, 3);
        assert_eq!(&*aligned, &[1, 2, 3]);
        assert_eq!(aligned.heap_bytes(), 0);
        let pairs = Column::<(u32, u32)>::mapped(&map, 8, 1);
        assert_eq!(&*pairs, &[(1, 2)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
