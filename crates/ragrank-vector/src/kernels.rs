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
    /// `out[r]` = the dot product of the query with row `r` of `rows` (row-major, as wide as
    /// the query): the scan's inner loop, so the query is read once per group of rows and
    /// no call is made per row.
    pub dots_f32: fn(&[f32], &[f32], &mut [f32]),
    pub dots_f16: fn(&[f32], &[f16], &mut [f32]),
    pub dots_i8: fn(&[i8], &[i8], &mut [i32]),
    /// The batch kernel: `out[q * n + r]` = queries row `q` . rows row `r`, for `m` queries
    /// and `n` rows of width `d` (`out.len() == m * n`).
    pub dots_tile: fn(queries: &[f32], rows: &[f32], d: usize, out: &mut [f32]),
}

/// `dots_tile` by a packed GEMM (matrixmultiply), for instruction sets without our own.
pub fn sgemm_tile(queries: &[f32], rows: &[f32], d: usize, out: &mut [f32]) {
    if d == 0 {
        return;
    }
    let (m, n) = (queries.len() / d, rows.len() / d);
    assert!(out.len() >= m * n, "tile buffer too small");
    // out[m x n] = Q[m x d] * rows^T: rows are read as columns (stride d).
    // SAFETY: the sizes and strides describe exactly the slices passed.
    unsafe {
        matrixmultiply::sgemm(
            m,
            d,
            n,
            1.0,
            queries.as_ptr(),
            d as isize,
            1,
            rows.as_ptr(),
            1,
            d as isize,
            0.0,
            out.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// `dots_*` for instruction sets without a multi-row kernel: one `dot` per row.
#[inline(always)]
pub fn each_row<Q, R, S>(q: &[Q], rows: &[R], out: &mut [S], dot: impl Fn(&[Q], &[R]) -> S) {
    if q.is_empty() {
        return;
    }
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(q.len())) {
        *o = dot(q, row);
    }
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
    dots_f32: |q, rows, out| each_row(q, rows, out, scalar::dot_f32),
    dots_f16: |q, rows, out| each_row(q, rows, out, scalar::dot_f16),
    dots_i8: |q, rows, out| each_row(q, rows, out, scalar::dot_i8),
    dots_tile: sgemm_tile,
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

    use super::{each_row, Isa, Kernels};

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
        dots_f32: |q, rows, out| unsafe { avx512_dots_f32(q, rows, out) },
        dots_f16: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx512_dot_f16(a, b) }),
        dots_i8: |q, rows, out| each_row(q, rows, out, |a, b| unsafe { avx512_dot_i8(a, b) }),
        dots_tile: |q, rows, d, out| unsafe { avx512_dots_tile(q, rows, d, out) },
    };

    pub const AVX512_VNNI: Kernels = Kernels {
        isa: Isa::Avx512Vnni,
        dot_i8: |a, b| unsafe { vnni_dot_i8(a, b) },
        dots_i8: |q, rows, out| unsafe { vnni_dots_i8(q, rows, out) },
        ..AVX512
    };

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
        dots_f32: |q, rows, out| super::each_row(q, rows, out, |a, b| unsafe { dot_f32(a, b) }),
        dots_f16: |q, rows, out| super::each_row(q, rows, out, super::scalar::dot_f16),
        dots_i8: |q, rows, out| super::each_row(q, rows, out, |a, b| unsafe { dot_i8(a, b) }),
        dots_tile: super::sgemm_tile,
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
    fn tile_kernels_match_one_dot_per_pair() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        for isa in Kernels::available() {
            let k = Kernels::for_isa(isa).unwrap();
            for d in [1usize, 15, 16, 17, 33, 384] {
                for (m, n) in [
                    (0, 3),
                    (3, 0),
                    (1, 1),
                    (4, 4),
                    (5, 7),
                    (6, 5),
                    (8, 9),
                    (9, 12),
                    (10, 9),
                    (32, 33),
                ] {
                    let q: Vec<f32> = (0..m * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let rows: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let mut got = vec![f32::NAN; m * n];
                    (k.dots_tile)(&q, &rows, d, &mut got);
                    for (qi, qv) in q.chunks_exact(d).enumerate() {
                        for (r, row) in rows.chunks_exact(d).enumerate() {
                            let want = scalar::dot_f32(qv, row);
                            let g = got[qi * n + r];
                            assert!(
                                close(g, want, d as f32),
                                "{isa:?} d={d} m={m} n={n} q={qi} r={r}: {g} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn multi_row_kernels_match_one_dot_per_row() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for isa in Kernels::available() {
            let k = Kernels::for_isa(isa).unwrap();
            // Row counts around the groups of four; widths around the 16- and 64-lane chunks.
            for d in [1usize, 15, 16, 17, 63, 64, 65, 128, 384, 385] {
                for n in 0..10 {
                    let q: Vec<f32> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let rows: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let mut got = vec![f32::NAN; n];
                    (k.dots_f32)(&q, &rows, &mut got);
                    for (r, g) in got.iter().enumerate() {
                        let row = &rows[r * d..(r + 1) * d];
                        let abs: f32 = q.iter().zip(row).map(|(x, y)| (x * y).abs()).sum();
                        let want = scalar::dot_f32(&q, row);
                        assert!(close(*g, want, abs), "{isa:?} f32 d={d} n={n} r={r}: {g} vs {want}");
                    }

                    let rows16: Vec<f16> = rows.iter().map(|&x| f16::from_f32(x)).collect();
                    (k.dots_f16)(&q, &rows16, &mut got);
                    for (r, g) in got.iter().enumerate() {
                        let want = scalar::dot_f16(&q, &rows16[r * d..(r + 1) * d]);
                        assert!(
                            close(*g, want, d as f32),
                            "{isa:?} f16 d={d} n={n} r={r}: {g} vs {want}"
                        );
                    }

                    let q8: Vec<i8> = (0..d).map(|_| rng.random_range(-127..=127)).collect();
                    let rows8: Vec<i8> = (0..n * d).map(|_| rng.random_range(-128..=127)).collect();
                    let mut got8 = vec![i32::MIN; n];
                    (k.dots_i8)(&q8, &rows8, &mut got8);
                    for (r, g) in got8.iter().enumerate() {
                        assert_eq!(
                            *g,
                            scalar::dot_i8(&q8, &rows8[r * d..(r + 1) * d]),
                            "{isa:?} i8 d={d} n={n} r={r}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn scalar_dot_is_the_plain_sum_of_products() {
        assert_eq!(scalar::dot_f32(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
        assert_eq!(scalar::dot_i8(&[-128, 127], &[-128, 127]), 16384 + 16129);
        assert_eq!(read_sum(&(1..=100).map(|x| x as f32).collect::<Vec<_>>()), 338350.0);
    }
}
