//! The portable reference kernels and their table: every CPU's fallback and the tests' oracle, no intrinsics.
use half::f16;

use super::{each_row, sgemm_tile, Isa, Kernels};

pub const SCALAR: Kernels = Kernels {
    isa: Isa::Scalar,
    dot_f32,
    dot_f16,
    dot_i8,
    dots_f32: |q, rows, out| each_row(q, rows, out, dot_f32),
    dots_f16: |q, rows, out| each_row(q, rows, out, dot_f16),
    dots_i8: |q, rows, out| each_row(q, rows, out, dot_i8),
    dots_tile: sgemm_tile,
};

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
