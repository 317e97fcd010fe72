//! Opening a directory-bound BM25 index (measurement aid, not a test):
//! `cargo run --release -p ragrank-core --example open_probe -- [docs] [dir]`.
//! Builds `docs` (default 1,000,000) synthetic documents (Zipf-ish words, stored text, a
//! `tenant` field) into `dir` (default under the temp directory) unless it already holds an
//! index, merges them into one segment and commits; then, as a fresh process would, drops and reopens it
//! several times and reports the median of open + first query (warm page cache), then the
//! first filtered query, `get` and `verify`, and compares search speed on the mapped
//! segments with the same index loaded into the heap from a single-file save (today's
//! path), checking both return bit-identical hits.
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ragrank_core::bm25::directory::OpenOptions;
use ragrank_core::bm25::filter::Filter;
use ragrank_core::bm25::{persist, Bm25Index, NewDoc, Query, SearchOptions, Snapshot};
use ragrank_core::filter::MetaFilter;

const SYLLABLES: [&str; 20] = [
    "ka", "lo", "mi", "nu", "pe", "ra", "ti", "vo", "ze", "bu", "do", "fa", "gi", "ho", "ju", "ke", "ly", "mo", "ne",
    "po",
];
const VOCAB: usize = 200_000;
const QUERIES: usize = 300;

fn word(rank: usize) -> String {
    let (mut n, mut w) = (rank + 1, String::new());
    while n > 0 {
        w.push_str(SYLLABLES[n % 20]);
        n /= 20;
    }
    w
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Ranks drawn with probability ~ 1/(rank + 1), by inverse CDF.
struct Zipf(Vec<f64>);
impl Zipf {
    fn new() -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (0..VOCAB)
            .map(|r| {
                acc += 1.0 / (r + 1) as f64;
                acc
            })
            .collect();
        cdf.iter_mut().for_each(|c| *c /= acc);
        Zipf(cdf)
    }
    fn draw(&self, rng: &mut Rng) -> usize {
        self.0.partition_point(|&c| c < rng.unit()).min(VOCAB - 1)
    }
}

