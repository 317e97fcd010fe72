use std::sync::atomic::AtomicBool;

use ragrank_core::analysis::AnalyzerConfig;
use ragrank_core::bm25::{
    persist, Bm25Index, Filter, Hit, IndexConfig, NewDoc, Params, Query, SearchOptions, Snapshot, Strategy, Variant,
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
        ..IndexConfig::default()
    }
}

/// Metadata of the kinds a multi-tenant server stores: a tenant of few documents, a year
/// (sometimes an ISO date string, or missing), a small group, tags, a nested object.
fn random_meta(rng: &mut StdRng) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("g".into(), rng.random_range(0..3).into());
    m.insert("tenant".into(), format!("t{}", rng.random_range(0..40)).into());
    match rng.random_range(0..4) {
        0 => {}
        1 => {
            m.insert(
                "year".into(),
                format!("{}-0{}-01", rng.random_range(1990..2000), rng.random_range(1..10)).into(),
            );
        }
        _ => {
            m.insert("year".into(), rng.random_range(1990..2000).into());
        }
    }
    if rng.random_bool(0.5) {
        let tags: Vec<serde_json::Value> = (0..rng.random_range(0..3))
            .map(|i| format!("k{}", i + rng.random_range(0..3)).into())
            .collect();
        m.insert("tags".into(), tags.into());
    }
    if rng.random_bool(0.3) {
        m.insert(
            "src".into(),
            serde_json::json!({ "kind": if rng.random_bool(0.5) { "web" } else { "pdf" } }),
        );
    }
    serde_json::Value::Object(m)
}

