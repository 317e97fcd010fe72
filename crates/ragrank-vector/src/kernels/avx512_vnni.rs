//! AVX-512 VNNI int8 kernels (`vpdpbusd`) on the AVX-512 table; separate: one more CPU feature, int8 only.
use std::arch::x86_64::*;

use super::avx512::AVX512;
use super::{Isa, Kernels};

pub fn has_vnni() -> bool {
    is_x86_feature_detected!("avx512vnni")
}

// Safe wrappers: `Kernels::for_isa` hands these out only after the features were detected.
pub const AVX512_VNNI: Kernels = Kernels {
    isa: Isa::Avx512Vnni,
    dot_i8: |a, b| unsafe { vnni_dot_i8(a, b) },
    dots_i8: |q, rows, out| unsafe { vnni_dots_i8(q, rows, out) },
    ..AVX512
};

/// `vpdpbusd` multiplies unsigned by signed bytes, so the query side is biased to u8
/// (a + 128, by flipping the sign bit) and 128 * sum(b) is taken off at the end; the
/// sum of b comes from a second `vpdpbusd` against ones. Both fit i32 for dim <= 65536.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn vnni_dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let (bias, ones) = (_mm512_set1_epi8(i8::MIN), _mm512_set1_epi8(1));
    // Two accumulator pairs hide the vpdpbusd latency; full chunks use plain loads
    // (masked byte loads in the hot loop were measured 3x slower on Zen 4).
    let mut acc = [_mm512_setzero_si512(); 2];
    let mut sum_b = [_mm512_setzero_si512(); 2];
    let mut i = 0;
    while i + 128 <= n {
        for j in 0..2 {
            let o = i + 64 * j;
            let x = _mm512_xor_si512(_mm512_loadu_si512(pa.add(o) as *const _), bias);
            let y = _mm512_loadu_si512(pb.add(o) as *const _);
            acc[j] = _mm512_dpbusd_epi32(acc[j], x, y);
            sum_b[j] = _mm512_dpbusd_epi32(sum_b[j], ones, y);
        }
        i += 128;
    }
    while i < n {
        // Masked loads read zeros past the end: zero b lanes add nothing to either sum.
        let m: __mmask64 = if n - i >= 64 { !0 } else { (1u64 << (n - i)) - 1 };
        let x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, pa.add(i)), bias);
        let y = _mm512_maskz_loadu_epi8(m, pb.add(i));
        acc[0] = _mm512_dpbusd_epi32(acc[0], x, y);
        sum_b[0] = _mm512_dpbusd_epi32(sum_b[0], ones, y);
        i += 64;
    }
    // acc - 128 * sum_b, lane-wise, then one horizontal sum.
    let acc = _mm512_add_epi32(acc[0], acc[1]);
    let sum_b = _mm512_add_epi32(sum_b[0], sum_b[1]);
    _mm512_reduce_add_epi32(_mm512_sub_epi32(acc, _mm512_slli_epi32(sum_b, 7)))
}

/// How far ahead the int8 scan prefetches: its loop is short enough per byte that the
/// hardware prefetcher alone left it at two thirds of the f32 scan's bandwidth.
const PREFETCH_ROWS: usize = 32;

/// `vnni_dot_i8` for four rows at a time. Here the rows are the biased side: flipping
/// a row byte's sign bit (one XOR) gives `c + 128` as u8, and `128 * sum(q)` is one
/// constant per call, so each row chunk costs one `vpdpbusd`, not two.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn vnni_dots_i8(q: &[i8], rows: &[i8], out: &mut [i32]) {
    let d = q.len();
    if d == 0 {
        return;
    }
    let n = out.len().min(rows.len() / d);
    let bias = _mm512_set1_epi8(i8::MIN);
    let (pq, tail) = (q.as_ptr(), d % 64);
    let m: __mmask64 = (1u64 << tail) - 1;
    let correction = 128 * q.iter().map(|&x| x as i32).sum::<i32>();
    let mut r = 0;
    while r + 4 <= n {
        let p = rows.as_ptr().add(r * d);
        let mut acc = [_mm512_setzero_si512(); 4];
        let mut i = 0;
        while i + 64 <= d {
            let x = _mm512_loadu_si512(pq.add(i) as *const _);
            for (j, acc) in acc.iter_mut().enumerate() {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add((j + PREFETCH_ROWS) * d + i));
                let y = _mm512_xor_si512(_mm512_loadu_si512(p.add(j * d + i) as *const _), bias);
                *acc = _mm512_dpbusd_epi32(*acc, y, x);
            }
            i += 64;
        }
        if tail > 0 {
            // Masked-off row bytes load as 0 and flip to 128, but meet a zero query byte.
            let x = _mm512_maskz_loadu_epi8(m, pq.add(i));
            for (j, acc) in acc.iter_mut().enumerate() {
                let y = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, p.add(j * d + i)), bias);
                *acc = _mm512_dpbusd_epi32(*acc, y, x);
            }
        }
        let sums = _mm_sub_epi32(reduce4_epi32(&acc), _mm_set1_epi32(correction));
        _mm_storeu_si128(out.as_mut_ptr().add(r) as *mut __m128i, sums);
        r += 4;
    }
    for r in r..n {
        out[r] = vnni_dot_i8(q, &rows[r * d..(r + 1) * d]);
    }
}

/// The four horizontal sums of `v`, as lanes 0..4: halves added, then two `hadd` rounds.
#[target_feature(enable = "avx512f,avx2")]
unsafe fn reduce4_epi32(v: &[__m512i; 4]) -> __m128i {
    let half = |x: __m512i| _mm256_add_epi32(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x));
    let (a, b, c, d) = (half(v[0]), half(v[1]), half(v[2]), half(v[3]));
    let abcd = _mm256_hadd_epi32(_mm256_hadd_epi32(a, b), _mm256_hadd_epi32(c, d));
    _mm_add_epi32(_mm256_castsi256_si128(abcd), _mm256_extracti128_si256::<1>(abcd))
}
