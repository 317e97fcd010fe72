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