/// A filter over `random_meta`'s fields: some selective (one tenant), some broad (a year
/// range), nested keys (scanned: not a dynamic field) and combinations.
fn random_meta_filter(rng: &mut StdRng) -> ragrank_core::filter::MetaFilter {
    let (a, b) = (rng.random_range(0..40), rng.random_range(0..40));
    let (t1, t2) = (format!("t{a}"), format!("t{b}"));
    let f = match rng.random_range(0..9) {
        0 => serde_json::json!({ "g": 1 }),
        1 => serde_json::json!({ "tenant": t1 }),
        2 => serde_json::json!({ "tenant": t1, "year": { "$gte": 1995 } }),
        3 => serde_json::json!({ "year": { "$gte": 1993, "$lt": 1997 } }),
        4 => serde_json::json!({ "year": { "$gte": "1995-01-01" } }),
        5 => serde_json::json!({ "tags": { "$in": ["k1", "k3"] }, "g": { "$ne": 2 } }),
        6 => serde_json::json!({ "$or": [{ "tenant": t1 }, { "year": { "$exists": false } }] }),
        7 => serde_json::json!({ "src.kind": "pdf", "tenant": { "$nin": [t1, t2] } }),
        _ => serde_json::json!({ "$not": { "year": { "$lte": 1991 } } }),
    };
    ragrank_core::filter::MetaFilter::compile(&f, "meta").unwrap()
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

fn ids(index: &Snapshot, hits: &[Hit]) -> Vec<(String, f32)> {
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

/// Asserts `snap` answers like an index built from scratch on `live` (in that order,
/// which is insertion order: an upserted document counts as new): same ids in the same
/// order with bit-identical scores, for both strategies, with and without filters.
fn assert_equals_rebuilt(snap: &Snapshot, live: &[NewDoc], variant: Variant, rng: &mut StdRng, vocab: usize) {
    // Rebuilt without field indexes: every filter is the scan of each document's metadata.
    let scratch = Bm25Index::new(IndexConfig {
        dynamic_fields: false,
        ..config(variant)
    })
    .unwrap();
    scratch.add(live.to_vec(), false).unwrap();
    let scratch = scratch.snapshot();
    // Precomputed tf parts must score exactly as the parts computed per query.
    if rng.random_bool(0.5) {
        scratch.precompute();
    }
    assert_eq!(scratch.segments().len(), usize::from(!live.is_empty()));
    assert_eq!(snap.len(), scratch.len());
    assert_eq!(snap.stats().terms, scratch.stats().terms, "{variant:?}: live terms");
    assert_eq!(snap.stats().postings, scratch.stats().postings, "{variant:?}: postings");
    assert_eq!(snap.avg_len(), scratch.avg_len());
    // Counted incrementally (terms coming and going): a count that went below 0 wraps.
    assert!(snap.stats().memory_bytes < 1 << 40, "{}", snap.stats().memory_bytes);
    let some_ids: Vec<&str> = live
        .iter()
        .filter(|_| rng.random_bool(0.3))
        .map(|d| d.id.as_str())
        .collect();
    for _ in 0..5 {
        let q = churn_query(rng, live, vocab);
        let meta = random_meta_filter(rng);
        let by_id = rng.random_bool(0.3);
        for strategy in [Strategy::Exhaustive, Strategy::MaxScore] {
            for filtered in [false, true] {
                let with = |s: &Snapshot| SearchOptions {
                    top_k: 10,
                    strategy,
                    filter: filtered.then(|| Filter {
                        slots: by_id.then(|| s.slots_of(some_ids.iter().copied())),
                        meta: Some(meta.clone()),
                    }),
                };
                let a = snap.search(&Query::Text(&q), &with(snap));
                let b = scratch.search(&Query::Text(&q), &with(&scratch));
                assert_eq!(
                    ids(snap, &a),
                    ids(&scratch, &b),
                    "{variant:?} {strategy:?} filtered {filtered} query {q:?} over {} segments",
                    snap.segments().len()
                );
            }
        }
    }
}

/// A write of the randomized test, applied to the model at the refresh that publishes it.
enum ModelOp {
    Add(Vec<NewDoc>),
    Remove(Vec<String>),
}

fn apply_model(live: &mut Vec<NewDoc>, op: ModelOp) {
    match op {
        ModelOp::Add(docs) => {
            for d in docs {
                live.retain(|l| l.id != d.id);
                live.push(d);
            }
        }
        ModelOp::Remove(ids) => live.retain(|l| !ids.contains(&l.id)),
    }
}

/// Interleaves staged adds, removes and upserts with refreshes, merges, searches and
/// save/load round trips; every search must equal an index built from scratch on the
/// documents visible then. Background merges run meanwhile too (they never change what
/// is visible).
#[test]
fn incremental_equals_rebuilt_from_scratch() {
    let mut rng = StdRng::seed_from_u64(7);
    let dir = scratch_dir("ragrank-incremental");
    let path = dir.join("idx.rgrk");
    let mut max_segments = 0;
    for variant in VARIANTS {
        let mut index = Bm25Index::new(config(variant)).unwrap();
        index.set_refresh_interval(None);
        // `visible`: what searches see; `all`: visible plus staged (what `contains` sees).
        let mut visible: Vec<NewDoc> = Vec::new();
        let mut all: Vec<NewDoc> = Vec::new();
        let mut staged: Vec<ModelOp> = Vec::new();
        let (mut next, mut token) = (0, 0);
        let mut doc = |rng: &mut StdRng, id: String, unique: usize| {
            let mut d = churned_doc(rng, id, 60, unique, &mut token);
            d.meta = Some(random_meta(rng));
            d
        };
        for round in 0..150 {
            let roll: f64 = rng.random();
            if roll < 0.4 || all.is_empty() {
                // Now and then a batch over the staged lock's small-operation size (its own id set).
                let size = if rng.random_bool(0.06) {
                    300
                } else {
                    rng.random_range(1..20)
                };
                let batch: Vec<NewDoc> = (0..size)
                    .map(|_| {
                        next += 1;
                        let unique = rng.random_range(0..3);
                        doc(&mut rng, format!("d{next}"), unique)
                    })
                    .collect();
                let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, batch.clone()).unwrap();
                assert_eq!(index.stage_add(prepared, false).unwrap(), batch.len());
                apply_model(&mut all, ModelOp::Add(batch.clone()));
                staged.push(ModelOp::Add(batch));
            } else if roll < 0.65 {
                let n = if all.len() > 400 && rng.random_bool(0.15) {
                    rng.random_range(300..=400)
                } else {
                    rng.random_range(1..=all.len().min(8))
                };
                let mut gone: Vec<String> = (0..n).map(|_| all[rng.random_range(0..all.len())].id.clone()).collect();
                gone.sort();
                gone.dedup();
                let expected = gone.len();
                gone.push("never-added".into());
                assert_eq!(index.stage_remove(&gone).unwrap(), expected);
                apply_model(&mut all, ModelOp::Remove(gone.clone()));
                staged.push(ModelOp::Remove(gone));
            } else if roll < 0.85 {
                // Upsert: replace some documents (their terms churn) and add a new one.
                let n = rng.random_range(1..=all.len().min(6));
                let mut batch: Vec<NewDoc> = Vec::new();
                for _ in 0..n {
                    let id = all[rng.random_range(0..all.len())].id.clone();
                    if batch.iter().all(|d| d.id != id) {
                        let unique = rng.random_range(0..3);
                        batch.push(doc(&mut rng, id, unique));
                    }
                }
                next += 1;
                batch.push(doc(&mut rng, format!("d{next}"), 1));
                let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, batch.clone()).unwrap();
                assert_eq!(index.stage_add(prepared, true).unwrap(), batch.len());
                apply_model(&mut all, ModelOp::Add(batch.clone()));
                staged.push(ModelOp::Add(batch));
            } else if roll < 0.93 {
                index.merge();
            } else {
                index.force_merge();
            }
            // Staged writes are invisible to searches but known to `contains`, removals too.
            assert!(all.iter().all(|d| index.contains(&d.id)));
            let live: std::collections::HashSet<&str> = all.iter().map(|d| d.id.as_str()).collect();
            for k in 1..=next {
                let id = format!("d{k}");
                assert_eq!(index.contains(&id), live.contains(id.as_str()), "{id} in round {round}");
            }
            if rng.random_bool(0.4) {
                index.refresh();
                staged.drain(..).for_each(|op| apply_model(&mut visible, op));
                assert_eq!(index.pending(), 0);
            }
            let snap = index.snapshot();
            max_segments = max_segments.max(snap.segments().len());
            assert_equals_rebuilt(&snap, &visible, variant, &mut rng, 60);
            if round % 25 == 24 {
                // A save writes what is visible; staged writes are not in the file.
                persist::save(&snap, &path, &NEVER).unwrap();
                let loaded = persist::load(&path, &NEVER).unwrap();
                assert_equals_rebuilt(&loaded.snapshot(), &visible, variant, &mut rng, 60);
                if staged.is_empty() {
                    index = loaded;
                    index.set_refresh_interval(None);
                }
            }
        }
    }
    assert!(
        max_segments >= 4,
        "the test must search many segments, saw {max_segments}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The reported leak: 1,000 live documents whose replacements bring unique tokens. The
/// vocabulary and the memory must follow the live documents, not the rounds.
#[test]
fn churn_of_unique_tokens_keeps_vocabulary_and_memory_bounded() {
    const LIVE: usize = 1000;
    let mut rng = StdRng::seed_from_u64(17);
    let (mut next, mut token) = (0, 0);
    let index = Bm25Index::new(config(Variant::Lucene)).unwrap();
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
        assert_eq!(index.remove(&gone).unwrap(), 25);
        let fresh: Vec<NewDoc> = (0..25)
            .map(|_| {
                next += 1;
                churned_doc(&mut rng, format!("d{next}"), 200, 3, &mut token)
            })
            .collect();
        index.add(fresh.clone(), false).unwrap();
        live.extend(fresh);
        // What the background thread does between writes, run here so the test is deterministic.
        index.merge();
        let stats = index.stats();
        memory.push(stats.memory_bytes);
        terms.push(stats.terms);
        if round % 60 == 59 {
            assert_equals_rebuilt(&index.snapshot(), &live, Variant::Lucene, &mut rng, 200);
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

    // After a mass removal that nothing refills, merges shrink the segments too.
    let steady = *memory.last().unwrap();
    let gone: Vec<String> = live.drain(10..).map(|d| d.id).collect();
    assert_eq!(index.remove(&gone).unwrap(), LIVE - 10);
    index.merge();
    let after = index.stats().memory_bytes;
    assert!(after < steady / 4, "{after} bytes left of {steady} for 10 documents");
    assert_equals_rebuilt(&index.snapshot(), &live, Variant::Lucene, &mut rng, 200);
}

/// Readers search in a loop while a writer adds, removes and refreshes and merges run
/// (background and explicit): every snapshot a reader loads is whole (its N is the
/// number of documents it can find, each of them once).
#[test]
fn readers_never_see_a_torn_snapshot() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let index = Arc::new(Bm25Index::new(config(Variant::Bm25plus)).unwrap());
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (index, done) = (index.clone(), done.clone());
            std::thread::spawn(move || {
                let mut checked = 0usize;
                while !done.load(Ordering::Relaxed) {
                    let snap = index.snapshot();
                    let hits = snap.search(&Query::Text("all"), &opts(1 << 20, Strategy::Auto));
                    assert_eq!(hits.len(), snap.len(), "N is the count of live documents found");
                    assert_eq!(snap.docs().count(), snap.len());
                    let mut seen: Vec<&str> = hits.iter().map(|h| snap.doc(h.slot).id).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    assert_eq!(seen.len(), snap.len(), "each live document once");
                    assert_eq!(snap.stats().documents, snap.len());
                    checked += 1;
                }
                checked
            })
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(23);
    let mut next = 0;
    let mut live: Vec<String> = Vec::new();
    for round in 0..400 {
        let batch: Vec<NewDoc> = (0..rng.random_range(1..30))
            .map(|_| {
                next += 1;
                let mut d = random_doc(&mut rng, format!("d{next}"), 50);
                d.text = Some(format!("all {}", d.text.unwrap()));
                d
            })
            .collect();
        live.extend(batch.iter().map(|d| d.id.clone()));
        let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, batch).unwrap();
        index.stage_add(prepared, false).unwrap();
        let gone: Vec<String> = (0..rng.random_range(0..10).min(live.len()))
            .map(|_| live.swap_remove(rng.random_range(0..live.len())))
            .collect();
        assert_eq!(index.stage_remove(&gone).unwrap(), gone.len());
        if !index.try_refresh() || round % 7 == 0 {
            index.refresh();
        }
        if round % 50 == 49 {
            index.force_merge();
        }
    }
    index.refresh();
    done.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert_eq!(index.len(), live.len());
    assert_eq!(index.pending(), 0);
}

#[test]
fn maxscore_equals_exhaustive() {
    let mut rng = StdRng::seed_from_u64(11);
    for variant in VARIANTS {
        let index = Bm25Index::new(config(variant)).unwrap();
        let docs: Vec<NewDoc> = (0..3000).map(|i| random_doc(&mut rng, format!("d{i}"), 400)).collect();
        index.add(docs, false).unwrap();
        index
            .remove(&(0..300).map(|i| format!("d{}", i * 7)).collect::<Vec<_>>())
            .unwrap();
        // The same snapshot with its tf parts precomputed (a clone starts without them).
        let cached = (*index.snapshot()).clone();
        cached.precompute();
        assert!(cached.is_precomputed());
        for _ in 0..200 {
            let q = (0..rng.random_range(1..7))
                .map(|_| zipf_word(&mut rng, 400))
                .collect::<Vec<_>>()
                .join(" ");
            for k in [1, 10, 100] {
                let a = index
                    .snapshot()
                    .search(&Query::Text(&q), &opts(k, Strategy::Exhaustive));
                let b = index.snapshot().search(&Query::Text(&q), &opts(k, Strategy::MaxScore));
                assert_eq!(a, b, "{variant:?} k={k} query {q:?}");
                let c = cached.search(&Query::Text(&q), &opts(k, Strategy::Exhaustive));
                let d = cached.search(&Query::Text(&q), &opts(k, Strategy::MaxScore));
                assert_eq!((&a, &a), (&c, &d), "{variant:?} k={k} query {q:?}, precomputed");
            }
        }
    }
}

#[test]
fn ties_go_to_the_earlier_document() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
    let docs = ["c", "a", "b"].map(|id| NewDoc {
        id: id.into(),
        text: Some("same words".into()),
        ..Default::default()
    });
    index.add(docs.to_vec(), false).unwrap();
    let snap = index.snapshot();
    let hits = snap.search(&Query::Text("words"), &opts(3, Strategy::Auto));
    assert_eq!(
        ids(&snap, &hits).iter().map(|h| h.0.as_str()).collect::<Vec<_>>(),
        ["c", "a", "b"]
    );
}

