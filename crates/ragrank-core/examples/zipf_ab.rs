//! Per-query cost of MaxScore and exhaustive search on the benchmark's Zipf corpus
//! (profiling aid, not a test):
//! `cargo run --release -p ragrank-core --example zipf_ab -- [docs] [secs] [rounds]`.
//! Builds the corpus of `bench/lib/zipf.mjs` (same PRNG, so the same documents and
//! queries), freezes and precomputes it, checks MaxScore returns the exhaustive hits, then
//! times both interleaved per chunk of 50 queries in one process (thread CPU time; median,
//! min and max over the rounds). To compare two versions of a strategy, add an arm.
//! `ZIPF_AB_ONLY=maxscore` (or `exhaustive`) times one of them only, for a profiler.
//! `ZIPF_AB_BUILD=1` times the build's phases (analysis, staging, refresh) instead.
use std::time::{Duration, Instant};

use ragrank_core::bm25::{prepare_docs, Bm25Index, IndexConfig, NewDoc, Query, SearchOptions, Snapshot, Strategy};

/// One timed way of running a query.
type Arm<'a> = Box<dyn Fn(&Snapshot, &Query) + 'a>;

fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// `makeRng` of bench/lib/zipf.mjs.
fn make_rng(seed: u32) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9);
        let mut z = state;
        z = (z ^ (z >> 16)).wrapping_mul(0x21f0_aaad);
        z = (z ^ (z >> 15)).wrapping_mul(0x735a_2d97);
        z ^= z >> 15;
        z as f64 / 4_294_967_296.0
    }
}

