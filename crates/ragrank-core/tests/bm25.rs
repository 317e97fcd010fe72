use std::sync::atomic::AtomicBool;

use ragrank_core::analysis::AnalyzerConfig;
use ragrank_core::bm25::{
    persist, Bm25Index, Filter, Hit, IndexConfig, NewDoc, Params, Query, SearchOptions, Strategy, Variant,
};
use ragrank_core::ErrorKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A cancel flag that is never set.
static NEVER: AtomicBool = AtomicBool::new(false);

/// A fresh folder for one test's files.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const VARIANTS: [Variant; 6] = [
    Variant::Lucene,
    Variant::Robertson,
    Variant::Atire,
    Variant::Bm25l,
    Variant::Bm25lLvZhai,
    Variant::Bm25plus,
];

fn config(variant: Variant) -> IndexConfig {
    IndexConfig {
        params: Params {
            variant,
            ..Params::default()
        },
        analyzer: AnalyzerConfig::default(),
        store_text: true,
    }
}

fn zipf_word(rng: &mut StdRng, vocab: usize) -> String {
    // Rough Zipf: index ~ vocab^u - 1.
    let u: f64 = rng.random();
    let i = ((vocab as f64).powf(u) - 1.0) as usize;
    format!("w{i}")
}

fn random_doc(rng: &mut StdRng, id: String, vocab: usize) -> NewDoc {
    let n = rng.random_range(0..30);
    let text = (0..n).map(|_| zipf_word(rng, vocab)).collect::<Vec<_>>().join(" ");
    NewDoc {
        id,
        text: Some(text),
        ..Default::default()
    }
}

fn opts(k: usize, strategy: Strategy) -> SearchOptions {
    SearchOptions {
        top_k: k,
        strategy,
        filter: None,
    }
}

fn ids(index: &Bm25Index, hits: &[Hit]) -> Vec<(String, f32)> {
    hits.iter()
        .map(|h| (index.doc(h.slot).id.to_string(), h.score))
        .collect()
}

/// `random_doc` plus `unique` tokens that no other document ever has.
fn churned_doc(rng: &mut StdRng, id: String, vocab: usize, unique: usize, next_token: &mut usize) -> NewDoc {
    let mut doc = random_doc(rng, id, vocab);
    let text = doc.text.as_mut().unwrap();
    for _ in 0..unique {
        *next_token += 1;
        text.push_str(&format!(" u{next_token}"));
    }
    doc
}

