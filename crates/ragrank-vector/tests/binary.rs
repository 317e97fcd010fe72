//! Storage `binary`: sign bits scanned by Hamming distance for a shortlist, rescored exactly
//! from the f32 originals. The shared suites (`index.rs`, `chunks.rs`) run it through
//! batches, tombstones, merges, filters and persistence; these tests pin what is its own.
mod common;

use std::sync::atomic::AtomicBool;

use common::{index, random, search};
use ragrank_core::ErrorKind;
use ragrank_vector::persist;
use ragrank_vector::{Config, Metric, SearchOptions, Shortlist, Storage, VectorIndex};
use rand::{Rng, SeedableRng};

static NEVER: AtomicBool = AtomicBool::new(false);

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
}

fn signs(v: &[f32]) -> Vec<bool> {
    v.iter().map(|&x| x > 0.0).collect()
}

#[test]
fn a_shortlist_of_k_is_the_k_nearest_by_hamming_distance_rescored_exactly() {
    // 100 dimensions: two words a row, the second with padding bits.
    let (n, dim, k) = (2000, 100, 10);
    let data = random(n, dim, 1);
    let mut idx = index(&data, dim, Metric::Dot, Storage::Binary);
    idx.set_shortlist(Some(Shortlist::new(Some(1), Some(0)).unwrap()))
        .unwrap();
    for q in random(5, dim, 2).chunks_exact(dim) {
        let qs = signs(q);
        let mut by_distance: Vec<(usize, usize)> = data
            .chunks_exact(dim)
            .map(|r| signs(r).iter().zip(&qs).filter(|(a, b)| a != b).count())
            .enumerate()
            .map(|(slot, h)| (h, slot))
            .collect();
        by_distance.sort();
        let mut want: Vec<(usize, f64)> = by_distance[..k]
            .iter()
            .map(|&(_, s)| (s, dot(q, &data[s * dim..(s + 1) * dim])))
            .collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let got = search(&idx, q, k);
        assert_eq!(
            got.iter().map(|h| h.slot as usize).collect::<Vec<_>>(),
            want.iter().map(|w| w.0).collect::<Vec<_>>()
        );
        for (h, w) in got.iter().zip(&want) {
            assert!(
                (h.score as f64 - w.1).abs() < 1e-4,
                "exact score {} vs {}",
                h.score,
                w.1
            );
        }
    }
}

/// Rows around `clusters` random centres (as real embeddings cluster by topic), unit length after cosine.
fn clustered(n: usize, dim: usize, clusters: usize, spread: f32, seed: u64) -> Vec<f32> {
    let centres = random(clusters, dim, seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed + 1);
    (0..n)
        .flat_map(|i| {
            let c = &centres[(i % clusters) * dim..(i % clusters + 1) * dim];
            c.iter()
                .map(|&x| x + spread * rng.random_range(-1.0f32..1.0))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn clustered_rows_keep_recall_at_10_above_095_with_the_default_shortlist() {
    let (n, dim) = (20_000, 128);
    let data = clustered(n, dim, 400, 0.6, 3);
    let exact = index(&data, dim, Metric::Cosine, Storage::F32);
    let binary = index(&data, dim, Metric::Cosine, Storage::Binary);
    let queries = clustered(50, dim, 400, 0.6, 3)
        .iter()
        .map(|x| x * 0.9 + 0.01)
        .collect::<Vec<_>>();
    let (mut found, mut total) = (0, 0);
    for q in queries.chunks_exact(dim) {
        let want: Vec<u32> = search(&exact, q, 10).iter().map(|h| h.slot).collect();
        let got = search(&binary, q, 10);
        found += got.iter().filter(|h| want.contains(&h.slot)).count();
        total += want.len();
        // Whatever is found carries its exact cosine, as the f32 index scores it.
        for h in &got {
            if let Some(e) = search(&exact, q, 10).iter().find(|e| e.slot == h.slot) {
                assert!((e.score - h.score).abs() < 1e-5);
            }
        }
    }
    let recall = found as f64 / total as f64;
    assert!(recall >= 0.95, "recall@10 {recall}");
}

#[test]
fn a_scan_shared_across_threads_finds_what_one_thread_finds() {
    // 50k x 512 bits is 3.2 MB: past the size at which a single query's scan goes parallel.
    let (n, dim) = (50_000, 512);
    let data = random(n, dim, 4);
    let idx = index(&data, dim, Metric::L2, Storage::Binary);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let every_other: Vec<u32> = (0..n as u32).step_by(2).collect();
    for q in random(3, dim, 5).chunks_exact(dim) {
        for filter in [None, Some(every_other.clone())] {
            let opts = SearchOptions {
                top_k: 10,
                filter,
                meta: None,
            };
            let shared = idx.search(q, &opts).unwrap();
            let alone = one.install(|| idx.search(q, &opts)).unwrap();
            assert_eq!(shared, alone);
            assert_eq!(shared.len(), 10);
        }
        let batch = idx.search_batch(&[q, q, q, q, q].concat(), 10, &NEVER).unwrap();
        assert!(batch.iter().all(|hits| *hits == search(&idx, q, 10)));
    }
}

#[test]
fn the_shortlist_is_checked_refused_by_exact_storages_and_persisted() {
    for (per, rows, option) in [
        (Some(0), None, "options.shortlist.perTopK"),
        (Some(10_001), None, "options.shortlist.perTopK"),
        (
            Some(-1),
            None,
            "options.shortlist.perTopK must be in [1, 10000], got -1",
        ),
        (None, Some((1 << 20) + 1), "options.shortlist.rows"),
        (None, Some(-1), "options.shortlist.rows must be in [0, 1048576], got -1"),
        (
            None,
            Some(1 << 32),
            "options.shortlist.rows must be in [0, 1048576], got 4294967296",
        ),
    ] {
        let e = Shortlist::new(per, rows).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArg);
        assert!(e.message.starts_with(option), "{}", e.message);
    }
    let s = Shortlist::new(Some(3), Some(50)).unwrap();
    assert_eq!((s.len(10), s.len(20), s.len(0)), (50, 60, 50));
    assert_eq!(Shortlist::new(Some(1), None).unwrap().len(7), 7);

    for storage in [Storage::F32, Storage::F16] {
        let mut idx = VectorIndex::new(Config {
            dim: 4,
            metric: Metric::Cosine,
            storage,
        })
        .unwrap();
        let e = idx.set_shortlist(Some(s)).unwrap_err();
        assert!(e.message.starts_with("options.shortlist"), "{}", e.message);
        idx.set_shortlist(None).unwrap();
    }
    assert_eq!(Storage::parse("binary").unwrap(), Storage::Binary);
    assert_eq!(Storage::Binary.name(), "binary");
    assert_eq!(Storage::Binary.row_bytes(384), 48);

    let dir = std::env::temp_dir().join(format!("ragrank-binary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (storage, shortlist) in [
        (Storage::Binary, Some(s)),
        (Storage::Binary, None),
        (Storage::Int8, Some(s)),
    ] {
        let data = random(300, 70, 6);
        let mut idx = index(&data, 70, Metric::Cosine, storage);
        idx.set_shortlist(shortlist).unwrap();
        let path = dir.join("s.rgv");
        persist::save(&idx, &path, &NEVER).unwrap();
        let q = &random(1, 70, 7);
        for mapped in [false, true] {
            let back = persist::load(&path, mapped, &NEVER).unwrap();
            assert_eq!(back.shortlist(), shortlist);
            assert_eq!(back.config(), idx.config());
            assert_eq!(search(&back, q, 10), search(&idx, q, 10));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
