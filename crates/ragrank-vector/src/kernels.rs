//! Dot-product kernels with runtime CPU-feature dispatch.
//!
//! One scalar reference (several independent accumulators, so LLVM vectorises it for the
//! baseline target) and SIMD versions for AVX-512, AVX2+FMA+F16C and NEON. `Kernels::best()`
//! picks the widest the CPU has, once per process; `Kernels::for_isa` lets tests compare
//! every available path with the scalar one.
use std::sync::OnceLock;

use half::f16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Scalar,
    Avx2,
    Avx512,
    /// AVX-512 with VNNI: the int8 dot product uses `vpdpbusd`.
    Avx512Vnni,
    Neon,
}

/// The three inner products a scan needs. Slices are expected to have equal lengths
/// (the shorter length is used otherwise).
#[derive(Clone, Copy)]
pub struct Kernels {
    pub isa: Isa,
    pub dot_f32: fn(&[f32], &[f32]) -> f32,
    pub dot_f16: fn(&[f32], &[f16]) -> f32,
    pub dot_i8: fn(&[i8], &[i8]) -> i32,
}

impl Kernels {
    /// The fastest kernels this CPU supports.
    pub fn best() -> &'static Kernels {
        static BEST: OnceLock<Kernels> = OnceLock::new();
        BEST.get_or_init(|| {
            let isa = Self::available()[0];
            Self::for_isa(isa).unwrap_or(SCALAR)
        })
    }

    /// Instruction sets usable on this CPU, widest first; `Scalar` is always last.
    pub fn available() -> Vec<Isa> {
        let mut out = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if x86::has_avx512() && x86::has_vnni() {
                out.push(Isa::Avx512Vnni);
            }
            if x86::has_avx512() {
                out.push(Isa::Avx512);
            }
            if x86::has_avx2() {
                out.push(Isa::Avx2);
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                out.push(Isa::Neon);
            }
        }
        out.push(Isa::Scalar);
        out
    }

    /// The kernels of one instruction set, or `None` when this CPU lacks it.
    pub fn for_isa(isa: Isa) -> Option<Kernels> {
        if !Self::available().contains(&isa) {
            return None;
        }
        match isa {
            Isa::Scalar => Some(SCALAR),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => Some(x86::AVX512_VNNI),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some(x86::AVX512),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some(x86::AVX2),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => Some(neon::NEON),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

pub const SCALAR: Kernels = Kernels {
    isa: Isa::Scalar,
    dot_f32: scalar::dot_f32,
    dot_f16: scalar::dot_f16,
    dot_i8: scalar::dot_i8,
};

pub mod scalar {
    use half::f16;

    const LANES: usize = 8;

    pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (ca, cb) = (a[..n].chunks_exact(LANES), b[..n].chunks_exact(LANES));
        let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
        let mut acc = [0f32; LANES];
        for (x, y) in ca.zip(cb) {
            for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
                *s += x * y;
            }
        }
        acc.iter().sum::<f32>() + tail
    }

    pub fn dot_f16(a: &[f32], b: &[f16]) -> f32 {
        let n = a.len().min(b.len());
        let (ca, cb) = (a[..n].chunks_exact(LANES), b[..n].chunks_exact(LANES));
        let tail: f32 = ca
            .remainder()
            .iter()
            .zip(cb.remainder())
            .map(|(x, y)| x * y.to_f32())
            .sum();
        let mut acc = [0f32; LANES];
        for (x, y) in ca.zip(cb) {
            for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
                *s += x * y.to_f32();
            }
        }
        acc.iter().sum::<f32>() + tail
    }

    pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use half::f16;

    use super::{Isa, Kernels};

    pub fn has_avx512() -> bool {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
    }

    pub fn has_vnni() -> bool {
        is_x86_feature_detected!("avx512vnni")
    }

    pub fn has_avx2() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c")
    }

    // Safe wrappers: `Kernels::for_isa` hands these out only after the features were detected.
    pub const AVX512: Kernels = Kernels {
        isa: Isa::Avx512,
        dot_f32: |a, b| unsafe { avx512_dot_f32(a, b) },
        dot_f16: |a, b| unsafe { avx512_dot_f16(a, b) },
        dot_i8: |a, b| unsafe { avx512_dot_i8(a, b) },
    };

    pub const AVX512_VNNI: Kernels = Kernels {
        isa: Isa::Avx512Vnni,
        dot_i8: |a, b| unsafe { vnni_dot_i8(a, b) },
        ..AVX512
    };

    pub const AVX2: Kernels = Kernels {
        isa: Isa::Avx2,
        dot_f32: |a, b| unsafe { avx2_dot_f32(a, b) },
        dot_f16: |a, b| unsafe { avx2_dot_f16(a, b) },
        dot_i8: |a, b| unsafe { avx2_dot_i8(a, b) },
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

    /// `vpdpbusd` multiplies unsigned by signed bytes, so the query side is biased to u8
    /// (a + 128, by flipping the sign bit) and 128 * sum(b) is taken off at the end; the
    /// sum of b comes from a second `vpdpbusd` against ones. Both fit i32 for dim <= 65536.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn vnni_dot_i8(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let (bias, ones) = (_mm512_set1_epi8(i8::MIN), _mm512_set1_epi8(1));
        let (mut acc, mut sum_b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut i = 0;
        while i < n {
            // Masked loads read zeros past the end: zero b lanes add nothing to either sum.
            let m: __mmask64 = if n - i >= 64 { !0 } else { (1u64 << (n - i)) - 1 };
            let x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, pa.add(i)), bias);
            let y = _mm512_maskz_loadu_epi8(m, pb.add(i));
            acc = _mm512_dpbusd_epi32(acc, x, y);
            sum_b = _mm512_dpbusd_epi32(sum_b, ones, y);
            i += 64;
        }
        _mm512_reduce_add_epi32(acc).wrapping_sub(_mm512_reduce_add_epi32(sum_b).wrapping_mul(128))
    }

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
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use std::arch::aarch64::*;

    use super::{Isa, Kernels};

    // f16 stays on the scalar path here: `half` converts with the FP16 instructions when present.
    pub const NEON: Kernels = Kernels {
        isa: Isa::Neon,
        dot_f32: |a, b| unsafe { dot_f32(a, b) },
        dot_f16: super::scalar::dot_f16,
        dot_i8: |a, b| unsafe { dot_i8(a, b) },
    };

    #[target_feature(enable = "neon")]
    unsafe fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [vdupq_n_f32(0.0); 4];
        let mut i = 0;
        while i + 16 <= n {
            for (j, s) in acc.iter_mut().enumerate() {
                let o = i + 4 * j;
                *s = vfmaq_f32(*s, vld1q_f32(pa.add(o)), vld1q_f32(pb.add(o)));
            }
            i += 16;
        }
        let s = vaddq_f32(vaddq_f32(acc[0], acc[1]), vaddq_f32(acc[2], acc[3]));
        vaddvq_f32(s) + super::scalar::dot_f32(&a[i..n], &b[i..n])
    }

    #[target_feature(enable = "neon")]
    unsafe fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = vdupq_n_s32(0);
        let mut i = 0;
        while i + 16 <= n {
            let (x, y) = (vld1q_s8(pa.add(i)), vld1q_s8(pb.add(i)));
            acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(x), vget_low_s8(y)));
            acc = vpadalq_s16(acc, vmull_high_s8(x, y));
            i += 16;
        }
        vaddvq_s32(acc) + super::scalar::dot_i8(&a[i..n], &b[i..n])
    }
}

