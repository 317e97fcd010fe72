//! Per-query cost of the core search on a text collection (profiling aid, not a test):
//! `cargo run --release -p ragrank-core --example query_probe -- DOCS QUERIES [secs]`,
//! one document / query per line; default analyzer, top 10, index precomputed.
use std::time::{Duration, Instant};

use ragrank_core::bm25::{Bm25Index, IndexConfig, NewDoc, Query, SearchOptions};

/// CPU seconds of the calling thread: steadier than wall time on a shared machine.
fn thread_cpu() -> f64 {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn cpu_clock(clock: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let docs = std::fs::read_to_string(&args[1]).expect("docs file");
    let queries = std::fs::read_to_string(&args[2]).expect("queries file");
    let secs: f64 = args.get(3).map_or(3.0, |s| s.parse().expect("seconds"));
    let idx = Bm25Index::new(IndexConfig {
        store_text: false,
        ..IndexConfig::default()
    })
    .unwrap();
    let new_docs = docs
        .lines()
        .enumerate()
        .map(|(i, t)| NewDoc {
            id: format!("d{i}"),
            text: Some(t.to_owned()),
            ..NewDoc::default()
        })
        .collect();
    idx.add(new_docs, false).unwrap();
    idx.refresh();
    let snap = idx.snapshot();
    snap.precompute();
    let qs: Vec<&str> = queries.lines().collect();
    let opts = SearchOptions {
        top_k: 10,
        ..SearchOptions::default()
    };
    let queries: Vec<Query> = qs.iter().map(|q| Query::Text(q)).collect();
    // A digest of every hit (slot and score bits), to compare builds: it must not change.
    let mut digest = 0u64;
    for q in &queries {
        for h in snap.search(q, &opts) {
            digest = digest.rotate_left(5) ^ (u64::from(h.slot) << 32 | u64::from(h.score.to_bits()));
        }
    }
    println!("results digest {digest:016x}");
    let mut hits = 0usize;
    let (mut single, mut batch, mut cpu, mut batch_cpu) = (f64::INFINITY, f64::INFINITY, f64::INFINITY, 0.0);
    for _ in 0..3 {
        let t0 = Instant::now();
        let c0 = thread_cpu();
        let mut n = 0usize;
        while t0.elapsed() < Duration::from_secs_f64(secs) {
            for q in &queries {
                hits += snap.search(q, &opts).len();
            }
            n += qs.len();
        }
        single = single.min(t0.elapsed().as_secs_f64() / n as f64 * 1e6);
        cpu = cpu.min((thread_cpu() - c0) / n as f64 * 1e6);
        let t0 = Instant::now();
        let p0 = cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID);
        let mut n = 0usize;
        while t0.elapsed() < Duration::from_secs_f64(secs) {
            hits += snap.search_batch(&queries, &opts).len();
            n += qs.len();
        }
        batch = batch.min(t0.elapsed().as_secs_f64() / n as f64 * 1e6);
        batch_cpu = (cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID) - p0) / t0.elapsed().as_secs_f64();
    }
    println!(
        "best of 3: single {single:.2} us/query (CPU {cpu:.2}), batch {batch:.2} us/query ({:.2}x, last CPU/wall {batch_cpu:.2}), {hits}",
        single / batch
    );
}
