//! `VectorIndex::matching` selects the live rows a filter passes exactly as a test of every
//! row's metadata would, with and without field indexes, through removes, upserts and merges;
//! `remove_matched` and `SharedIndex::remove_matching` remove them and leave rows written since.
use std::sync::atomic::AtomicBool;

use ragrank_core::fields::FieldSchema;
use ragrank_core::filter::MetaFilter;
use ragrank_core::ErrorKind;
use ragrank_vector::{persist, Config, MergePlan, Metric, NewFields, SearchOptions, SharedIndex, Storage, VectorIndex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

static NEVER: AtomicBool = AtomicBool::new(false);

const DIM: usize = 4;

fn config() -> Config {
    Config {
        dim: DIM,
        metric: Metric::Dot,
        storage: Storage::F32,
    }
}

fn compile(f: Value) -> MetaFilter {
    MetaFilter::compile(&f, "filter").unwrap()
}

fn random_meta(rng: &mut StdRng) -> Option<Value> {
    if rng.random_bool(0.05) {
        return None;
    }
    let mut m = serde_json::Map::new();
    m.insert("tenant".into(), format!("t{}", rng.random_range(0..20)).into());
    m.insert("g".into(), rng.random_range(0..3).into());
    match rng.random_range(0..4) {
        0 => {}
        1 => {
            m.insert("year".into(), format!("{}-06-01", rng.random_range(1990..2000)).into());
        }
        _ => {
            m.insert("year".into(), rng.random_range(1990..2000).into());
        }
    }
    if rng.random_bool(0.4) {
        let tags: Vec<Value> = (0..rng.random_range(0..3))
            .map(|_| format!("k{}", rng.random_range(0..4)).into())
            .collect();
        m.insert("tags".into(), tags.into());
    }
    if rng.random_bool(0.3) {
        m.insert(
            "src".into(),
            json!({ "kind": if rng.random_bool(0.5) { "web" } else { "pdf" } }),
        );
    }
    Some(Value::Object(m))
}

fn random_filter(rng: &mut StdRng) -> MetaFilter {
    let t = |rng: &mut StdRng| format!("t{}", rng.random_range(0..20));
    let f = match rng.random_range(0..9) {
        0 => json!({ "g": 1 }),
        1 => json!({ "tenant": t(rng) }),
        2 => json!({ "tenant": t(rng), "year": { "$gte": 1995 } }),
        3 => json!({ "year": { "$gte": 1993, "$lt": 1997 } }),
        4 => json!({ "year": { "$lt": "1995-01-01" } }),
        5 => json!({ "tags": { "$in": ["k1", "k3"] }, "g": { "$ne": 2 } }),
        6 => json!({ "$or": [{ "tenant": t(rng) }, { "year": { "$exists": false } }] }),
        7 => json!({ "src.kind": "pdf", "tenant": { "$nin": [t(rng), t(rng)] } }),
        _ => json!({ "$not": { "year": { "$lte": 1991 } } }),
    };
    compile(f)
}

fn add(index: &mut VectorIndex, rows: &[(String, Option<Value>)], upsert: bool) {
    let ids: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let vectors: Vec<f32> = (0..rows.len() * DIM).map(|i| 1.0 + (i % 7) as f32).collect();
    let fields = NewFields {
        metas: rows.iter().map(|r| r.1.clone()).collect(),
        texts: vec![],
    };
    index.add_with(&ids, &vectors, fields, upsert).unwrap();
}

#[test]
fn matching_equals_a_scan_of_the_live_rows_with_and_without_field_indexes() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut indexed = VectorIndex::new(config()).unwrap();
    let mut scanned = VectorIndex::with_fields(config(), FieldSchema::new([], false)).unwrap();
    // The model: live ids in slot order with their metadata.
    let mut live: Vec<(String, Option<Value>)> = Vec::new();
    let mut next = 0;
    for round in 0..40 {
        // Big adds make chunks of their own; small ones are merged inline.
        let n = if round % 5 == 0 { 3000 } else { rng.random_range(1..50) };
        let rows: Vec<(String, Option<Value>)> = (0..n)
            .map(|_| {
                next += 1;
                (format!("r{next}"), random_meta(&mut rng))
            })
            .collect();
        for index in [&mut indexed, &mut scanned] {
            add(index, &rows, false);
        }
        live.extend(rows);
        if round % 4 == 3 {
            let gone: Vec<String> = live
                .iter()
                .filter(|_| rng.random_bool(0.05))
                .map(|r| r.0.clone())
                .collect();
            for index in [&mut indexed, &mut scanned] {
                index.remove(&gone);
            }
            live.retain(|r| !gone.contains(&r.0));
            // An upsert moves the row to the end of the slot order.
            let again: Vec<(String, Option<Value>)> = live
                .iter()
                .take(4)
                .map(|r| (r.0.clone(), random_meta(&mut rng)))
                .collect();
            for index in [&mut indexed, &mut scanned] {
                add(index, &again, true);
            }
            live.drain(..again.len());
            live.extend(again);
        }
    }
    assert!(indexed.chunks() > 1);
    for _ in 0..200 {
        let filter = random_filter(&mut rng);
        let want: Vec<&str> = live
            .iter()
            .filter(|(_, m)| filter.matches(m.as_ref()))
            .map(|r| r.0.as_str())
            .collect();
        assert_eq!(indexed.matching_ids(&filter), want, "indexed {filter:?}");
        assert_eq!(scanned.matching_ids(&filter), want, "scanned {filter:?}");
        let (mut by_index, mut by_scan) = (Vec::new(), Vec::new());
        indexed.matching(&filter, &NEVER, &mut by_index).unwrap();
        scanned.matching(&filter, &NEVER, &mut by_scan).unwrap();
        // Only the nested field is left to the scan by dynamic field indexes.
        assert!(by_index.iter().all(|f| *f == "src.kind"), "{by_index:?}");
        assert!(!by_scan.is_empty(), "no field index: scanned");
    }
}

