//! AVX-512F/BW kernels (x86_64): dots, the four-row f32 scan, the multi-query tile; one file per feature set.
use std::arch::x86_64::*;

use half::f16;

use super::{each_row, Isa, Kernels};

pub fn has_avx512() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

// Safe wrappers: `Kernels::for_isa` hands these out only after the features were detected.
pub const AVX512: Kernels = Kernels {
    isa: Isa::Avx512,
    dot_f32: |a, b| unsafe { avx512_dot_f32(a, b) },
    dot_f16: |a, b| unsafe { avx512_dot_f16(a, b) },
    dot_i8: |a, b| unsafe { avx512_dot_i8(a, b) },
    dots_f32: |q, rows, out| unsafe { avx512_dots_f32(q, rows, out) },
    dots_f16: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx512_dot_f16(a, b) }),
    dots_i8: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx512_dot_i8(a, b) }),
    dots_tile: |q, rows, d, out| unsafe { avx512_dots_tile(q, rows, d, out) },
};

#[target_feature(enable = "avx512f")]
unsafe fn avx512_dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // Four accumulators hide the FMA latency.
    let mut acc = [_mm512_setzero_ps(); 4];
    let mut i = 0;
    while i + 64 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 16 * j;
            *s = _mm512_fmadd_ps(_mm512_loadu_ps(pa.add(o)), _mm512_loadu_ps(pb.add(o)), *s);
        }
        i += 64;
    }
    while i + 16 <= n {
        acc[0] = _mm512_fmadd_ps(_mm512_loadu_ps(pa.add(i)), _mm512_loadu_ps(pb.add(i)), acc[0]);
        i += 16;
    }
    if i < n {
        let m = ((1u32 << (n - i)) - 1) as __mmask16;
        acc[1] = _mm512_fmadd_ps(
            _mm512_maskz_loadu_ps(m, pa.add(i)),
            _mm512_maskz_loadu_ps(m, pb.add(i)),
            acc[1],
        );
    }
    let s = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
    _mm512_reduce_add_ps(s)
}

#[target_feature(enable = "avx512f")]
unsafe fn avx512_dot_f16(a: &[f32], b: &[f16]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr() as *const u16);
    let mut acc = [_mm512_setzero_ps(); 4];
    let mut i = 0;
    while i + 64 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 16 * j;
            let y = _mm512_cvtph_ps(_mm256_loadu_si256(pb.add(o) as *const __m256i));
            *s = _mm512_fmadd_ps(_mm512_loadu_ps(pa.add(o)), y, *s);
        }
        i += 64;
    }
    while i + 16 <= n {
        let y = _mm512_cvtph_ps(_mm256_loadu_si256(pb.add(i) as *const __m256i));
        acc[0] = _mm512_fmadd_ps(_mm512_loadu_ps(pa.add(i)), y, acc[0]);
        i += 16;
    }
    let s = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
    _mm512_reduce_add_ps(s) + super::scalar::dot_f16(&a[i..n], &b[i..n])
}

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512_dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // i8 -> i16, then madd sums adjacent products into i32 (at most 2 * 127 * 128: no overflow).
    let mut acc = [_mm512_setzero_si512(); 2];
    let mut i = 0;
    while i + 64 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 32 * j;
            let x = _mm512_cvtepi8_epi16(_mm256_loadu_si256(pa.add(o) as *const __m256i));
            let y = _mm512_cvtepi8_epi16(_mm256_loadu_si256(pb.add(o) as *const __m256i));
            *s = _mm512_add_epi32(*s, _mm512_madd_epi16(x, y));
        }
        i += 64;
    }
    while i + 32 <= n {
        let x = _mm512_cvtepi8_epi16(_mm256_loadu_si256(pa.add(i) as *const __m256i));
        let y = _mm512_cvtepi8_epi16(_mm256_loadu_si256(pb.add(i) as *const __m256i));
        acc[0] = _mm512_add_epi32(acc[0], _mm512_madd_epi16(x, y));
        i += 32;
    }
    _mm512_reduce_add_epi32(_mm512_add_epi32(acc[0], acc[1])) + super::scalar::dot_i8(&a[i..n], &b[i..n])
}

/// How far ahead the f32 scan prefetches: one group of rows (measured 1.2x from L3 at
/// 10k x 384, neutral from memory; farther was no better).
const PREFETCH_ROWS_F32: usize = 4;

