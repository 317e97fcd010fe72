//! Hamming distances of 1-bit rows (storage `binary`), with their own runtime dispatch: the
//! fast path needs AVX-512 VPOPCNTDQ, a feature apart from the dot kernels' sets.
//!
//! A row is `words` u64s (bit `i % 64` of word `i / 64` is the sign of value `i`; the padding
//! bits of the last word are zero in rows and queries alike, so they never count).
//! - `Scalar`: `u64::count_ones`, portable (a bit-trick sequence where the target lacks popcnt).
//! - `Popcnt` (x86_64): the same loop compiled with the `popcnt` instruction.
//! - `Avx512Vpopcntdq` (x86_64): `vpopcntq` on 8 words at once; four rows' lane counts are
//!   packed into one vector (16 bits each) so one horizontal sum serves four rows.
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HammingIsa {
    Scalar,
    Popcnt,
    Avx512Vpopcntdq,
}

#[derive(Clone, Copy)]
pub struct Hamming {
    pub isa: HammingIsa,
    /// The Hamming distance of two rows of equal width.
    pub distance: fn(&[u64], &[u64]) -> u32,
    /// `out[r]` = the distance of the query to row `r` of `rows` (row-major, as wide as the query).
    pub distances: fn(&[u64], &[u64], &mut [u32]),
}

const SCALAR: Hamming = Hamming {
    isa: HammingIsa::Scalar,
    distance: scalar_distance,
    distances: |q, rows, out| super::each_row(q, rows, out, scalar_distance),
};

