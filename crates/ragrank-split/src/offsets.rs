//! UTF-8 byte offsets to UTF-16 code-unit offsets (what JS `String.prototype.slice` takes).

/// Maps each of `byte_offsets` (char boundaries of `text`) to its UTF-16 offset, in place.
/// One pass over the text however many offsets there are.
pub fn to_utf16(text: &str, byte_offsets: &mut [u32]) {
    if text.is_ascii() {
        return;
    }
    let mut order: Vec<u32> = (0..byte_offsets.len() as u32).collect();
    order.sort_unstable_by_key(|&i| byte_offsets[i as usize]);
    let bytes = text.as_bytes();
    let (mut byte, mut units) = (0usize, 0u32);
    for i in order {
        let target = byte_offsets[i as usize] as usize;
        while byte < target {
            let b = bytes[byte];
            // Lead bytes tell the width; 4-byte sequences are surrogate pairs in UTF-16.
            let (width, u16s) = match b {
                0x00..=0x7F => (1, 1),
                0xC0..=0xDF => (2, 1),
                0xE0..=0xEF => (3, 1),
                _ => (4, 2),
            };
            byte += width;
            units += u16s;
        }
        byte_offsets[i as usize] = units;
    }
}

#[cfg(test)]
mod tests {
    use super::to_utf16;

    #[test]
    fn counts_surrogate_pairs_as_two() {
        let text = "héllo 😀 x";
        let mut offs = vec![text.len() as u32, 0, 7, 11];
        to_utf16(text, &mut offs);
        assert_eq!(offs, vec![10, 0, 6, 8]);
        assert_eq!(text.encode_utf16().count(), 10);
    }
}