/// Four rows at a time: each query chunk is loaded once for four rows, and each row
/// has its own accumulator (four independent FMA chains).
#[target_feature(enable = "avx512f")]
unsafe fn avx512_dots_f32(q: &[f32], rows: &[f32], out: &mut [f32]) {
    let d = q.len();
    if d == 0 {
        return;
    }
    let n = out.len().min(rows.len() / d);
    let (pq, tail) = (q.as_ptr(), d % 16);
    let m = ((1u32 << tail) - 1) as __mmask16;
    let mut r = 0;
    while r + 4 <= n {
        let p = rows.as_ptr().add(r * d);
        let mut acc = [_mm512_setzero_ps(); 4];
        let mut i = 0;
        while i + 16 <= d {
            let x = _mm512_loadu_ps(pq.add(i));
            for (j, s) in acc.iter_mut().enumerate() {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add((j + PREFETCH_ROWS_F32) * d + i) as *const i8);
                *s = _mm512_fmadd_ps(x, _mm512_loadu_ps(p.add(j * d + i)), *s);
            }
            i += 16;
        }
        if tail > 0 {
            let x = _mm512_maskz_loadu_ps(m, pq.add(i));
            for (j, s) in acc.iter_mut().enumerate() {
                *s = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m, p.add(j * d + i)), *s);
            }
        }
        for (j, s) in acc.iter().enumerate() {
            out[r + j] = _mm512_reduce_add_ps(*s);
        }
        r += 4;
    }
    for r in r..n {
        out[r] = avx512_dot_f32(q, &rows[r * d..(r + 1) * d]);
    }
}

// The three steps of a transpose-and-add tree over vectors of partial sums.
/// Within each 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3].
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_pairs(a: __m512, b: __m512) -> __m512 {
    _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b))
}

/// Of two `add_pairs` results: within each 128-bit lane, the partial sums of four vectors, in order.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_quads(a: __m512, b: __m512) -> __m512 {
    _mm512_add_ps(
        _mm512_shuffle_ps::<0b01_00_01_00>(a, b),
        _mm512_shuffle_ps::<0b11_10_11_10>(a, b),
    )
}

/// Across 128-bit lanes: [a.0+a.1, a.2+a.3, b.0+b.1, b.2+b.3].
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_lanes(a: __m512, b: __m512) -> __m512 {
    _mm512_add_ps(
        _mm512_shuffle_f32x4::<0b10_00_10_00>(a, b),
        _mm512_shuffle_f32x4::<0b11_01_11_01>(a, b),
    )
}

/// Sixteen horizontal sums at once: lane `i` of the result is the sum of `v[i]`'s lanes
/// (a transpose-and-add tree: 45 shuffles and adds instead of 16 full reductions).
#[target_feature(enable = "avx512f")]
unsafe fn reduce16(v: &[__m512; 16]) -> __m512 {
    // Plain loops, not closures: a closure does not inherit this function's target features,
    // so the helpers could not be inlined into it.
    let mut h = [_mm512_setzero_ps(); 8];
    for (i, h) in h.iter_mut().enumerate() {
        *h = add_pairs(v[2 * i], v[2 * i + 1]);
    }
    let mut t = [_mm512_setzero_ps(); 4];
    for (i, t) in t.iter_mut().enumerate() {
        *t = add_quads(h[2 * i], h[2 * i + 1]);
    }
    add_lanes(add_lanes(t[0], t[1]), add_lanes(t[2], t[3]))
}

/// Lanes 0 and 1 (128 bits each) of the result hold the lane sums of `v[0..4]` and `v[4..8]`:
/// `reduce16`'s tree on half the vectors.
#[target_feature(enable = "avx512f")]
unsafe fn reduce8(v: &[__m512; 8]) -> __m512 {
    let h = [
        add_pairs(v[0], v[1]),
        add_pairs(v[2], v[3]),
        add_pairs(v[4], v[5]),
        add_pairs(v[6], v[7]),
    ];
    let x = add_lanes(add_quads(h[0], h[1]), add_quads(h[2], h[3]));
    add_lanes(x, x)
}

