//! Chunked snapshots: an index grown by many adds, removes and upserts (many chunks,
//! tombstones, merges inline and in the background) answers exactly as one built at once
//! from its live rows; readers of a `SharedIndex` never see a change half made.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ragrank_core::fields::FieldSchema;
use ragrank_core::filter::MetaFilter;
use ragrank_vector::{Config, Metric, NewFields, SearchOptions, SharedIndex, Storage, VectorIndex};
use rand::{Rng, SeedableRng};

static NEVER: AtomicBool = AtomicBool::new(false);
/// Not a multiple of 16 or 64: the kernels' tails and groupings differ by path.
const DIM: usize = 100;

fn row(rng: &mut impl Rng) -> Vec<f32> {
    (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

fn meta(i: usize) -> Option<serde_json::Value> {
    let mut m = serde_json::json!({ "k": i % 3, "tenant": format!("t{}", i % 37), "tags": [format!("g{}", i % 4)] });
    if !i.is_multiple_of(7) {
        m["year"] = (1990 + i % 10).into();
    }
    Some(m)
}

/// (id, score) of every hit, best first, for the single, batch and filtered paths.
fn answers(idx: &VectorIndex, queries: &[f32], k: usize) -> Vec<Vec<(String, f32)>> {
    let named = |hits: Vec<ragrank_vector::Hit>| -> Vec<(String, f32)> {
        hits.into_iter()
            .map(|h| (idx.id(h.slot).to_string(), h.score))
            .collect()
    };
    let mut out = Vec::new();
    let filters = [
        serde_json::json!({ "k": 1 }),
        serde_json::json!({ "tenant": "t5" }),
        serde_json::json!({ "tenant": "t5", "year": { "$gte": 1996 } }),
        serde_json::json!({ "tenant": { "$in": ["t1", "t2"] }, "year": { "$gte": 1994 } }),
        serde_json::json!({ "year": { "$gte": 1992, "$lt": 1997 } }),
        serde_json::json!({ "$or": [{ "year": { "$exists": false } }, { "tags": "g2" }] }),
    ];
    let mut all = vec![SearchOptions {
        top_k: k,
        ..Default::default()
    }];
    all.extend(filters.iter().map(|f| SearchOptions {
        top_k: k,
        meta: Some(MetaFilter::compile(f, "f").unwrap()),
        ..Default::default()
    }));
    for opts in all {
        for q in queries.chunks_exact(DIM) {
            out.push(named(idx.search(q, &opts).unwrap()));
        }
        for hits in idx.search_batch_with(queries, &opts, &NEVER).unwrap() {
            out.push(named(hits));
        }
    }
    let ids: Vec<String> = (0..400).step_by(7).map(|i| format!("d{i}")).collect();
    let opts = SearchOptions {
        top_k: k,
        filter: Some(idx.slots_of(ids.iter().map(String::as_str))),
        ..Default::default()
    };
    out.push(named(idx.search(&queries[..DIM], &opts).unwrap()));
    out
}

/// Every path returns the same hits with bit-identical scores (the final rescoring), so two
/// indexes of the same live rows answer identically whatever their chunks.
fn assert_same(a: &[Vec<(String, f32)>], b: &[Vec<(String, f32)>], what: &str) {
    assert_eq!(a, b, "{what}");
}

#[test]
fn many_chunks_with_tombstones_answer_as_one_index_of_the_live_rows() {
    for metric in [Metric::Cosine, Metric::Dot, Metric::L2] {
        for storage in [
            Storage::F32,
            Storage::F16,
            Storage::Int8,
            Storage::Binary,
            Storage::BinaryInt8,
        ] {
            let config = Config {
                dim: DIM,
                metric,
                storage,
            };
            let mut rng = rand::rngs::StdRng::seed_from_u64(7);
            let mut idx = VectorIndex::new(config).unwrap();
            // The live rows in insertion order (an upsert moves a row last).
            let mut live: Vec<(usize, Vec<f32>)> = Vec::new();
            let mut next = 0;
            let mut most_chunks = 0;
            for step in 0..300 {
                match rng.random_range(0..10) {
                    0..=5 => {
                        let n = rng.random_range(1..6);
                        let ids: Vec<usize> = (next..next + n).collect();
                        next += n;
                        let rows: Vec<Vec<f32>> = ids.iter().map(|_| row(&mut rng)).collect();
                        let fields = NewFields {
                            metas: ids.iter().map(|&i| meta(i)).collect(),
                            texts: vec![],
                        };
                        let names: Vec<String> = ids.iter().map(|i| format!("d{i}")).collect();
                        idx.add_with(&names, &rows.concat(), fields, false).unwrap();
                        live.extend(ids.into_iter().zip(rows));
                    }
                    6..=7 if !live.is_empty() => {
                        let at = rng.random_range(0..live.len());
                        let (i, _) = live.remove(at);
                        assert_eq!(idx.remove(&[format!("d{i}")]), 1);
                    }
                    8 if !live.is_empty() => {
                        let at = rng.random_range(0..live.len());
                        let (i, _) = live.remove(at);
                        let r = row(&mut rng);
                        let fields = NewFields {
                            metas: vec![meta(i)],
                            texts: vec![],
                        };
                        idx.add_with(&[format!("d{i}")], &r, fields, true).unwrap();
                        live.push((i, r));
                    }
                    _ => {
                        // What a background merge does, from this snapshot.
                        if let Some(plan) = idx.merge_plan() {
                            let merged = idx.build_merge(&plan);
                            assert!(idx.install_merge(merged));
                        }
                    }
                }
                most_chunks = most_chunks.max(idx.chunks());
                if step % 50 == 49 || step == 299 {
                    // Without field indexes: every filter is the scan of each row's metadata.
                    let mut fresh = VectorIndex::with_fields(config, FieldSchema::new([], false)).unwrap();
                    let ids: Vec<String> = live.iter().map(|(i, _)| format!("d{i}")).collect();
                    let rows: Vec<f32> = live.iter().flat_map(|(_, r)| r.clone()).collect();
                    let fields = NewFields {
                        metas: live.iter().map(|(i, _)| meta(*i)).collect(),
                        texts: vec![],
                    };
                    fresh.add_with(&ids, &rows, fields, false).unwrap();
                    assert_eq!(fresh.chunks(), usize::from(!live.is_empty()));
                    assert_eq!(idx.len(), live.len());
                    let queries: Vec<f32> = (0..6).flat_map(|_| row(&mut rng)).collect();
                    let what = format!("{metric:?} {storage:?} step {step} ({} chunks)", idx.chunks());
                    assert_same(&answers(&idx, &queries, 10), &answers(&fresh, &queries, 10), &what);
                }
            }
            assert!(most_chunks >= 2, "the test made chunks");
        }
    }
}

#[test]
fn merges_keep_the_chunk_count_logarithmic_and_reclaim_removed_rows() {
    let config = Config {
        dim: 4,
        metric: Metric::Dot,
        storage: Storage::F32,
    };
    let shared = SharedIndex::new(VectorIndex::new(config).unwrap());
    for i in 0..20_000 {
        shared
            .write(|idx| idx.add(&[format!("d{i}")], &[1.0, 0.0, 0.0, i as f32], false))
            .unwrap();
        if i >= 1000 {
            shared.write(|idx| Ok(idx.remove(&[format!("d{}", i - 1000)]))).unwrap();
        }
    }
    // Wait for the background merge thread, then finish what it left.
    while shared.is_merging() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    shared.merge_pass();
    let snap = shared.snapshot();
    assert_eq!(snap.len(), 1000);
    assert!(snap.chunks() <= 16, "{} chunks", snap.chunks());
    // Removed rows are reclaimed: the slots left are at most twice the live rows.
    assert!(snap.slot_span() <= 2 * snap.len() + 64, "{} slots", snap.slot_span());
    let top = snap
        .search(
            &[0.0, 0.0, 0.0, 1.0],
            &SearchOptions {
                top_k: 1,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(snap.id(top[0].slot), "d19999");
}

#[test]
fn a_merge_built_before_a_remove_keeps_the_remove() {
    let config = Config {
        dim: 2,
        metric: Metric::Dot,
        storage: Storage::F32,
    };
    let mut idx = VectorIndex::new(config).unwrap();
    // Two chunks the writer does not merge itself: the first holds more than twice the second.
    let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let rows = |n: usize, from: f32| (0..n).flat_map(|i| [from + i as f32, 0.0]).collect::<Vec<_>>();
    idx.add(&names("a", 100), &rows(100, 0.0), false).unwrap();
    idx.add(&names("c", 40), &rows(40, 100.0), false).unwrap();
    assert_eq!(idx.chunks(), 2);
    let snap = idx.clone();
    // As the background would: a merge of both chunks, built from a snapshot.
    let plan = ragrank_vector::MergePlan {
        parts: 0..2,
        inline: false,
    };
    let merged = snap.build_merge(&plan);
    idx.remove(&["a5", "c39"]);
    assert_eq!(idx.chunks(), 2, "the removes restructured nothing");
    assert!(idx.install_merge(merged));
    assert_eq!(idx.chunks(), 1);
    assert!(!idx.contains("a5") && !idx.contains("c39") && idx.contains("a4") && idx.contains("c38"));
    assert_eq!(idx.len(), 138);
    let hits = idx
        .search(
            &[1.0, 0.0],
            &SearchOptions {
                top_k: 3,
                ..Default::default()
            },
        )
        .unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| idx.id(h.slot)).collect();
    assert_eq!(ids, ["c38", "c37", "c36"]);
    // A merge of chunks that are gone is refused.
    let stale = snap.build_merge(&plan);
    assert!(!idx.install_merge(stale));
}

#[test]
fn readers_never_see_a_write_half_made() {
    const BATCH: usize = 8;
    let config = Config {
        dim: 4,
        metric: Metric::Dot,
        storage: Storage::F32,
    };
    let shared = SharedIndex::new(VectorIndex::new(config).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (shared, stop, reads) = (shared.clone(), stop.clone(), reads.clone());
            std::thread::spawn(move || {
                let mut seen = 0;
                while !stop.load(Ordering::Relaxed) {
                    let snap = shared.snapshot();
                    let n = snap.len();
                    // Every batch is added whole, and removed (by upsert) whole.
                    assert_eq!(n % BATCH, 0, "a torn add");
                    let hits = snap
                        .search(
                            &[1.0, 1.0, 1.0, 1.0],
                            &SearchOptions {
                                top_k: n,
                                ..Default::default()
                            },
                        )
                        .unwrap();
                    assert_eq!(hits.len(), n);
                    // Rows of one batch share a generation: all of a batch's ids agree.
                    let mut gens = std::collections::HashMap::new();
                    for h in &hits {
                        let id = snap.id(h.slot);
                        let batch = id.split('-').next().unwrap().to_string();
                        gens.entry(batch).or_insert_with(Vec::new).push(h.score);
                    }
                    for scores in gens.values() {
                        assert_eq!(scores.len(), BATCH, "a torn batch");
                        assert!(scores.iter().all(|&s| s == scores[0]), "a torn upsert");
                    }
                    seen += 1;
                    reads.fetch_add(1, Ordering::Relaxed);
                }
                seen
            })
        })
        .collect();
    // Writes go on until the readers (on 2 shared cores) have checked many snapshots.
    let mut round = 0;
    while round < 400 || reads.load(Ordering::Relaxed) < 600 {
        round += 1;
        let batch = round % 50;
        let ids: Vec<String> = (0..BATCH).map(|j| format!("b{batch}-{j}")).collect();
        let v = round as f32;
        let rows: Vec<f32> = (0..BATCH).flat_map(|_| [v, v, v, v]).collect();
        shared.write(|idx| idx.add(&ids, &rows, true)).unwrap();
        if round % 7 == 0 {
            let old: Vec<String> = (0..BATCH).map(|j| format!("b{}-{j}", (round + 13) % 50)).collect();
            shared.write(|idx| Ok(idx.remove(&old))).unwrap();
        }
        if round % 100 == 0 {
            std::thread::yield_now();
        }
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
}

/// Field indexes answer selective filters (a tenant: rows scored one by one) and broad ones
/// (a mask) with the hits of the scan, through removes and a save and load that keep the
/// declared fields; a value of the wrong type for a declared field fails the add.
#[test]
fn field_indexes_answer_as_the_scan_and_survive_a_save() {
    let config = Config {
        dim: DIM,
        metric: Metric::Cosine,
        storage: Storage::F32,
    };
    let schema = FieldSchema::new(
        [("year".to_string(), Some(ragrank_core::fields::FieldType::Number))],
        true,
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let n = 5000;
    let ids: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let rows: Vec<f32> = (0..n).flat_map(|_| row(&mut rng)).collect();
    let metas = |k: usize| (0..k).map(meta).collect::<Vec<_>>();
    let mut indexed = VectorIndex::with_fields(config, schema.clone()).unwrap();
    let mut scanned = VectorIndex::with_fields(config, FieldSchema::new([], false)).unwrap();
    for idx in [&mut indexed, &mut scanned] {
        let fields = NewFields {
            metas: metas(n),
            texts: vec![],
        };
        idx.add_with(&ids, &rows, fields, false).unwrap();
        let gone: Vec<String> = (0..n).step_by(5).map(|i| format!("d{i}")).collect();
        idx.remove(&gone);
    }
    let dir = std::env::temp_dir().join(format!("ragrank-vector-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v.rgv");
    ragrank_vector::persist::save(&indexed, &path, &NEVER).unwrap();
    let loaded = ragrank_vector::persist::load(&path, false, &NEVER).unwrap();
    assert_eq!(loaded.field_schema(), &schema);
    let queries: Vec<f32> = (0..4).flat_map(|_| row(&mut rng)).collect();
    let want = answers(&scanned, &queries, 10);
    assert_same(&answers(&indexed, &queries, 10), &want, "indexed");
    assert_same(&answers(&loaded, &queries, 10), &want, "loaded");
    let err = indexed
        .add_with(
            &["x".to_string()],
            &rows[..DIM],
            NewFields {
                metas: vec![Some(serde_json::json!({ "year": "1999" }))],
                texts: vec![],
            },
            false,
        )
        .unwrap_err();
    assert!(err.message.contains("meta.year is declared number"), "{}", err.message);
    assert!(!indexed.contains("x"));
    std::fs::remove_dir_all(&dir).unwrap();
}