#[test]
fn duplicate_ids_fail_without_changing_the_index() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
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
    assert!(index
        .snapshot()
        .search(&Query::Text("beta"), &opts(5, Strategy::Auto))
        .is_empty());
    index.add(vec![doc("a", "gamma")], true).unwrap();
    assert_eq!(index.len(), 1);
    assert!(index
        .snapshot()
        .search(&Query::Text("alpha"), &opts(5, Strategy::Auto))
        .is_empty());
    assert_eq!(
        index
            .snapshot()
            .search(&Query::Text("gamma"), &opts(5, Strategy::Auto))
            .len(),
        1
    );
}

#[test]
fn filters_apply_inside_the_scan() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
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
    let snap = index.snapshot();
    for strategy in [Strategy::Exhaustive, Strategy::MaxScore] {
        let hits = snap.search(
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
            .all(|h| snap.doc(h.slot).meta.as_ref().unwrap()["even"] == true));
    }
}

#[test]
fn save_and_load_round_trip() {
    let dir = scratch_dir("ragrank-test");
    let path = dir.join("idx.rgrk");
    let mut rng = StdRng::seed_from_u64(3);
    let index = Bm25Index::new(config(Variant::Bm25plus)).unwrap();
    let mut docs: Vec<NewDoc> = (0..500).map(|i| random_doc(&mut rng, format!("d{i}"), 100)).collect();
    docs[3].meta = Some(serde_json::json!({"lang": "ko", "n": [1, 2]}));
    index.add(docs, false).unwrap();
    index.remove(&["d1".into(), "d10".into()]).unwrap();
    persist::save(&index.snapshot(), &path, &NEVER).unwrap();
    let loaded = persist::load(&path, &NEVER).unwrap();
    assert_eq!(loaded.len(), index.len());
    let (index, loaded) = (index.snapshot(), loaded.snapshot());
    assert_eq!(
        loaded.doc(2).meta.as_deref(),
        Some(&serde_json::json!({"lang": "ko", "n": [1, 2]}))
    );
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
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
    assert!(index
        .snapshot()
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
    assert!(index
        .snapshot()
        .search(&Query::Text(""), &opts(10, Strategy::Auto))
        .is_empty());
    assert!(index
        .snapshot()
        .search(&Query::Text("   "), &opts(10, Strategy::Auto))
        .is_empty());
    assert!(index
        .snapshot()
        .search(&Query::Text("unknownterm"), &opts(10, Strategy::Auto))
        .is_empty());
    assert!(index
        .snapshot()
        .search(&Query::Text("ipsum"), &opts(0, Strategy::Auto))
        .is_empty());
    let snap = index.snapshot();
    let hits = snap.search(&Query::Text("ipsum"), &opts(1000, Strategy::Auto));
    let mut got: Vec<String> = ids(&snap, &hits).into_iter().map(|h| h.0).collect();
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
    let hits = index.snapshot().search(&Query::Text("cats"), &opts(3, Strategy::Auto));
    assert_eq!(hits.len(), 3);
    let dir = scratch_dir("ragrank-golden");
    let path = dir.join("again.rgrk");
    persist::save(&index.snapshot(), &path, &NEVER).unwrap();
    assert!(std::fs::read(&path).unwrap() == bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cancelled_save_or_load_stops_and_leaves_the_old_file() {
    let mut rng = StdRng::seed_from_u64(5);
    let docs = (0..50).map(|i| random_doc(&mut rng, format!("d{i}"), 40)).collect();
    let index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    index.add(docs, false).unwrap();
    let dir = scratch_dir("ragrank-cancel");
    let path = dir.join("idx.rgrk");
    persist::save(&index.snapshot(), &path, &NEVER).unwrap();
    let before = std::fs::read(&path).unwrap();
    index.remove(&["d1".into()]).unwrap();
    let err = persist::save(&index.snapshot(), &path, &AtomicBool::new(true))
        .err()
        .unwrap();
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
    let index = Bm25Index::new(config(Variant::Lucene)).unwrap();
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
        .snapshot()
        .search_batch_cancellable(&queries, &opts(3, Strategy::Auto), &AtomicBool::new(true))
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
    let hits = index
        .snapshot()
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

/// A sync remove (stage + `try_refresh`) while another thread holds the refresh for a long
/// apply returns at once, without publishing, and the holder publishes it before it is done:
/// the event-loop path never waits for the heavy work, and no staged write is stranded.
#[test]
fn a_sync_remove_during_a_long_refresh_returns_at_once_and_is_published_by_it() {
    const BIG: usize = 150_000;
    let mut rng = StdRng::seed_from_u64(23);
    let index = std::sync::Arc::new(Bm25Index::new(config(Variant::Lucene)).unwrap());
    index.set_refresh_interval(None);
    let small: Vec<NewDoc> = (0..200).map(|i| random_doc(&mut rng, format!("s{i}"), 500)).collect();
    index.add(small, false).unwrap();
    let big: Vec<NewDoc> = (0..BIG).map(|i| random_doc(&mut rng, format!("b{i}"), 5000)).collect();
    // Analysed here, so the writer's time under the refresh mutex is the apply.
    let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), true, big).unwrap();
    let writer = {
        let index = index.clone();
        std::thread::spawn(move || index.add_refreshed(prepared, false).unwrap())
    };
    // Staged under the writer's refresh mutex: from here until it publishes, a refresh waits.
    while index.pending() < BIG {
        std::thread::yield_now();
    }
    let mut removed = Vec::new();
    let mut returned_first = 0;
    while removed.len() < 150 {
        let id = format!("s{}", removed.len());
        assert_eq!(index.stage_remove(std::slice::from_ref(&id)).unwrap(), 1);
        let ran = index.try_refresh();
        // `contains` counts staged writes.
        assert!(!index.contains(&id));
        removed.push(id);
        // Still unpublished: this call returned before the writer's refresh ended.
        if !index.snapshot().contains("b0") {
            assert!(!ran, "a sync call ran a refresh while another thread held it");
            returned_first += 1;
        } else {
            break;
        }
    }
    assert_eq!(writer.join().unwrap(), BIG);
    assert!(returned_first > 0, "no remove ran during the writer's refresh");
    let snap = index.snapshot();
    assert!(snap.contains("b0") && snap.contains(&format!("b{}", BIG - 1)));
    assert!(
        removed.iter().all(|id| !snap.contains(id)),
        "a staged remove was stranded"
    );
    assert_eq!(index.pending(), 0);
    assert_eq!(snap.len(), 200 - removed.len() + BIG);
}

/// One document added and one removed a call, with a bigger batch now and then (the
/// probe's writer at 100 writes/s): the segment count stays bounded whatever the number of
/// calls, and scores stay those of an index built from scratch.
#[test]
fn steady_single_document_writes_keep_few_segments() {
    let mut rng = StdRng::seed_from_u64(29);
    let (mut token, mut next) = (0, 0);
    let index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    index.set_refresh_interval(None);
    let mut live: Vec<NewDoc> = (0..20_000)
        .map(|i| churned_doc(&mut rng, format!("d{i}"), 300, 1, &mut token))
        .collect();
    next += live.len();
    index.add(live.clone(), false).unwrap();
    let mut max_segments = 0;
    for call in 0..4000 {
        let mut batch = vec![churned_doc(&mut rng, format!("d{next}"), 300, 1, &mut token)];
        next += 1;
        if call % 300 == 299 {
            for _ in 0..2000 {
                batch.push(churned_doc(&mut rng, format!("d{next}"), 300, 1, &mut token));
                next += 1;
            }
        }
        index.add(batch.clone(), false).unwrap();
        live.extend(batch);
        let gone = live.remove(rng.random_range(0..live.len())).id;
        assert_eq!(index.remove(&[gone]).unwrap(), 1);
        // What the background thread does after each publish.
        index.merge();
        max_segments = max_segments.max(index.snapshot().segments().len());
        if call % 1000 == 999 {
            assert_equals_rebuilt(&index.snapshot(), &live, Variant::Lucene, &mut rng, 300);
        }
    }
    assert!(max_segments <= 12, "{max_segments} segments");
}

/// Long lists whose high term frequencies sit in a few clustered runs of documents, so most
/// blocks bound far below a term's maximum and block-max MaxScore skips whole block runs:
/// every strategy, on the fly and precomputed, must still give the exhaustive hits exactly,
/// with filters and removed documents, over several segments whose average length grew.
/// `strategies` on both snapshots (as built and precomputed) against exhaustive search on the
/// first, with no filter and with `allowed` as the filter: same hits, order and scores.
fn assert_strategies_match(
    snaps: [&Snapshot; 2],
    q: &[String],
    k: usize,
    allowed: &rustc_hash::FxHashSet<u32>,
    strategies: &[Strategy],
    label: &str,
) {
    let filters = [
        None,
        Some(Filter {
            slots: Some(allowed.clone()),
            meta: None,
        }),
    ];
    for filter in filters {
        let o = |strategy| SearchOptions {
            top_k: k,
            strategy,
            filter: filter.clone(),
        };
        let want = snaps[0].search(&Query::Tokens(q), &o(Strategy::Exhaustive));
        assert!(!want.is_empty());
        for &strategy in strategies {
            for s in snaps {
                let got = s.search(&Query::Tokens(q), &o(strategy));
                assert_eq!(
                    want,
                    got,
                    "{label} {strategy:?} k={k} {q:?} filtered {} precomputed {}",
                    filter.is_some(),
                    s.is_precomputed()
                );
            }
        }
    }
}

#[test]
fn block_skipping_equals_exhaustive() {
    let mut rng = StdRng::seed_from_u64(22);
    for variant in VARIANTS {
        let index = Bm25Index::new(config(variant)).unwrap();
        let mut next = 0;
        // Three segments, each with longer documents than the last (the average grows, so the
        // on-the-fly bounds of the earlier ones are scaled up).
        for (batch, extra) in [(6000, 0), (5000, 10), (4000, 25)] {
            let hot: Vec<usize> = (0..4).map(|_| rng.random_range(0..batch)).collect();
            let docs: Vec<NewDoc> = (0..batch)
                .map(|i| {
                    let near_hot = hot.iter().any(|&h| i.abs_diff(h) < 40);
                    let mut tokens = Vec::new();
                    for (t, p) in [("a", 0.9), ("b", 0.5), ("c", 0.2), ("d", 0.05)] {
                        if rng.random_bool(p) {
                            let tf = if near_hot && rng.random_bool(0.5) {
                                rng.random_range(3..12)
                            } else {
                                1
                            };
                            tokens.extend(std::iter::repeat_n(t.to_string(), tf));
                        }
                    }
                    let filler = rng.random_range(1..10) + extra;
                    tokens.extend((0..filler).map(|_| zipf_word(&mut rng, 300)));
                    next += 1;
                    NewDoc {
                        id: format!("d{}", next - 1),
                        tokens: Some(tokens),
                        ..Default::default()
                    }
                })
                .collect();
            index.add(docs, false).unwrap();
        }
        index
            .remove(&(0..next).step_by(13).map(|i| format!("d{i}")).collect::<Vec<_>>())
            .unwrap();
        let snap = index.snapshot();
        assert!(snap.segments().len() > 1, "several segments");
        let cached = (*snap).clone();
        cached.precompute();
        let allowed = snap.slots_of(
            (0..next)
                .filter(|i| i % 3 != 1)
                .map(|i| format!("d{i}"))
                .collect::<Vec<_>>()
                .iter()
                .map(|s| s.as_str()),
        );
        let queries = ["a b", "a b c", "a c d", "b d", "a b c d", "d a w1 w2", "c"];
        // A query of more than 64 distinct terms (the matched terms' order is then kept by a sort).
        let long: Vec<String> = ["b".to_string()]
            .into_iter()
            .chain((0..90).map(|i| format!("w{i}")))
            .collect();
        let queries = queries.map(|q| q.split(' ').map(String::from).collect::<Vec<_>>());
        for q in queries.into_iter().chain([long]) {
            for k in (1..=100).step_by(7).chain([100]) {
                assert_strategies_match(
                    [&snap, &cached],
                    &q,
                    k,
                    &allowed,
                    &[Strategy::Exhaustive, Strategy::MaxScore, Strategy::Auto],
                    &format!("{variant:?}"),
                );
            }
        }
    }
}

/// The dense score rows of a precomputed small segment (its most frequent terms) give the
/// sparse, on-the-fly hits to the bit: one segment and several, with and without removed
/// documents and filters, queries that start with a dense term or a sparse one, repeats.
#[test]
fn dense_rows_equal_sparse_postings() {
    let mut rng = StdRng::seed_from_u64(33);
    for variant in VARIANTS {
        for (segments, remove) in [(1, false), (1, true), (3, true)] {
            let index = Bm25Index::new(config(variant)).unwrap();
            let mut next = 0;
            for _ in 0..segments {
                let docs: Vec<NewDoc> = (0..1500)
                    .map(|_| {
                        // "a", "b", "c" in more than half of the documents: rows; the rest sparse.
                        let mut tokens = Vec::new();
                        for (t, p) in [("a", 0.9), ("b", 0.7), ("c", 0.6), ("d", 0.2), ("e", 0.02)] {
                            if rng.random_bool(p) {
                                tokens.extend(std::iter::repeat_n(t.to_string(), rng.random_range(1..4)));
                            }
                        }
                        tokens.extend((0..rng.random_range(0..20)).map(|_| zipf_word(&mut rng, 300)));
                        next += 1;
                        NewDoc {
                            id: format!("d{}", next - 1),
                            tokens: Some(tokens),
                            ..Default::default()
                        }
                    })
                    .collect();
                index.add(docs, false).unwrap();
            }
            if remove {
                index
                    .remove(&(0..next).step_by(11).map(|i| format!("d{i}")).collect::<Vec<_>>())
                    .unwrap();
            }
            let sparse = index.snapshot();
            assert!(!sparse.is_precomputed());
            assert_eq!(sparse.stats().dense_terms, 0);
            let dense = (*sparse).clone();
            dense.precompute();
            let rows = dense.stats().dense_terms;
            if config(variant).params.positive_impacts() {
                assert!(rows >= 3 * dense.segments().len(), "{variant:?}: {rows} rows");
                assert!(dense.stats().memory_bytes > sparse.stats().memory_bytes);
            } else {
                assert_eq!(rows, 0, "{variant:?}: no rows where a score can be 0");
            }
            let allowed = sparse.slots_of(
                (0..next)
                    .filter(|i| i % 4 != 1)
                    .map(|i| format!("d{i}"))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|s| s.as_str()),
            );
            let queries = [
                "a",
                "a b",
                "b a c",
                "w3 a",
                "d b w1",
                "c c a d",
                "e w1 w2 a b c",
                "a a a",
                "d e",
            ];
            for q in queries.map(|q| q.split(' ').map(String::from).collect::<Vec<_>>()) {
                for k in [1, 10, 1000] {
                    for filter in [
                        None,
                        Some(Filter {
                            slots: Some(allowed.clone()),
                            meta: None,
                        }),
                    ] {
                        let o = SearchOptions {
                            top_k: k,
                            strategy: Strategy::Exhaustive,
                            filter,
                        };
                        let want = sparse.search(&Query::Tokens(&q), &o);
                        assert!(!want.is_empty());
                        assert_eq!(
                            want,
                            dense.search(&Query::Tokens(&q), &o),
                            "{variant:?} segments {segments} removed {remove} k={k} {q:?} filtered {}",
                            o.filter.is_some()
                        );
                    }
                }
            }
        }
    }
}

/// MaxScore evaluates large segments in windows of 2^16 documents (`bm25::windowed`):
/// matches on both sides of window edges, windows where the rare terms have no posting
/// (only the dense term, which is probed once the top k fills), and k above the number of
/// matches must give the exhaustive hits exactly, on the fly and precomputed, with filters
/// and removed documents.
#[test]
fn windowed_maxscore_equals_exhaustive_at_window_edges() {
    const W: usize = 1 << 16;
    let n = 3 * W + 123;
    // Documents holding the rare terms: around each window edge, at both ends, and a
    // run in the middle of the second window; the third window holds none of them.
    let edges = [0, 1, W - 1, W, W + 1, W + W / 2, 2 * W - 1, n - 2, n - 1];
    for variant in [Variant::Lucene, Variant::Robertson, Variant::Bm25plus] {
        let index = Bm25Index::new(config(variant)).unwrap();
        let docs: Vec<NewDoc> = (0..n)
            .map(|i| {
                // Every even document holds the dense term, so windows start at their edges.
                let mut tokens = vec![format!("f{}", i % 5)];
                if i % 2 == 0 {
                    tokens.extend(std::iter::repeat_n("a".to_string(), 1 + i % 3));
                }
                if let Some(e) = edges.iter().position(|&e| e == i) {
                    tokens.push("r".into());
                    tokens.extend(std::iter::repeat_n("s".to_string(), 1 + e % 4));
                }
                if i % 997 == 0 {
                    tokens.push("t".into());
                }
                NewDoc {
                    id: format!("d{i}"),
                    tokens: Some(tokens),
                    ..Default::default()
                }
            })
            .collect();
        index.add(docs, false).unwrap();
        index
            .remove(&[format!("d{}", W), format!("d{}", 2 * W - 1), format!("d{}", 4)])
            .unwrap();
        let snap = index.snapshot();
        let cached = (*snap).clone();
        cached.precompute();
        let allowed = snap.slots_of(
            (0..n)
                .filter(|i| i % 3 != 1)
                .map(|i| format!("d{i}"))
                .collect::<Vec<_>>()
                .iter()
                .map(|s| s.as_str()),
        );
        let queries = ["r", "r a", "s a", "r s a", "t a", "t r", "a", "a f1", "s t a f2"];
        for q in queries {
            let q: Vec<String> = q.split(' ').map(String::from).collect();
            for k in [1, 2, 5, 10, 100, 1000, n + 5] {
                assert_strategies_match(
                    [&snap, &cached],
                    &q,
                    k,
                    &allowed,
                    &[Strategy::MaxScore],
                    &format!("{variant:?}"),
                );
            }
        }
        // A rare term's hits sit exactly at the window edges: all of them are found.
        let hits = snap.search(&Query::Tokens(&["r".into()]), &opts(100, Strategy::MaxScore));
        let mut got: Vec<usize> = hits.iter().map(|h| snap.doc(h.slot).id[1..].parse().unwrap()).collect();
        got.sort_unstable();
        let live: Vec<usize> = edges.iter().copied().filter(|&e| e != W && e != 2 * W - 1).collect();
        assert_eq!(got, live, "{variant:?}");
    }
}

#[test]
fn a_batch_capped_to_any_number_of_threads_gives_the_same_hits() {
    let mut rng = StdRng::seed_from_u64(22);
    let index = Bm25Index::new(config(Variant::Lucene)).unwrap();
    let docs: Vec<NewDoc> = (0..3000).map(|i| random_doc(&mut rng, format!("d{i}"), 800)).collect();
    index.add(docs, false).unwrap();
    index.refresh();
    let texts: Vec<String> = (0..301)
        .map(|_| (0..4).map(|_| zipf_word(&mut rng, 800)).collect::<Vec<_>>().join(" "))
        .collect();
    let queries: Vec<Query> = texts.iter().map(|t| Query::Text(t)).collect();
    let snap = index.snapshot();
    let o = opts(10, Strategy::Auto);
    let expected: Vec<Vec<Hit>> = queries.iter().map(|q| snap.search(q, &o)).collect();
    assert!(expected.iter().any(|h| !h.is_empty()));
    for threads in [
        None,
        Some(0),
        Some(1),
        Some(2),
        Some(3),
        Some(300),
        Some(301),
        Some(5000),
    ] {
        let got = snap.search_batch_threads(&queries, &o, &NEVER, threads).unwrap();
        assert_eq!(got, expected, "threads {threads:?}");
    }
    let err = snap
        .search_batch_threads(&queries, &o, &AtomicBool::new(true), Some(1))
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Aborted);
}

