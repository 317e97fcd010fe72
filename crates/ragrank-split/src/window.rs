//! Haystack's windowing (`more_itertools.windowed(n, step = n - overlap)`, fill dropped).

/// Unit-index windows `[a, b)` over `len` units: full windows at `0, s, 2s, ...` while they
/// fit, then one partial window after the last full one if units remain.
pub fn windows(len: usize, size: usize, overlap: usize) -> Vec<(usize, usize)> {
    debug_assert!(size > overlap);
    if len == 0 {
        return Vec::new();
    }
    if len <= size {
        return vec![(0, len)];
    }
    let step = size - overlap;
    let mut out = Vec::with_capacity(len / step + 2);
    let mut start = 0;
    while start + size <= len {
        out.push((start, start + size));
        start += step;
    }
    let last_full = start - step;
    if last_full + size < len {
        out.push((last_full + step, len));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::windows;

    #[test]
    fn matches_the_verified_haystack_windows() {
        assert_eq!(windows(7, 3, 0), vec![(0, 3), (3, 6), (6, 7)]);
        assert_eq!(windows(7, 3, 1), vec![(0, 3), (2, 5), (4, 7)]);
        assert_eq!(windows(6, 3, 1), vec![(0, 3), (2, 5), (4, 6)]);
        assert_eq!(windows(4, 3, 1), vec![(0, 3), (2, 4)]);
        assert_eq!(windows(3, 3, 1), vec![(0, 3)]);
        assert_eq!(windows(8, 4, 1), vec![(0, 4), (3, 7), (6, 8)]);
        assert_eq!(windows(0, 3, 0), vec![]);
        assert_eq!(windows(1, 3, 2), vec![(0, 1)]);
    }
}
