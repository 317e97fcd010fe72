//! AVX2+FMA+F16C kernels (x86_64), one row at a time; separate: the x86 baseline for CPUs without AVX-512.
use std::arch::x86_64::*;

use half::f16;

use super::{each_row, Isa, Kernels};

pub fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c")
}

// Safe wrappers: `Kernels::for_isa` hands these out only after the features were detected.
pub const AVX2: Kernels = Kernels {
    isa: Isa::Avx2,
    dot_f32: |a, b| unsafe { avx2_dot_f32(a, b) },
    dot_f16: |a, b| unsafe { avx2_dot_f16(a, b) },
    dot_i8: |a, b| unsafe { avx2_dot_i8(a, b) },
    dots_f32: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx2_dot_f32(a, b) }),
    dots_f16: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx2_dot_f16(a, b) }),
    dots_i8: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx2_dot_i8(a, b) }),
    dots_tile: super::sgemm_tile,
};

#[target_feature(enable = "avx2,fma")]
unsafe fn hsum256(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    _mm_cvtss_f32(s)
}

#[target_feature(enable = "avx2,fma")]
unsafe fn avx2_dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc = [_mm256_setzero_ps(); 4];
    let mut i = 0;
    while i + 32 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 8 * j;
            *s = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(o)), _mm256_loadu_ps(pb.add(o)), *s);
        }
        i += 32;
    }
    while i + 8 <= n {
        acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), acc[0]);
        i += 8;
    }
    let s = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
    hsum256(s) + super::scalar::dot_f32(&a[i..n], &b[i..n])
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn avx2_dot_f16(a: &[f32], b: &[f16]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr() as *const u16);
    let mut acc = [_mm256_setzero_ps(); 4];
    let mut i = 0;
    while i + 32 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 8 * j;
            let y = _mm256_cvtph_ps(_mm_loadu_si128(pb.add(o) as *const __m128i));
            *s = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(o)), y, *s);
        }
        i += 32;
    }
    while i + 8 <= n {
        let y = _mm256_cvtph_ps(_mm_loadu_si128(pb.add(i) as *const __m128i));
        acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), y, acc[0]);
        i += 8;
    }
    let s = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
    hsum256(s) + super::scalar::dot_f16(&a[i..n], &b[i..n])
}

#[target_feature(enable = "avx2")]
unsafe fn avx2_dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc = [_mm256_setzero_si256(); 2];
    let mut i = 0;
    while i + 32 <= n {
        for (j, s) in acc.iter_mut().enumerate() {
            let o = i + 16 * j;
            let x = _mm256_cvtepi8_epi16(_mm_loadu_si128(pa.add(o) as *const __m128i));
            let y = _mm256_cvtepi8_epi16(_mm_loadu_si128(pb.add(o) as *const __m128i));
            *s = _mm256_add_epi32(*s, _mm256_madd_epi16(x, y));
        }
        i += 32;
    }
    let v = _mm256_add_epi32(acc[0], acc[1]);
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    _mm_cvtsi128_si32(s) + super::scalar::dot_i8(&a[i..n], &b[i..n])
}