/// Writes staged on one thread while another keeps refreshing: `contains` and the duplicate
/// check follow every write whether it is staged, in a running refresh or published, for
/// small operations (the staged lock's id maps) and big ones (their own id sets) alike.
#[test]
fn contains_follows_writes_while_another_thread_refreshes() {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let index = Arc::new(Bm25Index::new(config(Variant::Lucene)).unwrap());
    index.set_refresh_interval(None);
    let stop = Arc::new(AtomicBool::new(false));
    let refresher = {
        let (index, stop) = (index.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut refreshes = 0;
            while !stop.load(Ordering::Relaxed) {
                index.refresh();
                refreshes += 1;
            }
            refreshes
        })
    };
    let mut rng = StdRng::seed_from_u64(31);
    let (mut live, mut gone_ids, mut next) = (Vec::<String>::new(), Vec::<String>::new(), 0);
    for _ in 0..3000 {
        if live.is_empty() || rng.random_bool(0.6) {
            let size = if rng.random_bool(0.03) {
                300
            } else {
                rng.random_range(1..4)
            };
            let docs: Vec<NewDoc> = (0..size)
                .map(|_| {
                    next += 1;
                    random_doc(&mut rng, format!("d{next}"), 400)
                })
                .collect();
            let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
            let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), false, docs).unwrap();
            assert_eq!(index.stage_add(prepared, false).unwrap(), size);
            assert!(ids.iter().all(|id| index.contains(id)));
            live.extend(ids);
        } else {
            let n = if live.len() > 300 && rng.random_bool(0.05) {
                300
            } else {
                1
            };
            let gone: Vec<String> = (0..n)
                .map(|_| live.swap_remove(rng.random_range(0..live.len())))
                .collect();
            assert_eq!(index.stage_remove(&gone).unwrap(), n);
            assert!(gone.iter().all(|id| !index.contains(id)));
            gone_ids.extend(gone);
        }
        let id = live[rng.random_range(0..live.len())].clone();
        assert!(index.contains(&id));
        let again = random_doc(&mut rng, id, 400);
        let prepared = ragrank_core::bm25::prepare_docs(&index.analyzer(), false, vec![again]).unwrap();
        assert_eq!(
            index.stage_add(prepared, false).unwrap_err().kind,
            ErrorKind::DuplicateId
        );
        if let Some(id) = gone_ids.last() {
            assert!(!index.contains(id));
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(
        refresher.join().unwrap() > 10,
        "the refreshes must interleave with the writes"
    );
    index.refresh();
    assert_eq!(index.len(), live.len());
    assert_eq!(index.pending(), 0);
    assert!(live.iter().all(|id| index.contains(id)));
    assert!(gone_ids.iter().all(|id| !index.contains(id)));
}

