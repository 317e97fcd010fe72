//! Helpers shared by the binary storage suites.
use ragrank_vector::{Config, Hit, Metric, SearchOptions, Storage, VectorIndex};
use rand::{Rng, SeedableRng};

pub fn random(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n * dim).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("doc-{i}")).collect()
}

pub fn index(data: &[f32], dim: usize, metric: Metric, storage: Storage) -> VectorIndex {
    let mut idx = VectorIndex::new(Config { dim, metric, storage }).unwrap();
    idx.add(&ids(data.len() / dim), data, false).unwrap();
    idx
}

pub fn search(idx: &VectorIndex, q: &[f32], k: usize) -> Vec<Hit> {
    let opts = SearchOptions {
        top_k: k,
        ..Default::default()
    };
    idx.search(q, &opts).unwrap()
}