/// A query of common words and words of live documents (often unique ones).
fn churn_query(rng: &mut StdRng, live: &[NewDoc], vocab: usize) -> String {
    (0..rng.random_range(1..5))
        .map(|_| match live.is_empty() || rng.random_bool(0.4) {
            true => zipf_word(rng, vocab),
            false => {
                let text = live[rng.random_range(0..live.len())].text.as_deref().unwrap();
                let words: Vec<&str> = text.split(' ').collect();
                words[rng.random_range(0..words.len())].to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts `index` answers like an index built from scratch on `live` (in that order,
/// which is insertion order: an upserted document counts as new).
fn assert_equals_rebuilt(index: &Bm25Index, live: &[NewDoc], variant: Variant, rng: &mut StdRng, vocab: usize) {
    let mut scratch = Bm25Index::new(config(variant)).unwrap();
    scratch.add(live.to_vec(), false).unwrap();
    assert_eq!(index.len(), scratch.len());
    assert_eq!(index.stats().terms, scratch.stats().terms, "{variant:?}: live terms");
    assert_eq!(
        index.stats().postings,
        scratch.stats().postings,
        "{variant:?}: postings"
    );
    for _ in 0..5 {
        let q = churn_query(rng, live, vocab);
        for strategy in [Strategy::Exhaustive, Strategy::MaxScore] {
            let a = index.search(&Query::Text(&q), &opts(10, strategy));
            let b = scratch.search(&Query::Text(&q), &opts(10, strategy));
            assert_eq!(
                ids(index, &a),
                ids(&scratch, &b),
                "{variant:?} {strategy:?} query {q:?}"
            );
        }
    }
}

#[test]
fn incremental_equals_rebuilt_from_scratch() {
    let mut rng = StdRng::seed_from_u64(7);
    let dir = scratch_dir("ragrank-incremental");
    let path = dir.join("idx.rgrk");
    for variant in VARIANTS {
        let mut index = Bm25Index::new(config(variant)).unwrap();
        let mut live: Vec<NewDoc> = Vec::new();
        let (mut next, mut token) = (0, 0);
        for round in 0..60 {
            let roll: f64 = rng.random();
            if roll < 0.45 || live.is_empty() {
                let batch: Vec<NewDoc> = (0..rng.random_range(1..20))
                    .map(|_| {
                        next += 1;
                        let unique = rng.random_range(0..3);
                        churned_doc(&mut rng, format!("d{next}"), 60, unique, &mut token)
                    })
                    .collect();
                index.add(batch.clone(), false).unwrap();
                live.extend(batch);
            } else if roll < 0.75 {
                let n = rng.random_range(1..=live.len().min(8));
                let mut gone = Vec::new();
                for _ in 0..n {
                    let i = rng.random_range(0..live.len());
                    gone.push(live.remove(i).id);
                }
                gone.push("never-added".into());
                assert_eq!(index.remove(&gone), n);
            } else {
                // Upsert: replace some documents (their terms churn) and add a new one.
                let n = rng.random_range(1..=live.len().min(6));
                let mut batch = Vec::new();
                for _ in 0..n {
                    let old = live.remove(rng.random_range(0..live.len()));
                    let unique = rng.random_range(0..3);
                    batch.push(churned_doc(&mut rng, old.id, 60, unique, &mut token));
                }
                next += 1;
                batch.push(churned_doc(&mut rng, format!("d{next}"), 60, 1, &mut token));
                assert_eq!(index.add(batch.clone(), true).unwrap(), n + 1);
                live.extend(batch);
            }
            if round % 10 == 9 {
                persist::save(&index, &path, &NEVER).unwrap();
                index = persist::load(&path, &NEVER).unwrap();
            }
            assert_equals_rebuilt(&index, &live, variant, &mut rng, 60);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The reported leak: 1,000 live documents whose replacements bring unique tokens. The
/// vocabulary and the memory must follow the live documents, not the rounds.
#[test]
fn churn_of_unique_tokens_keeps_vocabulary_and_memory_bounded() {
    const LIVE: usize = 1000;
    let mut rng = StdRng::seed_from_u64(17);
    let (mut next, mut token) = (0, 0);
    let mut index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    let mut live: Vec<NewDoc> = (0..LIVE)
        .map(|i| churned_doc(&mut rng, format!("d{i}"), 200, 3, &mut token))
        .collect();
    next += LIVE;
    index.add(live.clone(), false).unwrap();
    let mut memory = Vec::new();
    let mut terms = Vec::new();
    for round in 0..300 {
        // 50 replaced, 25 removed and 25 added: 225 new unique tokens a round.
        let mut batch = Vec::new();
        for _ in 0..50 {
            let old = live.remove(rng.random_range(0..live.len()));
            batch.push(churned_doc(&mut rng, old.id, 200, 3, &mut token));
        }
        index.add(batch.clone(), true).unwrap();
        live.extend(batch);
        let gone: Vec<String> = (0..25)
            .map(|_| live.remove(rng.random_range(0..live.len())).id)
            .collect();
        assert_eq!(index.remove(&gone), 25);
        let fresh: Vec<NewDoc> = (0..25)
            .map(|_| {
                next += 1;
                churned_doc(&mut rng, format!("d{next}"), 200, 3, &mut token)
            })
            .collect();
        index.add(fresh.clone(), false).unwrap();
        live.extend(fresh);
        index.prepare();
        let stats = index.stats();
        memory.push(stats.memory_bytes);
        terms.push(stats.terms);
        if round % 60 == 59 {
            assert_equals_rebuilt(&index, &live, Variant::Lucene, &mut rng, 200);
        }
    }
    assert!(token > 70_000, "the test churns {token} unique tokens");
    let (early, late) = memory.split_at(100);
    let (early_max, late_max) = (early.iter().max().unwrap(), late.iter().max().unwrap());
    assert!(
        *late_max <= early_max + early_max / 10,
        "memory grew with the rounds: {early_max} then {late_max} bytes"
    );
    // About 3,200 live terms (3 unique per document and common words), whatever the round.
    assert!(
        terms.iter().all(|&t| t < 4000),
        "max live terms {:?}",
        terms.iter().max()
    );

    // After a mass removal that nothing refills, the tables shrink too.
    let steady = *memory.last().unwrap();
    let gone: Vec<String> = live.drain(10..).map(|d| d.id).collect();
    assert_eq!(index.remove(&gone), LIVE - 10);
    index.prepare();
    let after = index.stats().memory_bytes;
    assert!(after < steady / 4, "{after} bytes left of {steady} for 10 documents");
    assert_equals_rebuilt(&index, &live, Variant::Lucene, &mut rng, 200);
}

#[test]
fn maxscore_equals_exhaustive() {
    let mut rng = StdRng::seed_from_u64(11);
    for variant in VARIANTS {
        let mut index = Bm25Index::new(config(variant)).unwrap();
        let docs: Vec<NewDoc> = (0..3000).map(|i| random_doc(&mut rng, format!("d{i}"), 400)).collect();
        index.add(docs, false).unwrap();
        index.remove(&(0..300).map(|i| format!("d{}", i * 7)).collect::<Vec<_>>());
        index.prepare();
        // Frequent terms take the dense-row path of exhaustive search.
        assert!(index.stats().dense_terms > 0);
        for _ in 0..200 {
            let q = (0..rng.random_range(1..7))
                .map(|_| zipf_word(&mut rng, 400))
                .collect::<Vec<_>>()
                .join(" ");
            for k in [1, 10, 100] {
                let a = index.search(&Query::Text(&q), &opts(k, Strategy::Exhaustive));
                let b = index.search(&Query::Text(&q), &opts(k, Strategy::MaxScore));
                assert_eq!(a, b, "{variant:?} k={k} query {q:?}");
            }
        }
    }
}

#[test]
fn ties_go_to_the_earlier_document() {
    let mut index = Bm25Index::new(IndexConfig::default()).unwrap();
    let docs = ["c", "a", "b"].map(|id| NewDoc {
        id: id.into(),
        text: Some("same words".into()),
        ..Default::default()
    });
    index.add(docs.to_vec(), false).unwrap();
    let hits = index.search(&Query::Text("words"), &opts(3, Strategy::Auto));
    assert_eq!(
        ids(&index, &hits).iter().map(|h| h.0.as_str()).collect::<Vec<_>>(),
        ["c", "a", "b"]
    );
}

#[test]
fn duplicate_ids_fail_without_changing_the_index() {
    let mut index = Bm25Index::new(IndexConfig::default()).unwrap();
    let doc = |id: &str, t: &str| NewDoc {
        id: id.into(),
        text: Some(t.into()),
        ..Default::default()
    };
    index.add(vec![doc("a", "alpha")], false).unwrap();
    let err = index.add(vec![doc("b", "beta"), doc("a", "again")], false).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DuplicateId);
    let err = index.add(vec![doc("c", "x"), doc("c", "y")], true).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DuplicateId);
    assert_eq!(index.len(), 1);
    assert!(index.search(&Query::Text("beta"), &opts(5, Strategy::Auto)).is_empty());
    index.add(vec![doc("a", "gamma")], true).unwrap();
    assert_eq!(index.len(), 1);
    assert!(index.search(&Query::Text("alpha"), &opts(5, Strategy::Auto)).is_empty());
    assert_eq!(index.search(&Query::Text("gamma"), &opts(5, Strategy::Auto)).len(), 1);
}

#[test]
fn filters_apply_inside_the_scan() {
    let mut index = Bm25Index::new(IndexConfig::default()).unwrap();
    let docs: Vec<NewDoc> = (0..50)
        .map(|i| NewDoc {
            id: format!("d{i}"),
            text: Some(format!("apple {}", "pie ".repeat(i % 5))),
            meta: Some(serde_json::json!({ "even": i % 2 == 0 })),
            ..Default::default()
        })
        .collect();
    index.add(docs, false).unwrap();
    let filter = Filter {
        slots: None,
        meta: Some(ragrank_core::filter::MetaFilter::compile(&serde_json::json!({ "even": true }), "meta").unwrap()),
    };
    for strategy in [Strategy::Exhaustive, Strategy::MaxScore] {
        let hits = index.search(
            &Query::Text("apple pie"),
            &SearchOptions {
                top_k: 100,
                strategy,
                filter: Some(filter.clone()),
            },
        );
        assert_eq!(hits.len(), 25);
        assert!(hits
            .iter()
            .all(|h| index.doc(h.slot).meta.as_ref().unwrap()["even"] == true));
    }
}

#[test]
fn save_and_load_round_trip() {
    let dir = scratch_dir("ragrank-test");
    let path = dir.join("idx.rgrk");
    let mut rng = StdRng::seed_from_u64(3);
    let mut index = Bm25Index::new(config(Variant::Bm25plus)).unwrap();
    let mut docs: Vec<NewDoc> = (0..500).map(|i| random_doc(&mut rng, format!("d{i}"), 100)).collect();
    docs[3].meta = Some(serde_json::json!({"lang": "ko", "n": [1, 2]}));
    index.add(docs, false).unwrap();
    index.remove(&["d1".into(), "d10".into()]);
    persist::save(&index, &path, &NEVER).unwrap();
    let loaded = persist::load(&path, &NEVER).unwrap();
    assert_eq!(loaded.len(), index.len());
    assert_eq!(loaded.doc(2).meta, Some(serde_json::json!({"lang": "ko", "n": [1, 2]})));
    for q in ["w1 w2", "w3", "w50 w7 w7"] {
        let a = index.search(&Query::Text(q), &opts(20, Strategy::Auto));
        let b = loaded.search(&Query::Text(q), &opts(20, Strategy::Auto));
        assert_eq!(ids(&index, &a), ids(&loaded, &b));
    }
    // Every truncation and many single-byte corruptions are reported, never a panic.
    let bytes = std::fs::read(&path).unwrap();
    for cut in (0..bytes.len()).step_by(97) {
        let err = persist::from_bytes(&bytes[..cut], &NEVER)
            .err()
            .expect("truncated file must fail");
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
    }
    for i in (0..bytes.len()).step_by(13) {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        let err = persist::from_bytes(&b, &NEVER).err().expect("corrupted file must fail");
        assert_eq!(err.kind, ErrorKind::CorruptIndex);
    }
    assert_eq!(
        persist::from_bytes(b"{\"json\": true}", &NEVER).err().unwrap().kind,
        ErrorKind::CorruptIndex
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_parameters_are_rejected() {
    for (k1, b, delta) in [
        (f64::NAN, 0.75, 0.5),
        (-1.0, 0.75, 0.5),
        (1.2, 1.5, 0.5),
        (1.2, 0.75, -0.1),
        (f64::INFINITY, 0.5, 0.5),
    ] {
        let cfg = IndexConfig {
            params: Params {
                variant: Variant::Lucene,
                k1,
                b,
                delta,
            },
            ..IndexConfig::default()
        };
        assert_eq!(Bm25Index::new(cfg).err().unwrap().kind, ErrorKind::InvalidArg);
    }
}

#[test]
fn edge_queries_and_documents() {
    let mut index = Bm25Index::new(IndexConfig::default()).unwrap();
    assert!(index
        .search(&Query::Text("anything"), &opts(10, Strategy::Auto))
        .is_empty());
    let docs = vec![
        NewDoc {
            id: "empty".into(),
            text: Some(String::new()),
            ..Default::default()
        },
        NewDoc {
            id: "ws".into(),
            text: Some("  \n\t ".into()),
            ..Default::default()
        },
        NewDoc {
            id: "big".into(),
            text: Some("lorem ipsum ".repeat(900_000)),
            ..Default::default()
        },
        NewDoc {
            id: "small".into(),
            text: Some("ipsum dolor".into()),
            ..Default::default()
        },
    ];
    index.add(docs, false).unwrap();
    assert_eq!(index.len(), 4);
    assert!(index.search(&Query::Text(""), &opts(10, Strategy::Auto)).is_empty());
    assert!(index.search(&Query::Text("   "), &opts(10, Strategy::Auto)).is_empty());
    assert!(index
        .search(&Query::Text("unknownterm"), &opts(10, Strategy::Auto))
        .is_empty());
    assert!(index.search(&Query::Text("ipsum"), &opts(0, Strategy::Auto)).is_empty());
    let hits = index.search(&Query::Text("ipsum"), &opts(1000, Strategy::Auto));
    let mut got: Vec<String> = ids(&index, &hits).into_iter().map(|h| h.0).collect();
    got.sort();
    assert_eq!(got, ["big", "small"]);
}

/// A file written by the release before the shared checksummed envelope: it still loads,
/// and saving it again gives the same bytes (the format did not move).
#[test]
fn files_of_format_version_1_load_and_save_back_identically() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/format-v1.rgrk");
    let bytes = std::fs::read(golden).unwrap();
    let index = persist::from_bytes(&bytes, &NEVER).unwrap();
    assert_eq!(index.len(), 11);
    let hits = index.search(&Query::Text("cats"), &opts(3, Strategy::Auto));
    assert_eq!(hits.len(), 3);
    let dir = scratch_dir("ragrank-golden");
    let path = dir.join("again.rgrk");
    persist::save(&index, &path, &NEVER).unwrap();
    assert!(std::fs::read(&path).unwrap() == bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cancelled_save_or_load_stops_and_leaves_the_old_file() {
    let mut rng = StdRng::seed_from_u64(5);
    let docs = (0..50).map(|i| random_doc(&mut rng, format!("d{i}"), 40)).collect();
    let mut index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    index.add(docs, false).unwrap();
    let dir = scratch_dir("ragrank-cancel");
    let path = dir.join("idx.rgrk");
    persist::save(&index, &path, &NEVER).unwrap();
    let before = std::fs::read(&path).unwrap();
    index.remove(&["d1".into()]);
    let err = persist::save(&index, &path, &AtomicBool::new(true)).err().unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
    assert!(std::fs::read(&path).unwrap() == before);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("idx.rgrk")]);
    let err = persist::load(&path, &AtomicBool::new(true)).err().unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cancelled_batch_fails_with_aborted() {
    let mut index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    index
        .add(
            vec![NewDoc {
                id: "a".into(),
                text: Some("alpha".into()),
                ..Default::default()
            }],
            false,
        )
        .unwrap();
    let queries = [Query::Text("alpha")];
    let err = index
        .search_batch_cancellable(&queries, &opts(3, Strategy::Auto), &AtomicBool::new(true))
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
    let hits = index
        .search_batch_cancellable(&queries, &opts(3, Strategy::Auto), &NEVER)
        .unwrap();
    assert_eq!(hits[0].len(), 1);
}

#[test]
fn options_json_takes_defaults_and_names_bad_values() {
    assert_eq!(IndexConfig::from_json("{}").unwrap(), IndexConfig::default());
    let cfg = IndexConfig::from_json(r#"{"params":{"k1":1.2},"analyzer":"bm25s","storeText":false}"#).unwrap();
    assert_eq!(
        (cfg.params.k1, cfg.params.b, cfg.params.variant),
        (1.2, 0.75, Variant::Lucene)
    );
    assert!(!cfg.store_text);
    assert_eq!(cfg.analyzer, AnalyzerConfig::preset("bm25s").unwrap());
    // The saved form (every field written out) reads back as it was.
    let json = serde_json::to_string(&cfg).unwrap();
    assert_eq!(IndexConfig::from_json(&json).unwrap(), cfg);
    let e = IndexConfig::from_json(r#"{"params":{"variant":"bm26"}}"#).unwrap_err();
    assert!(e.message.starts_with("options.variant must be one of"), "{}", e.message);
    let e = IndexConfig::from_json(r#"{"analyzer":{"cjk":"trigram"}}"#).unwrap_err();
    assert!(e.message.starts_with("options.analyzer.cjk"), "{}", e.message);
    let k1 = IndexConfig::from_json(r#"{"params":{"k1":"Infinity"}}"#).unwrap();
    assert!(Bm25Index::new(k1).err().unwrap().message.starts_with("options.k1"));
    assert!(IndexConfig::from_json("{")
        .unwrap_err()
        .message
        .starts_with("bad index options"));
}
