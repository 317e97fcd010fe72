//! Storage `BinaryInt8` (`storage: 'binary', rescore: 'int8'`): the sign-bit scan of `binary`,
//! with the shortlist rescored from int8 codes instead of f32 originals. The shared suites
//! (`index.rs`, `chunks.rs`) run it through batches, tombstones, merges, filters and
//! persistence; these tests pin what is its own: recall, how far its scores are from exact,
//! equal ids to the f32-rescored index when the int8 scores separate the rows, and no f32 copy.
mod common;

use std::sync::atomic::AtomicBool;

use common::{index, random, search};
use ragrank_vector::persist;
use ragrank_vector::{Hit, Metric, Shortlist, Storage, VectorIndex};

static NEVER: AtomicBool = AtomicBool::new(false);

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// Rows around `clusters` random centres (real embeddings cluster by topic), and queries
/// near the same centres.
fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<f32> {
    let centres = random(clusters, dim, 1);
    let noise = random(n, dim, seed);
    (0..n * dim)
        .map(|i| centres[(i / dim % clusters) * dim + i % dim] + 0.5 * noise[i])
        .collect()
}

/// Ids and scores (slots are renumbered by a save without the removed rows).
fn ranked(idx: &VectorIndex, q: &[f32]) -> Vec<(String, f32)> {
    search(idx, q, 10)
        .into_iter()
        .map(|h| (idx.id(h.slot).to_string(), h.score))
        .collect()
}

fn slots(hits: &[Hit]) -> Vec<u32> {
    hits.iter().map(|h| h.slot).collect()
}

#[test]
fn finds_the_exact_top_10_on_clustered_rows_with_scores_close_to_exact() {
    let (n, dim, k) = (6000, 96, 10);
    let data = clustered(n, dim, 150, 2);
    let exact = index(&data, dim, Metric::Cosine, Storage::F32);
    let approx = index(&data, dim, Metric::Cosine, Storage::BinaryInt8);
    let queries = clustered(40, dim, 150, 7);
    let (mut found, mut worst) = (0, 0f32);
    for q in queries.chunks_exact(dim) {
        let want = search(&exact, q, k);
        let got = search(&approx, q, k);
        assert_eq!(got.len(), k);
        found += got.iter().filter(|h| want.iter().any(|w| w.slot == h.slot)).count();
        // Each returned score against the exact cosine of that row.
        let qn = unit(q);
        for h in &got {
            let s = h.slot as usize;
            let exact_score: f32 = unit(&data[s * dim..(s + 1) * dim])
                .iter()
                .zip(&qn)
                .map(|(a, b)| a * b)
                .sum();
            worst = worst.max((h.score - exact_score).abs());
        }
    }
    let recall = found as f64 / (40 * k) as f64;
    assert!(recall >= 0.95, "recall@10 {recall}");
    // Symmetric int8 of unit 96-d vectors: errors of a few thousandths, never near 0.01.
    assert!(worst > 0.0 && worst < 0.01, "largest score error {worst}");
}

/// `count` rows at cosine 0.99, 0.97, ... to `q` (planted in random ones): gaps of 0.02,
/// far above the int8 scores' error, and signs close to the query's.
fn planted(q: &[f32], count: usize, seed: u64) -> Vec<f32> {
    let q = unit(q);
    let mut out = Vec::new();
    for (i, noise) in random(count, q.len(), seed).chunks_exact(q.len()).enumerate() {
        // The noise made orthogonal to q, then mixed in at the planted cosine.
        let along: f32 = noise.iter().zip(&q).map(|(a, b)| a * b).sum();
        let ortho = unit(&noise.iter().zip(&q).map(|(x, y)| x - along * y).collect::<Vec<_>>());
        let c = 0.99 - 0.02 * i as f32;
        let s = (1.0 - c * c).sqrt();
        out.extend(q.iter().zip(&ortho).map(|(a, b)| c * a + s * b));
    }
    out
}

