use std::sync::atomic::AtomicBool;

use half::f16;
use ragrank_core::filter::MetaFilter;
use ragrank_core::ErrorKind;
use ragrank_vector::persist;
use ragrank_vector::{Config, Hit, Metric, NewFields, SearchOptions, Shortlist, Storage, VectorIndex};
use rand::{Rng, SeedableRng};

const METRICS: [Metric; 3] = [Metric::Cosine, Metric::Dot, Metric::L2];
const STORAGES: [Storage; 5] = [
    Storage::F32,
    Storage::F16,
    Storage::Int8,
    Storage::Binary,
    Storage::BinaryInt8,
];

fn random(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n * dim).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("doc-{i}")).collect()
}

/// A cancel flag that is never set.
static NEVER: AtomicBool = AtomicBool::new(false);

/// A fresh folder for one test's files.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build(n: usize, dim: usize, metric: Metric, storage: Storage, seed: u64) -> (VectorIndex, Vec<f32>) {
    let data = random(n, dim, seed);
    let mut idx = VectorIndex::new(Config { dim, metric, storage }).unwrap();
    idx.add(&ids(n), &data, false).unwrap();
    (idx, data)
}

/// Brute-force reference in f64 from the values the storage keeps (f16-rounded for f16).
fn reference(data: &[f32], dim: usize, q: &[f32], metric: Metric, storage: Storage, k: usize) -> Vec<(usize, f64)> {
    let norm = |v: &[f32]| v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
    let prep = |v: &[f32]| -> Vec<f64> {
        let n = if metric == Metric::Cosine { norm(v) } else { 1.0 };
        v.iter()
            .map(|&x| {
                let y = (x as f64 / n) as f32;
                if storage == Storage::F16 {
                    f16::from_f32(y).to_f32() as f64
                } else {
                    y as f64
                }
            })
            .collect()
    };
    let qn = if metric == Metric::Cosine { norm(q) } else { 1.0 };
    let q: Vec<f64> = q.iter().map(|&x| x as f64 / qn).collect();
    let mut scored: Vec<(usize, f64)> = data
        .chunks_exact(dim)
        .enumerate()
        .map(|(i, row)| {
            let r = prep(row);
            let s = match metric {
                Metric::L2 => -r.iter().zip(&q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>(),
                _ => r.iter().zip(&q).map(|(a, b)| a * b).sum(),
            };
            (i, s)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

fn search(idx: &VectorIndex, q: &[f32], k: usize) -> Vec<Hit> {
    idx.search(
        q,
        &SearchOptions {
            top_k: k,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn exact_storages_match_a_brute_force_reference() {
    for metric in METRICS {
        for storage in [Storage::F32, Storage::F16, Storage::Int8] {
            let (idx, data) = build(3000, 37, metric, storage, 1);
            let queries = random(5, 37, 2);
            for q in queries.chunks_exact(37) {
                let got = search(&idx, q, 10);
                let want = reference(&data, 37, q, metric, storage, 10);
                let got_slots: Vec<usize> = got.iter().map(|h| h.slot as usize).collect();
                let want_slots: Vec<usize> = want.iter().map(|w| w.0).collect();
                if storage == Storage::Int8 {
                    // Rescored exactly: every hit carries its exact f32 score; recall is near 1.
                    let exact = reference(&data, 37, q, metric, Storage::F32, 3000);
                    for h in &got {
                        let e = exact.iter().find(|x| x.0 == h.slot as usize).unwrap().1;
                        assert!(
                            (h.score as f64 - e).abs() < 1e-4,
                            "{metric:?} int8 score {} vs {e}",
                            h.score
                        );
                    }
                    let found = got_slots.iter().filter(|s| want_slots.contains(s)).count();
                    assert!(found >= 9, "{metric:?} int8 recall {found}/10");
                } else {
                    assert_eq!(got_slots, want_slots, "{metric:?} {storage:?}");
                    for (h, w) in got.iter().zip(&want) {
                        assert!((h.score as f64 - w.1).abs() < 1e-4, "{metric:?} {storage:?}");
                    }
                }
                assert!(got.windows(2).all(|w| w[0].score >= w[1].score));
            }
        }
    }
}

#[test]
fn l2_score_is_minus_squared_distance_and_zero_for_the_same_vector() {
    let mut idx = VectorIndex::new(Config {
        dim: 2,
        metric: Metric::L2,
        storage: Storage::F32,
    })
    .unwrap();
    idx.add(&ids(2), &[0.0, 0.0, 3.0, 4.0], false).unwrap();
    let hits = search(&idx, &[3.0, 4.0], 2);
    assert_eq!((hits[0].slot, hits[0].score), (1, 0.0));
    assert_eq!((hits[1].slot, hits[1].score), (0, -25.0));
}

#[test]
fn ties_go_to_the_earlier_added_row_and_upsert_moves_a_row_last() {
    let mut idx = VectorIndex::new(Config {
        dim: 2,
        metric: Metric::Cosine,
        storage: Storage::F32,
    })
    .unwrap();
    let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    idx.add(&names, &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0], false).unwrap();
    let order = |idx: &VectorIndex| -> Vec<String> {
        search(idx, &[1.0, 0.0], 3)
            .iter()
            .map(|h| idx.id(h.slot).to_string())
            .collect()
    };
    assert_eq!(order(&idx), ["a", "b", "c"]);
    idx.add(&["a".to_string()], &[5.0, 0.0], true).unwrap();
    assert_eq!(order(&idx), ["b", "c", "a"]);
    assert_eq!(idx.len(), 3);
}

#[test]
fn scans_shared_across_threads_match_the_reference() {
    // 60k x 64 values crosses the parallel threshold in every storage (int8: 3.8 MB).
    let (n, dim) = (60_000, 64);
    for storage in [Storage::F32, Storage::F16, Storage::Int8] {
        let (idx, data) = build(n, dim, Metric::Cosine, storage, 11);
        let q = &random(1, dim, 12);
        let exact = reference(&data, dim, q, Metric::Cosine, Storage::F32, n);
        let every_third: Vec<u32> = (0..n as u32).filter(|i| i % 3 == 0).collect();
        for filter in [None, Some(every_third)] {
            let want: Vec<usize> = match &filter {
                Some(f) => exact
                    .iter()
                    .map(|w| w.0)
                    .filter(|s| f.binary_search(&(*s as u32)).is_ok())
                    .take(10)
                    .collect(),
                None => reference(&data, dim, q, Metric::Cosine, storage, 10)
                    .iter()
                    .map(|w| w.0)
                    .collect(),
            };
            let got: Vec<usize> = idx
                .search(
                    q,
                    &SearchOptions {
                        top_k: 10,
                        filter: filter.clone(),
                        ..Default::default()
                    },
                )
                .unwrap()
                .iter()
                .map(|h| h.slot as usize)
                .collect();
            if storage == Storage::Int8 || filter.is_some() && storage == Storage::F16 {
                let found = got.iter().filter(|s| want.contains(s)).count();
                assert!(
                    found >= 9,
                    "{storage:?} filtered={} recall {found}/10",
                    filter.is_some()
                );
            } else {
                assert_eq!(got, want, "{storage:?} filtered={}", filter.is_some());
            }
        }
    }
}

#[test]
fn a_filter_scores_only_the_allowed_rows() {
    let (idx, data) = build(500, 16, Metric::Dot, Storage::F32, 3);
    let allowed: Vec<u32> = (0..500).filter(|i| i % 7 == 0).collect();
    let q = &random(1, 16, 4);
    let got = idx
        .search(
            q,
            &SearchOptions {
                top_k: 5,
                filter: Some(allowed.clone()),
                ..Default::default()
            },
        )
        .unwrap();
    let mut want = reference(&data, 16, q, Metric::Dot, Storage::F32, 500);
    want.retain(|w| allowed.contains(&(w.0 as u32)));
    let want: Vec<u32> = want.iter().take(5).map(|w| w.0 as u32).collect();
    assert_eq!(got.iter().map(|h| h.slot).collect::<Vec<_>>(), want);
    let none = idx
        .search(
            q,
            &SearchOptions {
                top_k: 5,
                filter: Some(vec![]),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(none.is_empty());
}

#[test]
fn batch_agrees_with_single_queries_in_every_mode() {
    // 40k x 72 values crosses the parallel threshold; 72 leaves kernel tails.
    for metric in METRICS {
        for storage in STORAGES {
            let (idx, _) = build(40_000, 72, metric, storage, 5);
            for m in [2usize, 9] {
                let qs = random(m, 72, 6 + m as u64);
                let batch = idx.search_batch(&qs, 10, &NEVER).unwrap();
                assert_eq!(batch.len(), m);
                for (q, got) in qs.chunks_exact(72).zip(&batch) {
                    let single = search(&idx, q, 10);
                    // Bit for bit: both paths end in the same rescoring.
                    assert_eq!(got, &single, "{metric:?} {storage:?} m={m}");
                }
            }
        }
    }
}

#[test]
fn batch_is_cancellable() {
    let (idx, _) = build(1000, 8, Metric::Dot, Storage::F32, 7);
    let err = idx
        .search_batch(&random(8, 8, 8), 3, &AtomicBool::new(true))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Aborted);
}

#[test]
fn top_k_zero_and_beyond_size_and_empty_index() {
    let (idx, _) = build(5, 4, Metric::Cosine, Storage::F32, 9);
    let q = [1.0, 0.0, 0.0, 0.0];
    assert!(search(&idx, &q, 0).is_empty());
    assert_eq!(search(&idx, &q, 100).len(), 5);
    let empty = VectorIndex::new(Config {
        dim: 4,
        metric: Metric::Cosine,
        storage: Storage::Int8,
    })
    .unwrap();
    assert!(search(&empty, &q, 10).is_empty());
    assert_eq!(empty.search_batch(&q, 10, &NEVER).unwrap(), vec![vec![]]);
}

#[test]
fn bad_input_is_rejected_and_leaves_the_index_unchanged() {
    let (mut idx, _) = build(10, 3, Metric::Cosine, Storage::Int8, 10);
    let q = [0.3, -0.2, 0.9];
    let before = search(&idx, &q, 10);
    let one = |s: &str| vec![s.to_string()];
    let cases: Vec<(Vec<String>, Vec<f32>, bool, ErrorKind)> = vec![
        (one("x"), vec![1.0, 2.0], false, ErrorKind::InvalidArg),
        (one("x"), vec![1.0, f32::NAN, 0.0], false, ErrorKind::InvalidArg),
        (one("x"), vec![1.0, f32::INFINITY, 0.0], false, ErrorKind::InvalidArg),
        (one("x"), vec![0.0, 0.0, 0.0], false, ErrorKind::InvalidArg),
        (one(""), vec![1.0, 0.0, 0.0], false, ErrorKind::InvalidArg),
        (one("doc-3"), vec![1.0, 0.0, 0.0], false, ErrorKind::DuplicateId),
        (vec!["y".into(), "y".into()], vec![1.0; 6], true, ErrorKind::DuplicateId),
        // A bad row after a good upsert row: nothing at all is applied.
        (
            vec!["doc-1".into(), "z".into()],
            vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            true,
            ErrorKind::InvalidArg,
        ),
    ];
    for (names, values, upsert, kind) in cases {
        let err = idx.add(&names, &values, upsert).unwrap_err();
        assert_eq!(err.kind, kind, "{names:?}: {}", err.message);
        assert_eq!(idx.len(), 10);
        assert_eq!(search(&idx, &q, 10), before);
    }
    for bad in [vec![1.0, 0.0], vec![f32::NAN, 0.0, 0.0], vec![0.0, 0.0, 0.0]] {
        let err = idx
            .search(
                &bad,
                &SearchOptions {
                    top_k: 3,
                    ..Default::default()
                },
            )
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArg);
    }
    let err = idx.search_batch(&[1.0, 0.0, 0.0, 1.0], 3, &NEVER).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArg);
    assert!(VectorIndex::new(Config {
        dim: 0,
        metric: Metric::Dot,
        storage: Storage::F32
    })
    .is_err());
    let mut f16 = VectorIndex::new(Config {
        dim: 1,
        metric: Metric::Dot,
        storage: Storage::F16,
    })
    .unwrap();
    assert_eq!(
        f16.add(&one("big"), &[1e6], false).unwrap_err().kind,
        ErrorKind::InvalidArg
    );
}

/// Hits as (id, score): slots are numbered per snapshot (removed rows keep theirs until a
/// merge), so two indexes with the same rows compare by id.
fn ranked(idx: &VectorIndex, q: &[f32], k: usize) -> Vec<(String, f32)> {
    search(idx, q, k)
        .into_iter()
        .map(|h| (idx.id(h.slot).to_string(), h.score))
        .collect()
}

#[test]
fn remove_equals_rebuilding_from_the_survivors() {
    for storage in STORAGES {
        let (mut idx, data) = build(300, 8, Metric::L2, storage, 11);
        let gone: Vec<String> = (0..300).filter(|i| i % 3 == 1).map(|i| format!("doc-{i}")).collect();
        let mut asked = gone.clone();
        asked.push("unknown".into());
        asked.push(gone[0].clone());
        assert_eq!(idx.remove(&asked), gone.len());
        assert_eq!(idx.remove(&asked), 0);
        let keep: Vec<usize> = (0..300).filter(|i| i % 3 != 1).collect();
        let kept_ids: Vec<String> = keep.iter().map(|i| format!("doc-{i}")).collect();
        let kept: Vec<f32> = keep.iter().flat_map(|&i| data[i * 8..(i + 1) * 8].to_vec()).collect();
        let mut fresh = VectorIndex::new(Config {
            dim: 8,
            metric: Metric::L2,
            storage,
        })
        .unwrap();
        fresh.add(&kept_ids, &kept, false).unwrap();
        let q = random(1, 8, 12);
        assert_eq!(ranked(&idx, &q, 20), ranked(&fresh, &q, 20));
        assert!(!idx.contains("doc-1") && idx.contains("doc-0"));
    }
}

#[test]
fn save_and_load_round_trip_in_memory_and_mapped() {
    let dir = scratch_dir("ragrank-vector-test");
    for metric in METRICS {
        for storage in STORAGES {
            let (idx, _) = build(777, 19, metric, storage, 13);
            let path = dir.join(format!("{metric:?}-{storage:?}.rgv"));
            persist::save(&idx, &path, &NEVER).unwrap();
            let q = random(1, 19, 14);
            let want = search(&idx, &q, 15);
            for mapped in [false, true] {
                let mut back = persist::load(&path, mapped, &NEVER).unwrap();
                assert_eq!(back.is_mapped(), mapped);
                assert_eq!(back.config(), idx.config());
                assert_eq!(search(&back, &q, 15), want);
                // A change goes to a new chunk and a tombstone: the mapped rows stay mapped,
                // and the file stays as it was.
                back.add(&["new".to_string()], &random(1, 19, 15), false).unwrap();
                back.remove(&["doc-5"]);
                assert_eq!(back.is_mapped(), mapped);
                assert_eq!(back.len(), 777);
                assert_eq!(search(&persist::load(&path, true, &NEVER).unwrap(), &q, 15), want);
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_or_foreign_files_are_rejected() {
    let dir = scratch_dir("ragrank-vector-bad");
    let path = dir.join("i.rgv");
    let (idx, _) = build(50, 4, Metric::Cosine, Storage::F32, 16);
    persist::save(&idx, &path, &NEVER).unwrap();
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    flipped[200] ^= 1;
    let mut version = good.clone();
    version[8] = 9;
    for (name, bytes) in [
        ("flipped", flipped),
        ("truncated", good[..good.len() - 7].to_vec()),
        ("foreign", b"hello world, not an index at all".repeat(4)),
        ("version", version),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&path, bytes).unwrap();
        for mapped in [false, true] {
            let err = persist::load(&path, mapped, &NEVER)
                .err()
                .unwrap_or_else(|| panic!("{name} loaded"));
            assert_eq!(err.kind, ErrorKind::CorruptIndex, "{name}: {}", err.message);
        }
    }
    assert_eq!(
        persist::load(&dir.join("missing"), false, &NEVER).err().unwrap().kind,
        ErrorKind::Io
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Files written by the release before the shared checksummed envelope: they still load,
/// and saving them again gives the same bytes but the version (2: without metadata, texts
/// or declared fields, version 2 adds nothing to a version 1 file, and the CRC does not
/// cover the version).
#[test]
fn files_of_format_version_1_load_and_save_back_identically() {
    let dir = scratch_dir("ragrank-vector-golden");
    for storage in ["f32", "f16", "int8"] {
        let golden = format!("{}/tests/data/format-v1-l2-{storage}.rgv", env!("CARGO_MANIFEST_DIR"));
        let mut bytes = std::fs::read(&golden).unwrap();
        assert_eq!(bytes[8..12], 1u32.to_le_bytes());
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        for mapped in [false, true] {
            let idx = persist::load(golden.as_ref(), mapped, &NEVER).unwrap();
            assert_eq!(idx.len(), 6);
            assert_eq!(idx.config().metric, Metric::L2);
            let path = dir.join(format!("{storage}-{mapped}.rgv"));
            persist::save(&idx, &path, &NEVER).unwrap();
            assert!(std::fs::read(&path).unwrap() == bytes, "{storage} mapped={mapped}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cancelled_save_or_load_stops_and_leaves_the_old_file() {
    let dir = scratch_dir("ragrank-vector-cancel");
    let path = dir.join("i.rgv");
    let (mut idx, _) = build(40, 4, Metric::Dot, Storage::F32, 21);
    persist::save(&idx, &path, &NEVER).unwrap();
    let before = std::fs::read(&path).unwrap();
    idx.remove(&["doc-1"]);
    let err = persist::save(&idx, &path, &AtomicBool::new(true)).err().unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
    assert!(std::fs::read(&path).unwrap() == before);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    for mapped in [false, true] {
        let err = persist::load(&path, mapped, &AtomicBool::new(true)).err().unwrap();
        assert_eq!(err.kind, ErrorKind::Aborted);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn with_meta(n: usize, dim: usize, metric: Metric, storage: Storage) -> (VectorIndex, Vec<f32>) {
    let data = random(n, dim, 11);
    let mut idx = VectorIndex::new(Config { dim, metric, storage }).unwrap();
    let fields = NewFields {
        metas: (0..n)
            .map(|i| (i % 10 != 9).then(|| serde_json::json!({ "tenant": (["a", "b", "c"][i % 3]), "year": i % 50 })))
            .collect(),
        texts: (0..n).map(|i| (i % 2 == 0).then(|| format!("text {i}"))).collect(),
    };
    idx.add_with(&ids(n), &data, fields, false).unwrap();
    (idx, data)
}

#[test]
fn a_meta_filter_returns_the_top_k_of_the_matching_rows_for_every_storage_and_path() {
    // 40k x 32 f32 is 5 MB: the single-query scan is shared out in parallel.
    let (n, dim) = (40_000, 32);
    let filter = MetaFilter::compile(&serde_json::json!({ "tenant": "b", "year": { "$gte": 40 } }), "f").unwrap();
    for storage in STORAGES {
        let (mut idx, data) = with_meta(n, dim, Metric::Dot, storage);
        if storage.keeps_bits() {
            // Sign bits of random 32-d rows rank poorly; this test is about the filter, so
            // the shortlist takes every row and the result is exact.
            idx.set_shortlist(Some(Shortlist::new(None, Some(n as i64)).unwrap()))
                .unwrap();
        }
        let passes = |slot: u32| filter.matches(idx.fields().meta(slot));
        let qs = random(6, dim, 12);
        let opts = SearchOptions {
            top_k: 10,
            filter: None,
            meta: Some(filter.clone()),
        };
        let batch = idx.search_batch_with(&qs, &opts, &NEVER).unwrap();
        let small = idx.search_batch_with(&qs[..2 * dim], &opts, &NEVER).unwrap();
        for (qi, q) in qs.chunks_exact(dim).enumerate() {
            let got = idx.search(q, &opts).unwrap();
            assert_eq!(got.len(), 10);
            assert!(got.iter().all(|h| passes(h.slot)), "{storage:?}");
            let mut want = reference(&data, dim, q, Metric::Dot, storage, n);
            want.retain(|w| passes(w.0 as u32));
            let want: Vec<u32> = want.iter().take(10).map(|w| w.0 as u32).collect();
            let slots: Vec<u32> = got.iter().map(|h| h.slot).collect();
            if storage == Storage::F32 {
                assert_eq!(slots, want);
            } else {
                assert!(
                    slots.iter().filter(|s| want.contains(s)).count() >= 8,
                    "{storage:?} {slots:?} {want:?}"
                );
            }
            let b: Vec<u32> = batch[qi].iter().map(|h| h.slot).collect();
            assert!(
                batch[qi].iter().all(|h| passes(h.slot)) && b.len() == 10,
                "{storage:?} batch"
            );
            assert!(
                b.iter().filter(|s| slots.contains(s)).count() >= 9,
                "{storage:?} batch {b:?} {slots:?}"
            );
            if qi < 2 {
                assert_eq!(small[qi].iter().map(|h| h.slot).collect::<Vec<_>>(), slots);
            }
        }
        // Ids and meta together: both must hold.
        let ids_opts = SearchOptions {
            top_k: 100,
            filter: Some((0..2000).collect()),
            meta: Some(filter.clone()),
        };
        let got = idx.search(&qs[..dim], &ids_opts).unwrap();
        assert_eq!(got.len(), (0..2000).filter(|&s| passes(s)).count().min(100));
        assert!(got.iter().all(|h| h.slot < 2000 && passes(h.slot)));
        let got = idx.search_batch_with(&qs, &ids_opts, &NEVER).unwrap();
        assert!(got.iter().all(|hs| hs.iter().all(|h| h.slot < 2000 && passes(h.slot))));
    }
}

#[test]
fn a_filter_no_row_passes_returns_nothing_and_rows_without_meta_pass_ne() {
    let (idx, _) = with_meta(300, 8, Metric::Cosine, Storage::F32);
    let q = random(1, 8, 5);
    let search = |f: serde_json::Value| {
        let meta = Some(MetaFilter::compile(&f, "f").unwrap());
        idx.search(
            &q,
            &SearchOptions {
                top_k: 1000,
                filter: None,
                meta,
            },
        )
        .unwrap()
    };
    assert!(search(serde_json::json!({ "tenant": "z" })).is_empty());
    let ne = search(serde_json::json!({ "tenant": { "$ne": "a" } }));
    assert_eq!(ne.len(), 300 - (0..300).filter(|i| i % 3 == 0 && i % 10 != 9).count());
    assert_eq!(search(serde_json::json!({ "tenant": { "$exists": false } })).len(), 30);
}

#[test]
fn fields_follow_their_rows_through_remove_upsert_and_save() {
    let (mut idx, _) = with_meta(50, 4, Metric::L2, Storage::Int8);
    idx.remove(&["doc-0", "doc-3"]);
    let slot = |idx: &VectorIndex, id: &str| idx.slots_of([id])[0];
    let s = slot(&idx, "doc-4");
    assert_eq!(idx.fields().meta(s).unwrap()["year"], 4);
    assert_eq!(idx.fields().text(s), Some("text 4"));
    assert_eq!(idx.fields().text(slot(&idx, "doc-5")), None);
    assert_eq!(idx.fields().meta(slot(&idx, "doc-9")), None);
    let fields = NewFields {
        metas: vec![Some(serde_json::json!({ "tenant": "new" }))],
        texts: vec![],
    };
    idx.add_with(&["doc-4".to_string()], &[1.0, 2.0, 3.0, 4.0], fields, true)
        .unwrap();
    let s = slot(&idx, "doc-4");
    assert_eq!(idx.fields().meta(s).unwrap()["tenant"], "new");
    assert_eq!(idx.fields().text(s), None);

    let dir = scratch_dir("ragrank-vector-fields");
    let path = dir.join("f.rgvec");
    persist::save(&idx, &path, &NEVER).unwrap();
    for mmap in [false, true] {
        let back = persist::load(&path, mmap, &NEVER).unwrap();
        assert_eq!(back.len(), idx.len());
        for i in 0..50 {
            let id = format!("doc-{i}");
            let (Some(&a), Some(&b)) = (
                back.slots_of([id.as_str()]).first(),
                idx.slots_of([id.as_str()]).first(),
            ) else {
                assert!(!back.contains(&id) && !idx.contains(&id), "{id}");
                continue;
            };
            assert_eq!(back.fields().meta(a), idx.fields().meta(b));
            assert_eq!(back.fields().text(a), idx.fields().text(b));
        }
    }
    let bad = NewFields {
        metas: vec![Some(serde_json::json!([1]))],
        texts: vec![],
    };
    let e = idx.add_with(&["x".to_string()], &[1.0; 4], bad, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArg);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn files_of_format_version_1_still_load() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    for (file, first) in [("vector-v1-f32.rgrk", "a"), ("vector-v1-int8.rgrk", "a")] {
        for mmap in [false, true] {
            let idx = persist::load(&root.join(file), mmap, &NEVER).unwrap();
            assert_eq!(idx.len(), 3);
            assert!(!idx.fields().has_metas() && !idx.fields().has_texts());
            let hits = idx
                .search(
                    &[1.0, 0.1, 0.0, 0.0],
                    &SearchOptions {
                        top_k: 3,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert_eq!(idx.id(hits[0].slot), first);
            assert_eq!(hits.iter().map(|h| idx.id(h.slot)).collect::<Vec<_>>(), ["a", "c", "b"]);
        }
    }
}

#[test]
fn a_repeated_filter_sees_every_add_and_remove_in_between() {
    let (mut idx, _) = with_meta(1000, 4, Metric::Dot, Storage::F32);
    let meta = Some(MetaFilter::compile(&serde_json::json!({ "tenant": "a" }), "f").unwrap());
    let opts = SearchOptions {
        top_k: 5000,
        filter: None,
        meta,
    };
    let q = [0.1, 0.2, 0.3, 0.4];
    let tenants = |idx: &VectorIndex, hits: &[Hit]| {
        hits.iter()
            .all(|h| idx.fields().meta(h.slot).is_some_and(|m| m["tenant"] == "a"))
    };
    let before = idx.search(&q, &opts).unwrap();
    assert!(tenants(&idx, &before));
    // Remove 100 rows: slots shift by a non-multiple of 3, so a stale mask would let other tenants in.
    let gone: Vec<String> = (0..100).map(|i| format!("doc-{i}")).collect();
    idx.remove(&gone);
    let after = idx.search(&q, &opts).unwrap();
    assert!(tenants(&idx, &after));
    assert_eq!(
        after.len(),
        before.len() - (0..100).filter(|i| i % 3 == 0 && i % 10 != 9).count()
    );
    let fields = NewFields {
        metas: vec![Some(serde_json::json!({ "tenant": "a" }))],
        texts: vec![],
    };
    idx.add_with(&["late".to_string()], &[1.0, 1.0, 1.0, 1.0], fields, false)
        .unwrap();
    let last = idx.search(&q, &opts).unwrap();
    assert_eq!(last.len(), after.len() + 1);
    assert!(tenants(&idx, &last));
    assert!(idx
        .search_batch_with(&q.repeat(5), &opts, &NEVER)
        .unwrap()
        .iter()
        .all(|h| h.len() == last.len()));
}

#[test]
fn a_sync_search_does_not_wait_for_work_on_the_global_pool() {
    // 5 MB of rows: above the size at which a scan is shared out across threads.
    let (idx, _) = build(20_000, 64, Metric::Dot, Storage::F32, 21);
    let q = random(1, 64, 22);
    let opts = SearchOptions {
        top_k: 5,
        ..Default::default()
    };
    assert!(idx.search_uses_pool(&opts));
    let threads = rayon::current_num_threads();
    let started = std::sync::Arc::new(std::sync::Barrier::new(threads + 1));
    for _ in 0..threads {
        let started = started.clone();
        rayon::spawn(move || {
            started.wait();
            std::thread::sleep(std::time::Duration::from_secs(3));
        });
    }
    started.wait();
    let t = std::time::Instant::now();
    let hits = idx.search_sync(&q, &opts).unwrap();
    assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(hits, search(&idx, &q, 5));
}