/// Sum of a large buffer with independent accumulators: a STREAM-like read loop used only
/// to measure the memory bandwidth a scan is bound by.
pub fn read_sum(buf: &[f64]) -> f64 {
    let chunks = buf.chunks_exact(16);
    let tail: f64 = chunks.remainder().iter().sum();
    let mut acc = [0f64; 16];
    for c in chunks {
        for (s, x) in acc.iter_mut().zip(c) {
            *s += x;
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Best-of-`repeats` read bandwidth (GB/s) of `read_sum` over `bytes`, on this thread or
/// split over rayon's pool. For benchmarks.
pub fn read_bandwidth(bytes: usize, parallel: bool, repeats: usize) -> f64 {
    use rayon::prelude::*;
    let buf = vec![1.0f64; (bytes / 8).max(1)];
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
            best = best.max(buf.len() as f64 * 8.0 / secs / 1e9);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn close(a: f32, b: f32, scale: f32) -> bool {
        (a - b).abs() <= 1e-5 * scale.max(1.0)
    }

    #[test]
    fn every_available_isa_matches_scalar() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let isas = Kernels::available();
        assert_eq!(*isas.last().unwrap(), Isa::Scalar);
        for isa in isas {
            let k = Kernels::for_isa(isa).unwrap();
            // Lengths around every unrolling boundary, including the masked and scalar tails.
            for n in [
                0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 384, 385, 768, 1000,
            ] {
                let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let abs: f32 = a.iter().zip(&b).map(|(x, y)| (x * y).abs()).sum();
                let want = scalar::dot_f32(&a, &b);
                let got = (k.dot_f32)(&a, &b);
                assert!(close(got, want, abs), "{isa:?} f32 n={n}: {got} vs {want}");

                let bh: Vec<f16> = b.iter().map(|&x| f16::from_f32(x)).collect();
                let want = scalar::dot_f16(&a, &bh);
                let got = (k.dot_f16)(&a, &bh);
                assert!(close(got, want, abs), "{isa:?} f16 n={n}: {got} vs {want}");

                let a8: Vec<i8> = (0..n).map(|_| rng.random_range(-127..=127)).collect();
                let mut b8: Vec<i8> = (0..n).map(|_| rng.random_range(-128..=127)).collect();
                if n > 0 {
                    b8[0] = -128;
                }
                assert_eq!((k.dot_i8)(&a8, &b8), scalar::dot_i8(&a8, &b8), "{isa:?} i8 n={n}");
            }
        }
    }

    #[test]
    fn scalar_dot_is_the_plain_sum_of_products() {
        assert_eq!(scalar::dot_f32(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
        assert_eq!(scalar::dot_i8(&[-128, 127], &[-128, 127]), 16384 + 16129);
        assert_eq!(read_sum(&(1..=100).map(f64::from).collect::<Vec<_>>()), 5050.0);
    }
}
