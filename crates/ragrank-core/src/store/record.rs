//! The byte layout both index kinds write their log records in: length-prefixed strings
//! (`u32` little-endian length, then the bytes) and a reader that steps through them. A
//! removal's record, a count then the ids, is the same for both.

/// Appends `b` with its `u32` length before it.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// The payload of a removal: the ids' count, then each id.
pub fn encode_remove<S: AsRef<str>>(ids: &[S]) -> Vec<u8> {
    let mut out = (ids.len() as u32).to_le_bytes().to_vec();
    for id in ids {
        put_bytes(&mut out, id.as_ref().as_bytes());
    }
    out
}

/// The ids of a removal's payload (`None`: it does not parse, or bytes follow it).
pub fn decode_remove(payload: &[u8]) -> Option<Vec<String>> {
    let mut c = Cursor(payload);
    let ids = (0..c.u32()?).map(|_| c.string()).collect::<Option<Vec<_>>>()?;
    c.is_done().then_some(ids)
}

/// Reads a payload front to back; every read is `None` past its end.
pub struct Cursor<'a>(pub &'a [u8]);

impl<'a> Cursor<'a> {
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        (n <= self.0.len()).then(|| {
            let (a, b) = self.0.split_at(n);
            self.0 = b;
            a
        })
    }
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// A string written by `put_bytes`.
    pub fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.0.is_empty()
    }
}