/// A value of the wrong type for a declared field fails the whole add, naming the document
/// and the field; the index is unchanged. The field's filters then use its index.
#[test]
fn declared_field_types_are_checked_at_add() {
    let config =
        IndexConfig::from_json(r#"{ "fields": { "year": "number", "tenant": "keyword", "body": false } }"#).unwrap();
    let index = Bm25Index::new(config).unwrap();
    let doc = |id: &str, meta: serde_json::Value| NewDoc {
        id: id.into(),
        text: Some("alpha beta".into()),
        meta: Some(meta),
        ..Default::default()
    };
    let err = index
        .add(
            vec![
                doc("a", serde_json::json!({ "year": 2001, "tenant": "x" })),
                doc("b", serde_json::json!({ "year": "2001" })),
            ],
            false,
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArg);
    assert!(
        err.message.contains("document 1 (\"b\")") && err.message.contains("meta.year is declared number"),
        "{}",
        err.message
    );
    assert_eq!(index.snapshot().len(), 0);
    assert!(!index.contains("a"));
    index
        .add(
            vec![doc(
                "a",
                serde_json::json!({ "year": 2001, "tenant": "x", "body": "y" }),
            )],
            false,
        )
        .unwrap();
    let snap = index.snapshot();
    let search = |f: serde_json::Value| {
        let meta = ragrank_core::filter::MetaFilter::compile(&f, "meta").unwrap();
        let filter = Filter {
            slots: None,
            meta: Some(meta),
        };
        snap.search(
            &Query::Text("alpha"),
            &SearchOptions {
                top_k: 5,
                filter: Some(filter),
                ..Default::default()
            },
        )
        .len()
    };
    assert_eq!(search(serde_json::json!({ "year": { "$gt": 2000 }, "tenant": "x" })), 1);
    assert_eq!(snap.stats().scanned_filter_searches, 0);
    assert_eq!(search(serde_json::json!({ "body": "y" })), 1);
    let stats = snap.stats();
    assert_eq!((stats.filtered_searches, stats.scanned_filter_searches), (2, 1));
    assert_eq!(stats.scanned_filter_fields, vec!["body".to_string()]);
    assert!(stats.field_index_bytes.contains_key("year") && !stats.field_index_bytes.contains_key("body"));
    let bad = IndexConfig::from_json(r#"{ "fields": { "year": "integer" } }"#).unwrap_err();
    assert!(bad.message.contains("options.fields.year must be"), "{}", bad.message);
}

fn meta_doc(id: &str, meta: serde_json::Value) -> NewDoc {
    NewDoc {
        id: id.into(),
        text: Some(format!("common words of {id}")),
        meta: Some(meta),
        ..Default::default()
    }
}

fn compile(f: serde_json::Value) -> ragrank_core::filter::MetaFilter {
    ragrank_core::filter::MetaFilter::compile(&f, "filter").unwrap()
}

#[test]
fn matching_equals_a_scan_of_the_live_documents_with_and_without_field_indexes() {
    let mut rng = StdRng::seed_from_u64(41);
    let indexed = Bm25Index::new(IndexConfig::default()).unwrap();
    let scanned = Bm25Index::new(IndexConfig {
        dynamic_fields: false,
        ..IndexConfig::default()
    })
    .unwrap();
    // The model: live ids in insertion order with their metadata.
    let mut live: Vec<(String, serde_json::Value)> = Vec::new();
    let mut next = 0;
    for round in 0..12 {
        let docs: Vec<NewDoc> = (0..rng.random_range(1..200))
            .map(|_| {
                next += 1;
                meta_doc(&format!("d{next}"), random_meta(&mut rng))
            })
            .collect();
        live.extend(docs.iter().map(|d| (d.id.clone(), d.meta.clone().unwrap())));
        for index in [&indexed, &scanned] {
            index.add(docs.clone(), false).unwrap();
        }
        if round % 3 == 2 {
            let gone: Vec<String> = live
                .iter()
                .filter(|_| rng.random_bool(0.1))
                .map(|d| d.0.clone())
                .collect();
            for index in [&indexed, &scanned] {
                index.remove(&gone).unwrap();
            }
            live.retain(|d| !gone.contains(&d.0));
            // An upsert moves the document to the end of the insertion order.
            let again: Vec<NewDoc> = live
                .iter()
                .take(3)
                .map(|d| meta_doc(&d.0, random_meta(&mut rng)))
                .collect();
            for index in [&indexed, &scanned] {
                index.add(again.clone(), true).unwrap();
            }
            live.drain(..again.len().min(live.len()));
            live.extend(again.iter().map(|d| (d.id.clone(), d.meta.clone().unwrap())));
        }
        if round == 7 {
            indexed.merge();
        }
    }
    assert!(indexed.snapshot().segments().len() > 1);
    for _ in 0..200 {
        let filter = random_meta_filter(&mut rng);
        let want: Vec<&str> = live
            .iter()
            .filter(|(_, m)| filter.matches(Some(m)))
            .map(|(id, _)| id.as_str())
            .collect();
        for (name, index) in [("indexed", &indexed), ("scanned", &scanned)] {
            let snap = index.snapshot();
            let got = snap.matching_ids(&filter);
            let got: Vec<&str> = got.iter().map(|id| &**id).collect();
            assert_eq!(got, want, "{name} {filter:?}");
        }
    }
}

#[test]
fn matching_reads_field_indexes_and_scans_only_fields_they_do_not_cover() {
    let config = IndexConfig::from_json(r#"{ "fields": { "body": false } }"#).unwrap();
    let index = Bm25Index::new(config).unwrap();
    // More documents than one parallel run of the scan tests.
    let docs = (0..9000)
        .map(|i| meta_doc(&format!("d{i}"), serde_json::json!({ "tenant": format!("t{}", i % 30), "year": 2000 + i % 20, "body": i % 2, "src": { "kind": if i % 1000 == 0 { "web" } else { "pdf" } } })))
        .collect();
    index.add(docs, false).unwrap();
    let snap = index.snapshot();
    let never = AtomicBool::new(false);
    let matched = |f: &ragrank_core::filter::MetaFilter| {
        let mut unindexed = Vec::new();
        let docs = snap.matching(f, &never, &mut unindexed).unwrap();
        (docs.len(), unindexed.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    };
    let tenant = compile(serde_json::json!({ "tenant": "t7", "year": { "$gte": 2010 } }));
    assert_eq!(matched(&tenant), (150, vec![]));
    let body = compile(serde_json::json!({ "body": 1, "tenant": "t7" }));
    assert_eq!(matched(&body), (300, vec!["body".to_string()]));
    let nested = compile(serde_json::json!({ "src.kind": "web" }));
    assert_eq!(matched(&nested), (9, vec!["src.kind".to_string()]));
    let web: Vec<String> = snap.matching_ids(&nested).iter().map(|id| id.to_string()).collect();
    assert_eq!(
        web,
        (0..9).map(|k| format!("d{}", k * 1000)).collect::<Vec<_>>(),
        "in insertion order"
    );
    // As the scan decides: the stats of searches are not touched.
    assert_eq!(snap.stats().filtered_searches, 0);
}

#[test]
fn remove_matching_removes_the_matches_counts_them_and_searches_no_longer_see_them() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
    let docs = (0..300)
        .map(|i| {
            meta_doc(
                &format!("d{i}"),
                serde_json::json!({ "tenant": format!("t{}", i % 3), "year": 2000 + i % 10 }),
            )
        })
        .collect();
    index.add(docs, false).unwrap();
    let never = AtomicBool::new(false);
    assert_eq!(
        index
            .remove_matching(&compile(serde_json::json!({ "tenant": "t1" })), &never)
            .unwrap(),
        100
    );
    assert_eq!(index.len(), 200);
    assert!(!index.contains("d1") && index.contains("d0"));
    let range = compile(serde_json::json!({ "year": { "$gte": 2005, "$lt": 2008 } }));
    assert_eq!(index.remove_matching(&range, &never).unwrap(), 60);
    assert_eq!(index.remove_matching(&range, &never).unwrap(), 0, "none left");
    assert_eq!(
        index
            .remove_matching(&compile(serde_json::json!({ "tenant": "nobody" })), &never)
            .unwrap(),
        0
    );
    let snap = index.snapshot();
    let hits = snap.search(&Query::Text("common"), &opts(1000, Strategy::Auto));
    assert_eq!(hits.len(), 140);
    assert!(hits.iter().all(|h| {
        let doc = snap.doc(h.slot);
        let m = doc.meta.as_deref().unwrap();
        m["tenant"] != "t1" && !(2005..2008).contains(&m["year"].as_i64().unwrap())
    }));
    // Documents only staged before the call are published first, and matched.
    let staged = ragrank_core::bm25::prepare_docs(
        &index.analyzer(),
        true,
        vec![meta_doc("late", serde_json::json!({ "tenant": "t0" }))],
    )
    .unwrap();
    index.stage_add(staged, false).unwrap();
    assert_eq!(
        index
            .remove_matching(&compile(serde_json::json!({ "tenant": "t0" })), &never)
            .unwrap(),
        71
    );
    assert_eq!((index.len(), index.pending()), (70, 0));
}

#[test]
fn remove_matching_cancelled_removes_nothing() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
    let docs = (0..10)
        .map(|i| meta_doc(&format!("d{i}"), serde_json::json!({ "k": 1 })))
        .collect();
    index.add(docs, false).unwrap();
    let cancelled = AtomicBool::new(true);
    let filter = compile(serde_json::json!({ "k": 1 }));
    let e = index.remove_matching(&filter, &cancelled).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Aborted);
    let docs = index.snapshot().matching(&filter, &NEVER, &mut Vec::new()).unwrap();
    assert_eq!(
        index.remove_matched(docs, &cancelled).unwrap_err().kind,
        ErrorKind::Aborted
    );
    assert_eq!((index.len(), index.pending()), (10, 0));
}

#[test]
fn remove_matched_leaves_documents_removed_replaced_or_added_since_the_snapshot() {
    let index = Bm25Index::new(IndexConfig::default()).unwrap();
    index.set_refresh_interval(None);
    let t = |tenant: &str| serde_json::json!({ "tenant": tenant });
    let docs = (0..8).map(|i| meta_doc(&format!("d{i}"), t("a"))).collect();
    index.add(docs, false).unwrap();
    let filter = compile(serde_json::json!({ "tenant": "a" }));
    let matched = index.snapshot().matching(&filter, &NEVER, &mut Vec::new()).unwrap();
    assert_eq!(matched.len(), 8);
    // Published since the snapshot: an upsert (still tenant a), a remove, a new match, and
    // a merge that moves the documents into a new segment.
    index.add(vec![meta_doc("d0", t("a"))], true).unwrap();
    index.remove(&["d1".to_string()]).unwrap();
    index.add(vec![meta_doc("new", t("a"))], false).unwrap();
    index.force_merge();
    // Staged since, not yet published: an upsert, a remove, and an add.
    let prepared = |docs| ragrank_core::bm25::prepare_docs(&index.analyzer(), true, docs).unwrap();
    index.stage_add(prepared(vec![meta_doc("d2", t("a"))]), true).unwrap();
    assert_eq!(index.stage_remove(&["d3".to_string()]).unwrap(), 1);
    index
        .stage_add(prepared(vec![meta_doc("staged", t("a"))]), false)
        .unwrap();
    assert_eq!(index.remove_matched(matched, &NEVER).unwrap(), 4, "d4..d7");
    let snap = index.snapshot();
    let mut left: Vec<String> = snap.docs().map(|d| d.id.to_string()).collect();
    left.sort();
    assert_eq!(left, ["d0", "d2", "new", "staged"]);
    assert_eq!(index.pending(), 0);
}
