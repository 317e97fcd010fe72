//! The memory-bandwidth probe for benchmarks: it uses the kernels but is not one, so it sits apart.
use super::Kernels;

/// Sum of squares of a buffer with the widest dot kernel: a STREAM-like read loop (each
/// value is loaded once from memory) used only to measure the memory bandwidth a scan is
/// bound by. It uses the same SIMD loads as the scan, so the bound is not understated.
pub fn read_sum(buf: &[f32]) -> f64 {
    let dot = Kernels::best().dot_f32;
    buf.chunks(1 << 14).map(|c| dot(c, c) as f64).sum()
}

/// Best-of-`repeats` read bandwidth (GB/s) of `read_sum` over `bytes`, on this thread or
/// split over rayon's pool. For benchmarks.
pub fn read_bandwidth(bytes: usize, parallel: bool, repeats: usize) -> f64 {
    use rayon::prelude::*;
    // On huge pages where the rows are, so the probe and the scan pay the same TLB costs.
    let mut buf = Vec::with_capacity((bytes / 4).max(1));
    crate::column::advise_huge_pages(&buf);
    buf.resize(buf.capacity(), 1.0f32);
    let mut best = 0f64;
    for _ in 0..repeats {
        let t = std::time::Instant::now();
        let sum = if parallel {
            buf.par_chunks(1 << 20).map(read_sum).sum()
        } else {
            read_sum(&buf)
        };
        let secs = t.elapsed().as_secs_f64();
        // The sum is used, so the loop cannot be optimised away.
        if sum == buf.len() as f64 {
            best = best.max(buf.len() as f64 * 4.0 / secs / 1e9);
        }
    }
    best
}