fn sample(cdf: &[f64], u: f64, mut lo: usize, mut hi: usize) -> usize {
    while lo < hi {
        let mid = (lo + hi) / 2;
        if cdf[mid] > u {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

fn term_text(code: u32) -> String {
    let mut n = code as u64 + 26 * 26 + 26 + 1;
    let mut s = Vec::new();
    while n > 0 {
        n -= 1;
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

/// Documents (as U+0000-joined tokens) and queries (token lists).
fn zipf(n_docs: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let (vocab_size, seed) = (150_000usize, 20_261_129u32);
    let mut cdf = vec![0f64; vocab_size];
    let mut acc = 0f64;
    for r in 1..=vocab_size {
        acc += 1.0 / r as f64;
        cdf[r - 1] = acc;
    }
    cdf.iter_mut().for_each(|c| *c /= acc);
    cdf[vocab_size - 1] = 1.0;
    let mut perm_rng = make_rng(seed ^ 0x5bd1_e995);
    let mut perm: Vec<u32> = (0..vocab_size as u32).collect();
    for i in (1..vocab_size).rev() {
        let j = (perm_rng() * (i + 1) as f64).floor() as usize;
        perm.swap(i, j);
    }
    let vocab: Vec<String> = perm.iter().map(|&c| term_text(c)).collect();
    let mut doc_rng = make_rng(seed);
    let lens: Vec<usize> = (0..n_docs).map(|_| 20 + (doc_rng() * 61.0).floor() as usize).collect();
    let docs = lens
        .iter()
        .map(|&len| {
            let toks: Vec<&str> = (0..len)
                .map(|_| vocab[sample(&cdf, doc_rng(), 0, vocab_size - 1)].as_str())
                .collect();
            toks.join("\0")
        })
        .collect();
    let mut q_rng = make_rng(seed ^ 0x27d4_eb2f);
    let (lo, hi) = (9usize, 50_000usize - 1);
    let (u_lo, u_hi) = (cdf[lo - 1], cdf[hi]);
    let queries = (0..1000)
        .map(|_| {
            let want = 2 + (q_rng() * 5.0).floor() as usize;
            let mut set: Vec<usize> = Vec::new();
            while set.len() < want {
                let t = sample(&cdf, u_lo + q_rng() * (u_hi - u_lo), lo, hi);
                if !set.contains(&t) {
                    set.push(t);
                }
            }
            set.iter().map(|&t| vocab[t].clone()).collect()
        })
        .collect();
    (docs, queries)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n_docs: usize = args.get(1).map_or(1_000_000, |s| s.parse().expect("docs"));
    let secs: f64 = args.get(2).map_or(2.0, |s| s.parse().expect("seconds"));
    let rounds: usize = args.get(3).map_or(3, |s| s.parse().expect("rounds"));
    let t0 = Instant::now();
    let (docs, queries) = zipf(n_docs);
    let idx = Bm25Index::new(IndexConfig {
        store_text: false,
        ..IndexConfig::default()
    })
    .unwrap();
    let new_docs = docs
        .into_iter()
        .enumerate()
        .map(|(i, t)| NewDoc {
            id: format!("d{i}"),
            joined_tokens: Some(t),
            ..NewDoc::default()
        })
        .collect();
    if std::env::var_os("ZIPF_AB_BUILD").is_some() {
        // The build's phases, as the binding's sync `add` runs them (profiling aid).
        let t = Instant::now();
        let prepared = prepare_docs(&idx.analyzer(), false, new_docs).unwrap();
        let prepare = t.elapsed().as_secs_f64();
        let t = Instant::now();
        idx.stage_add(prepared, false).unwrap();
        let stage = t.elapsed().as_secs_f64();
        let t = Instant::now();
        idx.refresh();
        let refresh = t.elapsed().as_secs_f64();
        eprintln!("prepare {prepare:.2} s, stage {stage:.2} s, refresh {refresh:.2} s");
        return;
    }
    idx.add(new_docs, false).unwrap();
    idx.refresh();
    let snap = idx.snapshot();
    snap.precompute();
    eprintln!("built {n_docs} docs in {:.1} s", t0.elapsed().as_secs_f64());
    let queries: Vec<Query> = queries.iter().map(|q| Query::Tokens(q)).collect();
    let opts = |strategy| SearchOptions {
        top_k: 10,
        strategy,
        ..SearchOptions::default()
    };
    let only = std::env::var("ZIPF_AB_ONLY").ok();
    for q in queries.iter().filter(|_| only.is_none()) {
        let want = snap.search(q, &opts(Strategy::Exhaustive));
        assert_eq!(want, snap.search(q, &opts(Strategy::MaxScore)));
    }
    if only.is_none() {
        eprintln!("all {} queries: MaxScore equals exhaustive", queries.len());
    }
    // For a profiler: time one of them only.
    if let Some(only) = only {
        let s = if only == "exhaustive" {
            Strategy::Exhaustive
        } else {
            Strategy::MaxScore
        };
        let (w0, c0) = (Instant::now(), thread_cpu());
        let mut n = 0usize;
        while w0.elapsed() < Duration::from_secs_f64(secs) {
            for q in &queries {
                std::hint::black_box(snap.search(q, &opts(s)));
            }
            n += queries.len();
        }
        println!("{only}: {:.1} us/query", (thread_cpu() - c0) / n as f64 * 1e6);
        return;
    }
    // The arms run in turn on each chunk of queries, so a neighbour's load falls on all of
    // them alike: per round, each arm's thread CPU time per query; then medians and spread.
    let arms: Vec<(&str, Arm)> = vec![
        (
            "maxscore",
            Box::new(|s, q| drop(std::hint::black_box(s.search(q, &opts(Strategy::MaxScore))))),
        ),
        (
            "exhaustive",
            Box::new(|s, q| drop(std::hint::black_box(s.search(q, &opts(Strategy::Exhaustive))))),
        ),
    ];
    let chunk = 50;
    let mut per_round: Vec<Vec<f64>> = vec![Vec::new(); arms.len()];
    for round in 0..rounds {
        let mut cpu = vec![0f64; arms.len()];
        let mut n = 0usize;
        let w0 = Instant::now();
        while w0.elapsed() < Duration::from_secs_f64(secs) {
            for qs in queries.chunks(chunk) {
                for (a, (_, run)) in arms.iter().enumerate() {
                    let c0 = thread_cpu();
                    qs.iter().for_each(|q| run(&snap, q));
                    cpu[a] += thread_cpu() - c0;
                }
            }
            n += queries.len();
        }
        let us: Vec<f64> = cpu.iter().map(|c| c / n as f64 * 1e6).collect();
        let line: Vec<String> = arms
            .iter()
            .zip(&us)
            .map(|((name, _), u)| format!("{name} {u:.1}"))
            .collect();
        println!(
            "round {round}: {} us/query; {} / {} = {:.3}",
            line.join(", "),
            arms[1].0,
            arms[0].0,
            us[1] / us[0]
        );
        for (a, u) in us.into_iter().enumerate() {
            per_round[a].push(u);
        }
    }
    for ((name, _), v) in arms.iter().zip(&mut per_round) {
        v.sort_by(f64::total_cmp);
        println!(
            "{name}: median {:.1} us/query ({:.0} q/s), min {:.1}, max {:.1}",
            v[v.len() / 2],
            1e6 / v[v.len() / 2],
            v[0],
            v[v.len() - 1]
        );
    }
}
