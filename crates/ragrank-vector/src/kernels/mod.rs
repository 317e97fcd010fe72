//! Dot-product kernels with runtime CPU-feature dispatch.
//!
//! One scalar reference (several independent accumulators, so LLVM vectorises it for the
//! baseline target) and SIMD versions for AVX-512, AVX2+FMA+F16C and NEON. `Kernels::best()`
//! picks the widest the CPU has, once per process; `Kernels::for_isa` lets tests compare
//! every available path with the scalar one.
//!
//! This file holds the shared shapes (`Isa`, the `Kernels` table, `each_row`, `sgemm_tile`) and
//! the dispatch; each instruction set lives in its own file, with its `#[target_feature]` code:
//! `scalar`, `avx2`, `avx512`, `avx512_vnni` (x86_64), `neon` (aarch64); `hamming` holds the
//! 1-bit distance kernels and their own dispatch; `bandwidth` is the benchmark probe and
//! `tests` compares every set with `scalar`.
use std::sync::OnceLock;

use half::f16;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod avx512_vnni;
mod bandwidth;
pub mod hamming;
#[cfg(target_arch = "aarch64")]
mod neon;
pub mod scalar;
#[cfg(test)]
mod tests;

pub use bandwidth::{read_bandwidth, read_sum};
pub use scalar::SCALAR;

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
            if avx512::has_avx512() && avx512_vnni::has_vnni() {
                out.push(Isa::Avx512Vnni);
            }
            if avx512::has_avx512() {
                out.push(Isa::Avx512);
            }
            if avx2::has_avx2() {
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
            Isa::Avx512Vnni => Some(avx512_vnni::AVX512_VNNI),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some(avx512::AVX512),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some(avx2::AVX2),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => Some(neon::NEON),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}