/// `Q` queries (4 or 6) x four rows per step, 4·Q accumulators along `d`, so every loaded
/// row chunk feeds Q FMAs; rows are read in place (no packing, which cost more than the
/// multiply in matrixmultiply for a 32-query batch). Six queries read the rows from L2 a third
/// less often than four, and 24 accumulators + 6 query vectors + 1 row still fit the 32 registers.
#[target_feature(enable = "avx512f")]
unsafe fn tile_queries<const Q: usize>(queries: *const f32, rows: &[f32], d: usize, out: *mut f32, n: usize) {
    let pr = rows.as_ptr();
    let tail = d % 16;
    let mask = ((1u32 << tail) - 1) as __mmask16;
    for r0 in (0..n - n % 4).step_by(4) {
        let mut acc = [_mm512_setzero_ps(); 24];
        let mut i = 0;
        while i + 16 <= d {
            let x: [__m512; Q] = std::array::from_fn(|j| _mm512_loadu_ps(queries.add(j * d + i)));
            for rj in 0..4 {
                _mm_prefetch::<_MM_HINT_T0>(pr.wrapping_add((r0 + rj + 4) * d + i) as *const i8);
                let y = _mm512_loadu_ps(pr.add((r0 + rj) * d + i));
                for (qj, x) in x.iter().enumerate() {
                    acc[qj * 4 + rj] = _mm512_fmadd_ps(*x, y, acc[qj * 4 + rj]);
                }
            }
            i += 16;
        }
        if tail > 0 {
            let x: [__m512; Q] = std::array::from_fn(|j| _mm512_maskz_loadu_ps(mask, queries.add(j * d + i)));
            for rj in 0..4 {
                let y = _mm512_maskz_loadu_ps(mask, pr.add((r0 + rj) * d + i));
                for (qj, x) in x.iter().enumerate() {
                    acc[qj * 4 + rj] = _mm512_fmadd_ps(*x, y, acc[qj * 4 + rj]);
                }
            }
        }
        // 128-bit lane qj of the sums holds query qj's scores of rows r0..r0+4.
        let first: &[__m512; 16] = acc[..16].try_into().expect("16 accumulators");
        let sums = reduce16(first);
        let lanes = [
            _mm512_extractf32x4_ps::<0>(sums),
            _mm512_extractf32x4_ps::<1>(sums),
            _mm512_extractf32x4_ps::<2>(sums),
            _mm512_extractf32x4_ps::<3>(sums),
        ];
        for (qj, lane) in lanes.into_iter().enumerate().take(Q) {
            _mm_storeu_ps(out.add(qj * n + r0), lane);
        }
        if Q > 4 {
            let rest: &[__m512; 8] = acc[16..].try_into().expect("8 accumulators");
            let sums = reduce8(rest);
            _mm_storeu_ps(out.add(4 * n + r0), _mm512_extractf32x4_ps::<0>(sums));
            _mm_storeu_ps(out.add(5 * n + r0), _mm512_extractf32x4_ps::<1>(sums));
        }
    }
}

/// Every query against every row: groups of six queries, then of four, by `tile_queries`;
/// the rows left over by its groups of four and the queries left over by one dot at a time.
#[target_feature(enable = "avx512f")]
unsafe fn avx512_dots_tile(queries: &[f32], rows: &[f32], d: usize, out: &mut [f32]) {
    if d == 0 {
        return;
    }
    let (m, n) = (queries.len() / d, rows.len() / d);
    assert!(out.len() >= m * n, "tile buffer too small");
    let (pq, po) = (queries.as_ptr(), out.as_mut_ptr());
    // As many groups of six as leave a multiple of four where possible (32 = 4 x 6 + 2 x 4):
    // a query left alone runs the slower one-query kernel.
    let mut sixes = m / 6;
    if sixes > 0 && (m - 6 * sixes) % 4 >= 2 {
        sixes -= 1;
    }
    let mut q0 = 0;
    while q0 < 6 * sixes {
        tile_queries::<6>(pq.add(q0 * d), rows, d, po.add(q0 * n), n);
        q0 += 6;
    }
    while q0 + 4 <= m {
        tile_queries::<4>(pq.add(q0 * d), rows, d, po.add(q0 * n), n);
        q0 += 4;
    }
    let n4 = n - n % 4;
    for q in 0..q0 {
        for r in n4..n {
            out[q * n + r] = avx512_dot_f32(&queries[q * d..(q + 1) * d], &rows[r * d..(r + 1) * d]);
        }
    }
    for q in q0..m {
        avx512_dots_f32(&queries[q * d..(q + 1) * d], rows, &mut out[q * n..(q + 1) * n]);
    }
}