#[test]
fn returns_the_ids_of_the_f32_rescored_index_when_int8_scores_separate_the_rows() {
    let (dim, background) = (128, 5000);
    let queries = random(8, dim, 30);
    // Unit rows, so dot ranks as cosine does.
    let mut data: Vec<f32> = random(background, dim, 31).chunks_exact(dim).flat_map(unit).collect();
    for (i, q) in queries.chunks_exact(dim).enumerate() {
        data.extend(planted(q, 12, 40 + i as u64));
    }
    for metric in [Metric::Cosine, Metric::Dot] {
        let f32_rescored = index(&data, dim, metric, Storage::Binary);
        let int8_rescored = index(&data, dim, metric, Storage::BinaryInt8);
        for (i, q) in queries.chunks_exact(dim).enumerate() {
            let want = search(&f32_rescored, q, 10);
            let got = search(&int8_rescored, q, 10);
            assert_eq!(slots(&got), slots(&want), "{metric:?} query {i}");
            // And they are the planted rows, best first.
            let first = (background + 12 * i) as u32;
            assert_eq!(slots(&got), (first..first + 10).collect::<Vec<_>>());
            for (g, w) in got.iter().zip(&want) {
                assert!((g.score - w.score).abs() < 0.01 * w.score.abs().max(1.0), "{g:?} {w:?}");
            }
        }
    }
}

#[test]
fn l2_scores_are_int8_approximations_of_the_exact_ones() {
    let (n, dim) = (2000, 48);
    let data: Vec<f32> = random(n, dim, 50).iter().map(|x| 3.0 * x).collect();
    let mut idx = index(&data, dim, Metric::L2, Storage::BinaryInt8);
    idx.set_shortlist(Some(Shortlist::new(None, Some(n as i64)).unwrap()))
        .unwrap();
    let exact = index(&data, dim, Metric::L2, Storage::F32);
    for q in random(5, dim, 51).chunks_exact(dim) {
        let got = search(&idx, q, 10);
        let want = search(&exact, q, 10);
        // A shortlist of every row: only the int8 rounding separates them.
        let common = got.iter().filter(|h| want.iter().any(|w| w.slot == h.slot)).count();
        assert!(common >= 9, "{got:?} {want:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(g.score <= 0.0);
            assert!((g.score - w.score).abs() < 0.02 * w.score.abs(), "{g:?} {w:?}");
        }
    }
}

#[test]
fn keeps_no_f32_copy_and_saves_and_loads_as_binary_rescored_from_int8() {
    let (n, dim) = (500, 256);
    let data = random(n, dim, 60);
    let dir = std::env::temp_dir().join(format!("ragrank-binary-int8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sizes = Vec::new();
    for storage in [Storage::Binary, Storage::BinaryInt8] {
        let mut idx = index(&data, dim, Metric::Cosine, storage);
        idx.set_shortlist(Some(Shortlist::new(Some(20), None).unwrap()))
            .unwrap();
        idx.remove(&["doc-7"]);
        let path = dir.join(format!("{storage:?}.rgv"));
        persist::save(&idx, &path, &NEVER).unwrap();
        sizes.push(std::fs::metadata(&path).unwrap().len());
        let q = &random(1, dim, 61);
        for mapped in [false, true] {
            let back = persist::load(&path, mapped, &NEVER).unwrap();
            assert_eq!(back.config(), idx.config());
            assert_eq!(back.config().storage, storage);
            assert_eq!(back.shortlist(), idx.shortlist());
            assert_eq!(back.len(), n - 1);
            assert_eq!(ranked(&back, q), ranked(&idx, q), "{storage:?} mapped {mapped}");
        }
    }
    // Bits + codes + scales (32 + 256 + 4 B a row) against bits + f32 (32 + 1024 B a row).
    let ratio = sizes[1] as f64 / sizes[0] as f64;
    assert!(ratio < 0.3, "file sizes {sizes:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_add_leaves_the_index_as_it_was() {
    let dim = 16;
    let data = random(100, dim, 70);
    let mut idx = index(&data, dim, Metric::Cosine, Storage::BinaryInt8);
    let q = &random(1, dim, 71);
    let before = search(&idx, q, 10);
    let mut bad = random(2, dim, 72);
    bad[dim + 3] = f32::NAN;
    assert!(idx.add(&["x".to_string(), "y".to_string()], &bad, false).is_err());
    assert_eq!(idx.len(), 100);
    assert!(!idx.contains("x"));
    assert_eq!(search(&idx, q, 10), before);
}