pub fn scalar_distance(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

impl Hamming {
    /// The fastest kernels this CPU supports, chosen once per process.
    pub fn best() -> &'static Hamming {
        static BEST: OnceLock<Hamming> = OnceLock::new();
        BEST.get_or_init(|| Self::for_isa(Self::available()[0]).unwrap_or(SCALAR))
    }

    /// Instruction sets usable on this CPU, fastest first; `Scalar` is always last.
    pub fn available() -> Vec<HammingIsa> {
        let mut out = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if x86::has_vpopcntdq() {
                out.push(HammingIsa::Avx512Vpopcntdq);
            }
            if is_x86_feature_detected!("popcnt") {
                out.push(HammingIsa::Popcnt);
            }
        }
        out.push(HammingIsa::Scalar);
        out
    }

    /// The kernels of one instruction set, or `None` when this CPU lacks it.
    pub fn for_isa(isa: HammingIsa) -> Option<Hamming> {
        if !Self::available().contains(&isa) {
            return None;
        }
        match isa {
            HammingIsa::Scalar => Some(SCALAR),
            #[cfg(target_arch = "x86_64")]
            HammingIsa::Popcnt => Some(x86::POPCNT),
            #[cfg(target_arch = "x86_64")]
            HammingIsa::Avx512Vpopcntdq => Some(x86::VPOPCNTDQ),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// Packs the signs of `v` into `out` (appended): bit set for a positive value. Zero counts
/// as negative, so an all-zero padding word stays zero.
pub fn sign_bits_into(v: &[f32], out: &mut Vec<u64>) {
    for chunk in v.chunks(64) {
        let mut w = 0u64;
        for (i, &x) in chunk.iter().enumerate() {
            w |= u64::from(x > 0.0) << i;
        }
        out.push(w);
    }
}

/// u64 words per row of `dim` bits.
pub fn words(dim: usize) -> usize {
    dim.div_ceil(64)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{Hamming, HammingIsa};

    pub fn has_vpopcntdq() -> bool {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vpopcntdq")
    }

    // Safe wrappers: `Hamming::for_isa` hands these out only after the features were detected.
    pub const POPCNT: Hamming = Hamming {
        isa: HammingIsa::Popcnt,
        distance: |a, b| unsafe { popcnt_distance(a, b) },
        distances: |q, rows, out| super::super::each_row(q, rows, out, |a, b| unsafe { popcnt_distance(a, b) }),
    };
    pub const VPOPCNTDQ: Hamming = Hamming {
        isa: HammingIsa::Avx512Vpopcntdq,
        distance: |a, b| unsafe { vpopcnt_distances(a, b, std::slice::from_mut(&mut 0)) },
        distances: |q, rows, out| unsafe {
            vpopcnt_distances(q, rows, out);
        },
    };

    #[target_feature(enable = "popcnt")]
    unsafe fn popcnt_distance(a: &[u64], b: &[u64]) -> u32 {
        a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
    }

    /// The per-lane bit counts of `q ^ row` (8 words per step, the last step masked).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    unsafe fn lane_counts(q: *const u64, row: *const u64, w: usize) -> __m512i {
        let mut acc = _mm512_setzero_si512();
        let mut i = 0;
        while i + 8 <= w {
            let x = _mm512_xor_si512(
                _mm512_loadu_si512(q.add(i) as *const _),
                _mm512_loadu_si512(row.add(i) as *const _),
            );
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
            i += 8;
        }
        if i < w {
            let m: __mmask8 = (1u8 << (w - i)) - 1;
            let x = _mm512_xor_si512(
                _mm512_maskz_loadu_epi64(m, q.add(i) as *const _),
                _mm512_maskz_loadu_epi64(m, row.add(i) as *const _),
            );
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
        }
        acc
    }

    /// Distances of `q` to each row of `rows` into `out`; returns the first (for `distance`).
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    unsafe fn vpopcnt_distances(q: &[u64], rows: &[u64], out: &mut [u32]) -> u32 {
        let w = q.len();
        if w == 0 {
            out.fill(0);
            return 0;
        }
        let n = out.len().min(rows.len() / w);
        let (pq, pr) = (q.as_ptr(), rows.as_ptr());
        let mut r = 0;
        // A row's distance is at most 64 * w; below 2^16 four rows share one horizontal sum.
        if 64 * w < 1 << 16 {
            while r + 4 <= n {
                let c0 = lane_counts(pq, pr.add(r * w), w);
                let c1 = lane_counts(pq, pr.add((r + 1) * w), w);
                let c2 = lane_counts(pq, pr.add((r + 2) * w), w);
                let c3 = lane_counts(pq, pr.add((r + 3) * w), w);
                let packed = _mm512_or_si512(
                    _mm512_or_si512(c0, _mm512_slli_epi64(c1, 16)),
                    _mm512_or_si512(_mm512_slli_epi64(c2, 32), _mm512_slli_epi64(c3, 48)),
                );
                // Lane counts stay below 2^16 in every field, so the sum carries nothing across fields.
                let s = _mm512_reduce_add_epi64(packed) as u64;
                for j in 0..4 {
                    out[r + j] = ((s >> (16 * j)) & 0xffff) as u32;
                }
                r += 4;
            }
        }
        while r < n {
            out[r] = _mm512_reduce_add_epi64(lane_counts(pq, pr.add(r * w), w)) as u32;
            r += 1;
        }
        out.first().copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    #[test]
    fn every_available_isa_matches_scalar() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let isas = Hamming::available();
        assert_eq!(*isas.last().unwrap(), HammingIsa::Scalar);
        for isa in isas {
            let h = Hamming::for_isa(isa).unwrap();
            // Widths around the 8-word step and the masked tail; row counts around the four-row group.
            for w in [1usize, 2, 6, 7, 8, 9, 12, 16, 17] {
                for n in [0usize, 1, 3, 4, 5, 9] {
                    let q: Vec<u64> = (0..w).map(|_| rng.random()).collect();
                    let rows: Vec<u64> = (0..n * w).map(|_| rng.random()).collect();
                    let want: Vec<u32> = rows.chunks(w).map(|r| scalar_distance(&q, r)).collect();
                    let mut got = vec![u32::MAX; n];
                    (h.distances)(&q, &rows, &mut got);
                    assert_eq!(got, want, "{isa:?} w={w} n={n}");
                    if n > 0 {
                        assert_eq!((h.distance)(&q, &rows[..w]), want[0], "{isa:?} w={w}");
                    }
                }
            }
            // The extremes: all bits differ in every word (64 per word), and none do.
            let ones = vec![u64::MAX; 6 * 4];
            let mut out = [0u32; 4];
            (h.distances)(&[0; 6], &ones, &mut out);
            assert_eq!(out, [384; 4], "{isa:?}");
            (h.distances)(&[u64::MAX; 6], &ones, &mut out);
            assert_eq!(out, [0; 4], "{isa:?}");
        }
    }

    #[test]
    fn sign_bits_set_positive_values_and_leave_padding_zero() {
        let mut v = vec![-1.0f32; 70];
        v[0] = 0.5;
        v[63] = 2.0;
        v[64] = 1.0;
        v[69] = 0.0; // zero counts as negative
        let mut out = Vec::new();
        sign_bits_into(&v, &mut out);
        assert_eq!(out, vec![1 | 1 << 63, 1]);
        assert_eq!(words(70), 2);
        assert_eq!(words(384), 6);
    }
}
