//! NEON kernels (aarch64): f32 and int8 dots, f16 on the scalar path; separate: compiled only on aarch64.
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
