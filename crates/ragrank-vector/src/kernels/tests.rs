//! Every instruction set this CPU has against `scalar` at lengths around each unrolling boundary; kept apart.
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