#[test]
fn remove_matched_leaves_rows_removed_replaced_or_added_since_the_snapshot() {
    let mut index = VectorIndex::new(config()).unwrap();
    let tenant = |t: &str| Some(json!({ "tenant": t }));
    let rows: Vec<(String, Option<Value>)> = (0..10).map(|i| (format!("d{i}"), tenant("a"))).collect();
    add(&mut index, &rows, false);
    add(&mut index, &[("other".into(), tenant("b"))], false);
    let filter = compile(json!({ "tenant": "a" }));
    let matched = index.matching(&filter, &NEVER, &mut Vec::new()).unwrap();
    assert_eq!(matched.len(), 10);
    // Written since: an upsert that still matches, a remove, a new match, and a merge of
    // every chunk into one, so the rows matched moved.
    add(&mut index, &[("d0".into(), tenant("a"))], true);
    index.remove(&["d1"]);
    add(&mut index, &[("new".into(), tenant("a"))], false);
    let plan = MergePlan {
        parts: 0..index.chunks(),
        inline: false,
    };
    let merged = index.build_merge(&plan);
    assert!(index.install_merge(merged));
    assert_eq!(index.chunks(), 1);
    assert_eq!(index.remove_matched(&matched), 8, "d2..d9");
    assert_eq!(index.remove_matched(&matched), 0, "already gone");
    let mut left: Vec<String> = index.matching_ids(&compile(json!({}))).into_iter().collect();
    left.sort();
    assert_eq!(left, ["d0", "new", "other"]);
}

#[test]
fn rows_read_from_a_file_are_matched_and_removed_and_upserts_after_the_load_are_not() {
    let mut index = VectorIndex::new(config()).unwrap();
    let rows: Vec<(String, Option<Value>)> = (0..6).map(|i| (format!("d{i}"), Some(json!({ "k": i % 2 })))).collect();
    add(&mut index, &rows, false);
    let dir = std::env::temp_dir().join(format!("ragrank-vector-matching-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.rgvec");
    persist::save(&index, &path, &NEVER).unwrap();
    for mmap in [false, true] {
        let mut back = persist::load(&path, mmap, &NEVER).unwrap();
        let filter = compile(json!({ "k": 1 }));
        let matched = back.matching(&filter, &NEVER, &mut Vec::new()).unwrap();
        assert_eq!(matched.len(), 3);
        add(&mut back, &[("d1".into(), Some(json!({ "k": 1 })))], true);
        assert_eq!(back.remove_matched(&matched), 2, "d3, d5");
        assert_eq!(back.matching_ids(&filter), ["d1"]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn remove_matching_on_a_shared_index_removes_counts_and_can_be_cancelled() {
    let shared = SharedIndex::new(VectorIndex::new(config()).unwrap());
    let rows: Vec<(String, Option<Value>)> = (0..300)
        .map(|i| {
            (
                format!("d{i}"),
                Some(json!({ "tenant": format!("t{}", i % 3), "year": 2000 + i % 10 })),
            )
        })
        .collect();
    shared
        .write(|index| {
            add(index, &rows, false);
            Ok(())
        })
        .unwrap();
    let tenant = compile(json!({ "tenant": "t1" }));
    let cancelled = AtomicBool::new(true);
    assert_eq!(
        shared.remove_matching(&tenant, &cancelled).unwrap_err().kind,
        ErrorKind::Aborted
    );
    assert_eq!(shared.snapshot().len(), 300, "a cancelled call removes nothing");
    assert_eq!(shared.remove_matching(&tenant, &NEVER).unwrap(), 100);
    let range = compile(json!({ "year": { "$gte": 2005, "$lt": 2008 } }));
    assert_eq!(shared.remove_matching(&range, &NEVER).unwrap(), 60);
    assert_eq!(shared.remove_matching(&range, &NEVER).unwrap(), 0);
    assert_eq!(
        shared
            .remove_matching(&compile(json!({ "tenant": "nobody" })), &NEVER)
            .unwrap(),
        0
    );
    let snap = shared.snapshot();
    assert_eq!(snap.len(), 140);
    let hits = snap
        .search(
            &[1.0; DIM],
            &SearchOptions {
                top_k: 1000,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(hits.len(), 140);
    assert!(hits.iter().all(|h| {
        let m = snap.fields().meta(h.slot).unwrap();
        m["tenant"] != "t1" && !(2005..2008).contains(&m["year"].as_i64().unwrap())
    }));
}