fn build(dir: &std::path::Path, n: usize, words: &[String], zipf: &Zipf) {
    let t = Instant::now();
    let index = Bm25Index::open(dir, OpenOptions::default()).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    const BATCH: usize = 50_000;
    for start in (0..n).step_by(BATCH) {
        let docs: Vec<NewDoc> = (start..(start + BATCH).min(n))
            .map(|i| {
                let len = 20 + (rng.next() % 61) as usize;
                let text: Vec<&str> = (0..len).map(|_| words[zipf.draw(&mut rng)].as_str()).collect();
                NewDoc {
                    id: format!("doc-{i:07}"),
                    text: Some(text.join(" ")),
                    meta: Some(serde_json::json!({ "tenant": format!("t{}", i % 97), "n": i })),
                    ..Default::default()
                }
            })
            .collect();
        index.add(docs, false).unwrap();
    }
    // The policy's merges, then one segment: the heap index it is compared with (a
    // single-file load) is one segment too, so the search speeds compare like with like.
    let merges = index.merge();
    index.force_merge();
    index.commit().unwrap();
    println!(
        "built {n} documents in {:.1?} ({merges} merges, {} segments)",
        t.elapsed(),
        index.snapshot().segments().len()
    );
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn opts(k: usize) -> SearchOptions {
    SearchOptions {
        top_k: k,
        ..Default::default()
    }
}

/// Hits of every query as (id, score bits), and the best of `rounds` timed passes.
fn run(snap: &Snapshot, queries: &[String], rounds: usize) -> (Vec<Vec<(String, u32)>>, Duration) {
    let o = opts(10);
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for q in queries {
            std::hint::black_box(snap.search(&Query::Text(q), &o));
        }
        best = best.min(t.elapsed());
    }
    let hits = queries
        .iter()
        .map(|q| {
            snap.search(&Query::Text(q), &o)
                .into_iter()
                .map(|h| (snap.doc(h.slot).id.to_string(), h.score.to_bits()))
                .collect()
        })
        .collect();
    (hits, best)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .map_or(1_000_000, |a| a.replace('_', "").parse().expect("docs"));
    let dir = args.get(2).map_or_else(
        || std::env::temp_dir().join(format!("ragrank-open-probe-{n}")),
        PathBuf::from,
    );
    let words: Vec<String> = (0..VOCAB).map(word).collect();
    let zipf = Zipf::new();
    if !dir.join("LOCK").exists() {
        build(&dir, n, &words, &zipf);
    }
    let files: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!("directory {} holds {:.0} MB", dir.display(), files as f64 / 1e6);
    // Mid-frequency words, 2 to 4 a query.
    let mut rng = Rng(42);
    let queries: Vec<String> = (0..QUERIES)
        .map(|_| {
            let k = 2 + (rng.next() % 3) as usize;
            (0..k)
                .map(|_| words[10 + zipf.draw(&mut rng) % 5_000].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();

    // Open + first query, a fresh open each time (the page cache stays warm).
    let mut opens = Vec::new();
    let mut firsts = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let index = Bm25Index::open(&dir, OpenOptions::default()).unwrap();
        let opened = t.elapsed();
        let hits = index.snapshot().search(&Query::Text(&queries[0]), &opts(10));
        assert!(!hits.is_empty());
        firsts.push(t.elapsed());
        opens.push(opened);
    }
    println!(
        "open: median {:.1?}, open + first query: median {:.1?} (of {}: {:?})",
        median(opens),
        median(firsts.clone()),
        firsts.len(),
        firsts
    );

    let mapped = Bm25Index::open(&dir, OpenOptions::default()).unwrap();
    mapped.set_refresh_interval(None);
    let snap = mapped.snapshot();
    let t = Instant::now();
    assert!(snap.get("doc-0000007").is_some());
    println!("first get by id: {:.1?}", t.elapsed());
    let filter = SearchOptions {
        top_k: 10,
        filter: Some(Filter {
            slots: None,
            meta: Some(MetaFilter::compile(&serde_json::json!({ "tenant": "t3" }), "filter").unwrap()),
        }),
        ..Default::default()
    };
    let t = Instant::now();
    let filtered = snap.search(&Query::Text(&queries[1]), &filter);
    println!(
        "first filtered query (builds the field index): {:.1?}; {} hits",
        t.elapsed(),
        filtered.len()
    );
    let t = Instant::now();
    snap.search(&Query::Text(&queries[2]), &filter);
    println!("second filtered query: {:.1?}", t.elapsed());
    let t = Instant::now();
    snap.verify().unwrap();
    println!("verify (whole-file CRC): {:.1?}", t.elapsed());

    // Today's path: a single-file save loaded into the heap.
    let file = dir.with_extension("bm25");
    persist::save(&snap, &file, &AtomicBool::new(false)).unwrap();
    let t = Instant::now();
    let heap = persist::load(&file, &AtomicBool::new(false)).unwrap();
    println!("single-file load into the heap (today): {:.1?}", t.elapsed());
    std::fs::remove_file(&file).unwrap();
    let heap_snap = heap.snapshot();

    let (cold_hits, cold) = run(&snap, &queries, 3);
    let (heap_hits, heap_time) = run(&heap_snap, &queries, 3);
    let t = Instant::now();
    snap.precompute();
    let precompute = t.elapsed();
    let (mapped_hits, mapped_time) = run(&snap, &queries, 3);
    assert_eq!(mapped_hits, heap_hits, "mapped and heap hits differ");
    assert_eq!(cold_hits, heap_hits, "hits before and after precompute differ");
    let per = |d: Duration| d.as_secs_f64() * 1e6 / QUERIES as f64;
    println!(
        "search, {QUERIES} queries, top 10, one thread: heap {:.1} us/query, mapped {:.1} us/query \
         (speed ratio mapped/heap {:.3}); mapped before precompute {:.1} us/query (ratio {:.3}); \
         precompute {:.1?}; hits bit-identical",
        per(heap_time),
        per(mapped_time),
        heap_time.as_secs_f64() / mapped_time.as_secs_f64(),
        per(cold),
        heap_time.as_secs_f64() / cold.as_secs_f64(),
        precompute
    );
    let stats = snap.stats();
    println!(
        "mapped index: {} documents, {} segments, heap memory {:.0} MB (heap index {:.0} MB)",
        stats.documents,
        stats.segments,
        stats.memory_bytes as f64 / 1e6,
        heap_snap.stats().memory_bytes as f64 / 1e6
    );
}
